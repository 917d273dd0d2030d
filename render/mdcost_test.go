package render

import (
	"fmt"
	"strings"
	"testing"
)

// TestMarkdownTooCostlyIsText: documents whose nesting would cost glamour
// minutes (one line of 800 list markers: 90 s, 1.6 GB; 5,000 blockquote
// markers: unbounded) are shown as plain text with the note, and every
// byte's text is still there.
func TestMarkdownTooCostlyIsText(t *testing.T) {
	for name, src := range map[string]string{
		"list800":  strings.Repeat("- ", 800) + "y\n",
		"quote5k":  strings.Repeat("> ", 5000) + "x\n",
		"ol2000":   strings.Repeat("1. ", 2000) + "x\n",
		"li12x50k": strings.Repeat(strings.Repeat("- ", 12)+"y\n", 50000/26),
		"lazy":     strings.Repeat("- ", 300) + "y\n" + strings.Repeat("z\n", 20000),
		"indented": nestedByIndent(1000),
		// Not a fence (an info string with a backtick), and a fence an HTML
		// block hides: what follows is parsed as markdown.
		"fakefence": "```x`\n" + strings.Repeat("- ", 800) + "y\n",
		"tallTable": "|a|b|c|d|e|\n|-|-|-|-|-|\n" + strings.Repeat("|x|y|z|w|v|\n", 155000),
		"htmlfence": "<div>\n```\n\n" + strings.Repeat("- ", 800) + "y\n",
		// Inline parsing quadratic in one paragraph (38 s and 84 s before).
		"emphRun":  strings.Repeat("*_a", 200000/3),
		"linkRun":  strings.Repeat("[a](", 100000),
		"emphDefs": strings.Repeat("*_a", 200000/3) + "\n\n[x]: /y\n",
		// Rows of one cell under a header of 1,000 (28 s and 1 GB before).
		"wideHeaderRows": strings.Repeat("|a", 1000) + "|\n" + strings.Repeat("|-", 1000) + "|\n" + strings.Repeat("a\n", 2000),
		// Many short blocks: 0.1–0.4 ms each (100,000 headings took 14 s).
		"paragraphs": strings.Repeat("a\n\n", 100000),
		"headings":   strings.Repeat("# a\n", 100000),
		// Within the document's bound, but one chunk past one call's.
		"oneCostlyChunk": strings.Repeat(strings.Repeat("word ", 200)+"\n\n", 400) + strings.Repeat("1. 1. 1. 1. y\n", 1130),
	} {
		t.Run(name, func(t *testing.T) {
			if MarkdownWorkWithin([]byte(src)) {
				t.Fatal("within the bound")
			}
			out, err := Markdown([]byte(src), Options{Width: 80, NoColor: true})
			if err != nil || !strings.HasPrefix(out, "Markdown too costly to style") {
				t.Fatalf("err %v, output starts %.200q", err, out)
			}
		})
	}
}

// nestedByIndent is n list items, each nested in the one before by
// indentation alone.
func nestedByIndent(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat("  ", i) + "- a\n")
	}
	return b.String()
}

// TestMarkdownOrdinaryIsStyled: what real documents hold stays within
// the bound: 1 MiB of sections with lists, code and tables (the viewer's
// benchmark document), a 2 MiB document of prose, 128 KiB of short list items (3,744
// items), 150 lists six levels deep, code indented 16 spaces in a fence.
func TestMarkdownOrdinaryIsStyled(t *testing.T) {
	deep := ""
	for i := range 6 {
		deep += strings.Repeat("  ", i) + "- level\n"
	}
	var sections strings.Builder
	for i := 0; sections.Len() < 1<<20; i++ {
		fmt.Fprintf(&sections, "## Section %d\n\nSome *emphasis*, **strong** text, `code` and a [link](https://example.com/path).\n"+
			"A second sentence that is long enough to wrap at eighty columns, to exercise the word wrapper.\n\n"+
			"- item one\n- item two\n  - nested item\n\n```go\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n```\n\n"+
			"| name | value |\n|------|-------|\n| a    | 1     |\n| b    | 2     |\n\n", i)
	}
	for name, src := range map[string]string{
		"sections": sections.String(),
		"table":    strings.Repeat("| h ", 20) + "|\n" + strings.Repeat("|---", 20) + "|\n" + strings.Repeat(strings.Repeat("| cell ", 20)+"|\n", 500),
		"prose":    strings.Repeat(strings.Repeat("word ", 16)+"\n", (2<<20)/81),
		"list":     strings.Repeat("- item number one with a few words\n", (128<<10)/35),
		"deep":     strings.Repeat(deep+"\n", 150),
		"fenced":   "```\n" + strings.Repeat("                code(indented, 16 spaces)\n", 5000) + "```\n",
	} {
		if !MarkdownWorkWithin([]byte(src)) {
			t.Errorf("%s: past the bound", name)
		}
	}
}

