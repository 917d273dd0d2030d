package probe

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"modbay/modproto"
	"modbay/render"
)

// fakeTool writes an executable shell script standing in for a probe.
func fakeTool(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMediaIsSanitized: names in the probed file reach the caller inert.
func TestMediaIsSanitized(t *testing.T) {
	ff := fakeTool(t, "ffprobe", `printf '{"format":{"format_long_name":"Evil \\u001b]0;pwned\\u0007 MOV","duration":"2.5"},"streams":[{"codec_type":"video","codec_name":"h264\\u001b[2J","width":640,"height":360}]}'`)
	mi, err := Tools{FFProbe: ff}.Media(context.Background(), "clip.mp4")
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsRune(mi.Format, 0x1b) || strings.ContainsRune(mi.Streams[0].Codec, 0x1b) {
		t.Errorf("escape passed through: %q %q", mi.Format, mi.Streams[0].Codec)
	}
	if mi.Duration != 2.5 || mi.Streams[0].Width != 640 {
		t.Errorf("parsed %+v", mi)
	}
}

// TestDocTextCappedAndSanitized: a pdftotext that spews is cut at
// OutputCap, and its escapes are inert.
func TestDocTextCappedAndSanitized(t *testing.T) {
	pt := fakeTool(t, "pdftotext", `printf 'Page one \033[31mred\n'; yes 0123456789abcdef | head -c 2000000`)
	s, err := Tools{PDFToText: pt}.DocText(context.Background(), "doc.pdf", []byte("%PDF-1.7"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s) > OutputCap+OutputCap/2 {
		t.Errorf("kept %d bytes, cap %d", len(s), OutputCap)
	}
	if strings.ContainsRune(s, 0x1b) || !strings.HasPrefix(s, "Page one") {
		t.Errorf("not sanitized: %q", s[:40])
	}
	if _, err := (Tools{PDFToText: pt}).DocText(context.Background(), "x.pdf", []byte("not a pdf")); err == nil {
		t.Error("a file that is not a PDF was probed")
	}
}

// TestProbeTimesOut: a probe that hangs is killed when its context ends,
// and Fill leaves the metadata as it was.
func TestProbeTimesOut(t *testing.T) {
	ff := fakeTool(t, "ffprobe", "exec sleep 30")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	var meta render.Meta
	Tools{FFProbe: ff}.Fill(ctx, modproto.PresentationVideo, "clip.mp4", nil, &meta)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("probe ran %v after its deadline", d)
	}
	if meta.Probe != nil {
		t.Error("a timed-out probe filled the metadata")
	}
	// Without the programs nothing runs and nothing is filled.
	Tools{}.Fill(context.Background(), modproto.PresentationDocument, "d.pdf", []byte("%PDF-"), &meta)
	if meta.DocText != "" {
		t.Error("DocText without pdftotext")
	}
}
