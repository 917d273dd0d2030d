package cellwidth

import "testing"

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
