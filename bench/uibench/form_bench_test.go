// Package uibench holds bench/run's Go benchmarks that need an input the
// suite generates or finds at run time (never committed, never read from
// outside the repository by default).
package uibench

import (
	"encoding/json"
	"os"
	"testing"

	tea "charm.land/bubbletea/v2"

	"modbay/schema"
	"modbay/ui/common"
	"modbay/ui/form"
	"modbay/ui/formview"
)

// BenchmarkFormKeystrokeView is one keystroke typed into the form of the
// JSON Schema in the file $MODBAY_BENCH_SCHEMA (bench/run passes the
// largest schema of the corpus) at 120×40, colored: formview's Update
// (editor, conditionals, value, validation against the compiled schema)
// and its View, as the program runs them per key. Without the variable
// it is skipped: there is nothing to measure.
func BenchmarkFormKeystrokeView(b *testing.B) {
	path := os.Getenv("MODBAY_BENCH_SCHEMA")
	if path == "" {
		b.Skip("MODBAY_BENCH_SCHEMA is not set (bench/run sets it)")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	f, err := form.Build(json.RawMessage(raw))
	if err != nil {
		b.Fatal(err)
	}
	com := common.New(false)
	com.Width, com.Height = 120, 40
	m := formview.New(com, f, schema.ValidateInput)
	ks := []tea.KeyPressMsg{{Code: 'a', Text: "a"}, {Code: tea.KeyBackspace}}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		m.Update(ks[i%2])
		i++
		if m.View() == "" {
			b.Fatal("empty frame")
		}
	}
}
