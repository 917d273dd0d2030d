package render

import (
	"os"
	"strings"
	"testing"
)

// TestDecodeImageBadAncillaryCRC: a PNG whose tEXt chunk has a bad CRC
// (as the MCP reference server's tiny image has) decodes, with a note.
func TestDecodeImageBadAncillaryCRC(t *testing.T) {
	src, err := os.ReadFile("testdata/badcrc.png")
	if err != nil {
		t.Fatal(err)
	}
	img, info, err := DecodeImage(src)
	if err != nil || img == nil || img.Bounds().Dx() != 2 {
		t.Fatalf("DecodeImage: %v", err)
	}
	if !strings.Contains(info.Note, "tEXt has a bad CRC") {
		t.Errorf("note %q, want it to name the skipped chunk", info.Note)
	}
	// A critical chunk with a bad CRC is still refused.
	bad := append([]byte(nil), src...)
	bad[8+8+13] ^= 0xff // IHDR's CRC
	if _, _, err := DecodeImage(bad); err == nil {
		t.Error("a PNG with a bad IHDR CRC decoded")
	}
}
