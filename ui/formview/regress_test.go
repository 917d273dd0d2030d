package formview

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/charmbracelet/x/ansi"

	"modbay/ui/form"
	"modbay/ui/internal/uitest"
)

// Regression tests for defects found by QA, driven by key presses.

func TestTextInANumberFieldSurvivesJSONModeAndSendAnyway(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{"n":{"type":"integer"},"x":{"type":"number"}}}`, 80, 20)
	feed(m, uitest.Type("abc")...)
	keys(m, "tab")
	feed(m, uitest.Type("007")...)
	keys(m, "ctrl+e")
	if got := m.jsonArea.Value(); got != "{\n  \"n\": \"abc\",\n  \"x\": \"007\"\n}" {
		t.Fatalf("JSON mode lost what was typed: %q", got)
	}
	keys(m, "ctrl+e")
	if m.JSONMode() {
		t.Fatal("did not switch back")
	}
	f := m.Form().Fields()
	if f[0].Text != "abc" || f[1].Text != "007" {
		t.Fatalf("fields after switching back: %q %q", f[0].Text, f[1].Text)
	}
	v := m.View()
	if !strings.Contains(v, "✗ "+form.MsgNotInteger) || !strings.Contains(v, "✗ "+form.MsgNotNumber) {
		t.Fatalf("the problems went away with the switch:\n%s", v)
	}
	keys(m, "ctrl+s")
	a, ok := keys(m, "ctrl+s").(ActionSubmit)
	if !ok || !a.Unchecked || string(a.Input) != `{"n":"abc","x":"007"}` {
		t.Fatalf("send anyway sent %#v", a)
	}
}

func TestOnlyTheChosenVariantsProblemsShow(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{"shape":{"oneOf":[
	  {"title":"Circle","type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number"}},"required":["kind","r"]},
	  {"title":"Square","type":"object","properties":{"kind":{"const":"square"},"side":{"type":"number"}},"required":["kind","side"]}]}},"required":["shape"]}`, 80, 20)
	keys(m, "ctrl+s")
	v := m.View()
	if strings.Contains(v, "side") || strings.Contains(v, "square") {
		t.Fatalf("problems of the variant not chosen are shown:\n%s", v)
	}
	if !strings.Contains(v, "✗ required") || !strings.Contains(v, "3 problems") {
		t.Fatalf("the chosen variant's problem or the validator's count is missing:\n%s", v)
	}
}

func TestRefusedAddNoteLastsOneKey(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"},"maxItems":1}}}`, 80, 20)
	keys(m, "ctrl+a", "ctrl+a")
	if !strings.Contains(m.Note(), "Cannot add") {
		t.Fatalf("no refusal: %q", m.Note())
	}
	feed(m, uitest.Type("a")...)
	if m.Note() != "" {
		t.Fatalf("the refusal outlived the next key: %q", m.Note())
	}
}

func TestRemovingTheLastItemKeepsFocusInTheList(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}},"after":{"type":"string"}}}`, 80, 20)
	keys(m, "ctrl+a")
	feed(m, uitest.Type("a")...)
	keys(m, "ctrl+a")
	feed(m, uitest.Type("b")...)
	keys(m, "ctrl+x")
	tags := m.Form().Fields()[0]
	if got := m.FocusedNode(); got != tags.Children[0] {
		t.Fatalf("after removing the last item the focus is on %q", got.Pointer())
	}
	keys(m, "ctrl+x")
	if got := m.FocusedNode(); got != tags {
		t.Fatalf("after removing the only item the focus is on %q", got.Pointer())
	}
	if got := string(m.Value()); got != `{"tags":[]}` {
		t.Fatalf("value %s", got)
	}
	keys(m, "ctrl+x") // the next ctrl+x acts on the list: it is no longer sent
	if got := string(m.Value()); got != `{}` {
		t.Fatalf("value %s", got)
	}
}

func TestTextTypedOnAHeaderIsNotDroppedSilently(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{"opts":{"type":"object","properties":{"a":{"type":"string"}}}}}`, 80, 20)
	feed(m, uitest.Type("x")...)
	if !strings.Contains(m.Note(), `"x" was not typed`) || !strings.Contains(m.View(), "was not typed") {
		t.Fatalf("no hint: %q", m.Note())
	}
}

