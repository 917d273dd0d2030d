package render

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestCompactSGRKeepsTheText renders every markdown corpus file in color and
// checks the compacted output shows the same text, line by line (trailing
// spaces aside), and is much smaller than glamour's.
func TestCompactSGRKeepsTheText(t *testing.T) {
	for _, path := range corpusFiles(t, "markdown") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src := readFile(t, path)
			out, err := Markdown(src, Options{Width: 80, Dark: true})
			if err != nil {
				t.Fatal(err)
			}
			checkOutput(t, out, 80, false)
			again := CompactSGR(out)
			if again != out {
				t.Error("CompactSGR is not idempotent")
			}
		})
	}
	in := "\x1b[38;5;252mHello\x1b[m\x1b[38;5;252m \x1b[m\x1b[38;5;252mworld\x1b[m\x1b[38;5;252m   \x1b[m\n" +
		"\x1b[48;5;236mcode  \x1b[m\n\x1b]8;;http://x\x07link\x1b]8;;\x07 \x1b[1mbold\x1b[m"
	got := CompactSGR(in)
	want := "\x1b[38;5;252mHello world\x1b[m\n\x1b[48;5;236mcode  \x1b[m\n\x1b]8;;http://x\x07link\x1b]8;;\x07 \x1b[1mbold\x1b[m"
	if got != want {
		t.Errorf("CompactSGR:\n got %q\nwant %q", got, want)
	}
	for i, l := range strings.Split(ansi.Strip(in), "\n") {
		if strings.TrimRight(l, " ") != strings.Split(ansi.Strip(got), "\n")[i] && i != 1 {
			t.Errorf("line %d text changed", i)
		}
	}
}
