package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// renderChunked renders src as the cockpit's viewer and `modbay render` do
// for a long document: cut by SplitMarkdown at target bytes, each chunk
// rendered with the document's link definitions, blank lines at a chunk's
// edges dropped and one blank line between chunks.
func renderChunked(t *testing.T, src []byte, target int, o Options) (string, int) {
	t.Helper()
	chunks := SplitMarkdown(src, target)
	defs := LinkDefinitions(src)
	var outs []string
	for _, c := range chunks {
		out, err := MarkdownChunk(c, defs, o)
		if err != nil {
			t.Fatal(err)
		}
		if s := strings.Trim(out, "\n"); s != "" {
			outs = append(outs, s)
		}
	}
	return strings.Join(outs, "\n\n"), len(chunks)
}

// textLines is what a person reads in a rendering: its non-blank lines,
// without styling or trailing spaces. Chunk joins may differ from the
// whole document in blank lines only.
func textLines(s string) []string {
	var lines []string
	for l := range strings.Lines(ansi.Strip(s)) {
		if l = strings.TrimRight(l, " \n"); strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// sameText fails t with the first differing line of whole and chunked.
func sameText(t *testing.T, whole, chunked string) {
	t.Helper()
	w, c := textLines(whole), textLines(chunked)
	for i := range min(len(w), len(c)) {
		if w[i] != c[i] {
			t.Fatalf("line %d differs:\n whole   %q\n chunked %q", i, w[i], c[i])
		}
	}
	if len(w) != len(c) {
		t.Fatalf("whole has %d lines, chunked %d", len(w), len(c))
	}
}

// TestMarkdownChunkedReferenceLinks is the bug report's case:
// reference-style link definitions at the end of a long file are shown
// literally ("[install guide][install]") in every chunk but the last.
func TestMarkdownChunkedReferenceLinks(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "markdown", "reference-links.md"))
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Width: 80, NoColor: true}
	whole, err := Markdown(src, o)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(whole, "][install]") || !strings.Contains(whole, "https://example.com/docs/install") {
		t.Fatalf("the whole document does not resolve its references:\n%s", whole)
	}
	for _, target := range []int{MarkdownChunkBytes, 2 << 10, 512} {
		chunked, n := renderChunked(t, src, target, o)
		if n < 2 {
			t.Fatalf("target %d: %d chunk(s); the fixture must be split", target, n)
		}
		for _, lit := range []string{"][install]", "[changelog][]", "][bugs]", "][faq]"} {
			if strings.Contains(chunked, lit) {
				t.Errorf("target %d: %q shown literally", target, lit)
			}
		}
		sameText(t, whole, chunked)
	}
}

// TestMarkdownChunkedSameText renders every corpus markdown file whole and
// in chunks small enough to split each of them, at two widths, and checks
// a person reads the same text either way.
func TestMarkdownChunkedSameText(t *testing.T) {
	for _, path := range corpusFiles(t, "markdown") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			src := readFile(t, path)
			// The largest target that splits the file, halving down to a
			// few bytes (a cut is then made at every block boundary).
			target := len(src) / 2
			for target > 8 && len(SplitMarkdown(src, target)) < 2 {
				target /= 2
			}
			if len(SplitMarkdown(src, target)) < 2 {
				// One block (a single table) has no cut point: whole anyway.
				t.Skipf("%d bytes, no cut point at any size", len(src))
			}
			for _, o := range []Options{{Width: 80, NoColor: true}, {Width: 50, Dark: true}} {
				whole, err := Markdown(src, o)
				if err != nil {
					t.Fatal(err)
				}
				chunked, _ := renderChunked(t, src, target, o)
				sameText(t, whole, chunked)
			}
		})
	}
}

// TestLinkDefinitions checks the definitions are found wherever they are
// and written back so they resolve the same way (titles with quotes, a
// destination with a space).
func TestLinkDefinitions(t *testing.T) {
	src := []byte("text [a][x] and [b]\n\n[x]: https://x.example \"It's\"\n\n> [b]: <https://b.example/with space> \"say \\\"hi\\\"\"\n")
	defs := LinkDefinitions(src)
	if got := strings.Count(string(defs), "\n"); got != 2 {
		t.Fatalf("want 2 definitions, got %d:\n%s", got, defs)
	}
	out, err := MarkdownChunk([]byte("[a][x] and [b]\n"), defs, Options{Width: 80, NoColor: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"https://x.example", "https://b.example/with space"} {
		if !strings.Contains(out, want) {
			t.Errorf("%q not resolved in %q", want, out)
		}
	}
	if LinkDefinitions([]byte("no definitions here")) != nil {
		t.Error("definitions found in a file without any")
	}
}

// TestSlidesResolveDeckReferences: a slide deck is rendered page by page;
// a reference defined on the last page resolves on the first.
func TestSlidesResolveDeckReferences(t *testing.T) {
	deck := []byte("# One\n\nSee [the guide][guide].\n\n---\n\n# Two\n\n[guide]: https://example.com/guide\n")
	out, err := Slides(deck, Meta{MediaType: "text/markdown"}, Options{Width: 60, NoColor: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "[guide]") || !strings.Contains(out, "https://example.com/guide") {
		t.Errorf("reference not resolved across pages:\n%s", out)
	}
}
