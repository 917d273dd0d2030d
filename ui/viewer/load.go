package viewer

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"os"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
	"modbay/ui/common"
)

// loadInput is everything load needs, copied out of the Model so the Cmd
// shares nothing with Update.
type loadInput struct {
	com  *common.Common
	keys KeyMap
	env  Env
	meta render.Meta
	path string
	// art and siblings are the run's artifacts, for an image grid; zero
	// for a file outside a run.
	art      runner.VerifiedArtifact
	siblings []runner.VerifiedArtifact
	pres     string
	opts     render.Options
	w, h     int
	// encoding is set by load: the text encoding the file was decoded from
	// (render.DecodeText), "" for UTF-8.
	encoding string
	// checked is set by load when the bytes it read hash to meta.Digest
	// (the header says "verified" only then).
	checked bool
	// source is set by load: the file's source view, when it is small
	// (a hex head); sourceLater is set instead when it is the file's text,
	// which loadSource reads when the source view is first asked for.
	source      body
	sourceLater bool
	// alt is set by load: plain text rendered as markdown, offered for
	// text/plain (an MCP server's text is plain unless it says otherwise).
	alt body
}

// ErrChanged is a staged artifact whose bytes no longer hash to the digest
// verified when it was staged.
var ErrChanged = errors.New("changed since it was verified")

// checkBytes returns an error wrapping ErrChanged unless src hashes to
// digest.
func checkBytes(digest string, src []byte) error {
	if got := modproto.Digest(src); got != digest {
		return fmt.Errorf("the staged file %w: it hashes to %s, not %s; not shown", ErrChanged, render.ShortDigest(got), render.ShortDigest(digest))
	}
	return nil
}

