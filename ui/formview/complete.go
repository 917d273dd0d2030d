package formview

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"modbay/render"
	"modbay/ui/form"
)

// Completer asks for the values a top-level text field may take (an MCP
// server's completion/complete), given the field's name, its text and
// the other top-level text fields set; the command answers with a
// Completions message. It does no I/O itself.
type Completer func(field, value string, others map[string]string) tea.Cmd

// Completions is a Completer's answer for Field: its values (sanitized
// and bounded by the completer), More when there are more than these,
// or Err saying why there are none.
type Completions struct {
	Field  string
	Values []string
	More   bool
	Err    error
}

// completion is the values offered for one field, and which the field
// holds now (cycled by the Complete key).
type completion struct {
	field  string
	values []string
	at     int
}

// maxCompletionNote bounds the values the note lists.
const maxCompletionNote = 8

// SetCompleter offers completions for the top-level text fields through c
// (nil: none; the Complete key is then neither shown nor acts).
func (m *Model) SetCompleter(c Completer) { m.completer, m.compl = c, nil }

// completable reports whether n takes completions: a top-level text
// field of a form with a completer.
func (m *Model) completable(n *form.Node) bool {
	return m.completer != nil && n != nil && n.Kind == form.KindString && !n.ReadOnly && !n.Raw && !n.Null &&
		n.Parent != nil && n.Parent == m.form.Root
}

// complete answers the Complete key on n: the next of the values already
// offered while the field holds one of them, else a question to the
// completer.
func (m *Model) complete(n *form.Node) tea.Cmd {
	if c := m.compl; c != nil && c.field == n.Name && c.at < len(c.values) && c.values[c.at] == n.Text && len(c.values) > 1 {
		c.at = (c.at + 1) % len(c.values)
		return m.fill(n, c)
	}
	others := map[string]string{}
	for _, o := range m.form.Root.Children {
		if o != n && o.Kind == form.KindString && o.Text != "" {
			others[o.Name] = o.Text
		}
	}
	m.compl = nil
	m.setTransientNote("Asking the server for completions of " + n.Name + "…")
	return m.completer(n.Name, n.Text, others)
}

// completed takes a Completer's answer: the first value fills the field
// (the focused one, if it is still the field asked about) and the note
// lists them.
func (m *Model) completed(c Completions) tea.Cmd {
	n := m.FocusedNode()
	if !m.completable(n) || n.Name != c.Field {
		return nil
	}
	switch {
	case c.Err != nil:
		m.SetNote("No completions: " + render.SanitizeLine(c.Err.Error()))
		return nil
	case len(c.Values) == 0:
		m.SetNote("The server offers no completions for " + n.Name + " starting with what is typed.")
		return nil
	}
	m.compl = &completion{field: c.Field, values: c.Values}
	cmd := m.fill(n, m.compl)
	if c.More {
		m.note += " (the server has more: type more to narrow them)"
	}
	return cmd
}

// fill puts c's current value in n and says which it is of how many.
func (m *Model) fill(n *form.Node, c *completion) tea.Cmd {
	v := c.values[c.at]
	n.Text, n.Empty = v, false
	if usesArea(n) {
		m.area(n).SetValue(editorText(v))
	} else {
		m.input(n).SetValue(editorText(v))
		m.input(n).CursorEnd()
	}
	cmd := m.edited(n)
	shown := c.values[:min(len(c.values), maxCompletionNote)]
	list := strings.Join(shown, " · ")
	if len(c.values) > len(shown) {
		list += " · …"
	}
	note := fmt.Sprintf("Completion %d of %d: %s", c.at+1, len(c.values), list)
	if len(c.values) > 1 {
		note += " (" + m.keys.Complete.Help().Key + ": next)"
	}
	m.SetNote(note)
	return cmd
}
