package render

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// tableDoc is prose around a small table, and a table too wide for 80
// columns.
var tableDoc = "Some prose that is long enough to wrap at eighty columns, so that the wrap of the paragraphs " +
	"around a table can be seen to stay at the width while the table itself sizes to its content.\n\n" +
	"| name | runs | state |\n|------|-----:|:-----:|\n| notes | **135** | ok |\n| fetch | 7 | `failed` |\n\n" +
	"> | quoted | table |\n> |---|---|\n> | a | b |\n\n" +
	"- a list\n\n  | in | item |\n  |---|---|\n  | x | y |\n\n" +
	"| wide | table |\n|---|---|\n| " + strings.Repeat("word ", 20) + "| " + strings.Repeat("more ", 20) + "|\n"

// tableLines are out's lines holding a table's column separator.
func tableLines(out, sep string) []string {
	var l []string
	for _, line := range strings.Split(ansi.Strip(out), "\n") {
		if strings.Contains(line, sep) {
			l = append(l, strings.TrimRight(line, " "))
		}
	}
	return l
}

// Markdown tables are as wide as their content, up to the width (glamour
// stretches them to it); prose still wraps at the width.
func TestMarkdownTablesFitTheirContent(t *testing.T) {
	for _, c := range []struct {
		name string
		o    Options
		sep  string
	}{
		{"dark", Options{Dark: true}, "│"},
		{"nocolor", Options{NoColor: true}, "|"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var small [2][]string
			for i, w := range []int{80, 200} {
				o := c.o
				o.Width = w
				out, err := Markdown([]byte(tableDoc), o)
				if err != nil {
					t.Fatal(err)
				}
				lines := tableLines(out, c.sep)
				if len(lines) < 10 {
					t.Fatalf("width %d: tables missing:\n%s", w, ansi.Strip(out))
				}
				// The first table: header, rule, two rows.
				small[i] = lines[:4]
				for _, l := range small[i] {
					if n := cellWidth(l); n > 30 {
						t.Errorf("width %d: the small table is %d cells wide: %q\n%s", w, n, l, ansi.Strip(out))
					}
				}
				for _, want := range []string{"notes", "135", "failed", "quoted", "in", "item"} {
					if !strings.Contains(ansi.Strip(out), want) {
						t.Errorf("width %d: %q lost:\n%s", w, want, ansi.Strip(out))
					}
				}
				widest := 0
				for _, l := range strings.Split(ansi.Strip(out), "\n") {
					widest = max(widest, cellWidth(l))
					if strings.Contains(l, "Some prose") && w == 80 && cellWidth(strings.TrimRight(l, " ")) < 60 {
						t.Errorf("prose no longer wraps at the width: %q", l)
					}
				}
				if widest > w {
					t.Errorf("width %d: a line of %d cells", w, widest)
				}
				// The wide table still takes the width it needs.
				if last := lines[len(lines)-1]; w == 80 && cellWidth(last) < 70 {
					t.Errorf("the wide table was narrowed: %q", last)
				}
			}
			if strings.Join(small[0], "\n") != strings.Join(small[1], "\n") {
				t.Errorf("the small table differs between 80 and 200 columns:\n%s\n--\n%s", strings.Join(small[0], "\n"), strings.Join(small[1], "\n"))
			}
		})
	}
}
