package render

import (
	"math"
	"reflect"
	"testing"

	"modbay/modproto"
)

func TestWords(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1536: "1.5 KiB", 5 << 20: "5.0 MiB"} {
		if got := HumanBytes(n); got != want {
			t.Errorf("HumanBytes(%d) = %q, want %q", n, got, want)
		}
	}
	if got := ShortDigest(modproto.Digest(nil)); got != "sha256:e3b0c44298fc…" {
		t.Errorf("ShortDigest = %q", got)
	}
	zero, tiny, some := 0.0, 0.0042, 1.5
	for _, c := range []struct {
		v    *float64
		want string
	}{{nil, "unknown"}, {&zero, "free ($0.00)"}, {&tiny, "$0.0042"}, {&some, "$1.50"}} {
		if got := Cost(c.v); got != c.want {
			t.Errorf("Cost = %q, want %q", got, c.want)
		}
	}
}

// TestCostOutOfRange pins what a module's absurd cost reads as: a negative
// or huge number is flagged, and a tiny one never reads as free.
func TestCostOutOfRange(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		v    *float64
		want string
	}{
		{f(-1e9), "invalid: negative (-$1.0e+09)"},
		{f(-1e-7), "invalid: negative (-$1.0e-07)"},
		{f(-2.5), "invalid: negative (-$2.50)"},
		{f(1e308), "implausible: $1.0e+308"},
		{f(MaxPlausibleCost), "$1000000.00"},
		{f(1e-7), "$1.0e-07"},
		{f(0.0001), "$0.0001"},
		{f(math.Copysign(0, -1)), "free ($0.00)"},
		{f(math.NaN()), "invalid: not a number"},
		{f(math.Inf(1)), "invalid: not a number"},
	} {
		if got := Cost(c.v); got != c.want {
			t.Errorf("Cost(%v) = %q, want %q", *c.v, got, c.want)
		}
	}
	got := EffectBadges(modproto.Effects{Network: true, Provider: "x\x1b[31m", CostKnown: false}, true)
	want := []string{"network", "provider:x␛[31m", "cost unknown", "long-running"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("EffectBadges = %q, want %q", got, want)
	}
}
