package formview

import (
	"os"
	"testing"

	tea "charm.land/bubbletea/v2"

	"modbay/ui/internal/uitest"
)

// BenchmarkKeystroke feeds one key to the form of the largest corpus
// schema (notion's) with its text field focused: editor update, tree
// update, conditionals, value and full schema validation (target: under
// 1 ms).
func BenchmarkKeystroke(b *testing.B) {
	raw, err := os.ReadFile("../../../shared/corpus/schemas/notion-mcp-server__API-update-page-markdown.json")
	if err != nil {
		b.Fatal(err)
	}
	m := newSchemaForm(&testing.T{}, string(raw), 100, 30)
	ks := []tea.KeyPressMsg{uitest.Key("a"), uitest.Key("backspace")}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		m.Update(ks[i%2])
		i++
	}
}
