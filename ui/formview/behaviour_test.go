package formview

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"modbay/internal/testcorpus"
	modschema "modbay/schema"
	"modbay/ui/common"
	"modbay/ui/form"
	"modbay/ui/internal/uitest"
	"modbay/ui/styles"
)

// key builds a key press by name: "ctrl+e", "alt+up", or uitest's names.
func press(name string) tea.KeyPressMsg {
	switch {
	case strings.HasPrefix(name, "ctrl+") && len(name) == 6:
		return tea.KeyPressMsg{Code: rune(name[5]), Mod: tea.ModCtrl}
	case name == "alt+up":
		return tea.KeyPressMsg{Code: tea.KeyUp, Mod: tea.ModAlt}
	case name == "alt+down":
		return tea.KeyPressMsg{Code: tea.KeyDown, Mod: tea.ModAlt}
	}
	return uitest.Key(name)
}

func keys(m *Model, names ...string) Action {
	var last Action
	for _, n := range names {
		if a, _ := m.Update(press(n)); a != nil {
			last = a
		}
	}
	return last
}

func newSchemaForm(t *testing.T, schema string, w, h int) *Model {
	t.Helper()
	f, err := form.Build(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	com := common.New(true)
	com.Width, com.Height = w, h
	return New(com, f, modschema.ValidateInput)
}

func TestJSONModeShowsExactlyTheInputAndSwitchesBack(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{"name":{"type":"string"},"n":{"type":"number"}},"required":["name"]}`, 80, 20)
	feed(m, uitest.Type("Ada")...)
	keys(m, "tab")
	feed(m, uitest.Type("1.0")...)
	keys(m, "ctrl+e")
	if !m.JSONMode() {
		t.Fatal("ctrl+e did not open JSON mode")
	}
	if got := m.jsonArea.Value(); got != "{\n  \"name\": \"Ada\",\n  \"n\": 1.0\n}" {
		t.Fatalf("JSON mode text %q", got)
	}
	// Edit the JSON: an invalid text keeps JSON mode and is not dropped.
	m.jsonArea.SetValue(`{"name": "Bea", "n": 2.50,`)
	m.checkJSON()
	keys(m, "ctrl+e")
	if !m.JSONMode() || !strings.Contains(m.Note(), "Still in JSON mode") {
		t.Fatalf("invalid JSON left JSON mode; note %q", m.Note())
	}
	// The parse problem is said once, on the ✗ line, not again in the note.
	if strings.Contains(m.Note(), "not valid JSON") {
		t.Fatalf("the note repeats the ✗ line: %q", m.Note())
	}
	m.jsonArea.SetValue(`{"name": "Bea", "n": 2.50}`)
	keys(m, "ctrl+e")
	if m.JSONMode() {
		t.Fatal("valid JSON did not go back to the form")
	}
	if got := string(m.Value()); got != `{"name":"Bea","n":2.50}` {
		t.Fatalf("value after JSON mode %s", got)
	}
	if got := m.Form().Fields()[0].Text; got != "Bea" {
		t.Fatalf("field text %q", got)
	}
	// Typing afterwards updates the value at once (never stale).
	keys(m, "tab")
	feed(m, uitest.Type("!")...)
	if got := string(m.Value()); got != `{"name":"Bea!","n":2.50}` {
		t.Fatalf("value after typing %s", got)
	}
}

func TestSendAnywayNeedsASecondCtrlS(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{"n":{"type":"integer","minimum":5}},"required":["n"]}`, 80, 20)
	feed(m, uitest.Type("1")...)
	if a := keys(m, "ctrl+s"); a != nil {
		t.Fatalf("first ctrl+s sent %#v", a)
	}
	if !strings.Contains(m.Note(), "ctrl+s again sends it anyway") {
		t.Fatalf("no warning: %q", m.Note())
	}
	a, ok := keys(m, "ctrl+s").(ActionSubmit)
	if !ok || !a.Unchecked || string(a.Input) != `{"n":1}` {
		t.Fatalf("second ctrl+s: %#v", a)
	}
	// An edit in between disarms it.
	keys(m, "ctrl+s")
	feed(m, uitest.Type("x")...)
	if a := keys(m, "ctrl+s"); a != nil {
		t.Fatalf("ctrl+s after an edit sent %#v", a)
	}
}

