package formview

import (
	"os"
	"testing"

	tea "charm.land/bubbletea/v2"

	"modbay/internal/testcorpus"
	"modbay/ui/internal/uitest"
)

// BenchmarkKeystroke feeds one key (then draws the screen) to the form of the project's large
// schema fixture (recipe-update) with its text field focused: editor
// update, tree update, conditionals, value and full schema validation
// (target: under 1 ms). It runs without the corpus.
func BenchmarkKeystroke(b *testing.B) {
	benchKeystroke(b, uitest.Schema(b, "recipe-update"))
}

// BenchmarkKeystrokeCorpus is BenchmarkKeystroke on the largest corpus
// schema (notion's); it skips without the corpus.
func BenchmarkKeystrokeCorpus(b *testing.B) {
	raw, err := os.ReadFile(testcorpus.Dir(b, "schemas", "notion-mcp-server__API-update-page-markdown.json"))
	if err != nil {
		b.Fatal(err)
	}
	benchKeystroke(b, raw)
}

func benchKeystroke(b *testing.B, raw []byte) {
	b.Helper()
	m := newSchemaForm(&testing.T{}, string(raw), 100, 30)
	ks := []tea.KeyPressMsg{uitest.Key("a"), uitest.Key("backspace")}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		m.Update(ks[i%2])
		_ = m.View()
		i++
	}
}
