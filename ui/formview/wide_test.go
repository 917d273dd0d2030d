package formview

import (
	"encoding/json"
	"strings"
	"testing"

	"modbay/modproto"
	modschema "modbay/schema"
	"modbay/ui/common"
	"modbay/ui/form"
	"modbay/ui/internal/uitest"
)

// wideForm is the form of wideSchema(n) on a 100×30 screen, validating
// with schema.ValidateForm and counting the whole-input checks in calls.
func wideForm(t *testing.T, n int, calls *int) *Model {
	t.Helper()
	f, err := form.Build(json.RawMessage(wideSchema(n)))
	if err != nil {
		t.Fatal(err)
	}
	com := common.New(true)
	com.Width, com.Height = 100, 30
	return New(com, f, func(s, in json.RawMessage) (modproto.ValidationErrors, error) {
		*calls++
		return modschema.ValidateForm(s, in)
	})
}

// A form of thousands of fields draws the screenful the focus is in: the
// editors it makes are the rows shown, wherever the focus goes.
func TestWideFormDrawsOnlyTheScreen(t *testing.T) {
	var calls int
	m := wideForm(t, 2000, &calls)
	if v := m.View(); !strings.Contains(v, "p0") {
		t.Fatalf("first screen lacks p0:\n%s", v)
	}
	if n := len(m.inputs); n > m.height {
		t.Fatalf("one View made %d editors for a %d-line screen", n, m.height)
	}
	keys(m, "shift+tab") // wraps to the last field
	v := m.View()
	if !strings.Contains(v, "p1999") || strings.Contains(v, "p0 ") {
		t.Fatalf("last screen:\n%s", v)
	}
	if n := len(m.inputs); n > 2*m.height {
		t.Fatalf("two screens made %d editors", n)
	}
	keys(m, "tab") // back to the first
	if v := m.View(); !strings.Contains(v, "p0") {
		t.Fatalf("back at the top, p0 not shown:\n%s", v)
	}
}

// A keystroke in a large form checks the field it changed, at once, and
// the whole input once the keys pause (checkDueMsg), not once per key.
func TestWideFormKeyChecksTheField(t *testing.T) {
	var calls int
	m := wideForm(t, 2000, &calls)
	before := calls
	feed(m, uitest.Type("abc")...)
	if calls != before {
		t.Fatalf("3 keys ran %d whole-input checks, want none before the pause", calls-before)
	}
	if got := m.problems.At("/p0"); len(got) == 0 {
		t.Fatal(`"abc" breaks p0's pattern, but p0 shows no problem`)
	}
	feed(m, checkDueMsg{m.seq - 1}) // an earlier key's: a later one is due
	if calls != before {
		t.Fatal("a superseded check ran")
	}
	feed(m, checkDueMsg{m.seq})
	if calls != before+1 {
		t.Fatalf("the pause ran %d whole-input checks, want 1", calls-before)
	}
	if got := m.problems.At("/p1"); len(got) == 0 || got[0] != form.MsgRequired {
		t.Fatalf("after the whole check p1 shows %q, want %q", got, form.MsgRequired)
	}
	feed(m, uitest.Key("backspace"))
	if v := string(m.Value()); v != `{"p0":"ab"}` {
		t.Fatalf("Value %s: reading it must run the pending check", v)
	}
}
