package ui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"modbay/internal/words"
	"modbay/modproto"
	"modbay/runner"
	"modbay/schema"
)

// What the first ctrl+c over a form with typed input says: the input is
// kept, and a second ctrl+c quits.
const (
	draftKeptNote   = "ctrl+c again quits; the draft is kept (ctrl+l recalls it)"
	draftNoHomeNote = "ctrl+c again quits and loses this draft: this cockpit has no home to keep it in"
	// A JSON text that does not parse cannot have its secrets withheld.
	draftSecretTextNote = "ctrl+c again quits and loses this JSON text: it does not parse, and this capability has secret fields, so the JSON text draft is not kept"
)

// secretMarksDepth bounds the walk of a request schema for secret marks;
// deeper counts as marked.
const secretMarksDepth = 64

// hasSecretMarks reports whether raw (a JSON Schema) marks any value
// "writeOnly": true or "format": "password" anywhere, read conservatively:
// a schema that does not decode counts as marked.
func hasSecretMarks(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return true
	}
	var walk func(v any, depth int) bool
	walk = func(v any, depth int) bool {
		if depth > secretMarksDepth {
			return true
		}
		switch t := v.(type) {
		case map[string]any:
			if w, _ := t["writeOnly"].(bool); w {
				return true
			}
			if f, _ := t["format"].(string); f == "password" {
				return true
			}
			for _, e := range t {
				if walk(e, depth+1) {
					return true
				}
			}
		case []any:
			for _, e := range t {
				if walk(e, depth+1) {
					return true
				}
			}
		}
		return false
	}
	return walk(v, 0)
}

// secretText reports whether d's draft is JSON text that does not parse
// under a request schema with secret fields: such a draft is not kept.
func secretText(d formDraft) bool {
	if d.form.DraftText() == "" {
		return false
	}
	md := d.module.Descriptor
	if md == nil || d.cap.RequestSchema == "" {
		return false
	}
	return hasSecretMarks(md.RequestSchemas[d.cap.RequestSchema])
}

// draftsKeptMsg reports drafts written to the input store: the draftKeys
// of those kept, the first failure's error; onQuit is set when the cockpit
// is quitting.
type draftsKeptMsg struct {
	kept   []string
	err    error
	onQuit bool
	// refused counts JSON text drafts not kept for their secret fields.
	refused int
}

// redactForStore is input with the secret values of c's request schema
// left out (schema.Redact, as presets are written), and how many were.
func redactForStore(mod *runner.Module, c modproto.Capability, input json.RawMessage) (json.RawMessage, int) {
	var h *schema.Compiled
	if d := mod.Descriptor; d != nil && c.RequestSchema != "" {
		h, _ = schema.Compile(d.RequestSchemas[c.RequestSchema])
	}
	return schema.Redact(h, input, schema.RedactOmit)
}