// load reads the artifact and builds its body; it runs in a Cmd. The note
// is a status message for the header (why a file is shown as a download);
// in.encoding is set when the text was decoded. The bytes of a file whose
// metadata claims it verified are hashed again: inp.checked reports that
// they hash to its digest (the header says "verified" only then); bytes
// that do not are not shown, and the error wraps ErrChanged. A file offered
// as a download or described by its metadata is not read, so not checked.
//
// A panic while loading (a decoder or renderer on hostile bytes) shows
// the file's metadata with the reason: it never reaches the person.
func load(ctx context.Context, inp *loadInput) (b body, status string, err error) {
	defer func() {
		if r := recover(); r != nil {
			b, status, err = metadataBody(*inp, inp.meta), render.SanitizeLine(fmt.Sprintf("the viewer failed on this file (%v)", r)), nil
		}
	}()
	in := *inp
	meta := in.meta
	switch in.pres {
	case modproto.PresentationDownload:
		inp.source = headSource(in, meta)
		return metadataBody(in, meta), "", nil
	case modproto.PresentationImageGrid:
		return newGrid(in), "", nil
	case modproto.PresentationVideo, modproto.PresentationAudio:
		in.env.Probe.Fill(ctx, in.pres, in.path, nil, &meta)
		inp.source = headSource(in, meta)
		return newStatic(in, func(o render.Options) string { out, _ := render.Artifact([]byte{0}, meta, o); return out }), "", nil
	}
	if meta.Bytes > MaxViewBytes {
		note := fmt.Sprintf("Over %s: offered as a download, not loaded.", render.HumanBytes(MaxViewBytes))
		inp.source = headSource(in, meta)
		return metadataBody(in, meta), note, nil
	}
	// One byte over the bound, so a file grown since staging cannot hash
	// as its first MaxViewBytes.
	src, err := readCapped(in.path, MaxViewBytes+1)
	if err != nil {
		return metadataBody(in, meta), "", err
	}
	if meta.Verified && meta.Digest != "" {
		if err := checkBytes(meta.Digest, src); err != nil {
			meta.Verified = false
			return metadataBody(in, meta), "", err
		}
		inp.checked = true
	}
	if len(src) == 0 {
		return newStatic(in, func(o render.Options) string { out, _ := render.Artifact(src, meta, o); return out }), "", nil
	}
	if render.DecodesText(in.pres) {
		// UTF-16 "Unicode text" and the like are shown as their characters;
		// the header names the encoding.
		src, inp.encoding = render.DecodeText(src)
	}
	textual := !render.IsBinary(src)
	if textual {
		inp.sourceLater = true
	} else {
		inp.source = sourceBody(in, meta, src)
	}
	switch in.pres {
	case modproto.PresentationMarkdown:
		if !textual {
			return binaryBody(in, meta)
		}
		if !render.MarkdownWorkWithin(src) {
			// Too costly for glamour however it is cut: plain text, said.
			return newStatic(in, func(o render.Options) string {
				return render.MarkdownTooCostlyNote(o.Width) + "\n\n" + render.Text(src, o)
			}), "", nil
		}
		return newMarkdown(in, src), "", nil
	case modproto.PresentationText:
		if !textual {
			return binaryBody(in, meta)
		}
		if mt, _, _ := mime.ParseMediaType(meta.MediaType); mt == "text/plain" && render.MarkdownWorkWithin(src) {
			inp.alt = newMarkdown(in, src)
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
		in.env.Probe.Fill(ctx, in.pres, in.path, src, &meta)
	case modproto.PresentationTimeline:
		if textual && json.Valid(src) {
			return newStatic(in, func(o render.Options) string { out, _ := render.Artifact(src, meta, o); return out }), "", nil
		}
	}
	out, rerr := render.Artifact(src, meta, in.opts)
	return newStaticFrom(in, out, func(o render.Options) string { out, _ := render.Artifact(src, meta, o); return out }), "", rerr
}

// loadSource reads the file again for its text source view (key v); it
// runs in a Cmd, the first time the source view is asked for. The text
// view holds the file sanitized and laid out whole, about twice its size,
// which opening a table or a JSON document does not pay for. Bytes that no
// longer hash to a verified digest are not shown (an error wrapping
// ErrChanged).
func loadSource(in loadInput) (body, error) {
	src, err := readCapped(in.path, MaxViewBytes+1)
	if err != nil {
		return nil, err
	}
	if in.meta.Verified && in.meta.Digest != "" {
		if err := checkBytes(in.meta.Digest, src); err != nil {
			return nil, err
		}
	}
	if render.DecodesText(in.pres) {
		src, _ = render.DecodeText(src)
	}
	return sourceBody(in, in.meta, src), nil
}

// sourceHexBytes is how much of a binary file the source view shows
// as hex: sixteen rows of sixteen bytes.
const sourceHexBytes = 256

// sourceBody is the source view of a file read as src (key v): text as
// the file has it (sanitized, with line numbers and search), whatever the
// presentation; a binary file (an image, audio, an archive) as what it is
// — media type, size, digest — and a hex head of its first bytes.
func sourceBody(in loadInput, meta render.Meta, src []byte) body {
	if !render.IsBinary(src) {
		return newText(in, src)
	}
	return hexSource(in, meta.MediaType, int64(len(src)), modproto.Digest(src), src[:min(len(src), sourceHexBytes)])
}

// headSource is the source view of a file the viewer does not read
// whole (a download offer, video, audio, a file over MaxViewBytes): its
// type, size and digest as staged, and a hex head of its first bytes;
// nil when even those cannot be read.
func headSource(in loadInput, meta render.Meta) body {
	head, err := readCapped(in.path, sourceHexBytes)
	if err != nil {
		return nil
	}
	return hexSource(in, meta.MediaType, meta.Bytes, meta.Digest, head)
}

// hexSource says what a binary file is and shows head in hex.
func hexSource(in loadInput, media string, size int64, digest string, head []byte) body {
	return newText(in, []byte(hexSourceText(media, size, digest, head)))
}

// hexSourceText is hexSource's text: the file's type, size and digest,
// then head in hex.
func hexSourceText(media string, size int64, digest string, head []byte) string {
	return fmt.Sprintf("Type:   %s\nSize:   %s (%d bytes)\nDigest: %s\n\nThe first %d bytes:\n%s",
		render.SanitizeLine(media), render.HumanBytes(size), size, render.SanitizeLine(digest), len(head), hex.Dump(head))
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
	// Exactly the size (and one byte, to see a file that grew): a
	// bytes.Buffer would double its capacity for the last read, and the
	// viewer would hold twice the file.
	buf := make([]byte, min(fi.Size()+1, n))
	k, err := io.ReadFull(f, buf)
	buf = buf[:k]
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return buf, nil
	case err != nil:
		return buf, err
	case int64(k) < n:
		// It grew since Stat: read on, still at most n bytes.
		b := bytes.NewBuffer(buf)
		_, err = b.ReadFrom(io.LimitReader(f, n-int64(k)))
		return b.Bytes(), err
	}
	return buf, nil
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

// FullHelpKeys implements fullHelper.
func (s *static) FullHelpKeys() []key.Binding { return s.pager.fullHelpKeys() }
