package formview

import (
	"encoding/json"
	"fmt"
	"reflect"

	tea "charm.land/bubbletea/v2"
)

// Recall is a remembered input offered by ctrl+l.
type Recall struct {
	// Name is "last input" or the preset's name.
	Name  string
	Input json.RawMessage
	// Text, when set, is JSON text that did not parse, kept as typed: it
	// is loaded into the JSON editor, not the form (Input is then nil).
	Text string
}

// Recalls are the remembered inputs ctrl+l offers, in order.
func (m *Model) Recalls() []Recall { return m.recalls }

// SetRecalls offers remembered inputs (the last one first, then presets)
// to ctrl+l, and says so in the note unless the form holds the first
// already (a form reopened after its draft was loaded or kept).
func (m *Model) SetRecalls(r []Recall) {
	m.recalls, m.recall = r, -1
	if len(r) > 0 && m.note == "" && !m.holds(r[0]) {
		m.SetNote(fmt.Sprintf("%s available: ctrl+l loads it.", r[0].Name))
	}
}

// holds reports whether the form's input is r's: the same JSON value, or
// in JSON mode the same text.
func (m *Model) holds(r Recall) bool {
	if r.Text != "" {
		return m.DraftText() == r.Text
	}
	var a, b any
	if json.Unmarshal(m.Draft(), &a) != nil || json.Unmarshal(r.Input, &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}

// ---- recall --------------------------------------------------------------

// nextRecall loads the next remembered input into the form.
func (m *Model) nextRecall() tea.Cmd {
	if len(m.recalls) == 0 {
		m.SetNote("No remembered input or preset for this capability yet.")
		return nil
	}
	m.recall = (m.recall + 1) % len(m.recalls)
	r := m.recalls[m.recall]
	if r.Text != "" {
		m.enterJSON(r.Text)
		m.cleanText = m.jsonArea.Value()
		m.note, m.noteIsProblem = fmt.Sprintf("Loaded %s into JSON mode (%d/%d): it does not parse yet (the ✗ line says where); ctrl+l for the next.", r.Name, m.recall+1, len(m.recalls)), false
		return nil
	}
	if err := m.form.SetValue(r.Input); err != nil {
		m.SetNote("Cannot load " + r.Name + ": " + err.Error())
		return nil
	}
	m.resetEditors()
	m.attempted = true // a whole input was supplied: show all its problems
	m.check()
	m.MarkClean()
	m.note, m.noteIsProblem = fmt.Sprintf("Loaded %s (%d/%d); ctrl+l for the next.", r.Name, m.recall+1, len(m.recalls)), false
	return m.setFocus(0)
}
