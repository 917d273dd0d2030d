package formview

import (
	"charm.land/bubbles/v2/key"

	"modbay/ui/form"
)

// KeyMap is the form's key bindings.
type KeyMap struct {
	// Next and Prev move between fields (Down/Up and Enter too, outside
	// multi-line editors, where Enter is a newline).
	Next, Prev key.Binding
	Down, Up   key.Binding
	Enter      key.Binding
	// Newline inserts a line break in a string field, which then shows
	// over several lines.
	Newline key.Binding
	// Toggle flips a boolean, a multi-select option or a section; Left and
	// Right cycle a choice or a variant.
	Toggle      key.Binding
	Left, Right key.Binding
	// Letter is for help only: a letter or digit typed on a choice list
	// jumps to the first choice starting with it (again: the next one;
	// jumpToLetter), and types text in a text field.
	Letter key.Binding
	// Null toggles null on a nullable field; Clear leaves a field out (or
	// removes a list item or entry); Add adds an item or entry.
	Null, Clear, Add key.Binding
	// Empty sets a string field to the empty string "" (shown as "", sent
	// as ""), or back to not set: deleting a field's text leaves it not
	// set, so this is how "" is sent.
	Empty key.Binding
	// Reveal shows a secret field's value (form.Node.Secret: masked as it
	// is typed) while it has the focus, and masks it again; offered only
	// on such a field. ctrl+t: no text editor binds it.
	Reveal key.Binding
	// MoveUp and MoveDown reorder list items and entries.
	MoveUp, MoveDown key.Binding
	// JSON switches JSON mode; Editor edits the input in $EDITOR.
	JSON, Editor key.Binding
	// Recall loads the last input or the next preset; Save saves a preset.
	Recall, Save key.Binding
	// NextProblem moves the focus to the next field with a problem
	// (wrapping), and shows every field's problems; offered only while
	// there are problems.
	NextProblem key.Binding
	// Complete asks the server for the focused text field's values (MCP
	// completion/complete), then cycles through them; offered only where
	// a completer is set. ctrl+space: tab moves between fields, and no
	// other form key uses it.
	Complete key.Binding
	// Submit sends the form (twice while invalid: send anyway); Back
	// leaves it, keeping what was typed.
	Submit key.Binding
	Back   key.Binding
}

// DefaultKeyMap returns the form's bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Next:     key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next field")),
		Prev:     key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous field")),
		Down:     key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "next")),
		Enter:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "next (multi-line: new line)")),
		Newline:  key.NewBinding(key.WithKeys("ctrl+j", "alt+enter"), key.WithHelp("ctrl+j", "new line")),
		Up:       key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "previous")),
		Toggle:   key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "toggle")),
		Left:     key.NewBinding(key.WithKeys("left"), key.WithHelp("←", "previous choice")),
		Right:    key.NewBinding(key.WithKeys("right"), key.WithHelp("→", "next choice")),
		Letter:   key.NewBinding(key.WithKeys(letterKeys()...), key.WithHelp("a letter", "jumps to a choice")),
		Null:     key.NewBinding(key.WithKeys("ctrl+n"), key.WithHelp("ctrl+n", "null")),
		Clear:    key.NewBinding(key.WithKeys("ctrl+x"), key.WithHelp("ctrl+x", "clear/remove")),
		Empty:    key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", `"" empty string`)),
		Reveal:   key.NewBinding(key.WithKeys("ctrl+t"), key.WithHelp("ctrl+t", "show secret")),
		Add:      key.NewBinding(key.WithKeys("ctrl+a"), key.WithHelp("ctrl+a", "add item")),
		MoveUp:   key.NewBinding(key.WithKeys("alt+up"), key.WithHelp("alt+↑", "move up")),
		MoveDown: key.NewBinding(key.WithKeys("alt+down"), key.WithHelp("alt+↓", "move down")),
		JSON:     key.NewBinding(key.WithKeys("ctrl+e"), key.WithHelp("ctrl+e", "JSON")),
		Editor:   key.NewBinding(key.WithKeys("ctrl+o"), key.WithHelp("ctrl+o", "$EDITOR")),
		Recall:   key.NewBinding(key.WithKeys("ctrl+l"), key.WithHelp("ctrl+l", "last/preset")),
		Save:     key.NewBinding(key.WithKeys("ctrl+p"), key.WithHelp("ctrl+p", "save preset")),
		Submit:   key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "submit")),
		Complete: key.NewBinding(key.WithKeys("ctrl+space", "ctrl+@"), key.WithHelp("ctrl+space", "complete")),
		// alt+n: ctrl+n is null and ctrl+e JSON mode; no text editor
		// binds alt+n.
		NextProblem: key.NewBinding(key.WithKeys("alt+n"), key.WithHelp("alt+n", "next problem")),
		Back:        key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
	}
}

