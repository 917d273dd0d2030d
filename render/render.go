package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"modbay/modproto"
)

// Artifact renders an artifact's bytes for the terminal, non-interactively,
// choosing the viewer by [Resolve](m.Presentation, m.MediaType) (docs/protocol.md §10).
// It is what `modbay render` prints and what the cockpit's viewers show
// before any interaction:
//
//   - markdown: [Markdown]; json: [JSON]; table: [Table]; text: [Text].
//   - timeline: [Timeline] (a JSON timeline), else the JSON or text source.
//   - diagram: Mermaid and Graphviz source highlighted ([DiagramSource]);
//     SVG as metadata with its declared size.
//   - slides: markdown pages one after another ([Slides]); pptx as metadata
//     with its slide count.
//   - image: [HalfBlocks] at o.Width under the image's dimensions; an image
//     that cannot be decoded, or declares too many pixels, as metadata.
//   - video and audio: metadata with m.Probe's container, duration and
//     streams when the caller probed the file.
//   - document: metadata (a PDF's page count) and m.DocText when given.
//   - markdown or text whose bytes are binary ([IsBinary]), empty files,
//     image_grid and download: [Metadata], with a note saying why.
//
// Text is first decoded by [DecodeText] for the presentations that show
// text ([DecodesText]): a UTF-16 or UTF-32 file is shown as its characters,
// under a note naming the encoding, never as interleaved NULs.
//
// The error is the chosen renderer's (invalid JSON, a malformed table); the
// string is then still that renderer's best-effort output, worth showing.
// The error wraps [ErrNotShown] when that output is metadata only.
//
// Nothing a file holds may crash the host: a renderer that panics on src
// gives [Metadata] with a note naming the failure, and an error wrapping
// [ErrNotShown].
func Artifact(src []byte, m Meta, o Options) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			why := fmt.Sprintf("The renderer failed on this file (%v); it is shown as metadata.", r)
			out, err = metadata(m, SanitizeLine(why), o), fmt.Errorf("%w: renderer failed: %v", ErrNotShown, r)
		}
	}()
	pres := Resolve(m.Presentation, m.MediaType)
	if len(src) == 0 {
		return metadata(m, "The file is empty.", o), nil
	}
	var note string
	if DecodesText(pres) {
		var enc string
		if src, enc = DecodeText(src); enc != "" && enc != EncodingUTF8BOM {
			note = o.style(o.colors().muted).Render(ansi.Wrap("Text decoded from "+enc+".", o.width(), "")) + "\n"
		}
	}
	body, err := renderArtifact(src, pres, m, o)
	return note + body, err
}

// renderArtifact is artifact; a test swaps in a renderer that panics to
// prove Artifact's recover.
var renderArtifact = artifact

// DecodesText reports whether presentation pres shows text, whose bytes
// [Artifact] and the viewers first pass through [DecodeText]: markdown,
// text, json, table, timeline, diagram and slides.
func DecodesText(pres string) bool {
	switch pres {
	case modproto.PresentationMarkdown, modproto.PresentationText, modproto.PresentationJSON, modproto.PresentationTable,
		modproto.PresentationTimeline, modproto.PresentationDiagram, modproto.PresentationSlides:
		return true
	}
	return false
}

