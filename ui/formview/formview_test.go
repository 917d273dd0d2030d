package formview

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"modbay/modproto"
	"modbay/ui/common"
	"modbay/ui/form"
	"modbay/ui/internal/uitest"
)

const schema = `{"type":"object","properties":{
  "name":{"type":"string","description":"Who to greet."},
  "repeat":{"type":"integer","default":1},
  "loud":{"type":"boolean"},
  "mode":{"enum":["plain","fancy"]}
},"required":["name"]}`

func newForm(t *testing.T, validate form.Validator) *Model {
	t.Helper()
	f, err := form.Build(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	com := common.New(true)
	return New(com, f, validate)
}

func feed(m *Model, msgs ...tea.Msg) Action {
	var last Action
	for _, msg := range msgs {
		if a, _ := m.Update(msg); a != nil {
			last = a
		}
	}
	return last
}

func TestTabNavigation(t *testing.T) {
	m := newForm(t, nil)
	steps := []struct {
		key  string
		want int
	}{
		{"tab", 1}, {"tab", 2}, {"tab", 3}, {"tab", 0}, {"shift+tab", 3}, {"shift+tab", 2}, {"up", 1}, {"down", 2}, {"enter", 3},
	}
	for _, s := range steps {
		feed(m, uitest.Key(s.key))
		if m.Focused() != s.want {
			t.Fatalf("after %s: focus %d, want %d", s.key, m.Focused(), s.want)
		}
	}
}

func TestSubmitRefusedWhileInvalid(t *testing.T) {
	m := newForm(t, nil)
	if a := feed(m, uitest.Key("ctrl+s")); a != nil {
		t.Fatalf("submit with empty required name returned %#v", a)
	}
	if !strings.Contains(m.Note(), "Not submitted: 1 problem") {
		t.Fatalf("note = %q", m.Note())
	}
	if !strings.Contains(m.View(), "✗ required") {
		t.Fatalf("view lacks the field problem:\n%s", m.View())
	}
	// A bad integer is refused too.
	feed(m, uitest.Type("Ada")...)
	feed(m, uitest.Key("tab"), uitest.Key("backspace"))
	feed(m, uitest.Type("x")...)
	if a := feed(m, uitest.Key("ctrl+s")); a != nil {
		t.Fatalf("submit with bad integer returned %#v", a)
	}
	if got := m.Problems().At("/repeat"); len(got) != 1 || got[0] != form.MsgNotInteger {
		t.Fatalf("integer problems = %q", got)
	}
}

func TestSubmitSendsOrderedValue(t *testing.T) {
	m := newForm(t, nil)
	feed(m, uitest.Type("Ada")...)
	feed(m, uitest.Key("tab"), uitest.Key("backspace"))
	feed(m, uitest.Type("12345678901234567890")...)
	feed(m, uitest.Key("tab"), uitest.Key("space"), uitest.Key("tab"), uitest.Key("right"), uitest.Key("right"))
	// An integer past 2^53 loses digits in most readers: the first ctrl+s says so, the second sends it exactly as typed.
	if a := feed(m, uitest.Key("ctrl+s")); a != nil || !strings.Contains(m.View(), "loses digits") {
		t.Fatalf("the first ctrl+s returned %#v\n%s", a, m.View())
	}
	a := feed(m, uitest.Key("ctrl+s"))
	sub, ok := a.(ActionSubmit)
	if !ok || !sub.Unchecked {
		t.Fatalf("ctrl+s returned %#v; note %q", a, m.Note())
	}
	if want := `{"name":"Ada","repeat":12345678901234567890,"loud":true,"mode":"fancy"}`; string(sub.Input) != want {
		t.Fatalf("input = %s, want %s", sub.Input, want)
	}
}

func TestSchemaErrorsShowUnderTheirField(t *testing.T) {
	validate := func(_, input json.RawMessage) (modproto.ValidationErrors, error) {
		return modproto.ValidationErrors{{Path: "/name", Detail: "length must be >= 5"}, {Path: "", Detail: "something global"}}, nil
	}
	m := newForm(t, validate)
	feed(m, uitest.Type("Ada")...)
	if v := m.View(); strings.Contains(v, "✗") || strings.Contains(v, "problem") {
		t.Fatalf("problems marked ✗ (or counted, none marked) while the field is still being typed in:\n%s", v)
	}
	feed(m, uitest.Key("tab"))
	v := m.View()
	if !strings.Contains(v, "✗ length must be >= 5") || !strings.Contains(v, "✗ something global") || !strings.Contains(v, "2 problems;") {
		t.Fatalf("view lacks schema problems:\n%s", v)
	}
	if a := feed(m, uitest.Key("ctrl+s")); a != nil {
		t.Fatalf("submit while the schema refuses returned %#v", a)
	}
}

func TestEscGoesBackAndQIsText(t *testing.T) {
	m := newForm(t, nil)
	feed(m, uitest.Type("q")...)
	if got := m.Form().Fields()[0].Text; got != "q" {
		t.Fatalf("q typed into field: text %q", got)
	}
	if !m.Typing() {
		t.Fatal("a string field should be typing")
	}
	if _, ok := feed(m, uitest.Key("esc")).(ActionBack); !ok {
		t.Fatal("esc should go back")
	}
}

func TestViewFitsWidth(t *testing.T) {
	m := newForm(t, nil)
	for _, w := range []int{30, 80, 120} {
		m.SetSize(w, 20)
		for i, l := range strings.Split(m.View(), "\n") {
			if lw := common.Width(l); lw > w {
				t.Errorf("width %d: line %d is %d wide: %q", w, i, lw, l)
			}
		}
	}
}

func TestProblemsShowOnceTouchedOrSubmitted(t *testing.T) {
	m := newForm(t, nil)
	if v := m.View(); strings.Contains(v, "✗ required") || strings.Contains(v, "problem") {
		t.Fatalf("an untouched form marks a field ✗ (or counts a problem no field shows):\n%s", v)
	}
	// Typing a bad integer shows nothing under it until the field is left.
	feed(m, uitest.Key("tab"), uitest.Key("backspace"))
	feed(m, uitest.Type("x")...)
	if v := m.View(); strings.Contains(v, "✗ "+form.MsgNotInteger) {
		t.Fatalf("✗ under the field being typed in:\n%s", v)
	}
	feed(m, uitest.Key("tab"))
	v := m.View()
	if !strings.Contains(v, "✗ "+form.MsgNotInteger) {
		t.Fatalf("✗ not shown under a field edited and left:\n%s", v)
	}
	if strings.Contains(v, "✗ required") {
		t.Fatalf("✗ under the never-touched required name before a submit:\n%s", v)
	}
	// A submit attempt shows every problem.
	feed(m, uitest.Key("ctrl+s"))
	if v := m.View(); !strings.Contains(v, "✗ required") {
		t.Fatalf("a submit attempt did not mark the empty required field:\n%s", v)
	}
}

func TestRefusalNoteFollowsTheInput(t *testing.T) {
	m := newForm(t, nil)
	feed(m, uitest.Key("ctrl+s"))
	if !strings.Contains(m.View(), "Not submitted: 1 problem") {
		t.Fatalf("no refusal shown:\n%s", m.View())
	}
	feed(m, uitest.Type("Ada")...)
	v := m.View()
	if strings.Contains(v, "Not submitted") || strings.Contains(v, "problem") {
		t.Fatalf("the refusal outlived the fixed problem:\n%s", v)
	}
	// Breaking it again counts afresh, in the neutral summary.
	feed(m, uitest.Key("backspace"), uitest.Key("backspace"), uitest.Key("backspace"))
	if v := m.View(); !strings.Contains(v, "1 problem;") || strings.Contains(v, "Not submitted") {
		t.Fatalf("summary does not follow the input:\n%s", v)
	}
	// The host's refusal is a problem note too: the next edit clears it.
	m.SetProblemNote("The host refused the input: fix the fields marked ✗.")
	feed(m, uitest.Type("B")...)
	if strings.Contains(m.View(), "refused") {
		t.Fatal("the host's refusal outlived an edit")
	}
}

// TestEmptySchemaTakesNoInput: an input schema with nothing to fill says
// so, instead of offering a map of no entries; a declared map still
// counts its entries.
func TestEmptySchemaTakesNoInput(t *testing.T) {
	for _, s := range []string{`{"type":"object"}`, `{"type":"object","properties":{}}`} {
		v := newSchemaForm(t, s, 80, 12).View()
		if !strings.Contains(v, "no input · ctrl+a adds a key") || strings.Contains(v, "0 entries") {
			t.Errorf("%s:\n%s", s, v)
		}
	}
	v := newSchemaForm(t, `{"type":"object","additionalProperties":{"type":"string"}}`, 80, 12).View()
	if !strings.Contains(v, "map · 0 entries") {
		t.Errorf("a declared map:\n%s", v)
	}
}
