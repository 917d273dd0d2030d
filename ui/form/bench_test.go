package form_test

import (
	"testing"

	"modbay/ui/form"
)

// largest returns the name and bytes of the largest corpus schema.
func largest(b *testing.B) (string, []byte) {
	name, best := "", []byte(nil)
	for k, v := range corpus(b) {
		if len(v) > len(best) {
			name, best = k, v
		}
	}
	return name, best
}

// BenchmarkBuildLargest builds the form of the largest corpus schema
// (target: under 20 ms).
func BenchmarkBuildLargest(b *testing.B) {
	name, raw := largest(b)
	b.Logf("largest corpus schema: %s (%d bytes)", name, len(raw))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := form.Build(raw); err != nil {
			b.Fatal(err)
		}
	}
}
