package formview

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"modbay/ui/internal/uitest"
)

var altN = tea.KeyPressMsg{Code: 'n', Mod: tea.ModAlt}

// helpHas reports whether the bar or the full help offers desc.
func helpHas(m *Model, desc string) (bar, full bool) {
	for _, b := range m.ShortHelp() {
		bar = bar || b.Help().Desc == desc
	}
	for _, g := range m.FullHelp() {
		for _, b := range g {
			full = full || b.Help().Desc == desc
		}
	}
	return bar, full
}

// Alt+n goes to the next field with a problem, wrapping,
// and is offered only while there are problems.
func TestNextProblemKey(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{
		"a":{"type":"string","minLength":3},"ok":{"type":"string"},"b":{"type":"integer"},"c":{"type":"string","format":"email"}},
		"required":["a","b"]}`, 100, 30)
	// a (row 0) and b (row 2) are required and empty.
	if bar, full := helpHas(m, "next problem"); !bar || !full {
		t.Fatalf("alt+n not offered with problems: bar %v full %v", bar, full)
	}
	feed(m, altN)
	if m.Focused() != 2 {
		t.Fatalf("alt+n from a: focus %d, want b (2)", m.Focused())
	}
	if !strings.Contains(m.View(), "✗ required") {
		t.Fatalf("alt+n does not show the problems:\n%s", m.View())
	}
	feed(m, altN)
	if m.Focused() != 0 {
		t.Fatalf("alt+n wraps to a: focus %d", m.Focused())
	}
	feed(m, uitest.Type("abc")...)
	keys(m, "tab", "tab")
	feed(m, uitest.Type("7")...)
	keys(m, "tab")
	feed(m, uitest.Type("x")...) // c: not an email
	keys(m, "shift+tab", "shift+tab", "shift+tab")
	feed(m, altN)
	if m.Focused() != 3 {
		t.Fatalf("alt+n to c: focus %d (%q)", m.Focused(), m.Problems().Lines())
	}
	feed(m, altN)
	if m.Focused() != 3 || !strings.Contains(m.Note(), "only field with a problem") {
		t.Fatalf("alt+n on the only problem: focus %d, note %q", m.Focused(), m.Note())
	}
	keys(m, "backspace")
	// The bar offers it only while there are problems; the full help
	// lists every key, and alt+n then says there is none.
	if bar, full := helpHas(m, "next problem"); bar || !full {
		t.Fatalf("alt+n without problems: in the bar %v, in the full help %v (%q)", bar, full, m.Problems().Lines())
	}
	feed(m, altN)
	if !strings.Contains(m.Note(), "No problems") {
		t.Fatalf("alt+n without problems says %q", m.Note())
	}
}

// A choice list jumps by typed letters: the first option
// starting with the letter, the same letter again the next one.
func TestChoiceListsJumpByLetter(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{
		"fruit":{"enum":["apple","banana","avocado","cherry"]},
		"parent":{"oneOf":[
			{"type":"object","properties":{"type":{"const":"page_id"},"page_id":{"type":"string"}},"required":["page_id"]},
			{"type":"object","properties":{"type":{"const":"database_id"},"database_id":{"type":"string"}},"required":["database_id"]},
			{"type":"object","properties":{"type":{"const":"workspace"}}}]}},
		"required":["fruit","parent"]}`, 100, 30)
	fruit := m.FocusedNode()
	for _, step := range []struct {
		key  string
		want string
	}{{"b", "banana"}, {"a", "apple"}, {"a", "avocado"}, {"a", "apple"}, {"C", "cherry"}} {
		feed(m, uitest.Type(step.key)...)
		if got := fruit.Options[fruit.Choice].Label; got != step.want {
			t.Fatalf("after %q: %q, want %q", step.key, got, step.want)
		}
	}
	if got := string(m.Value()); !strings.Contains(got, `"fruit":"cherry"`) {
		t.Fatalf("value %s", got)
	}
	feed(m, uitest.Type("z")...)
	if !strings.Contains(m.Note(), "No choice here starts with z") {
		t.Fatalf("z: note %q", m.Note())
	}
	keys(m, "tab")
	parent := m.FocusedNode()
	for _, step := range []struct {
		key  string
		want int
	}{{"d", 1}, {"w", 2}, {"p", 0}} {
		feed(m, uitest.Type(step.key)...)
		if parent.Variant != step.want {
			t.Fatalf("after %q on the branch picker: variant %d (%q), want %d", step.key, parent.Variant, parent.Variants[parent.Variant].Label, step.want)
		}
	}
}

// A multi-line description keeps its lines.
func TestMultiLineDescriptionKeepsItsLines(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{"mode":{"type":"string",
		"description":"How to match:\n- exact: the whole name\n- prefix: the start\n\n\nCase is ignored."}}}`, 80, 20)
	view := m.View()
	for _, want := range []string{"    How to match:\n", "    - exact: the whole name\n", "    - prefix: the start\n", "    \n    Case is ignored."} {
		if !strings.Contains(view, want) {
			t.Fatalf("the description lost a line %q:\n%s", want, view)
		}
	}
}

// The chosen branch's own description shows under its
// picker, and labels tell the branches apart.
func TestBranchDescriptionShown(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{"who":{"description":"Whom to notify.","anyOf":[
		{"type":"string","description":"A user's login."},
		{"type":"string","description":"A team's slug, as org/team."}]}},"required":["who"]}`, 100, 20)
	view := m.View()
	if !strings.Contains(view, "Whom to notify.") || !strings.Contains(view, "    A user's login.\n") {
		t.Fatalf("the branch's description is not shown:\n%s", view)
	}
	keys(m, "right")
	if !strings.Contains(m.View(), "‹ string (A team's slug, as …) ›") || !strings.Contains(m.View(), "A team's slug, as org/team.") {
		t.Fatalf("the second branch:\n%s", m.View())
	}
}

// Without color, a default that is sent, a default that
// is not and an example each say what they are.
func TestGoldenDefaultsWithoutColor(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{
		"branch":{"type":"string","default":"main"},
		"depth":{"type":"integer","default":1},
		"mode":{"enum":["fast","full"],"default":"full"},
		"owner":{"type":"string","examples":["octocat"]}},
		"required":["branch","mode"]}`, 100, 12)
	if !m.com.NoColor {
		t.Fatal("the test form has color")
	}
	v := ansi.Strip(m.View())
	for _, want := range []string{
		"branch *  string · (default, sent)",
		"depth  integer · default 1 (not sent)",
		"mode *  choice · (default, sent)",
		"> e.g. octocat",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("no %q:\n%s", want, v)
		}
	}
	golden.RequireEqual(t, []byte(m.View()))
	keys(m, "end")
	feed(m, uitest.Type("x")...)
	if v := ansi.Strip(m.View()); !strings.Contains(v, "branch *  string\n") || strings.Contains(v, "branch *  string · (default)") {
		t.Errorf("an edited default still says default:\n%s", v)
	}
}
