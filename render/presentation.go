package render

import (
	"strings"

	"modbay/modproto"
)

// Resolve picks the presentation primitive for an artifact, per docs/protocol.md §10;
// it is modproto.ResolvePresentation, the one implementation of the rule.
//
// A presentation hint that is exactly one of the known primitives
// (modproto.Presentations, spelled once there as modproto.PresentationVideo
// ... modproto.PresentationDownload; compared as sent, case-sensitively,
// because the spec normalises only the media type) wins. Any other hint is ignored. Then the media type
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
	return modproto.ResolvePresentation(presentation, mediaType)
}

// baseMediaType returns mediaType without parameters, trimmed and lower-cased:
// "Text/CSV; charset=utf-8" -> "text/csv".
func baseMediaType(mediaType string) string {
	if i := strings.IndexByte(mediaType, ';'); i >= 0 {
		mediaType = mediaType[:i]
	}
	return strings.ToLower(strings.TrimSpace(mediaType))
}
