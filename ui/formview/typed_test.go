package formview

import (
	"strings"
	"testing"

	"modbay/ui/internal/uitest"
)

// The empty string survives JSON mode, shows as "", and ctrl+r
// enters it from the keyboard.
func TestEmptyStringThroughJSONModeAndCtrlR(t *testing.T) {
	const schema = `{"type":"object","properties":{"v":{"type":"string"}},"required":["v"]}`
	m := newSchemaForm(t, schema, 80, 20)
	keys(m, "ctrl+e")
	m.jsonArea.SetValue(`{"v": ""}`)
	keys(m, "ctrl+e")
	if m.JSONMode() {
		t.Fatalf("still in JSON mode: %s", m.Note())
	}
	if string(m.Value()) != `{"v":""}` || m.Problems().Count() != 0 {
		t.Fatalf(`{"v": ""} through the form: %s, %+v`, m.Value(), m.Problems())
	}
	view := m.View()
	if !strings.Contains(view, `empty string ""`) || strings.Contains(view, "required") {
		t.Fatalf("the form does not show the empty string:\n%s", view)
	}
	keys(m, "ctrl+e")
	if got := strings.Join(strings.Fields(m.jsonArea.Value()), ""); got != `{"v":""}` {
		t.Fatalf("JSON mode shows %s", got)
	}

	m = newSchemaForm(t, schema, 80, 20)
	keys(m, "ctrl+r")
	if string(m.Value()) != `{"v":""}` {
		t.Fatalf("ctrl+r: %s", m.Value())
	}
	feed(m, uitest.Type("x")...)
	keys(m, "backspace")
	if string(m.Value()) != `{}` {
		t.Fatalf("typing then deleting leaves the field not set, got %s", m.Value())
	}
	keys(m, "ctrl+r", "ctrl+r")
	if string(m.Value()) != `{}` {
		t.Fatalf("ctrl+r twice: %s", m.Value())
	}
}

// A branch's data that is not sent is named at its picker.
func TestKeptVariantShownAtThePicker(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{"shape":{"oneOf":[
		{"title":"circle","type":"object","properties":{"r":{"type":"number"}},"required":["r"]},
		{"title":"square","type":"object","properties":{"side":{"type":"number"}},"required":["side"]}]}},"required":["shape"]}`, 100, 20)
	keys(m, "tab")
	feed(m, uitest.Type("2")...)
	keys(m, "shift+tab", "right")
	if !strings.Contains(m.View(), "also holds circle (not sent)") {
		t.Fatalf("the picker does not say circle's data is kept:\n%s", m.View())
	}
}

// JSON mode and the form give one verdict on formats,
// with the same count, and ctrl+s in JSON mode is refused first.
func TestOneVerdictOnFormatsInJSONModeAndForm(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{"e":{"type":"string","format":"email"},"d":{"type":"string","format":"date"}}}`, 100, 20)
	keys(m, "ctrl+e")
	m.jsonArea.SetValue(`{"e":"not-an-email","d":"2024-02-30"}`)
	m.checkJSON()
	if n := m.Problems().Count(); n != 2 {
		t.Fatalf("JSON mode counts %d problems, want 2: %+v", n, m.Problems())
	}
	view := m.View()
	for _, want := range []string{"/e: not a valid email", "/d: not a valid date", "2 problems"} {
		if !strings.Contains(view, want) {
			t.Fatalf("JSON mode does not show %q:\n%s", want, view)
		}
	}
	if a := keys(m, "ctrl+s"); a != nil {
		t.Fatalf("the first ctrl+s in JSON mode sent %+v", a)
	}
	keys(m, "ctrl+e")
	if n := m.Problems().Count(); n != 2 || m.JSONMode() {
		t.Fatalf("the form counts %d problems, want 2", n)
	}
	if a, ok := keys(m, "ctrl+s", "ctrl+s").(ActionSubmit); !ok || !a.Unchecked {
		t.Fatalf("send anyway: %+v", a)
	}
}

// A free-form object under a union takes entries, as it
// does on its own.
func TestFreeFormObjectUnderAUnionIsReachable(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{"x":{"anyOf":[{"type":"object","additionalProperties":true},{"type":"string"}]}},"required":["x"]}`, 100, 20)
	keys(m, "ctrl+a")
	if strings.Contains(m.Note(), "Nothing to add") {
		t.Fatalf("ctrl+a on the object variant: %s", m.Note())
	}
	feed(m, uitest.Type("k")...)
	keys(m, "tab")
	feed(m, uitest.Type(`"v"`)...)
	if got := string(m.Value()); got != `{"x":{"k":"v"}}` {
		t.Fatalf("value %s", got)
	}
}