// TestMarkdownWorkCounts: the estimate's depth reading, line by line.
func TestMarkdownWorkCounts(t *testing.T) {
	for _, c := range []struct {
		line string
		d    int
	}{
		{"text", 0}, {"- a", 1}, {"- - a", 2}, {"> > a", 2}, {"1. a", 1}, {"12) - a", 2},
		{"    - a", 3}, {"\t- a", 3}, {"-a", 0}, {"1.5 m", 0}, {"***", 0}, {"- ", 1}, {"-", 1},
	} {
		if d := containerPrefix([]byte(c.line)).depth(1 << 20); d != c.d {
			t.Errorf("%q: depth %d, want %d", c.line, d, c.d)
		}
	}
	// Indentation continues only containers open: top-level indented
	// code is depth 0, a deep item's continuation keeps the item's depth.
	// A line 3 deep with 3 markers costs 4·4·11/8 + 3·4 = 34, one 3 deep
	// with none 22, one 4 deep with 4 markers 5·5·12/8 + 16 = 53; a line
	// that may start a block 3 more (after a blank line, with markers, or
	// not starting with a letter or digit).
	if got, want := markdownWork([]byte("        code\n        code\n"), 1<<30), int64(1+3+1); got != want {
		t.Errorf("indented code: work %d, want %d", got, want)
	}
	if got, want := markdownWork([]byte("- + - a\n\n      b\n"), 1<<30), int64(34+3+1+22+3); got != want {
		t.Errorf("continuation after a blank line: work %d, want %d", got, want)
	}
	// A line of markers alone opens its containers for what follows.
	if got, want := markdownWork([]byte("- + - +\n        b\n"), 1<<30), int64(53+37); got != want {
		t.Errorf("markers only: work %d, want %d", got, want)
	}
	// A lazy continuation keeps the depth of the line before it.
	if got, want := markdownWork([]byte("- - - a\nb\n"), 1<<30), int64(34+3+22); got != want {
		t.Errorf("lazy line: work %d, want %d", got, want)
	}
}

// worstShapes are the costliest shapes found; filled to just within one
// call's bound, each renders in 0.1–1.5 s (BenchmarkMarkdownWorstWithinBound).
var worstShapes = map[string]string{
	"li":   "- y\n",
	"li4":  "- - - - y\n",
	"li12": strings.Repeat("- ", 12) + "y\n",
	"li40": strings.Repeat("- ", 40) + "y\n",
	"bq40": strings.Repeat("> ", 40) + "y\n",
	"ol4":  "1. 1. 1. 1. y\n",
	"para": "a\n\n",
	"h":    "# a\n",
	"dl":   "a\n: b\n\n",
	// One paragraph: goldmark's inline parsing is quadratic in it.
	"emph": "*_a",
	"link": "[a](",
	"img":  "![a](",
	"www":  "www.a.b/(",
	"row":  "|x|y|\n",
}

// fillWithin repeats line as often as the bound allows.
func fillWithin(line string) []byte {
	lo, hi := 1, (MaxMarkdownBytes/len(line))+1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if MarkdownWorkWithin([]byte(strings.Repeat(line, mid))) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return []byte(strings.Repeat(line, lo))
}

func BenchmarkMarkdownWorstWithinBound(b *testing.B) {
	for name, line := range worstShapes {
		src := fillWithin(line)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				_, _ = Markdown(src, Options{Width: 80})
			}
		})
	}
}

// FuzzMarkdownWork: the estimate never panics, counts at least one unit
// per line, and grows when a line is nested one level deeper.
func FuzzMarkdownWork(f *testing.F) {
	for _, s := range []string{"- a\n> b\n", "```\n- x\n```\n", "1. 2) - > \t x\nlazy\n\n", strings.Repeat("- ", 50)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		src := []byte(s)
		lines := int64(strings.Count(s, "\n"))
		_ = MarkdownWorkWithin(src) // the block parse and inlineWork too
		if w := markdownWork(src, 1<<62); w < lines {
			t.Fatalf("work %d for %d lines", w, lines)
		}
		if strings.Contains(s, "\n") {
			return
		}
		if a, b := markdownWork(src, 1<<62), markdownWork([]byte("> "+s), 1<<62); b <= a {
			t.Fatalf("nesting %q one level deeper: work %d → %d", s, a, b)
		}
	})
}
