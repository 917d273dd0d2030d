package probe

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"modbay/modproto"
	"modbay/render"
)

const (
	// Timeout bounds one probe run: metadata is worth a few seconds, not a
	// hung viewer or command.
	Timeout = 5 * time.Second
	// OutputCap bounds what a probe may print and what is kept of it:
	// ffprobe's JSON is a few KiB, pdftotext of three pages a few dozen.
	OutputCap = 256 << 10
	// DocTextPages is how many leading pages of a PDF pdftotext extracts.
	DocTextPages = 3
)

// Tools are the absolute paths of the probe programs found on PATH, ""
// for a missing one.
type Tools struct {
	FFProbe, PDFToText string
}

// Detect looks the probe programs up on PATH (once, at start: callers keep
// the result so an Update loop never searches PATH).
func Detect() Tools {
	var t Tools
	if p, err := exec.LookPath("ffprobe"); err == nil {
		t.FFProbe = p
	}
	if p, err := exec.LookPath("pdftotext"); err == nil {
		t.PDFToText = p
	}
	return t
}

// Media runs ffprobe on the file at path and parses its streams and
// format. The strings it returns (container and codec names come from the
// file) are sanitized to one inert line each.
func (t Tools) Media(ctx context.Context, path string) (*render.MediaInfo, error) {
	if t.FFProbe == "" {
		return nil, fmt.Errorf("probe %s: no ffprobe on PATH", path)
	}
	out, err := run(ctx, t.FFProbe, "-v", "error", "-print_format", "json", "-show_format", "-show_streams", absPath(path))
	if err != nil {
		return nil, fmt.Errorf("ffprobe %s: %w", path, err)
	}
	mi, err := render.ParseFFProbe(out)
	if err != nil {
		return nil, err
	}
	mi.Format = render.SanitizeLine(mi.Format)
	for i := range mi.Streams {
		s := &mi.Streams[i]
		s.Type, s.Codec, s.FrameRate = render.SanitizeLine(s.Type), render.SanitizeLine(s.Codec), render.SanitizeLine(s.FrameRate)
	}
	return mi, nil
}

// DocText runs pdftotext on the first DocTextPages pages of the PDF at
// path and returns their text, valid UTF-8 with every control sequence
// made inert ([render.SanitizeText]). A file that is not a PDF (by its
// first bytes, head) is not probed.
func (t Tools) DocText(ctx context.Context, path string, head []byte) (string, error) {
	if t.PDFToText == "" {
		return "", fmt.Errorf("probe %s: no pdftotext on PATH", path)
	}
	if !bytes.HasPrefix(head, []byte("%PDF-")) {
		return "", fmt.Errorf("probe %s: not a PDF", path)
	}
	out, err := run(ctx, t.PDFToText, "-l", strconv.Itoa(DocTextPages), "-layout", absPath(path), "-")
	if err != nil {
		return "", fmt.Errorf("pdftotext %s: %w", path, err)
	}
	return render.SanitizeText(strings.ToValidUTF8(string(out), "\uFFFD")), nil
}

// Fill runs the probe a presentation wants (docs/protocol.md §10: video and audio
// get ffprobe's facts, a document pdftotext's text) and records what it
// found in meta.Probe or meta.DocText; head is the file's first bytes. A
// missing program or a failed probe leaves meta as it was: the viewers then
// say type and size only.
func (t Tools) Fill(ctx context.Context, pres, path string, head []byte, meta *render.Meta) {
	switch pres {
	case modproto.PresentationVideo, modproto.PresentationAudio:
		if mi, err := t.Media(ctx, path); err == nil {
			meta.Probe = mi
		}
	case modproto.PresentationDocument:
		if s, err := t.DocText(ctx, path, head); err == nil {
			meta.DocText = s
		}
	}
}

// absPath makes path absolute, so a file named "-x" is never read as an
// option (neither program takes "--").
func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// run runs prog with Timeout and returns its stdout, at most OutputCap
// bytes (the rest is read and dropped so the program is never blocked on
// a full pipe). Stderr is discarded.
func run(ctx context.Context, prog string, args ...string) ([]byte, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	var out bytes.Buffer
	cmd.Stdout = &capWriter{w: &out, n: OutputCap}
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("after %s: %w", Timeout, ctx.Err())
		}
		return nil, err
	}
	return out.Bytes(), nil
}

// capWriter keeps the first n bytes written and discards the rest.
type capWriter struct {
	w io.Writer
	n int
}

// Write implements io.Writer; it never fails for bytes past the cap.
func (c *capWriter) Write(p []byte) (int, error) {
	if c.n > 0 {
		k := min(len(p), c.n)
		c.n -= k
		if _, err := c.w.Write(p[:k]); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}
