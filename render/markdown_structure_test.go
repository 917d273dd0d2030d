package render

import (
	"strings"
	"testing"
)

// TestMarkdownStructure pins block structure glamour's own renderer loses:
// each case is rendered without color at 60 columns and the
// lines that must appear (trailing spaces dropped) are checked in order.
func TestMarkdownStructure(t *testing.T) {
	long := "https://example.com/a/very/long/path/that/goes/on/and/on/for/a/while/index.html"
	for _, c := range []struct {
		name, src string
		want      []string // consecutive output lines, trimmed of the margin
		absent    []string
	}{
		{
			name:   "second paragraph of a list item",
			src:    "* Item one.\n* Item two has text.\n\n    A second paragraph of item two.\n* Item three.\n",
			want:   []string{"• Item two has text.", "", "A second paragraph of item two.", "• Item three."},
			absent: []string{"text.A second"},
		},
		{
			name: "task item keeps its box",
			src:  "- [ ] open task\n- [x] done task\n",
			want: []string{"[ ] open task", "[x] done task"},
		},
		{
			name:   "ordered list item with two paragraphs",
			src:    "1. First paragraph.\n\n   Second paragraph.\n",
			want:   []string{"1. First paragraph.", "", "Second paragraph."},
			absent: []string{"paragraph.Second"},
		},
		{
			name:   "html line breaks",
			src:    "Line one<br>line two<br/>line three<BR />four\n",
			want:   []string{"Line one", "line two", "line three", "four"},
			absent: []string{"oneline"},
		},
		{
			name: "hard line breaks in a paragraph",
			src:  "Two spaces  \nthen a backslash\\\nthen soft\nbreaks join.\n",
			want: []string{"Two spaces", "then a backslash", "then soft breaks join."},
		},
		{
			name: "soft break in a tight list item",
			src:  "* a tight item\n  continued on the next line\n",
			want: []string{"• a tight item continued on the next line"},
		},
		{
			name:   "table link footnote is wrapped, not cut",
			src:    "| a | b |\n|---|---|\n| [x](" + long + ") | y |\n",
			want:   []string{"[1]: x https://example.com/a/very/long/path/that/goes/on/a", "nd/on/for/a/while/index.html"},
			absent: []string{"…"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := Markdown([]byte(c.src), Options{Width: 60, NoColor: true})
			if err != nil {
				t.Fatal(err)
			}
			checkOutput(t, out, 60, true)
			var lines []string
			for l := range strings.Lines(out) {
				lines = append(lines, strings.TrimSpace(l))
			}
			if !containsRun(lines, c.want) {
				t.Errorf("want consecutive lines %q in\n%s", c.want, out)
			}
			for _, a := range c.absent {
				if strings.Contains(out, a) {
					t.Errorf("output contains %q:\n%s", a, out)
				}
			}
		})
	}
}

// TestMarkdownFootnoteURLWhole checks, in color too, that the footnote of a
// link in a table carries the whole URL and no ellipsis at any width.
func TestMarkdownFootnoteURLWhole(t *testing.T) {
	long := "https://example.com/" + strings.Repeat("segment/", 12) + "end.html"
	src := "| a | b |\n|---|---|\n| [x](" + long + ") | y |\n"
	for _, o := range []Options{{Width: 40, NoColor: true}, {Width: 40, Dark: true}, {Width: 100, NoColor: true}} {
		out, err := Markdown([]byte(src), o)
		if err != nil {
			t.Fatal(err)
		}
		checkOutput(t, out, o.Width, o.NoColor)
		plain := strings.ReplaceAll(stripForTest(out), "\n", "")
		plain = strings.Join(strings.Fields(plain), "")
		if !strings.Contains(plain, long) || strings.Contains(out, "…") {
			t.Errorf("%+v: footnote URL not whole:\n%s", o, out)
		}
	}
}

// containsRun reports whether want occurs in lines as consecutive lines.
func containsRun(lines, want []string) bool {
	for i := 0; i+len(want) <= len(lines); i++ {
		ok := true
		for j, w := range want {
			if lines[i+j] != w {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// TestMarkdownHangingIndent: a list item's wrapped lines, and its later
// paragraphs, start under the item's text, not under its bullet, nested
// lists included, at every width of the sweep; the text is unchanged.
func TestMarkdownHangingIndent(t *testing.T) {
	src := "* Item three is a long item that wraps across more than one line when the width is narrow enough.\n\n" +
		"  Its second paragraph is long enough to wrap as well, under the text of the item.\n" +
		"* Short.\n\n" +
		"1. An ordered item whose text also wraps across more than one line at narrow widths.\n" +
		"   1. A nested item with a long text that wraps around at the narrow widths too.\n"
	for _, width := range []int{30, 40, 60} {
		out, err := Markdown([]byte(src), Options{Width: width, NoColor: true})
		if err != nil {
			t.Fatal(err)
		}
		checkOutput(t, out, width, true)
		hang := -1
		for l := range strings.Lines(out) {
			l = strings.TrimRight(l, " \n")
			body := strings.TrimLeft(l, " ")
			indent := len(l) - len(body)
			switch {
			case body == "":
				continue
			case strings.HasPrefix(body, "• "):
				hang = indent + 2 // "• " is two cells
			case len(body) > 3 && body[0] >= '1' && body[0] <= '9' && body[1] == '.':
				hang = indent + 3
			case hang >= 0 && indent != hang:
				t.Errorf("width %d: line %q starts at %d, its item's text at %d\n%s", width, l, indent, hang, out)
			}
		}
		words := strings.Fields(stripForTest(out))
		for _, w := range []string{"narrow", "enough.", "paragraph", "nested", "too."} {
			if !strings.Contains(strings.Join(words, " "), w) {
				t.Errorf("width %d: %q lost", width, w)
			}
		}
	}
}

// TestTrimCells: the spaces at either end of a styled line go, its
// styling stays.
func TestTrimCells(t *testing.T) {
	for in, want := range map[string]string{
		"  plain  ":                           "plain",
		"\x1b[1m  bold \x1b[m   ":             "\x1b[1mbold\x1b[m",
		"  \x1b[38;5;252mword\x1b[m\x1b[0m  ": "\x1b[38;5;252mword\x1b[m\x1b[0m",
		"   ":                                 "",
		"\x1b[1m \x1b[m":                      "\x1b[1m\x1b[m",
	} {
		if got := trimCells(in); got != want {
			t.Errorf("trimCells(%q) = %q, want %q", in, got, want)
		}
	}
}