func TestListKeysAddRemoveReorder(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}}}`, 80, 20)
	keys(m, "ctrl+a")
	feed(m, uitest.Type("a")...)
	keys(m, "ctrl+a")
	feed(m, uitest.Type("b")...)
	if got := string(m.Value()); got != `{"tags":["a","b"]}` {
		t.Fatalf("after adding %s", got)
	}
	keys(m, "alt+up")
	if got := string(m.Value()); got != `{"tags":["b","a"]}` {
		t.Fatalf("after moving %s", got)
	}
	keys(m, "ctrl+x")
	if got := string(m.Value()); got != `{"tags":["a"]}` && got != `{"tags":["b"]}` {
		t.Fatalf("after removing %s", got)
	}
}

func TestVariantAndNullKeys(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{
	  "v":{"oneOf":[{"title":"Text","type":"string"},{"title":"Count","type":"integer"}]},
	  "z":{"type":["string","null"]}}}`, 80, 20)
	keys(m, "right", "right")
	if got := m.Form().Fields()[0].Variant; got != 1 {
		t.Fatalf("variant %d", got)
	}
	keys(m, "tab")
	feed(m, uitest.Type("3")...)
	keys(m, "tab")
	feed(m, uitest.Type("hi")...)
	keys(m, "ctrl+n")
	if got := string(m.Value()); got != `{"v":3,"z":null}` {
		t.Fatalf("value %s", got)
	}
}

// TestNullOnAFieldThatCannotBeNull: ctrl+n on a field whose schema does
// not admit null changes nothing and says why.
func TestNullOnAFieldThatCannotBeNull(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{"a":{"type":"string"}}}`, 80, 20)
	feed(m, uitest.Type("hi")...)
	keys(m, "ctrl+n")
	if got := string(m.Value()); got != `{"a":"hi"}` || !strings.Contains(m.Note(), "does not allow null") {
		t.Fatalf("value %s, note %q", got, m.Note())
	}
}

func TestEditorResultLoadsOrStaysAsJSON(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{"a":{"type":"string"}}}`, 80, 20)
	if _, cmd := m.Update(press("ctrl+o")); cmd == nil {
		t.Fatal("ctrl+o gave no command")
	}
	m.Update(editorDoneMsg{text: "{\"a\": \"from editor\"}\n"})
	if m.JSONMode() || string(m.Value()) != `{"a":"from editor"}` {
		t.Fatalf("editor result: json mode %v value %s", m.JSONMode(), m.Value())
	}
	m.Update(editorDoneMsg{text: "{\"a\": "})
	if !m.JSONMode() || m.jsonArea.Value() != `{"a": ` {
		t.Fatal("invalid editor result was not kept in JSON mode")
	}
}

// TestGoldenForms draws the form of each of the project's schema fixtures
// at 100×30 (the kinds the corpus goldens below show, on inputs we own).
func TestGoldenForms(t *testing.T) {
	for _, name := range uitest.SchemaNames {
		t.Run(name, func(t *testing.T) {
			checkFormFrame(t, string(uitest.Schema(t, name)))
		})
	}
}

// goldenSchemas are five real request schemas drawn at 100×30.
var goldenSchemas = []string{
	"mcp-server-fetch__fetch",
	"server-everything__elicitation_requestedSchema",
	"notion-mcp-server__API-update-page-markdown",
	"github-mcp-server__issue_write",
	"sentry-mcp__get_event_stacktrace",
}

// TestGoldenCorpusForms draws real schemas of the shared corpus; it skips
// without the corpus (fails under CI).
func TestGoldenCorpusForms(t *testing.T) {
	for _, name := range goldenSchemas {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(testcorpus.Dir(t, "schemas", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			checkFormFrame(t, string(b))
		})
	}
}

// checkFormFrame draws schema's form at 100×30: exactly 30 lines, none
// wider than 100 cells, equal to the test's golden.
func checkFormFrame(t *testing.T, schema string) {
	t.Helper()
	m := newSchemaForm(t, schema, 100, 30)
	v := m.View()
	if n := len(strings.Split(v, "\n")); n != 30 {
		t.Errorf("%d lines, want 30", n)
	}
	for i, l := range strings.Split(v, "\n") {
		if w := common.Width(l); w > 100 {
			t.Errorf("line %d is %d wide", i, w)
		}
	}
	golden.RequireEqual(t, []byte(v))
}

// TestASCIIConstraintsKeepTheirMeaning: under ASCII a field's bounds read
// ">= 1" and "<= 67108864" even where the line is full, never "> 1": the
// line is measured as drawn.
func TestASCIIConstraintsKeepTheirMeaning(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{"max_bytes":{"type":"integer","title":"Max bytes","minimum":1,"maximum":67108864,"default":1048576},"url":{"type":"string","maxLength":8192}}}`, 80, 20)
	m.com.ASCII = true
	m.SetSize(80, 20)
	out := styles.FitASCII(ansi.Strip(m.View()), 80)
	for _, want := range []string{">= 1", "<= 67108", "<= 8192 chars"} { // cut with "~" at 80
		if !strings.Contains(out, want) {
			t.Errorf("no %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "> 1 ") || strings.Contains(out, "< 8192") {
		t.Errorf("a one-cell stand-in changed a bound:\n%s", out)
	}
}