// letterKeys are the keys Letter names: a to z and 0 to 9.
func letterKeys() []string {
	var out []string
	for c := 'a'; c <= 'z'; c++ {
		out = append(out, string(c))
	}
	for c := '0'; c <= '9'; c++ {
		out = append(out, string(c))
	}
	return out
}

// ---- help ----------------------------------------------------------------

// ShortHelp returns the bindings for the focused field: the ones that
// always matter first (tab, ctrl+s, ctrl+e, esc), then those of the
// focused field; the root fits them to the width.
func (m *Model) ShortHelp() []key.Binding {
	k := m.keys
	if m.jsonMode {
		return m.fitHelp([]key.Binding{k.JSON, k.Submit, k.Back}, k.Editor)
	}
	var extra []key.Binding
	if n := m.FocusedNode(); n != nil && !n.ReadOnly {
		switch n.Kind {
		case form.KindBoolean, form.KindObject, form.KindArray, form.KindMulti:
			extra = append(extra, k.Toggle)
		case form.KindEnum, form.KindUnion:
			extra = append(extra, k.Right)
		case form.KindString:
			if !n.Raw {
				if takesNewlines(n) {
					extra = append(extra, k.Newline)
				}
				extra = append(extra, k.Empty)
			}
		}
		if n.Nullable {
			extra = append(extra, k.Null)
		}
		if r, ok := m.revealHelp(n); ok {
			extra = append([]key.Binding{r}, extra...)
		}
		if m.completable(n) {
			extra = append([]key.Binding{k.Complete}, extra...)
		}
		if movable(n) != nil || n.Kind == form.KindArray || n.Kind == form.KindObject && n.HasMap || addsToVariant(n) {
			extra = append(extra, k.Add)
		}
	}
	if m.problems.Count() > 0 {
		extra = append([]key.Binding{k.NextProblem}, extra...)
	}
	return m.fitHelp([]key.Binding{k.Next, k.Submit, k.JSON, k.Back}, extra...)
}

// fitHelp returns must followed by extra: the bindings that always
// matter, then the focused field's. The root fits the bar to the width,
// dropping from the end, so the field's go first.
func (m *Model) fitHelp(must []key.Binding, extra ...key.Binding) []key.Binding {
	return append(must, extra...)
}

// FullHelp returns every form binding (next problem outside JSON mode:
// with no problem, it says so).
func (m *Model) FullHelp() [][]key.Binding {
	k := m.keys
	last := []key.Binding{k.Submit, k.Back}
	if !m.jsonMode {
		last = []key.Binding{k.NextProblem, k.Submit, k.Back}
	}
	edit := []key.Binding{k.Toggle, k.Left, k.Right, k.Letter, k.Null, k.Empty, k.Clear}
	if r, ok := m.revealHelp(m.FocusedNode()); ok && !m.jsonMode {
		edit = append(edit, r)
	}
	return [][]key.Binding{
		{k.Next, k.Prev, k.Down, k.Up, k.Enter, k.Newline},
		edit,
		{k.Add, k.MoveUp, k.MoveDown},
		m.completeHelp([]key.Binding{k.JSON, k.Editor, k.Recall, k.Save}),
		last,
	}
}

// revealHelp is the Reveal binding as the help shows it on n, the focused
// field ("show secret", or "hide secret" while shown); false when n is
// no secret field (then ctrl+t does nothing, and no help names it).
func (m *Model) revealHelp(n *form.Node) (key.Binding, bool) {
	if !secretField(n) {
		return key.Binding{}, false
	}
	r := m.keys.Reveal
	if m.revealed == n {
		r.SetHelp(r.Help().Key, "hide secret")
	}
	return r, true
}

// addsToVariant reports whether ctrl+a on union n adds to its chosen
// variant (a list or a map).
func addsToVariant(n *form.Node) bool {
	if n.Kind != form.KindUnion || len(n.Children) == 0 {
		return false
	}
	c := n.Children[0]
	return c.Kind == form.KindArray || c.Kind == form.KindObject && c.HasMap
}

// takesNewlines reports whether a text field may hold a line break: not
// one whose format (uri, email, date, uuid, hostname, an address…) no
// value with a newline can meet, so ctrl+j is neither offered nor acts
// there.
func takesNewlines(n *form.Node) bool {
	return n.Schema == nil || n.Schema.Format == ""
}

// completeHelp is group with the Complete key first when the form takes
// completions.
func (m *Model) completeHelp(group []key.Binding) []key.Binding {
	if m.completer == nil {
		return group
	}
	return append([]key.Binding{m.keys.Complete}, group...)
}
