package formview

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"modbay/internal/testcorpus"
	modschema "modbay/schema"
	"modbay/ui/common"
	"modbay/ui/form"
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

// wideSchema is a request schema of n required string properties, each
// with a pattern and a minLength: in bounds for the compiler and the
// form (7,900 make 560 KB), a hostile module's way to make every
// keystroke costly.
func wideSchema(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{"type":"string","pattern":"^a*b{0,9}$","minLength":1}`, i)
	}
	b.WriteString(`},"required":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d"`, i)
	}
	b.WriteString(`]}`)
	return b.String()
}

// BenchmarkKeystrokeWide is BenchmarkKeystroke on a form of 7,900
// required fields (wideSchema), validated as the cockpit does
// (schema.ValidateForm).
func BenchmarkKeystrokeWide(b *testing.B) {
	f, err := form.Build(json.RawMessage(wideSchema(7900)))
	if err != nil {
		b.Fatal(err)
	}
	com := common.New(true)
	com.Width, com.Height = 100, 30
	m := New(com, f, modschema.ValidateForm)
	_ = m.View()
	ks := []tea.KeyPressMsg{uitest.Key("a"), uitest.Key("backspace")}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		m.Update(ks[i%2])
		_ = m.View()
		i++
	}
}

// BenchmarkOpenWide is opening the form of BenchmarkKeystrokeWide once
// built (New: the whole-input check, then the first screen), the part
// that runs on the cockpit's event loop.
func BenchmarkOpenWide(b *testing.B) {
	f, err := form.Build(json.RawMessage(wideSchema(7900)))
	if err != nil {
		b.Fatal(err)
	}
	com := common.New(true)
	com.Width, com.Height = 100, 30
	b.ReportAllocs()
	for b.Loop() {
		m := New(com, f, modschema.ValidateForm)
		_ = m.View()
	}
}
