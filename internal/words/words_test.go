package words

import (
	"testing"
	"time"
)

func TestPluralAndCount(t *testing.T) {
	for _, c := range []struct {
		n             int
		plural, count string
	}{{0, "lines", "0 lines"}, {1, "line", "1 line"}, {2, "lines", "2 lines"}} {
		if got := Plural(c.n, "line", "lines"); got != c.plural {
			t.Errorf("Plural(%d) = %q", c.n, got)
		}
		if got := Count(c.n, "line", "lines"); got != c.count {
			t.Errorf("Count(%d) = %q", c.n, got)
		}
	}
}

func TestAgo(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "just now"},
		{59 * time.Second, "just now"},
		{3*time.Minute + 10*time.Second, "3m ago"},
		{2 * time.Hour, "2h ago"},
		{4 * 24 * time.Hour, "4d ago"},
		{400 * 24 * time.Hour, "2025-02-03"},
	} {
		if got := Ago(now, now.Add(-c.d)); got != c.want {
			t.Errorf("Ago(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}