func TestReadOnlyDefaultIsShownNotSent(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{"id":{"type":"string","readOnly":true,"default":"server-7"},"name":{"type":"string"}}}`, 80, 20)
	if !strings.Contains(m.View(), "server-7") {
		t.Fatalf("read-only default not shown:\n%s", m.View())
	}
	if m.Typing() {
		t.Fatal("a read-only field takes no text")
	}
	feed(m, uitest.Type("z")...)
	if got := m.Form().Fields()[0].Text; got != "server-7" || !strings.Contains(m.Note(), "read-only") {
		t.Fatalf("typed into a read-only field: %q, note %q", got, m.Note())
	}
	keys(m, "ctrl+e", "ctrl+e")
	if !strings.Contains(m.View(), "server-7") || string(m.Value()) != `{}` {
		t.Fatalf("after JSON mode: value %s\n%s", m.Value(), m.View())
	}
}

func TestEscWithUnparsableJSONSaysTheDraftIsKept(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{"a":{"type":"string"}}}`, 80, 20)
	keys(m, "ctrl+e")
	feed(m, uitest.Type("x")...)
	if a := keys(m, "esc"); a != nil {
		t.Fatalf("esc with unparsable JSON left at once: %#v", a)
	}
	if !strings.Contains(m.Note(), "draft text is kept") {
		t.Fatalf("note %q", m.Note())
	}
	if _, ok := keys(m, "esc").(ActionBack); !ok || !m.JSONMode() {
		t.Fatal("the second esc did not leave, keeping JSON mode")
	}
}

// The root fits the help bar to the width by dropping bindings from the
// end (ui.TestFormHelpBarFitsWithTheEssentials): the essentials come
// first, the focused field's after them.
func TestHelpBarPutsTheEssentialsFirst(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{"tags":{"type":["array","null"],"items":{"type":"string"}},"body":{"type":"string"}}}`, 100, 30)
	for range 3 {
		b := m.ShortHelp()
		var got []string
		for _, x := range b {
			got = append(got, x.Help().Key)
		}
		if len(got) < 4 || strings.Join(got[:4], " ") != "tab ctrl+s ctrl+e esc" {
			t.Errorf("help bar starts %q, want tab ctrl+s ctrl+e esc first", got)
		}
		keys(m, "tab")
	}
}

func TestNewlinesInStringFields(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{
	  "title":{"type":"string"},
	  "body":{"type":"string","description":"Issue body (markdown)"},
	  "n":{"type":"integer"}}}`, 80, 30)
	title, body := m.Form().Fields()[0], m.Form().Fields()[1]
	if title.IsMultiline() || !body.IsMultiline() {
		t.Fatalf("multi-line: title %v body %v", title.IsMultiline(), body.IsMultiline())
	}
	// Any string field: ctrl+j breaks the line at the cursor.
	feed(m, uitest.Type("ab")...)
	keys(m, "left", "ctrl+j")
	feed(m, uitest.Type("c")...)
	if title.Text != "a\ncb" {
		t.Fatalf("title text %q", title.Text)
	}
	// In a multi-line field enter, ctrl+j and alt+enter break lines;
	// tab moves on.
	keys(m, "tab")
	feed(m, uitest.Type("# Hi")...)
	keys(m, "ctrl+j")
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModAlt})
	keys(m, "enter")
	feed(m, uitest.Type("text")...)
	if m.FocusedNode() != m.Form().Fields()[1] {
		t.Fatalf("enter moved on from the multi-line field: %q", m.FocusedNode().Pointer())
	}
	keys(m, "tab")
	if m.FocusedNode() != m.Form().Fields()[2] {
		t.Fatalf("tab did not move on from the text field: %q", m.FocusedNode().Pointer())
	}
	if got := string(m.Value()); got != `{"title":"a\ncb","body":"# Hi\n\n\ntext"}` {
		t.Fatalf("value %s", got)
	}
	if v := m.View(); !strings.Contains(v, "│ # Hi") || !strings.Contains(v, "│ text") {
		t.Fatalf("multi-line text not drawn over lines:\n%s", v)
	}
}

