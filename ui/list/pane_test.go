package list

import (
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
)

// TestPadBlockIsLipgloss: padBlock draws what lipgloss draws for the
// same style, byte for byte, for styled, wide, empty, short and long
// inputs (the fast path and the fall-backs).
func TestPadBlockIsLipgloss(t *testing.T) {
	t.Parallel()
	red := lipgloss.NewStyle().Foreground(lipgloss.Color("#ff0000")).Render
	cases := []struct {
		name  string
		lines []string
		w, h  int
	}{
		{"plain", []string{"a", "bb", "ccc"}, 5, 3},
		{"fewer lines than h", []string{"a"}, 4, 4},
		{"more lines than h", []string{"a", "b", "c", "d"}, 3, 2},
		{"styled", []string{red("▸ ready") + " name", red("x")}, 12, 3},
		{"wide runes", []string{"日本語", "ok"}, 8, 2},
		{"exactly w", []string{"abcd"}, 4, 1},
		{"none", nil, 3, 2},
		{"wider than w", []string{"abcdefgh"}, 4, 3},
		{"tab", []string{"a\tb"}, 10, 1},
		{"zero height", []string{"a"}, 3, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			want := lipgloss.NewStyle().Width(c.w).Height(c.h).MaxHeight(c.h).Render(strings.Join(c.lines, "\n"))
			if got := padBlock(c.lines, c.w, c.h); got != want {
				t.Errorf("padBlock(%q, %d, %d)\n got %q\nwant %q", c.lines, c.w, c.h, got, want)
			}
		})
	}
}

// TestJoinPanesIsLipgloss: joinPanes draws what lipgloss.JoinHorizontal
// draws for blocks of uniform line widths, and falls back to it for
// blocks of different heights.
func TestJoinPanesIsLipgloss(t *testing.T) {
	t.Parallel()
	pane := lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Width(10).Height(4).MaxHeight(4)
	cases := []struct{ name, left, pane string }{
		{"equal heights", padBlock([]string{"a", "日本"}, 5, 4), pane.Render("detail\nlines")},
		{"left taller", padBlock([]string{"a", "b"}, 3, 6), pane.Render("x")},
		{"pane taller", "ab\ncd", pane.Render("x")},
	}
	for _, c := range cases {
		want := lipgloss.JoinHorizontal(lipgloss.Top, c.left, " ", c.pane)
		if got := joinPanes(c.left, c.pane); got != want {
			t.Errorf("%s: joinPanes\n got %q\nwant %q", c.name, got, want)
		}
	}
}
