package modproto

import "testing"

func TestResolvePresentation(t *testing.T) {
	cases := []struct{ hint, media, want string }{
		{"timeline", "application/json", "timeline"},
		{"image_grid", "image/png", "image_grid"},
		{"download", "video/mp4", "download"},
		{"hologram", "video/mp4", "video"}, // unknown hints are ignored
		{"Video", "text/plain", "text"},    // hints are compared as sent
		{"", "video/mp4", "video"},
		{"", "audio/mpeg", "audio"},
		{"", "image/svg+xml", "diagram"},
		{"", "IMAGE/PNG; q=1", "image"},
		{"", "application/json", "json"},
		{"", "application/vnd.api+json", "json"},
		{"", "text/markdown; charset=utf-8", "markdown"},
		{"", "text/x-markdown", "markdown"},
		{"", "application/pdf", "document"},
		{"", "application/epub+zip", "document"},
		{"", "application/msword", "document"},
		{"", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "document"},
		{"", "application/rtf", "document"},
		{"", "text/rtf", "document"}, // document before other text/*
		{"", "text/vnd.graphviz", "diagram"},
		{"", "text/vnd.mermaid", "diagram"},
		{"", "application/vnd.ms-powerpoint", "slides"},
		{"", "application/vnd.openxmlformats-officedocument.presentationml.presentation", "slides"},
		{"", "text/csv", "table"},
		{"", "text/tab-separated-values", "table"},
		{"", "text/plain", "text"},
		{"", "text/html", "text"},
		{"", "", "json"},
		{"", "  ", "json"},
		{"", "application/zip", "download"},
		{"", "application/octet-stream", "download"},
	}
	for _, c := range cases {
		if got := ResolvePresentation(c.hint, c.media); got != c.want {
			t.Errorf("ResolvePresentation(%q, %q) = %q, want %q", c.hint, c.media, got, c.want)
		}
	}
	for _, p := range Presentations {
		if ResolvePresentation(p, "application/zip") != p || !IsKnownPresentation(p) {
			t.Errorf("known hint %q not honoured", p)
		}
	}
}

// TestPresentationsAreTheSpecs: the one list of presentation names is
// docs/protocol.md §10's, in its order, each once.
func TestPresentationsAreTheSpecs(t *testing.T) {
	want := []string{"video", "audio", "image", "image_grid", "timeline", "document",
		"diagram", "slides", "table", "markdown", "text", "json", "download"}
	if len(Presentations) != len(want) {
		t.Fatalf("Presentations %q, want %q", Presentations, want)
	}
	for i, p := range Presentations {
		if p != want[i] {
			t.Errorf("Presentations[%d] = %q, want %q", i, p, want[i])
		}
	}
}
