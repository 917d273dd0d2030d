package formview

import "encoding/json"

// Dirty reports whether the input was changed since the form was built,
// loaded (a recall, a re-run) or marked clean (MarkClean): there is typed
// input that quitting would lose. JSON text that does not parse is dirty.
func (m *Model) Dirty() bool {
	if m.jsonMode && m.jsonErr != "" {
		return true
	}
	return string(m.value) != m.pristine
}

// Draft is the input as typed so far: the form's value (in JSON mode, the
// text as last it parsed).
func (m *Model) Draft() json.RawMessage { return m.value }

// MarkClean records the input as it is now as nothing to lose (it was
// submitted and remembered, or kept as a draft).
func (m *Model) MarkClean() { m.pristine = string(m.value) }
