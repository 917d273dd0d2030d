package formview

import (
	"strings"
	"testing"

	"modbay/ui/internal/uitest"
)

// 1e999 typed in the form or in JSON mode is a problem
// the person confirms (ctrl+s twice: send anyway), with one count in both
// views, and what is sent is the number exactly as typed.
func TestNumberNoReaderHoldsIsConfirmedBeforeSending(t *testing.T) {
	const schema = `{"type":"object","properties":{"n":{"type":"number"},"i":{"type":"integer"}}}`
	m := newSchemaForm(t, schema, 100, 20)
	feed(m, uitest.Type("1e999")...)
	if a := keys(m, "ctrl+s"); a != nil {
		t.Fatalf("the first ctrl+s sent %+v", a)
	}
	if n := m.Problems().Count(); n != 1 || !strings.Contains(m.View(), "1e999 is too large for any reader") {
		t.Fatalf("form: %d problems\n%s", n, m.View())
	}
	a, ok := keys(m, "ctrl+s").(ActionSubmit)
	if !ok || !a.Unchecked || string(a.Input) != `{"n":1e999}` {
		t.Fatalf("the second ctrl+s: %+v", a)
	}

	m = newSchemaForm(t, schema, 100, 20)
	keys(m, "ctrl+e")
	m.jsonArea.SetValue(`{"n": -1e999, "i": 12345678901234567890}`)
	m.checkJSON()
	view := m.View()
	if n := m.Problems().Count(); n != 2 || !strings.Contains(view, "/n: -1e999 is too large") || !strings.Contains(view, "/i: 12345678901234567890 loses digits") {
		t.Fatalf("JSON mode: %d problems\n%s", n, view)
	}
	if a := keys(m, "ctrl+s"); a != nil {
		t.Fatalf("the first ctrl+s in JSON mode sent %+v", a)
	}
	a, ok = keys(m, "ctrl+s").(ActionSubmit)
	if !ok || !a.Unchecked || string(a.Input) != `{"n":-1e999,"i":12345678901234567890}` {
		t.Fatalf("JSON mode, the second ctrl+s: %+v", a)
	}
	keys(m, "ctrl+e")
	if n := m.Problems().Count(); m.JSONMode() || n != 2 {
		t.Fatalf("the form after JSON mode: %d problems (want the same 2)", n)
	}
}
