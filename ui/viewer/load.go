package viewer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
	"modbay/ui/common"
)

const (
	// probeTimeout bounds ffprobe and pdftotext: metadata is worth a second
	// or two, not a hung viewer.
	probeTimeout = 5 * time.Second
	// probeOutputCap bounds what a probe may print (ffprobe JSON is a few
	// KiB; pdftotext of the first pages a few dozen).
	probeOutputCap = 256 << 10
	// docTextPages is how many pages of a PDF pdftotext extracts.
	docTextPages = 3
)

// loadInput is everything load needs, copied out of the Model so the Cmd
// shares nothing with Update.
type loadInput struct {
	com      *common.Common
	keys     KeyMap
	env      Env
	art      runner.VerifiedArtifact
	siblings []runner.VerifiedArtifact
	pres     string
	opts     render.Options
	w, h     int
}

// load reads the artifact and builds its body; it runs in a Cmd. The note
// is a status message for the header (why a file is shown as a download).
// The bytes read are hashed again: checked reports that they hash to the
// artifact's digest (the header says "verified" only then); bytes that do
// not are not shown, and the error wraps ErrChanged. A file offered as a
// download or described by its metadata is not read, so not checked.
func load(ctx context.Context, in loadInput) (b body, note string, checked bool, err error) {
	b, note, err = loadBody(ctx, in, &checked)
	return b, note, checked, err
}

// ErrChanged is a staged artifact whose bytes no longer hash to the digest
// verified when it was staged (issue 10).
var ErrChanged = errors.New("changed since it was verified")

// checkBytes returns an error wrapping ErrChanged unless src hashes to a's
// digest.
func checkBytes(a runner.VerifiedArtifact, src []byte) error {
	if got := modproto.Digest(src); got != a.Digest {
		return fmt.Errorf("the staged file %w: it hashes to %s, not %s; not shown", ErrChanged, render.ShortDigest(got), render.ShortDigest(a.Digest))
	}
	return nil
}

// loadBody is load; it sets *checked once the bytes it read hashed right.
func loadBody(ctx context.Context, in loadInput, checked *bool) (body, string, error) {
	meta := metaOf(in.art)
	switch in.pres {
	case modproto.PresentationDownload:
		return metadataBody(in, meta), "", nil
	case modproto.PresentationImageGrid:
		return newGrid(in), "", nil
	case modproto.PresentationVideo, modproto.PresentationAudio:
		if in.env.FFProbe != "" {
			if out, err := runCapped(ctx, in.env.FFProbe, "-v", "error", "-print_format", "json", "-show_format", "-show_streams", in.art.Staged); err == nil {
				meta.Probe, _ = render.ParseFFProbe(out)
			}
		}
		return newStatic(in, func(o render.Options) string { out, _ := render.Artifact([]byte{0}, meta, o); return out }), "", nil
	}
	if meta.Bytes > MaxViewBytes {
		note := fmt.Sprintf("Over %s: offered as a download, not loaded.", render.HumanBytes(MaxViewBytes))
		return metadataBody(in, meta), note, nil
	}
	// One byte over the bound, so a file grown since staging cannot hash
	// as its first MaxViewBytes.
	src, err := readCapped(in.art.Staged, MaxViewBytes+1)
	if err != nil {
		return metadataBody(in, meta), "", err
	}
	if err := checkBytes(in.art, src); err != nil {
		meta.Verified = false
		return metadataBody(in, meta), "", err
	}
	*checked = true
	if len(src) == 0 {
		return newStatic(in, func(o render.Options) string { out, _ := render.Artifact(src, meta, o); return out }), "", nil
	}
	textual := !render.IsBinary(src)
	switch in.pres {
	case modproto.PresentationMarkdown:
		if !textual {
			return binaryBody(in, meta)
		}
		return newMarkdown(in, src), "", nil
	case modproto.PresentationText:
		if !textual {
			return binaryBody(in, meta)
		}
		return newText(in, src), "", nil
	case modproto.PresentationTable:
		return newTable(in, src)
	case modproto.PresentationJSON:
		return newTree(in, src)
	case modproto.PresentationImage:
		return newImage(in, src)
	case modproto.PresentationSlides:
		if textual {
			return newSlides(in, src), "", nil
		}
	case modproto.PresentationDocument:
		if in.env.PDFToText != "" && bytes.HasPrefix(src, []byte("%PDF-")) {
			out, err := runCapped(ctx, in.env.PDFToText, "-l", fmt.Sprint(docTextPages), "-layout", in.art.Staged, "-")
			if err == nil {
				meta.DocText = string(out)
			}
		}
	case modproto.PresentationTimeline:
		if textual && json.Valid(src) {
			return newStatic(in, func(o render.Options) string { out, _ := render.Artifact(src, meta, o); return out }), "", nil
		}
	}
	out, err := render.Artifact(src, meta, in.opts)
	b := newStaticFrom(in, out, func(o render.Options) string { out, _ := render.Artifact(src, meta, o); return out })
	return b, "", err
}