// dirtyDrafts are the session's forms with typed input not sent, by key.
func (f *submitFlow) dirtyDrafts() []formDraft {
	keys := make([]string, 0, len(f.drafts))
	for k, d := range f.drafts {
		if d.module != nil && d.form.Dirty() {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := make([]formDraft, 0, len(keys))
	for _, k := range keys {
		out = append(out, f.drafts[k])
	}
	return out
}

// keepDrafts writes ds to the input store, secrets withheld, stamped now,
// and marks their forms clean; nil when the store is off. What was kept
// comes back as a draftsKeptMsg.
func (f *submitFlow) keepDrafts(ds []formDraft, now time.Time, onQuit bool) tea.Cmd {
	if f.inputs.Dir == "" || len(ds) == 0 {
		return nil
	}
	type write struct {
		key, module, capability string
		input                   json.RawMessage
		text                    string
	}
	ws := make([]write, 0, len(ds))
	refused := 0
	for _, d := range ds {
		k, mod := draftKey(d.module, d.cap), inputsKey(d.module)
		if text := d.form.DraftText(); text != "" {
			// JSON mode with text that does not parse: the text is the draft.
			if secretText(d) {
				refused++
				continue
			}
			d.form.MarkClean()
			ws = append(ws, write{key: k, module: mod, capability: d.cap.ID, text: text})
			continue
		}
		in, _ := redactForStore(d.module, d.cap, d.form.Draft())
		d.form.MarkClean()
		if in != nil {
			ws = append(ws, write{key: k, module: mod, capability: d.cap.ID, input: in})
		}
	}
	st := f.inputs
	return func() tea.Msg {
		msg := draftsKeptMsg{onQuit: onQuit, refused: refused}
		for _, w := range ws {
			save := func() error { return st.SaveDraft(w.module, w.capability, w.input, now) }
			if w.text != "" {
				save = func() error { return st.SaveDraftText(w.module, w.capability, w.text, now) }
			}
			if err := save(); err != nil {
				if msg.err == nil {
					msg.err = err
				}
				continue
			}
			msg.kept = append(msg.kept, w.key)
		}
		return msg
	}
}

// interrupt is ctrl+c where nothing that has focus binds it. Over a form
// with typed input not sent, the first keeps the draft and says that a
// second quits (armed: the key before was that first ctrl+c); otherwise
// it quits.
func (m *Model) interrupt(armed bool) tea.Cmd {
	fs, ok := m.top().(*formScreen)
	if armed || !ok || fs.form == nil || len(m.dialogs) > 0 || !fs.form.Dirty() {
		return m.quit()
	}
	m.quitArmed = true
	if m.flow.inputs.Dir == "" {
		fs.form.SetHint(draftNoHomeNote)
		return nil
	}
	d := formDraft{module: fs.module, cap: fs.cap, form: fs.form}
	if secretText(d) {
		fs.form.SetHint(draftSecretTextNote)
		return nil
	}
	fs.form.SetHint(draftKeptNote)
	cmd := m.flow.keepDrafts([]formDraft{{module: fs.module, cap: fs.cap, form: fs.form}}, m.com.Now(), false)
	if cmd != nil {
		m.flow.keeping++
	}
	return cmd
}

// quit ends the program, keeping first every form with typed input not
// sent (Run says how many drafts are kept after the screen is gone).
func (m *Model) quit() tea.Cmd {
	if m.flow.keeping > 0 && !m.flow.quitWhenKept {
		// A first ctrl+c's write is not back: quit when it is (a third
		// ctrl+c does not wait).
		m.flow.quitWhenKept = true
		return nil
	}
	ds := m.flow.dirtyDrafts()
	if len(ds) == 0 {
		m.exitNote = m.flow.keptNote()
		return tea.Quit
	}
	if m.flow.inputs.Dir == "" {
		m.exitNote = fmt.Sprintf("%s lost: this cockpit has no home to keep %s in.",
			words.Count(len(ds), "draft", "drafts"), words.Plural(len(ds), "it", "them"))
		return tea.Quit
	}
	return tea.Sequence(m.flow.keepDrafts(ds, m.com.Now(), true), tea.Quit)
}

// keptNote says how many drafts this session kept that were not sent
// since ("" when none).
func (f *submitFlow) keptNote() string {
	n := len(f.kept)
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%s kept: ctrl+l in %s recalls %s.", words.Count(n, "draft", "drafts"),
		words.Plural(n, "its form", "their forms"), words.Plural(n, "it", "them"))
}

// draftsKept says what became of drafts written: on the form for the
// first ctrl+c, and in the line Run prints for a quit; it quits when a
// quit waited for this write.
func (m *Model) draftsKept(msg draftsKeptMsg) tea.Cmd {
	if m.flow.kept == nil {
		m.flow.kept = map[string]bool{}
	}
	for _, k := range msg.kept {
		m.flow.kept[k] = true
	}
	if msg.onQuit {
		m.exitNote = m.flow.keptNote()
		if msg.refused > 0 {
			m.exitNote = strings.TrimSpace(m.exitNote + " " + fmt.Sprintf("%s not kept: JSON text that does not parse cannot have its secret fields withheld.",
				words.Count(msg.refused, "JSON text draft", "JSON text drafts")))
		}
		if msg.err != nil {
			m.exitNote += " Not kept: " + msg.err.Error()
		}
		return nil
	}
	if m.flow.keeping > 0 {
		m.flow.keeping--
	}
	if m.flow.quitWhenKept && m.flow.keeping == 0 {
		m.flow.quitWhenKept = false
		cmd := m.quit()
		if msg.err != nil {
			m.exitNote = strings.TrimSpace(m.exitNote + " The draft could not be kept: " + msg.err.Error())
		}
		return cmd
	}
	if f := m.form(); f != nil && msg.err != nil {
		f.SetProblemNote("The draft could not be kept: " + msg.err.Error())
	}
	return nil
}
