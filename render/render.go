package render

import (
	"encoding/json"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Artifact renders an artifact's bytes for the terminal, choosing the viewer
// by [Resolve](m.Presentation, m.MediaType) (WIRE.md §10):
//
//   - markdown: [Markdown]; json: [JSON]; table: [Table]; text: [Text].
//   - timeline and diagram: when the bytes are text (a JSON timeline, Mermaid
//     or Graphviz source, SVG), [JSON] if they parse as JSON, else [Text],
//     after a one-line note that this is the source, not a drawing.
//   - markdown or text whose bytes are binary ([IsBinary]), empty files, and
//     every other presentation (video, audio, image, image_grid, document,
//     slides, download, binary timelines and diagrams): [Metadata], with a
//     note saying why where one applies.
//
// The error is the chosen renderer's (invalid JSON, a malformed table); the
// string is then still that renderer's best-effort output, worth showing.
func Artifact(src []byte, m Meta, o Options) (string, error) {
	pres := Resolve(m.Presentation, m.MediaType)
	if len(src) == 0 {
		return metadata(m, "The file is empty.", o), nil
	}
	switch pres {
	case PresentationMarkdown, PresentationText:
		if IsBinary(src) {
			return metadata(m, "The file is not text (binary data), so it is not shown.", o), nil
		}
		if pres == PresentationMarkdown {
			return Markdown(src, o)
		}
		return Text(src, o), nil
	case PresentationJSON:
		return JSON(src, o)
	case PresentationTable:
		return Table(src, m.MediaType, o)
	case PresentationTimeline, PresentationDiagram:
		if IsBinary(src) {
			break
		}
		note := ansi.Wrap(pres+" shown as source text; no "+pres+" viewer yet.", o.width(), "") + "\n\n"
		if json.Valid(src) {
			out, err := JSON(src, o)
			return note + out, err
		}
		return note + Text(src, o), nil
	}
	return metadata(m, "", o), nil
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
