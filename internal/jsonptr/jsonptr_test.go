package jsonptr

import "testing"

func TestRoundTrip(t *testing.T) {
	for _, c := range []struct{ name, tok string }{
		{"plain", "plain"},
		{"a/b", "a~1b"},
		{"m~n", "m~0n"},
		{"~1", "~01"}, // escaped "~" first, so "~1" in a name survives
		{"/~", "~1~0"},
		{"", ""},
	} {
		if got := Escape(c.name); got != c.tok {
			t.Errorf("Escape(%q) = %q, want %q", c.name, got, c.tok)
		}
		if got := Unescape(c.tok); got != c.name {
			t.Errorf("Unescape(%q) = %q, want %q", c.tok, got, c.name)
		}
	}
	if got := Join([]string{"a/b", "0"}); got != "/a~1b/0" {
		t.Errorf("Join = %q", got)
	}
	if got := Join(nil); got != "" {
		t.Errorf("Join(nil) = %q", got)
	}
}
