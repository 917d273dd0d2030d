package viewer

import (
	"os"
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/exp/golden"
)

// helpDescs are the descriptions of bindings, in order.
func helpDescs(bs []key.Binding) []string {
	var d []string
	for _, b := range bs {
		d = append(d, b.Help().Desc)
	}
	return d
}

// TestMarkdownCodeScroll: the viewer keeps a long code line whole and
// scrolls it sideways with →/← (cut edges marked ‹ and ›, the column in
// the footer), the help offering the key only while it acts; the rest of
// the document stays wrapped and still. The frames are the golden.
func TestMarkdownCodeScroll(t *testing.T) {
	src, err := os.ReadFile("../../render/testdata/fidelity/codeblock.md")
	if err != nil {
		t.Fatal(err)
	}
	f := open(t, "codeblock.md", src, "text/markdown", "markdown", 40, 14, false)
	md := f.m.body.(*markdown)
	var frames []string
	help := func() []string { return helpDescs(f.m.ShortHelp()) }
	if h := help(); !slices.Contains(h, "code right") || slices.Contains(h, "code left") {
		t.Errorf("at the left edge the help shows %q, want code right only", h)
	}
	frames = append(frames, f.frame())
	f.key("right")
	if md.xoff != 20 {
		t.Errorf("→ scrolled to %d, want half the width (20)", md.xoff)
	}
	frames = append(frames, f.frame())
	f.key("l", "l", "l", "l", "l", "l")
	over := md.codeOverflow()
	if md.xoff != over || over <= 0 {
		t.Errorf("→ stops at %d, want the overflow %d", md.xoff, over)
	}
	if h := help(); slices.Contains(h, "code right") || !slices.Contains(h, "code left") {
		t.Errorf("at the right edge the help shows %q, want code left only", h)
	}
	frames = append(frames, f.frame())
	full := helpDescs(slices.Concat(f.m.FullHelp()...))
	if !slices.Contains(full, "code left") || !slices.Contains(full, "code right") {
		t.Errorf("full help %q lacks the code keys", full)
	}
	f.key("h", "left", "left", "left", "left", "left", "left")
	if md.xoff != 0 {
		t.Errorf("← back to %d, want 0", md.xoff)
	}
	if got := f.frame(); got != frames[0] {
		t.Errorf("back at the left edge the frame differs:\n%s\nwant:\n%s", got, frames[0])
	}
	for i, fr := range frames {
		if i > 0 && !strings.Contains(fr, "code from column ") {
			t.Errorf("frame %d: the footer does not say the code is scrolled", i)
		}
	}
	golden.RequireEqual(t, []byte(strings.Join(frames, "\n---\n")))
}

// TestMarkdownCodeSearchScrolls: a search match far right in a code line
// scrolls the code so the match shows.
func TestMarkdownCodeSearchScrolls(t *testing.T) {
	src, err := os.ReadFile("../../render/testdata/fidelity/codeblock.md")
	if err != nil {
		t.Fatal(err)
	}
	f := open(t, "codeblock.md", src, "text/markdown", "markdown", 40, 14, false)
	f.key("/")
	f.typeText("sysconfdir")
	f.key("enter")
	if fr := f.frame(); !strings.Contains(fr, "sysconfdir") {
		t.Errorf("the match does not show:\n%s", fr)
	}
	if f.m.body.(*markdown).xoff == 0 {
		t.Error("the code did not scroll to the match")
	}
}

// TestMarkdownShortCodeNoScroll: code that fits offers no sideways keys
// and → does nothing.
func TestMarkdownShortCodeNoScroll(t *testing.T) {
	f := open(t, "short.md", []byte("# T\n\n```\nls -l\n```\n"), "text/markdown", "markdown", 40, 14, false)
	before := f.frame()
	f.key("right")
	if f.frame() != before {
		t.Error("→ changed a frame whose code fits")
	}
	if h := helpDescs(f.m.ShortHelp()); slices.Contains(h, "code right") || slices.Contains(h, "code left") {
		t.Errorf("help %q offers code keys with nothing to scroll", h)
	}
}

// TestMarkdownTooCostlyOpensAsText: a markdown artifact past
// render.MaxMarkdownWork (one line of 800 list markers took glamour 90 s
// and 1.6 GB) opens at once as plain text under the note, not chunked
// into glamour.
func TestMarkdownTooCostlyOpensAsText(t *testing.T) {
	src := []byte(strings.Repeat("- ", 800) + "y\n")
	f := open(t, "deep.md", src, "text/markdown", "markdown", 80, 24, false)
	if _, ok := f.m.body.(*markdown); ok {
		t.Fatal("the document went to the markdown viewer")
	}
	if out := f.frame(); !strings.Contains(out, "Markdown too costly to style") {
		t.Fatalf("no note:\n%s", out)
	}
}
