package render

import "strings"

// Presentation primitives, the values of an artifact's `presentation` hint and
// of [Resolve] (WIRE.md §10; modproto.Artifact.Presentation). The host owns a
// viewer for each; a module can only pick one, never supply its own.
const (
	Video     = "video"
	Audio     = "audio"
	Image     = "image"
	ImageGrid = "image_grid"
	Timeline  = "timeline"
	Document  = "document"
	Diagram   = "diagram"
	Slides    = "slides"
	Table     = "table"
	Markdown  = "markdown"
	Text      = "text"
	JSON      = "json"
	Download  = "download"
)

// knownPresentations is the closed set of primitives a hint may name.
var knownPresentations = map[string]bool{
	Video: true, Audio: true, Image: true, ImageGrid: true, Timeline: true,
	Document: true, Diagram: true, Slides: true, Table: true, Markdown: true,
	Text: true, JSON: true, Download: true,
}

// documentTypes are the media types of pdf, epub, doc, docx and rtf (WIRE.md
// §10 "pdf, epub, doc, docx, rtf document"), with the legacy aliases that real
// producers still send for pdf and rtf.
var documentTypes = map[string]bool{
	"application/pdf":    true,
	"application/x-pdf":  true,
	"application/epub+zip": true,
	"application/msword": true,
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document": true,
	"application/rtf": true,
	"text/rtf":        true,
}

// slideTypes are the media types of ppt and pptx (WIRE.md §10 "ppt, pptx slides").
var slideTypes = map[string]bool{
	"application/vnd.ms-powerpoint":                                             true,
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": true,
}

// Resolve picks the presentation primitive for an artifact, per WIRE.md §10.
//
// A presentation hint that is exactly one of the known primitives (Video ...
// Download; compared as sent, case-sensitively, because the spec normalises
// only the media type) wins. Any other hint is ignored. Then the media type
// decides, after dropping parameters (everything from the first ';'),
// trimming spaces and lower-casing; the first matching rule wins:
//
//	video/*                                  video
//	audio/*                                  audio
//	image/svg+xml                            diagram
//	image/*                                  image
//	application/json, */*+json               json
//	text/markdown, text/x-markdown           markdown
//	pdf, epub, doc, docx, rtf                document
//	text/vnd.graphviz, text/vnd.mermaid      diagram
//	ppt, pptx                                slides
//	text/csv, text/tab-separated-values      table
//	text/*                                   text
//	"" (no media type)                       json
//	anything else                            download
func Resolve(presentation, mediaType string) string {
	if knownPresentations[presentation] {
		return presentation
	}
	mt := baseMediaType(mediaType)
	switch {
	case strings.HasPrefix(mt, "video/"):
		return Video
	case strings.HasPrefix(mt, "audio/"):
		return Audio
	case mt == "image/svg+xml":
		return Diagram
	case strings.HasPrefix(mt, "image/"):
		return Image
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return JSON
	case mt == "text/markdown" || mt == "text/x-markdown":
		return Markdown
	case documentTypes[mt]:
		return Document
	case mt == "text/vnd.graphviz" || mt == "text/vnd.mermaid":
		return Diagram
	case slideTypes[mt]:
		return Slides
	case mt == "text/csv" || mt == "text/tab-separated-values":
		return Table
	case strings.HasPrefix(mt, "text/"):
		return Text
	case mt == "":
		return JSON
	default:
		return Download
	}
}

// baseMediaType returns mediaType without parameters, trimmed and lower-cased:
// "Text/CSV; charset=utf-8" -> "text/csv".
func baseMediaType(mediaType string) string {
	if i := strings.IndexByte(mediaType, ';'); i >= 0 {
		mediaType = mediaType[:i]
	}
	return strings.ToLower(strings.TrimSpace(mediaType))
}
