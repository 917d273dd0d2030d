package viewer

import (
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/charmbracelet/x/ansi"
)

// utf16LE encodes s as UTF-16LE with a byte-order mark, as spreadsheets
// save "Unicode text".
func utf16LE(s string) []byte {
	out := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(s)) {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}

// TestUTF16ArtifactsAreDecoded opens a UTF-16 CSV in the table viewer and
// UTF-16 text in the text viewer: the cells and lines show
// their characters, the header names the encoding, nothing is called
// binary and no NUL reaches the screen.
func TestUTF16ArtifactsAreDecoded(t *testing.T) {
	csv := "name,city\nZoë,Kraków\nAda,London\n"
	for _, c := range []struct {
		name, mediaType, pres string
		src                   []byte
		want                  []string
	}{
		{"table.csv", "text/csv", "table", utf16LE(csv), []string{"city", "Kraków", "London"}},
		{"notes.txt", "text/plain", "text", utf16LE("first line\nsecond: Kraków\n"), []string{"first line", "second: Kraków"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := open(t, c.name, c.src, c.mediaType, c.pres, 80, 12, false)
			frame := ansi.Strip(f.frame())
			if f.m.Presentation() != c.pres {
				t.Errorf("presentation %q, want %q", f.m.Presentation(), c.pres)
			}
			for _, w := range append(c.want, "UTF-16LE") {
				if !strings.Contains(frame, w) {
					t.Errorf("frame lacks %q:\n%s", w, frame)
				}
			}
			if strings.ContainsAny(frame, "\x00␀") || strings.Contains(frame, "Binary") {
				t.Errorf("frame shows NULs or calls it binary:\n%s", frame)
			}
		})
	}
}
