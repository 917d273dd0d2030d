package modproto

import "strings"

// Presentation primitives: the values of an artifact's `presentation` hint
// and of ResolvePresentation (docs/protocol.md §10; Artifact.Presentation). The host
// owns a viewer for each; a module can only pick one, never supply its own.
// This is the one place their names are spelled: render, the viewers and
// the CLI use these constants.
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

// Presentations is the closed set of rendering primitives a host owns and an
// artifact's presentation hint may name (docs/protocol.md §10), in the spec's order.
var Presentations = []string{
	PresentationVideo, PresentationAudio, PresentationImage, PresentationImageGrid,
	PresentationTimeline, PresentationDocument, PresentationDiagram, PresentationSlides,
	PresentationTable, PresentationMarkdown, PresentationText, PresentationJSON,
	PresentationDownload,
}

// IsKnownPresentation reports whether hint is exactly one of Presentations.
// Hints are compared as sent (case-sensitive): docs/protocol.md §10 normalizes only
// the media type, and a module cannot invent a renderer by spelling.
func IsKnownPresentation(hint string) bool {
	for _, p := range Presentations {
		if p == hint {
			return true
		}
	}
	return false
}

// documentMediaTypes are pdf, epub, doc, docx and rtf (docs/protocol.md §10), with the
// legacy aliases real producers still send for pdf and rtf.
var documentMediaTypes = map[string]bool{
	"application/pdf":      true,
	"application/x-pdf":    true,
	"application/epub+zip": true,
	"application/msword":   true,
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document": true,
	"application/rtf": true,
	"text/rtf":        true,
}

// slideMediaTypes are ppt and pptx (docs/protocol.md §10).
var slideMediaTypes = map[string]bool{
	"application/vnd.ms-powerpoint":                                             true,
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": true,
}

// ResolvePresentation picks the rendering primitive for an artifact
// (docs/protocol.md §10). A hint naming a known primitive wins; any other hint is
// ignored. Otherwise the media type decides, with parameters after ";"
// dropped, spaces trimmed and lower-cased, first match winning: video/*
// video; audio/* audio; image/svg+xml diagram; image/* image;
// application/json and *+json json; text/markdown, text/x-markdown
// markdown; pdf, epub, doc, docx, rtf document; text/vnd.graphviz,
// text/vnd.mermaid diagram; ppt, pptx slides; text/csv,
// text/tab-separated-values table; other text/* text; empty json; anything
// else download. The result is always one of Presentations.
func ResolvePresentation(presentation, mediaType string) string {
	if IsKnownPresentation(presentation) {
		return presentation
	}
	mt := mediaType
	if i := strings.IndexByte(mt, ';'); i >= 0 {
		mt = mt[:i]
	}
	mt = strings.ToLower(strings.TrimSpace(mt))
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
	case documentMediaTypes[mt]:
		return PresentationDocument
	case mt == "text/vnd.graphviz" || mt == "text/vnd.mermaid":
		return PresentationDiagram
	case slideMediaTypes[mt]:
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
