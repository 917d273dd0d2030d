package form_test

import (
	"testing"

	"modbay/ui/form"
	"modbay/ui/internal/uitest"
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

// BenchmarkBuildLarge builds the form of the project's large schema
// fixture, recipe-update (target: under 20 ms); it runs without the corpus.
func BenchmarkBuildLarge(b *testing.B) {
	raw := uitest.Schema(b, "recipe-update")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := form.Build(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildLargest builds the form of the largest corpus schema
// (target: under 20 ms); it skips without the corpus.
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
