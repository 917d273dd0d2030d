package formview

import (
	"encoding/json"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/ui/form"
)

// ---- JSON mode -----------------------------------------------------------

// enterJSON shows text (the input) in the JSON editor.
func (m *Model) enterJSON(text string) {
	m.jsonMode = true
	m.armed = false
	m.jsonArea.SetValue(form.Indent(json.RawMessage(text)))
	m.jsonArea.MoveToBegin()
	m.SetNote("JSON mode: this is exactly the input to be sent. ctrl+e returns to the form.")
	m.checkJSON()
}

// updateJSON handles a key in JSON mode.
func (m *Model) updateJSON(kp tea.KeyPressMsg) (Action, tea.Cmd) {
	switch {
	case key.Matches(kp, m.keys.Submit):
		return m.submit()
	case key.Matches(kp, m.keys.JSON):
		m.escArmed = false
		if m.leaveJSON() != nil {
			// The ✗ line already says what does not parse and where.
			m.setTransientNote("Still in JSON mode: the JSON does not parse (the ✗ line says where).")
			return nil, nil
		}
		return nil, m.setFocus(m.focus)
	case key.Matches(kp, m.keys.Editor):
		return nil, m.openEditor(json.RawMessage(m.jsonArea.Value()))
	case key.Matches(kp, m.keys.Back):
		m.checkJSON()
		if m.jsonErr != "" && !m.escArmed {
			// Leaving with text that does not parse: say what happens to it.
			m.escArmed = true
			// A problem note: the next key (an edit that may make it
			// parse) drops it, as it disarms esc.
			m.SetProblemNote("The JSON does not parse: esc again leaves, and this draft text is kept in JSON mode for when you come back.")
			return nil, nil
		}
		m.escArmed = false
		return ActionBack{}, nil
	}
	m.escArmed = false
	m.armed = false
	m.clearProblemNote()
	return nil, m.updateEditor(kp)
}

// leaveJSON loads the JSON editor's text into the form and shows the form;
// text that does not parse keeps JSON mode (nothing is dropped).
func (m *Model) leaveJSON() error {
	text := strings.TrimSpace(m.jsonArea.Value())
	if err := m.form.SetValue(json.RawMessage(text)); err != nil {
		return err
	}
	m.jsonMode = false
	m.SetNote("")
	m.attempted = true // a whole input was supplied: show all its problems
	m.resetEditors()
	m.check()
	return nil
}