func TestEmptyListItemsAreSentAsShown(t *testing.T) {
	for _, tc := range []struct {
		name, schema, json, sent string
		problem                  bool
	}{
		// An empty string item is the empty string: valid, shown, sent.
		{"string", `{"type":"string"}`, "{\n  \"items\": [\n    \"\"\n  ]\n}", `{"items":[""]}`, false},
		// An empty number item is kept, marked required, and sent as null.
		{"number", `{"type":"number"}`, "{\n  \"items\": [\n    null\n  ]\n}", `{"items":[null]}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newSchemaForm(t, `{"type":"object","properties":{"items":{"type":"array","items":`+tc.schema+`}}}`, 80, 20)
			keys(m, "ctrl+a")
			keys(m, "ctrl+e")
			if got := m.jsonArea.Value(); got != tc.json {
				t.Fatalf("JSON mode shows %q, want %q", got, tc.json)
			}
			keys(m, "ctrl+e")
			items := m.Form().Fields()[0]
			if m.JSONMode() || len(items.Children) != 1 {
				t.Fatalf("switching back lost the item: %d items", len(items.Children))
			}
			v := m.View()
			if got := strings.Contains(v, "✗ required"); got != tc.problem {
				t.Fatalf("required problem shown %v, want %v:\n%s", got, tc.problem, v)
			}
			a, ok := keys(m, "ctrl+s").(ActionSubmit)
			if tc.problem {
				a, ok = keys(m, "ctrl+s").(ActionSubmit)
			}
			if !ok || string(a.Input) != tc.sent {
				t.Fatalf("sent %#v, want %s", a, tc.sent)
			}
		})
	}
}

// flat is a view without styling, its lines joined with spaces, so a note
// wrapped onto a second line reads as one.
func flat(v string) string { return strings.Join(strings.Fields(ansi.Strip(v)), " ") }

func TestNotesWrapInsteadOfBeingCut(t *testing.T) {
	for _, w := range []int{60, 80, 100} {
		m := newSchemaForm(t, `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a","b"]}`, w, 20)
		keys(m, "ctrl+s")
		if v := flat(m.View()); !strings.Contains(v, "ctrl+s again sends it anyway, invalid.") {
			t.Errorf("%d cols: submit note cut:\n%s", w, m.View())
		}
		keys(m, "ctrl+e", "end")
		feed(m, uitest.Type("x")...)
		keys(m, "esc")
		if v := flat(m.View()); !strings.Contains(v, m.Note()) || !strings.Contains(v, "for when you come back.") {
			t.Errorf("%d cols: JSON note cut:\n%s", w, m.View())
		}
		for _, l := range strings.Split(m.View(), "\n") {
			if ansi.StringWidth(l) > w {
				t.Errorf("%d cols: line too wide: %q", w, l)
			}
		}
		keys(m, "backspace")
		if v := m.View(); strings.Contains(v, "does not parse") {
			t.Errorf("%d cols: the JSON parses again but the note stays:\n%s", w, v)
		}
	}
}

func TestRootVariantProblemsShowLikeNestedOnes(t *testing.T) {
	const union = `{"oneOf":[{"title":"A","type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"title":"B","type":"object","properties":{"b":{"type":"integer"}},"required":["b"]}]}`
	root := newSchemaForm(t, union, 80, 16)
	nested := newSchemaForm(t, `{"type":"object","properties":{"x":`+union+`},"required":["x"]}`, 80, 16)
	for _, step := range [][]string{nil, {"ctrl+s"}} {
		keys(root, step...)
		keys(nested, step...)
		r, n := root.Problems(), nested.Problems()
		if r.Count() != n.Count() || r.Hidden != n.Hidden || root.ProblemsShownAt("/a") != nested.ProblemsShownAt("/x/a") {
			t.Fatalf("after %v: root %+v shown %v, nested %+v shown %v", step, r, root.ProblemsShownAt("/a"), n, nested.ProblemsShownAt("/x/a"))
		}
		if got, want := strings.Contains(root.View(), "✗ required"), strings.Contains(nested.View(), "✗ required"); got != want {
			t.Fatalf("after %v: root marks the field %v, nested %v", step, got, want)
		}
	}
	if !strings.Contains(root.View(), "✗ required") {
		t.Fatalf("after ctrl+s the chosen variant's field is not marked:\n%s", root.View())
	}
}

func TestSchemaExamplesAreSanitizedAsPlaceholders(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{
	  "a":{"type":"string","examples":["\u001b]0;pwned\u0007"]},
	  "body":{"type":"string","description":"markdown","examples":["x\u001b[2Jy\u202e"]}}}`, 80, 20)
	v := m.View()
	for _, bad := range []string{"\x1b]0;", "\x1b[2J", "\u202e"} {
		if strings.Contains(v, bad) {
			t.Fatalf("a schema example reached the terminal raw (%q):\n%q", bad, v)
		}
	}
	if !strings.Contains(v, "]0;pwned␇") || !strings.Contains(v, "x␛[2Jy") {
		t.Fatalf("the examples are not shown, cleaned:\n%s", v)
	}
}

// TestNoNewlineInFormattedText: a uri (or any formatted text) cannot hold
// a line break, so ctrl+j is not offered there and does nothing.
func TestNoNewlineInFormattedText(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{"url":{"type":"string","format":"uri"}}}`, 80, 30)
	feed(m, uitest.Type("https://example.com/")...)
	for _, b := range m.ShortHelp() {
		if b.Help().Key == "ctrl+j" {
			t.Fatal("ctrl+j offered on a uri field")
		}
	}
	keys(m, "ctrl+j")
	if got := m.Form().Fields()[0].Text; got != "https://example.com/" {
		t.Fatalf("ctrl+j changed a uri: %q", got)
	}
}

// TestRefusedSubmitFocusesTheFirstProblem: a refused ctrl+s moves the
// cursor to the first field with a problem.
func TestRefusedSubmitFocusesTheFirstProblem(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","required":["b"],"properties":{
	  "a":{"type":"string"},"b":{"type":"string"},"c":{"type":"integer","minimum":5}}}`, 80, 30)
	if got := m.FocusedNode().Pointer(); got != "/a" {
		t.Fatalf("focus starts on %q", got)
	}
	keys(m, "ctrl+s")
	if got := m.FocusedNode().Pointer(); got != "/b" {
		t.Fatalf("after a refused submit the focus is on %q, want /b", got)
	}
}
