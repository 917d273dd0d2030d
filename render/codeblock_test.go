package render

import (
	"fmt"
	"strings"
	"testing"
	"time"

	xansi "github.com/charmbracelet/x/ansi"
)

// TestLexerIndex: a fence's language is found by name, alias or file
// extension, in any case; a word chroma does not know finds none (no
// guess from the code).
func TestLexerIndex(t *testing.T) {
	for lang, want := range map[string]string{"go": "Go", "Go": "Go", "golang": "Go", "py": "Python", "python": "Python", "rs": "Rust", "sh": "Bash", "JSON": "JSON"} {
		l := lexerIndex()[strings.ToLower(lang)]
		if l == nil || l.Config().Name != want {
			t.Errorf("%q: lexer %v, want %s", lang, l, want)
		}
	}
	for _, lang := range []string{"x1", "", "notalanguage"} {
		if l := lexerIndex()[lang]; l != nil {
			t.Errorf("%q: lexer %s, want none", lang, l.Config().Name)
		}
	}
}

// TestCodeHighlightedOnlyWhenNamed: a Go fence is coloured, a fence with
// no language or an unknown one is drawn as written, uncoloured.
func TestCodeHighlightedOnlyWhenNamed(t *testing.T) {
	for fence, coloured := range map[string]bool{"go": true, "": false, "x1": false} {
		out, err := Markdown([]byte("```"+fence+"\nfunc main() { return }\n```\n"), Options{Width: 80, Dark: true})
		if err != nil {
			t.Fatal(err)
		}
		var line string
		for l := range strings.Lines(out) {
			if strings.Contains(xansi.Strip(l), "func main()") {
				line = l
			}
		}
		if line == "" {
			t.Fatalf("%q: code line missing:\n%s", fence, out)
		}
		// Chroma's keyword colour sits between "func" and its text.
		if got := !strings.Contains(line, "func main()"); got != coloured {
			t.Errorf("fence %q: coloured %v, want %v: %q", fence, got, coloured, line)
		}
	}
}

// TestHighlightTimeBounded: once a document's blocks have used
// maxHighlightTime in chroma, the rest are drawn uncoloured.
func TestHighlightTimeBounded(t *testing.T) {
	c := &codeBlocks{blocks: []codeBlock{{lang: "go", text: "func main() {}\n"}}}
	out := c.fill("  "+sentCode+"\n", 80, "monokai", false)
	if strings.Contains(out, "func main()") {
		t.Fatalf("not highlighted within the budget: %q", out)
	}
	c = &codeBlocks{blocks: c.blocks, highlighting: maxHighlightTime}
	if out := c.fill("  "+sentCode+"\n", 80, "monokai", false); out != "  func main() {}\n" {
		t.Fatalf("past the budget: %q, want the code as written", out)
	}
}

// BenchmarkManyCodeBlocks: 5,000 small code blocks, each with a language
// of its own chroma does not know (3 ms each before the lexer index: 15 s).
func BenchmarkManyCodeBlocks(b *testing.B) {
	var sb strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&sb, "```x%d\ncode %d\n```\n\n", i, i)
	}
	src := []byte(sb.String())
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		_, _ = Markdown(src, Options{Width: 80, Dark: true})
	}
}

// TestChunkDefinitions: a chunk is given the definitions its bracketed
// texts may name, matched as CommonMark matches labels (case and runs of
// space aside), and no others.
func TestChunkDefinitions(t *testing.T) {
	defs := []byte("[foo  bar]: /a\n[Unused]: /b\n[x\\]y]: /c\n[émoji]: /d\n")
	chunk := []byte("See [the docs][FOO\nBar], [x\\]y] and [ÉMOJI]; [not [used] either.")
	got := string(chunkDefinitions(chunk, defs))
	if want := "[foo  bar]: /a\n[x\\]y]: /c\n[émoji]: /d\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got := chunkDefinitions([]byte("no links"), defs); len(got) != 0 {
		t.Fatalf("a chunk with no brackets got %q", got)
	}
}

// TestHighlightStopsAtDeadline: lexing that passes its deadline gives the
// block uncoloured, not cut.
func TestHighlightStopsAtDeadline(t *testing.T) {
	var b strings.Builder
	if highlight(&b, "func main() {}\n", "go", "monokai", time.Now().Add(-time.Second)) {
		t.Fatal("a lexing past its deadline was used")
	}
	// Its lexer is not used again.
	b.Reset()
	if highlight(&b, "func main() {}\n", "go", "monokai", time.Now().Add(time.Minute)) {
		t.Fatal("a lexer that ran late was used again")
	}
	slowLexers.Delete("Go")
	b.Reset()
	if !highlight(&b, "func main() {}\n", "go", "monokai", time.Now().Add(time.Minute)) {
		t.Fatal("a lexing within its deadline was not used")
	}
}

// BenchmarkHostileLexer: a block chroma's AutoIt lexer takes minutes on
// (16 KB of tabs: 467 s), in a document: highlighting stops at the
// block's blockHighlightTime (0.32 s), each time as if for the first.
func BenchmarkHostileLexer(b *testing.B) {
	src := []byte("```autoit\n" + strings.Repeat("\t", 16000) + "\n```\n")
	for b.Loop() {
		slowLexers.Delete("AutoIt")
		_, _ = Markdown(src, Options{Width: 80, Dark: true})
	}
}
