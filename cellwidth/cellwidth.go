package cellwidth

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// soundMarks are the extenders terminals draw one cell wide.
const soundMarks = "\uFF9E\uFF9F"

// String is the width of s in cells, ignoring ANSI escape sequences.
func String(s string) int {
	w := ansi.StringWidth(s)
	if !strings.ContainsAny(s, soundMarks) {
		return w
	}
	return w + extenders(ansi.Strip(s))
}

// extenders counts the sound marks of plain that follow another rune on
// their line: those the grapheme width counted as 0 cells.
func extenders(plain string) int {
	n, prev := 0, '\n'
	for _, r := range plain {
		if (r == '\uFF9E' || r == '\uFF9F') && prev != '\n' {
			n++
		}
		prev = r
	}
	return n
}

// Truncate cuts s (which may hold ANSI styling) to at most w cells as
// String measures them, ending in tail when cut.
func Truncate(s string, w int, tail string) string {
	// A long string without escapes is cut on a prefix already wider than
	// w+2 cells: measuring a 60 MB table cell whole took seconds.
	if k := 4*max(w, 0) + 64; len(s) > 2*k && !strings.Contains(s, "\x1b") {
		for k > 0 && !utf8.RuneStart(s[k]) {
			k--
		}
		if p := s[:k]; String(p) > w+2 {
			s = p
		}
	}
	if String(s) <= w {
		return s
	}
	out := ansi.Truncate(s, w, tail)
	for k := w - 1; k > 0 && String(out) > w; k-- {
		out = ansi.Truncate(s, k, tail)
	}
	return out
}