// metadataBody is a download offer: what the file is, without its
// contents.
func metadataBody(in loadInput, meta render.Meta) *static {
	return newStatic(in, func(o render.Options) string { return render.Metadata(meta, o) })
}

// binaryBody is a download offer for text or markdown that turned out to be
// binary.
func binaryBody(in loadInput, meta render.Meta) (body, string, error) {
	return metadataBody(in, meta),
		"Binary data, not text: offered as a download.", nil
}

// readCapped reads at most n bytes of a regular file.
func readCapped(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	buf := make([]byte, 0, min(fi.Size(), n)+1)
	b := bytes.NewBuffer(buf)
	_, err = b.ReadFrom(io.LimitReader(f, n))
	return b.Bytes(), err
}

// runCapped runs a helper program with the probe timeout and returns its
// stdout, at most probeOutputCap bytes.
func runCapped(ctx context.Context, prog string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	var out bytes.Buffer
	cmd.Stdout = &limitedWriter{w: &out, n: probeOutputCap}
	err := cmd.Run()
	return out.Bytes(), err
}

// limitedWriter keeps the first n bytes and discards the rest.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.n -= k
		if _, err := l.w.Write(p[:k]); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// staticMsg is a finished re-render of a static body.
type staticMsg struct {
	tag
	gen   int
	lines []string
}

// static is a pager over text rendered by a pure function of the options:
// metadata, timelines, diagram source, documents. It re-renders in a Cmd
// when the width or theme changes.
type static struct {
	pager
	render func(render.Options) string
	gen    int
}

// newStatic renders once now (it is built inside the load Cmd) and again
// on Reflow.
func newStatic(in loadInput, f func(render.Options) string) *static {
	return newStaticFrom(in, f(in.opts), f)
}

// newStaticFrom is newStatic with the first rendering already done.
func newStaticFrom(in loadInput, first string, f func(render.Options) string) *static {
	s := &static{pager: newPager(in.com, in.keys), render: f}
	s.pager.SetLines(splitLines(first), nil)
	return s
}

// Reflow re-renders for o in a Cmd.
func (s *static) Reflow(o render.Options) tea.Cmd {
	s.gen++
	gen, f := s.gen, s.render
	return func() tea.Msg { return staticMsg{gen: gen, lines: splitLines(f(o))} }
}

// Update takes a re-render or a key.
func (s *static) Update(msg tea.Msg) (bool, tea.Cmd) {
	switch msg := msg.(type) {
	case staticMsg:
		if msg.gen == s.gen {
			s.pager.SetLines(msg.lines, nil)
		}
		return true, nil
	case tea.KeyPressMsg:
		return s.pager.Update(msg)
	}
	return false, nil
}

// HelpKeys implements body.
func (s *static) HelpKeys() []key.Binding { return s.pager.helpKeys() }
