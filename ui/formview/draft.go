package formview

import "encoding/json"

// Dirty reports whether the input was changed since the form was built,
// loaded (a recall, a re-run) or marked clean (MarkClean): there is typed
// input that quitting would lose. JSON text that does not parse is dirty
// unless it is the text last marked clean.
func (m *Model) Dirty() bool {
	if m.jsonMode && m.jsonErr != "" {
		return m.jsonArea.Value() != m.cleanText
	}
	return string(m.Value()) != m.pristine
}

// Draft is the input as typed so far: the form's value (in JSON mode, the
// text as last it parsed).
func (m *Model) Draft() json.RawMessage { return m.Value() }

// DraftText is the JSON editor's text as typed when it does not parse
// ("" otherwise): Draft cannot hold it, so it is kept as text.
func (m *Model) DraftText() string {
	if !m.jsonMode {
		return ""
	}
	m.checkJSON()
	if m.jsonErr == "" {
		return ""
	}
	return m.jsonArea.Value()
}

// MarkClean records the input as it is now as nothing to lose (it was
// submitted and remembered, or kept as a draft).
func (m *Model) MarkClean() {
	m.pristine = string(m.Value())
	m.cleanText = m.DraftText()
}
