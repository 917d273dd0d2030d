package render

import "testing"

func TestResolve(t *testing.T) {
	tests := []struct {
		name, presentation, mediaType, want string
	}{
		// A known hint wins over any media type.
		{"hint table over json", "table", "application/json", PresentationTable},
		{"hint timeline", "timeline", "application/json", PresentationTimeline},
		{"hint image_grid", "image_grid", "application/zip", PresentationImageGrid},
		{"hint markdown over text", "markdown", "text/plain", PresentationMarkdown},
		{"hint download over video", "download", "video/mp4", PresentationDownload},
		{"hint with empty media type", "slides", "", PresentationSlides},
		// An unknown hint is ignored, as is a known one in the wrong case.
		{"unknown hint ignored", "hologram", "text/csv", PresentationTable},
		{"hint is case-sensitive", "Markdown", "text/plain", PresentationText},
		{"hint with spaces ignored", " json", "image/png", PresentationImage},
		// Media type rules, in order.
		{"video", "", "video/mp4", PresentationVideo},
		{"audio", "", "audio/mpeg", PresentationAudio},
		{"svg is a diagram", "", "image/svg+xml", PresentationDiagram},
		{"png", "", "image/png", PresentationImage},
		{"json", "", "application/json", PresentationJSON},
		{"ld+json", "", "application/ld+json", PresentationJSON},
		{"geo+json", "", "application/geo+json", PresentationJSON},
		{"json with charset", "", "application/json; charset=utf-8", PresentationJSON},
		{"markdown", "", "text/markdown", PresentationMarkdown},
		{"x-markdown", "", "text/x-markdown", PresentationMarkdown},
		{"pdf", "", "application/pdf", PresentationDocument},
		{"epub", "", "application/epub+zip", PresentationDocument},
		{"doc", "", "application/msword", PresentationDocument},
		{"docx", "", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", PresentationDocument},
		{"rtf", "", "application/rtf", PresentationDocument},
		{"text/rtf is a document, not text", "", "text/rtf", PresentationDocument},
		{"graphviz", "", "text/vnd.graphviz", PresentationDiagram},
		{"mermaid", "", "text/vnd.mermaid", PresentationDiagram},
		{"ppt", "", "application/vnd.ms-powerpoint", PresentationSlides},
		{"pptx", "", "application/vnd.openxmlformats-officedocument.presentationml.presentation", PresentationSlides},
		{"csv", "", "text/csv", PresentationTable},
		{"csv with charset", "", "text/csv; charset=utf-8", PresentationTable},
		{"tsv", "", "text/tab-separated-values", PresentationTable},
		{"plain text", "", "text/plain", PresentationText},
		{"html is other text", "", "text/html", PresentationText},
		{"empty media type is json", "", "", PresentationJSON},
		{"only parameters is empty", "", "; charset=utf-8", PresentationJSON},
		{"zip downloads", "", "application/zip", PresentationDownload},
		{"octet-stream downloads", "", "application/octet-stream", PresentationDownload},
		{"xlsx downloads", "", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", PresentationDownload},
		// Normalisation: parameters dropped, case folded, spaces trimmed.
		{"upper case", "", "Text/CSV", PresentationTable},
		{"spaces", "", "  video/webm ; codecs=vp9", PresentationVideo},
		{"upper svg", "", "IMAGE/SVG+XML", PresentationDiagram},
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
		PresentationVideo, PresentationAudio, PresentationImage, PresentationImageGrid,
		PresentationTimeline, PresentationDocument, PresentationDiagram, PresentationSlides,
		PresentationTable, PresentationMarkdown, PresentationText, PresentationJSON,
		PresentationDownload,
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
