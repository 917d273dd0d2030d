package render

import (
	"testing"

	"modbay/modproto"
)

func TestResolve(t *testing.T) {
	tests := []struct {
		name, presentation, mediaType, want string
	}{
		// A known hint wins over any media type.
		{"hint table over json", "table", "application/json", modproto.PresentationTable},
		{"hint timeline", "timeline", "application/json", modproto.PresentationTimeline},
		{"hint image_grid", "image_grid", "application/zip", modproto.PresentationImageGrid},
		{"hint markdown over text", "markdown", "text/plain", modproto.PresentationMarkdown},
		{"hint download over video", "download", "video/mp4", modproto.PresentationDownload},
		{"hint with empty media type", "slides", "", modproto.PresentationSlides},
		// An unknown hint is ignored, as is a known one in the wrong case.
		{"unknown hint ignored", "hologram", "text/csv", modproto.PresentationTable},
		{"hint is case-sensitive", "Markdown", "text/plain", modproto.PresentationText},
		{"hint with spaces ignored", " json", "image/png", modproto.PresentationImage},
		// Media type rules, in order.
		{"video", "", "video/mp4", modproto.PresentationVideo},
		{"audio", "", "audio/mpeg", modproto.PresentationAudio},
		{"svg is a diagram", "", "image/svg+xml", modproto.PresentationDiagram},
		{"png", "", "image/png", modproto.PresentationImage},
		{"json", "", "application/json", modproto.PresentationJSON},
		{"ld+json", "", "application/ld+json", modproto.PresentationJSON},
		{"geo+json", "", "application/geo+json", modproto.PresentationJSON},
		{"json with charset", "", "application/json; charset=utf-8", modproto.PresentationJSON},
		{"markdown", "", "text/markdown", modproto.PresentationMarkdown},
		{"x-markdown", "", "text/x-markdown", modproto.PresentationMarkdown},
		{"pdf", "", "application/pdf", modproto.PresentationDocument},
		{"epub", "", "application/epub+zip", modproto.PresentationDocument},
		{"doc", "", "application/msword", modproto.PresentationDocument},
		{"docx", "", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", modproto.PresentationDocument},
		{"rtf", "", "application/rtf", modproto.PresentationDocument},
		{"text/rtf is a document, not text", "", "text/rtf", modproto.PresentationDocument},
		{"graphviz", "", "text/vnd.graphviz", modproto.PresentationDiagram},
		{"mermaid", "", "text/vnd.mermaid", modproto.PresentationDiagram},
		{"ppt", "", "application/vnd.ms-powerpoint", modproto.PresentationSlides},
		{"pptx", "", "application/vnd.openxmlformats-officedocument.presentationml.presentation", modproto.PresentationSlides},
		{"csv", "", "text/csv", modproto.PresentationTable},
		{"csv with charset", "", "text/csv; charset=utf-8", modproto.PresentationTable},
		{"tsv", "", "text/tab-separated-values", modproto.PresentationTable},
		{"plain text", "", "text/plain", modproto.PresentationText},
		{"html is other text", "", "text/html", modproto.PresentationText},
		{"empty media type is json", "", "", modproto.PresentationJSON},
		{"only parameters is empty", "", "; charset=utf-8", modproto.PresentationJSON},
		{"zip downloads", "", "application/zip", modproto.PresentationDownload},
		{"octet-stream downloads", "", "application/octet-stream", modproto.PresentationDownload},
		{"xlsx downloads", "", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", modproto.PresentationDownload},
		// Normalisation: parameters dropped, case folded, spaces trimmed.
		{"upper case", "", "Text/CSV", modproto.PresentationTable},
		{"spaces", "", "  video/webm ; codecs=vp9", modproto.PresentationVideo},
		{"upper svg", "", "IMAGE/SVG+XML", modproto.PresentationDiagram},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Resolve(tt.presentation, tt.mediaType); got != tt.want {
				t.Errorf("Resolve(%q, %q) = %q, want %q", tt.presentation, tt.mediaType, got, tt.want)
			}
		})
	}
}

func TestResolveKnownHints(t *testing.T) {
	all := []string{
		modproto.PresentationVideo, modproto.PresentationAudio, modproto.PresentationImage, modproto.PresentationImageGrid,
		modproto.PresentationTimeline, modproto.PresentationDocument, modproto.PresentationDiagram, modproto.PresentationSlides,
		modproto.PresentationTable, modproto.PresentationMarkdown, modproto.PresentationText, modproto.PresentationJSON,
		modproto.PresentationDownload,
	}
	want := []string{"video", "audio", "image", "image_grid", "timeline", "document",
		"diagram", "slides", "table", "markdown", "text", "json", "download"}
	for i, p := range all {
		if p != want[i] {
			t.Errorf("constant %d = %q, want %q", i, p, want[i])
		}
		if got := Resolve(p, "application/octet-stream"); got != p {
			t.Errorf("Resolve(%q, octet-stream) = %q, want the hint", p, got)
		}
	}
}
