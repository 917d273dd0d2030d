package render

import "strings"

// Presentation primitives, the values of an artifact's `presentation` hint and
// of [Resolve] (WIRE.md §10; modproto.Artifact.Presentation). The host owns a
// viewer for each; a module can only pick one, never supply its own. They carry
// the Presentation prefix because the bare names Markdown, JSON, Table and Text
// are this package's renderers.
const (
	PresentationVideo     = "video"
	PresentationAudio     = "audio"
	PresentationImage     = "image"
	PresentationImageGrid = "image_grid"
	PresentationTimeline  = "timeline"
	PresentationDocument  = "document"
	PresentationDiagram   = "diagram"
	PresentationSlides    = "slides"
	PresentationTable     = "table"
	PresentationMarkdown  = "markdown"
	PresentationText      = "text"
	PresentationJSON      = "json"
	PresentationDownload  = "download"
)

// knownPresentations is the closed set of primitives a hint may name.
var knownPresentations = map[string]bool{
	PresentationVideo: true, PresentationAudio: true, PresentationImage: true,
	PresentationImageGrid: true, PresentationTimeline: true,
	PresentationDocument: true, PresentationDiagram: true,
	PresentationSlides: true, PresentationTable: true,
	PresentationMarkdown: true, PresentationText: true,
	PresentationJSON: true, PresentationDownload: true,
}

// documentTypes are the media types of pdf, epub, doc, docx and rtf (WIRE.md
// §10 "pdf, epub, doc, docx, rtf document"), with the legacy aliases that real
// producers still send for pdf and rtf.
var documentTypes = map[string]bool{
	"application/pdf":      true,
	"application/x-pdf":    true,
	"application/epub+zip": true,
	"application/msword":   true,
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
// A presentation hint that is exactly one of the known primitives (PresentationVideo ...
// PresentationDownload; compared as sent, case-sensitively, because the spec normalises
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
		return PresentationVideo
	case strings.HasPrefix(mt, "audio/"):
		return PresentationAudio
	case mt == "image/svg+xml":
		return PresentationDiagram
	case strings.HasPrefix(mt, "image/"):
		return PresentationImage
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return PresentationJSON
	case mt == "text/markdown" || mt == "text/x-markdown":
		return PresentationMarkdown
	case documentTypes[mt]:
		return PresentationDocument
	case mt == "text/vnd.graphviz" || mt == "text/vnd.mermaid":
		return PresentationDiagram
	case slideTypes[mt]:
		return PresentationSlides
	case mt == "text/csv" || mt == "text/tab-separated-values":
		return PresentationTable
	case strings.HasPrefix(mt, "text/"):
		return PresentationText
	case mt == "":
		return PresentationJSON
	default:
		return PresentationDownload
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
