package ui

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"modbay/ui/inputs"
	"modbay/ui/internal/uitest"
)

// cmdMsgs runs cmd and what it batches or sequences, in order, and returns
// every message they produced.
func cmdMsgs(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, cmdMsgs(c)...)
		}
		return out
	}
	// tea.Sequence's message is an unexported slice of commands.
	if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Type().Elem() == reflect.TypeOf(tea.Cmd(nil)) {
		var out []tea.Msg
		for i := range v.Len() {
			out = append(out, cmdMsgs(v.Index(i).Interface().(tea.Cmd))...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// quits reports whether msgs end the program.
func quits(msgs []tea.Msg) bool {
	for _, msg := range msgs {
		if _, ok := msg.(tea.QuitMsg); ok {
			return true
		}
	}
	return false
}

// feed delivers msgs to m, except the quit.
func feed(m *Model, msgs []tea.Msg) {
	for _, msg := range msgs {
		if _, ok := msg.(tea.QuitMsg); !ok {
			m.Update(msg)
		}
	}
}

// TestCtrlCInADirtyFormKeepsTheDraft: the first ctrl+c over typed input
// keeps it in the input store and says a second quits; the second quits;
// a cockpit started afterwards offers it to ctrl+l.
func TestCtrlCInADirtyFormKeepsTheDraft(t *testing.T) {
	dir := t.TempDir()
	m, _ := newTest(t, nil, 100, 30)
	m.flow.inputs = inputs.Store{Dir: dir}
	openForm(t, m, 1)
	typeText(m, "Quarterly")
	_, cmd := m.Update(uitest.Key("ctrl+c"))
	msgs := cmdMsgs(cmd)
	if quits(msgs) {
		t.Fatal("ctrl+c over typed input quit at once")
	}
	if got := frame(t, m); !strings.Contains(got, draftKeptNote) {
		t.Fatalf("the form does not say the draft is kept:\n%s", got)
	}
	feed(m, msgs)
	sv, err := m.flow.inputs.Load(m.flow.module.ID, m.flow.cap.ID)
	if err != nil || !strings.Contains(string(sv.Draft), "Quarterly") {
		t.Fatalf("draft not in the store: %+v %v", sv, err)
	}
	if _, cmd := m.Update(uitest.Key("ctrl+c")); !quits(cmdMsgs(cmd)) {
		t.Fatal("a second ctrl+c did not quit")
	}
	if m.exitNote != "1 draft kept: ctrl+l in its form recalls it." {
		t.Fatalf("exit note %q", m.exitNote)
	}

	// A restart: the draft is offered first.
	m2, _ := newTest(t, nil, 100, 30)
	m2.flow.inputs = inputs.Store{Dir: dir}
	withModules(t, m2)
	press(m2, "enter", "down")
	_, cmd = m2.Update(uitest.Key("enter"))
	feed(m2, cmdMsgs(cmd))
	if note := m2.form().Note(); !strings.Contains(note, "kept draft available") {
		t.Fatalf("note %q", note)
	}
	press(m2, "ctrl+l")
	if v := string(m2.form().Value()); !strings.Contains(v, "Quarterly") {
		t.Fatalf("ctrl+l loaded %s", v)
	}
}

// TestReopenedFormHoldingItsDraft: after ctrl+c kept the draft, esc and
// opening the form again show the form as typed; the kept draft is not
// offered as "available" (it is what the form holds).
func TestReopenedFormHoldingItsDraft(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	m.flow.inputs = inputs.Store{Dir: t.TempDir()}
	openForm(t, m, 1)
	typeText(m, "Quarterly")
	_, cmd := m.Update(uitest.Key("ctrl+c"))
	feed(m, cmdMsgs(cmd))
	press(m, "esc")
	_, cmd = m.Update(uitest.Key("enter"))
	feed(m, cmdMsgs(cmd))
	if m.form() == nil || !strings.Contains(string(m.form().Value()), "Quarterly") {
		t.Fatal("the form was not reopened as typed")
	}
	if got := frame(t, m); strings.Contains(got, "kept draft available") {
		t.Fatalf("reopened form offers the draft it holds:\n%s", got)
	}
}

// TestCtrlCHelpInADirtyForm: the full help (ctrl+g) over typed input says
// what ctrl+c does there (keeps the draft), not "quit".
func TestCtrlCHelpInADirtyForm(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	m.flow.inputs = inputs.Store{Dir: t.TempDir()}
	openForm(t, m, 1)
	press(m, "ctrl+g")
	if got := ansi.Strip(frame(t, m)); !strings.Contains(got, "ctrl+c quit") {
		t.Fatalf("an untouched form's help:\n%s", got)
	}
	press(m, "ctrl+g")
	typeText(m, "Q")
	press(m, "ctrl+g")
	got := ansi.Strip(frame(t, m))
	if strings.Contains(got, "ctrl+c quit") || !strings.Contains(got, "ctrl+c keep the draft (again: quit)") {
		t.Fatalf("a dirty form's help:\n%s", got)
	}
}

// TestCtrlCElsewhereQuits: with nothing typed, or typed-ahead keys in
// between, ctrl+c is not held back twice.
func TestCtrlCElsewhereQuits(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	m.flow.inputs = inputs.Store{Dir: t.TempDir()}
	openForm(t, m, 1)
	if _, cmd := m.Update(uitest.Key("ctrl+c")); !quits(cmdMsgs(cmd)) {
		t.Fatal("ctrl+c in an untouched form did not quit")
	}
	typeText(m, "Q")
	_, cmd := m.Update(uitest.Key("ctrl+c"))
	feed(m, cmdMsgs(cmd))
	typeText(m, "x") // disarms: the next ctrl+c asks again
	if _, cmd := m.Update(uitest.Key("ctrl+c")); quits(cmdMsgs(cmd)) {
		t.Fatal("ctrl+c after more typing quit without keeping the draft")
	}
}

// TestQuitKeepsEveryDirtyDraftWithoutSecrets: q with typed input in two
// forms keeps both, secrets withheld as presets are, and Run's line says
// how many.
func TestQuitKeepsEveryDirtyDraftWithoutSecrets(t *testing.T) {
	dir := t.TempDir()
	m, _ := newTest(t, nil, 100, 30)
	m.flow.inputs = inputs.Store{Dir: dir}
	withModules(t, m)
	fake := m.modules.Selected()
	c := fake.Descriptor.Capability("fake.report")
	fake.Descriptor.RequestSchemas[c.RequestSchema] = json.RawMessage(`{"type":"object",
		"properties":{"title":{"type":"string"},"api_key":{"type":"string","format":"password"}}}`)
	press(m, "enter", "down", "enter")
	typeText(m, "Q1")
	press(m, "tab")
	typeText(m, "hunter2")
	press(m, "esc", "up", "enter")
	if m.screen() != screenForm {
		t.Fatalf("screen %v", m.screen())
	}
	typeText(m, "hello")
	press(m, "esc", "esc")
	_, cmd := m.Update(uitest.Key("q"))
	msgs := cmdMsgs(cmd)
	if !quits(msgs) {
		t.Fatal("q did not quit")
	}
	feed(m, msgs)
	if m.exitNote != "2 drafts kept: ctrl+l in their forms recalls them." {
		t.Fatalf("exit note %q", m.exitNote)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if len(files) != 2 {
		t.Fatalf("files %v", files)
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if bytes.Contains(b, []byte("hunter2")) {
			t.Fatalf("a secret reached the disk:\n%s", b)
		}
		if !bytes.Contains(b, []byte(`"draft"`)) {
			t.Fatalf("no draft in %s:\n%s", f, b)
		}
	}
}

// TestCtrlCKeepsJSONTextThatDoesNotParse: in JSON mode, text that does not
// parse is the draft, kept as typed (not the last value that parsed), and
// ctrl+l after a restart puts it back into JSON mode.
func TestCtrlCKeepsJSONTextThatDoesNotParse(t *testing.T) {
	dir := t.TempDir()
	m, _ := newTest(t, nil, 100, 30)
	m.flow.inputs = inputs.Store{Dir: dir}
	openForm(t, m, 1)
	press(m, "ctrl+e")
	typeText(m, `"pattern": hello`)
	typed := m.form().DraftText()
	if !strings.Contains(typed, "hello") {
		t.Fatalf("JSON text %q", typed)
	}
	_, cmd := m.Update(uitest.Key("ctrl+c"))
	msgs := cmdMsgs(cmd)
	if quits(msgs) {
		t.Fatal("ctrl+c over JSON text quit at once")
	}
	if got := frame(t, m); !strings.Contains(got, draftKeptNote) {
		t.Fatalf("the form does not say the draft is kept:\n%s", got)
	}
	feed(m, msgs)
	sv, err := m.flow.inputs.Load(m.flow.module.ID, m.flow.cap.ID)
	if err != nil || sv.DraftText != typed || sv.Draft != nil {
		t.Fatalf("draft in the store: %+v %v, want text %q", sv, err, typed)
	}

	m2, _ := newTest(t, nil, 100, 30)
	m2.flow.inputs = inputs.Store{Dir: dir}
	withModules(t, m2)
	press(m2, "enter", "down")
	_, cmd = m2.Update(uitest.Key("enter"))
	feed(m2, cmdMsgs(cmd))
	if note := m2.form().Note(); !strings.Contains(note, "kept JSON draft available") {
		t.Fatalf("note %q", note)
	}
	press(m2, "ctrl+l")
	if !m2.form().JSONMode() || m2.form().DraftText() != typed {
		t.Fatalf("ctrl+l: JSON mode %v, text %q", m2.form().JSONMode(), m2.form().DraftText())
	}
	if m2.form().Dirty() {
		t.Fatal("the recalled text counts as typed input")
	}
}

// TestCtrlCRefusesJSONTextWithSecrets: JSON text that does not parse, under
// a schema with a secret field, cannot be redacted, so it is not kept, and
// the form and the exit line say so.
func TestCtrlCRefusesJSONTextWithSecrets(t *testing.T) {
	dir := t.TempDir()
	m, _ := newTest(t, nil, 100, 30)
	m.flow.inputs = inputs.Store{Dir: dir}
	withModules(t, m)
	fake := m.modules.Selected()
	c := fake.Descriptor.Capability("fake.report")
	fake.Descriptor.RequestSchemas[c.RequestSchema] = json.RawMessage(`{"type":"object",
		"properties":{"title":{"type":"string"},"api_key":{"type":"string","writeOnly":true}}}`)
	press(m, "enter", "down", "enter", "ctrl+e")
	typeText(m, `"api_key": hunter2`)
	_, cmd := m.Update(uitest.Key("ctrl+c"))
	msgs := cmdMsgs(cmd)
	if quits(msgs) {
		t.Fatal("the first ctrl+c quit")
	}
	if got := frame(t, m); !strings.Contains(got, "the JSON text draft is not kept") {
		t.Fatalf("the form does not say the text is lost:\n%s", got)
	}
	feed(m, msgs)
	_, cmd = m.Update(uitest.Key("ctrl+c"))
	msgs = cmdMsgs(cmd)
	if !quits(msgs) {
		t.Fatal("the second ctrl+c did not quit")
	}
	feed(m, msgs)
	if !strings.Contains(m.exitNote, "1 JSON text draft not kept") {
		t.Fatalf("exit note %q", m.exitNote)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	for _, f := range files {
		if b, _ := os.ReadFile(f); bytes.Contains(b, []byte("hunter2")) {
			t.Fatalf("a secret reached the disk:\n%s", b)
		}
	}
}

// TestReopenedFormAfterARunIsFresh: a form reopened after its input was
// sent (not edited since) is a fresh form whose note offers that input to
// ctrl+l, so what is typed next is the new input, not appended to the
// last one; the note matches the fields.
func TestReopenedFormAfterARunIsFresh(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	m.flow.inputs = inputs.Store{Dir: t.TempDir()}
	openForm(t, m, 1)
	typeText(m, "Quarterly")
	_, cmd := m.Update(uitest.Key("ctrl+s"))
	feed(m, cmdMsgs(cmd))
	p := uitest.Plan(t, m.flow.module)
	_, cmd = m.Update(planMsg{seq: m.flow.planSeq, plan: p})
	feed(m, cmdMsgs(cmd))
	m.dialogs = nil // the approval is not what this test is about
	press(m, "esc")
	if m.screen() != screenCaps {
		t.Fatalf("screen %v, want caps", m.screen())
	}
	_, cmd = m.Update(uitest.Key("enter"))
	feed(m, cmdMsgs(cmd))
	f := m.form()
	if f == nil {
		t.Fatal("the form did not reopen")
	}
	if v := string(f.Value()); strings.Contains(v, "Quarterly") {
		t.Fatalf("the reopened form holds the sent input: %s", v)
	}
	if note := f.Note(); !strings.Contains(note, "last input available: ctrl+l loads it.") {
		t.Fatalf("note %q", note)
	}
	typeText(m, "Annual")
	if v := string(m.form().Value()); strings.Contains(v, "Quarterly") || !strings.Contains(v, "Annual") {
		t.Fatalf("typed into the reopened form: %s", v)
	}
	press(m, "ctrl+l")
	if v := string(m.form().Value()); !strings.Contains(v, "Quarterly") {
		t.Fatalf("ctrl+l loaded %s", v)
	}
}

// TestFastCtrlCTwiceSaysTheDraftIsKept: a second ctrl+c that comes before
// the first one's write is back waits for it, and the exit line says the
// draft is kept, as it does when the keys are slow.
func TestFastCtrlCTwiceSaysTheDraftIsKept(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	m.flow.inputs = inputs.Store{Dir: t.TempDir()}
	openForm(t, m, 1)
	typeText(m, "Quarterly")
	_, first := m.Update(uitest.Key("ctrl+c"))
	_, second := m.Update(uitest.Key("ctrl+c")) // before the write is back
	if quits(cmdMsgs(second)) {
		t.Fatal("the second ctrl+c quit before the draft's write was back")
	}
	var cmds []tea.Cmd
	for _, msg := range cmdMsgs(first) {
		_, c := m.Update(msg)
		cmds = append(cmds, c)
	}
	if !quits(cmdMsgs(tea.Batch(cmds...))) {
		t.Fatal("the write came back and the cockpit did not quit")
	}
	if m.exitNote != "1 draft kept: ctrl+l in its form recalls it." {
		t.Fatalf("exit note %q", m.exitNote)
	}
}