// artifact is Artifact after decoding: src is UTF-8 text for a textual
// presentation.
func artifact(src []byte, pres string, m Meta, o Options) (string, error) {
	textual := !IsBinary(src)
	switch pres {
	case modproto.PresentationMarkdown, modproto.PresentationText:
		if !textual {
			return metadata(m, "The file is not text (binary data), so it is not shown.", o), nil
		}
		if pres == modproto.PresentationMarkdown {
			return Markdown(src, o)
		}
		return Text(src, o), nil
	case modproto.PresentationJSON:
		return JSON(src, o)
	case modproto.PresentationTable:
		return Table(src, m.MediaType, o)
	case modproto.PresentationTimeline:
		if !textual {
			break
		}
		if json.Valid(src) {
			out, err := Timeline(src, o)
			if errors.Is(err, ErrNotTimeline) {
				note := ansi.Wrap("Not a timeline this viewer knows (an array of events with a time or start/end and a label); shown as JSON.", o.width(), "")
				return note + "\n\n" + out, nil
			}
			return out, err
		}
		return Text(src, o), nil
	case modproto.PresentationDiagram:
		if !textual {
			break
		}
		if lang := DiagramLanguage(src, m.MediaType); lang != "" || !looksLikeSVG(src) {
			return DiagramSource(src, lang, o), nil
		}
		info, err := ParseSVG(src)
		var extra [][2]string
		if info.Width != "" || info.Height != "" {
			extra = append(extra, [2]string{"SVG size", strings.TrimSpace(info.Width + " × " + info.Height)})
		}
		if info.ViewBox != "" {
			extra = append(extra, [2]string{"viewBox", info.ViewBox})
		}
		if info.Title != "" {
			extra = append(extra, [2]string{"SVG title", info.Title})
		}
		return details(m, extra, "An SVG drawing: open it in a browser or save it.", o), err
	case modproto.PresentationSlides:
		if !textual && !bytes.HasPrefix(src, []byte("PK\x03\x04")) {
			break
		}
		out, err := Slides(src, m, o)
		if err != nil && bytes.HasPrefix(src, []byte("PK\x03\x04")) {
			err = fmt.Errorf("%w: %w", ErrNotShown, err)
		}
		return out, err
	case modproto.PresentationImage:
		img, info, err := DecodeImage(src)
		if err != nil {
			return metadata(m, "The image cannot be shown: "+err.Error(), o), fmt.Errorf("%w: %w", ErrNotShown, err)
		}
		w, h := FitCells(info.Width, info.Height, o.width(), imageRows)
		head := fmt.Sprintf("%s image, %d×%d pixels", strings.ToUpper(info.Format), info.Width, info.Height)
		if info.Note != "" {
			head += " · " + info.Note
		}
		return o.style(o.colors().muted).Render(head) + "\n" + HalfBlocks(img, w, h, o), nil
	case modproto.PresentationVideo, modproto.PresentationAudio:
		note := "No prober (ffprobe) was available: type and size only."
		if m.Probe != nil {
			note = ""
		}
		return details(m, m.Probe.fields(), note, o), nil
	case modproto.PresentationDocument:
		var extra [][2]string
		if bytes.HasPrefix(src, []byte("%PDF-")) {
			if n := PDFPageCount(src); n > 0 {
				extra = append(extra, [2]string{"Pages", fmt.Sprint(n)})
			}
		}
		out := details(m, extra, "", o)
		if t := strings.TrimSpace(m.DocText); t != "" {
			out += "\n" + Text([]byte(t), o)
		}
		return out, nil
	}
	return metadata(m, "", o), nil
}

// ErrNotShown marks an [Artifact] error after which only the artifact's
// metadata could be shown, not its contents (an image that does not
// decode, a pptx that does not open). Every other Artifact error comes with
// the data shown as best the renderer could (a table with its malformed
// records skipped, invalid JSON as text): a command then reports the
// problem and still succeeds.
var ErrNotShown = errors.New("contents not shown")

// MaxRenderBytes is the largest file rendered from its contents (64 MiB),
// by `modbay render` and by the cockpit's viewers alike: the viewers' target
// is a peak heap within three times the file for a table or a JSON document
// (ui/viewer's BenchmarkOpenPeak); past it a file is shown as metadata (a
// download) rather than loaded.
const MaxRenderBytes = 64 << 20

// imageRows is the height in cells Artifact draws an image at: a screenful.
const imageRows = 24

// looksLikeSVG reports whether src starts like XML or an <svg> element.
func looksLikeSVG(src []byte) bool {
	head := bytes.TrimSpace(src[:min(len(src), 512)])
	return bytes.HasPrefix(head, []byte("<"))
}

// trimTrailingSpace removes spaces at the end of every line of s.
func trimTrailingSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for line := range strings.Lines(s) {
		body, nl := strings.CutSuffix(line, "\n")
		b.WriteString(strings.TrimRight(body, " "))
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
