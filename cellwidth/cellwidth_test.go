package cellwidth

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestHalfwidthSoundMarks: "ｶﾞｷﾞ" is four cells in xterm and tmux, and a
// cut of it is marked.
func TestHalfwidthSoundMarks(t *testing.T) {
	cases := []struct {
		s    string
		want int
	}{{"ｶﾞｷﾞ", 4}, {"ﾞ", 1}, {"a\nﾞ", 2}, {"abc", 3}, {"\x1b[1mｶﾞ\x1b[m", 2}, {"日本", 4}}
	for _, c := range cases {
		if got := String(c.s); got != c.want {
			t.Errorf("String(%q) = %d, want %d", c.s, got, c.want)
		}
	}
	// A kana and its mark are one grapheme: the cut falls before "ｷﾞ".
	if got := Truncate("ｶﾞｷﾞｸﾞｹﾞ", 4, "…"); got != "ｶﾞ…" || String(got) > 4 {
		t.Errorf("Truncate = %q, want ｶﾞ…", got)
	}
}

// TestTruncateLongMatchesWhole: cutting a long string on a prefix gives
// what measuring it whole gives (ASCII, wide, combining and mixed runs).
func TestTruncateLongMatchesWhole(t *testing.T) {
	whole := func(s string, w int, tail string) string {
		if String(s) <= w {
			return s
		}
		out := ansi.Truncate(s, w, tail)
		for k := w - 1; k > 0 && String(out) > w; k-- {
			out = ansi.Truncate(s, k, tail)
		}
		return out
	}
	for _, s := range []string{
		strings.Repeat("x", 100000),
		strings.Repeat("漢", 50000),
		strings.Repeat("e\u0301", 40000),
		"a" + strings.Repeat("\u0301", 5000) + strings.Repeat("b", 5000),
		strings.Repeat("a漢👍🏽", 20000),
	} {
		for _, w := range []int{0, 1, 2, 7, 40, 80} {
			if got, want := Truncate(s, w, "…"), whole(s, w, "…"); got != want {
				t.Errorf("%.20q at %d: %.40q, want %.40q", s, w, got, want)
			}
		}
	}
}
