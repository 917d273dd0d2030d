package formview

import (
	"encoding/json"

	tea "charm.land/bubbletea/v2"
)

// LoadInput puts a whole input into the form (a re-run from the history:
// the input as it was sent) and shows note above the fields; the fields
// are checked at once, so what today's schema refuses is marked. The
// error is the form's when the input does not fit its fields (the form
// is left as it was).
func (m *Model) LoadInput(input json.RawMessage, note string) (tea.Cmd, error) {
	if err := m.form.SetValue(input); err != nil {
		return nil, err
	}
	m.resetEditors()
	m.attempted = true // a whole input was supplied: show all its problems
	m.check()
	m.MarkClean()
	m.SetNote(note)
	return m.setFocus(0), nil
}
