// Package formview is the capability form screen: it draws a form.Form with
// one editor per field (text inputs, toggles, choice cyclers, JSON text
// areas), validates the input on every change and shows each problem under
// its field. It returns typed actions to the root model: ActionSubmit with
// the input, or ActionBack.
package formview

import (
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"modbay/modproto"
	"modbay/render"
	"modbay/ui/common"
	"modbay/ui/form"
)

// Layout limits of the form.
const (
	// jsonAreaHeight is the number of lines a JSON field's editor shows;
	// the whole-input editor of a raw form gets rawAreaHeight.
	jsonAreaHeight = 4
	rawAreaHeight  = 8
	// indent is the left margin of editors, problems and descriptions,
	// under the two-cell focus marker.
	indent = 4
)

// KeyMap is the form's key bindings.
type KeyMap struct {
	// Next and Prev move between fields (Down/Up too, outside JSON areas).
	Next, Prev key.Binding
	Down, Up   key.Binding
	// Toggle flips a boolean; Left and Right cycle a choice.
	Toggle      key.Binding
	Left, Right key.Binding
	// Submit sends the form; Back leaves it, keeping what was typed.
	Submit key.Binding
	Back   key.Binding
}

// DefaultKeyMap returns the form's bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Next:   key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next field")),
		Prev:   key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous field")),
		Down:   key.NewBinding(key.WithKeys("down", "enter"), key.WithHelp("↓", "next")),
		Up:     key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "previous")),
		Toggle: key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "toggle")),
		Left:   key.NewBinding(key.WithKeys("left"), key.WithHelp("←", "previous choice")),
		Right:  key.NewBinding(key.WithKeys("right", "space"), key.WithHelp("→", "next choice")),
		Submit: key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "submit")),
		Back:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
	}
}

// Action is what the form asks the root model to do.
type Action interface{ isAction() }

// ActionSubmit asks to plan and run the capability with Input.
type ActionSubmit struct {
	// Input is the form's value, valid against the request schema.
	Input json.RawMessage
}

// ActionBack asks to leave the form; its state is kept for a return.
type ActionBack struct{}

func (ActionSubmit) isAction() {}
func (ActionBack) isAction()   {}

// Model is the form screen.
type Model struct {
	com      *common.Common
	form     *form.Form
	validate form.Validator
	keys     KeyMap

	inputs []textinput.Model
	areas  []textarea.Model
	focus  int

	value    json.RawMessage
	problems form.Problems
	note     string

	width, height int
	offset        int
}

// New builds the form screen for f, validating with validate (nil: only
// the fields' own checks).
func New(com *common.Common, f *form.Form, validate form.Validator) *Model {
	m := &Model{com: com, form: f, validate: validate, keys: DefaultKeyMap(), width: com.Width, height: com.Height}
	m.inputs = make([]textinput.Model, len(f.Fields))
	m.areas = make([]textarea.Model, len(f.Fields))
	for i, fd := range f.Fields {
		switch fd.Kind {
		case form.KindString, form.KindNumber, form.KindInteger:
			in := textinput.New()
			in.Prompt = "> "
			in.SetValue(fd.Text)
			m.inputs[i] = in
		case form.KindJSON:
			ta := textarea.New()
			ta.ShowLineNumbers = false
			ta.Prompt = "│ "
			ta.SetHeight(jsonAreaHeight)
			if f.Raw {
				ta.SetHeight(rawAreaHeight)
			}
			ta.SetValue(fd.Text)
			ta.MoveToBegin()
			m.areas[i] = ta
		}
	}
	m.applyStyles()
	m.setFocus(0)
	m.SetSize(com.Width, com.Height)
	m.check()
	return m
}

// applyStyles gives the editors the cockpit's colors, or none.
func (m *Model) applyStyles() {
	var is textinput.Styles
	var as textarea.Styles
	if !m.com.NoColor {
		is = textinput.DefaultStyles(m.com.Dark)
		as = textarea.DefaultStyles(m.com.Dark)
	}
	is.Cursor.Blink = false
	as.Cursor.Blink = false
	for i := range m.form.Fields {
		switch m.form.Fields[i].Kind {
		case form.KindString, form.KindNumber, form.KindInteger:
			m.inputs[i].SetStyles(is)
		case form.KindJSON:
			m.areas[i].SetStyles(as)
		}
	}
}

// Restyle re-applies the styles after the background color changed.
func (m *Model) Restyle() { m.applyStyles() }

// SetSize sets the space the form may use.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	// The editor's prompt ("> " or "│ ") and a cell for the cursor sit
	// beside its text.
	ew := max(w-indent-3, 10)
	for i := range m.form.Fields {
		switch m.form.Fields[i].Kind {
		case form.KindString, form.KindNumber, form.KindInteger:
			m.inputs[i].SetWidth(ew - 1)
		case form.KindJSON:
			m.areas[i].SetWidth(ew)
		}
	}
}

// SetNote shows a one-line note under the form (e.g. why a run was denied).
func (m *Model) SetNote(s string) { m.note = s }

// Note returns the current note.
func (m *Model) Note() string { return m.note }

// ShowProblems places findings the runner reported (runner.InputError)
// under their fields, in addition to the form's own.
func (m *Model) ShowProblems(errs modproto.ValidationErrors) {
	p := m.form.Place(errs)
	for i, msgs := range p.Fields {
		if m.problems.Fields == nil {
			m.problems.Fields = map[int][]string{}
		}
		m.problems.Fields[i] = append(m.problems.Fields[i], msgs...)
	}
	m.problems.Root = append(m.problems.Root, p.Root...)
}

// Problems returns the current findings.
func (m *Model) Problems() form.Problems { return m.problems }

// Value returns the input as currently built.
func (m *Model) Value() json.RawMessage { return m.value }

// Focused returns the index of the focused field.
func (m *Model) Focused() int { return m.focus }

// Form returns the form model.
func (m *Model) Form() *form.Form { return m.form }

// Typing reports whether the focused field takes free text, so keys like
// "q" belong to it.
func (m *Model) Typing() bool {
	if len(m.form.Fields) == 0 {
		return false
	}
	switch m.form.Fields[m.focus].Kind {
	case form.KindBoolean, form.KindEnum:
		return false
	}
	return true
}

// setFocus moves the focus to field i, focusing its editor.
func (m *Model) setFocus(i int) tea.Cmd {
	n := len(m.form.Fields)
	if n == 0 {
		return nil
	}
	i = (i%n + n) % n
	for j := range m.form.Fields {
		switch m.form.Fields[j].Kind {
		case form.KindString, form.KindNumber, form.KindInteger:
			m.inputs[j].Blur()
		case form.KindJSON:
			m.areas[j].Blur()
		}
	}
	m.focus = i
	switch m.form.Fields[i].Kind {
	case form.KindString, form.KindNumber, form.KindInteger:
		return m.inputs[i].Focus()
	case form.KindJSON:
		return m.areas[i].Focus()
	}
	return nil
}

// check rebuilds the value and its problems from the editors.
func (m *Model) check() {
	for i := range m.form.Fields {
		switch m.form.Fields[i].Kind {
		case form.KindString, form.KindNumber, form.KindInteger:
			m.form.Fields[i].Text = m.inputs[i].Value()
		case form.KindJSON:
			m.form.Fields[i].Text = m.areas[i].Value()
		}
	}
	m.value, m.problems = m.form.Check(m.validate)
}

// Update handles a message while the form has focus and returns the action
// it asks for, if any.
func (m *Model) Update(msg tea.Msg) (Action, tea.Cmd) {
	kp, isKey := msg.(tea.KeyPressMsg)
	if !isKey {
		return nil, m.updateEditor(msg)
	}
	if len(m.form.Fields) == 0 {
		return m.updateEmpty(kp)
	}
	fd := &m.form.Fields[m.focus]
	inArea := fd.Kind == form.KindJSON
	switch {
	case key.Matches(kp, m.keys.Submit):
		m.check()
		if n := m.problems.Count(); n > 0 {
			m.note = fmt.Sprintf("Not submitted: %d %s to fix first (marked ✗).", n, plural(n, "problem", "problems"))
			return nil, nil
		}
		m.note = ""
		return ActionSubmit{Input: m.value}, nil
	case key.Matches(kp, m.keys.Back):
		return ActionBack{}, nil
	case key.Matches(kp, m.keys.Next):
		return nil, m.setFocus(m.focus + 1)
	case key.Matches(kp, m.keys.Prev):
		return nil, m.setFocus(m.focus - 1)
	case !inArea && key.Matches(kp, m.keys.Down):
		return nil, m.setFocus(m.focus + 1)
	case !inArea && key.Matches(kp, m.keys.Up):
		return nil, m.setFocus(m.focus - 1)
	case fd.Kind == form.KindBoolean && key.Matches(kp, m.keys.Toggle):
		fd.Toggle()
		m.check()
		return nil, nil
	case fd.Kind == form.KindEnum && key.Matches(kp, m.keys.Left):
		fd.Cycle(-1)
		m.check()
		return nil, nil
	case fd.Kind == form.KindEnum && key.Matches(kp, m.keys.Right):
		fd.Cycle(1)
		m.check()
		return nil, nil
	}
	cmd := m.updateEditor(msg)
	m.check()
	return nil, cmd
}

// updateEmpty handles keys for a form without fields (never built by
// form.Build, which always gives at least the raw field).
func (m *Model) updateEmpty(kp tea.KeyPressMsg) (Action, tea.Cmd) {
	switch {
	case key.Matches(kp, m.keys.Submit):
		return ActionSubmit{Input: json.RawMessage("{}")}, nil
	case key.Matches(kp, m.keys.Back):
		return ActionBack{}, nil
	}
	return nil, nil
}

// updateEditor forwards msg to the focused field's editor.
func (m *Model) updateEditor(msg tea.Msg) tea.Cmd {
	if len(m.form.Fields) == 0 {
		return nil
	}
	var cmd tea.Cmd
	switch m.form.Fields[m.focus].Kind {
	case form.KindString, form.KindNumber, form.KindInteger:
		m.inputs[m.focus], cmd = m.inputs[m.focus].Update(msg)
	case form.KindJSON:
		m.areas[m.focus], cmd = m.areas[m.focus].Update(msg)
	}
	return cmd
}

// ShortHelp returns the bindings for the focused field.
func (m *Model) ShortHelp() []key.Binding {
	b := []key.Binding{m.keys.Next, m.keys.Prev}
	if len(m.form.Fields) > 0 {
		switch m.form.Fields[m.focus].Kind {
		case form.KindBoolean:
			b = append(b, m.keys.Toggle)
		case form.KindEnum:
			b = append(b, m.keys.Left, m.keys.Right)
		}
	}
	return append(b, m.keys.Submit, m.keys.Back)
}

// FullHelp returns every form binding.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{m.keys.Next, m.keys.Prev, m.keys.Down, m.keys.Up},
		{m.keys.Toggle, m.keys.Left, m.keys.Right},
		{m.keys.Submit, m.keys.Back},
	}
}

// View draws the fields, scrolled so the focused one shows, then the
// root problems and the note, in at most the size given by SetSize.
func (m *Model) View() string {
	st := m.com.Styles
	var foot []string
	for _, r := range m.problems.Root {
		foot = append(foot, st.Error.Render(common.Trunc("✗ "+render.SanitizeLine(r), m.width)))
	}
	if m.note != "" {
		foot = append(foot, st.Warning.Render(common.Trunc(render.SanitizeLine(m.note), m.width)))
	}
	if n := m.problems.Count(); n > 0 && m.note == "" {
		foot = append(foot, st.Muted.Render(common.Trunc(fmt.Sprintf("%d %s; ctrl+s submits once the input is valid.", n, plural(n, "problem", "problems")), m.width)))
	}
	if len(foot) > m.height/2 {
		foot = foot[:max(m.height/2, 1)]
	}
	avail := m.height - len(foot)
	var lines []string
	start, end := 0, 0
	for i := range m.form.Fields {
		if i == m.focus {
			start = len(lines)
		}
		lines = append(lines, m.fieldLines(i)...)
		if i == m.focus {
			end = len(lines)
		}
	}
	// Keep the focused field in the window, its top first.
	if start < m.offset {
		m.offset = start
	}
	if end > m.offset+avail {
		m.offset = min(start, end-avail)
	}
	m.offset = max(0, min(m.offset, max(len(lines)-avail, 0)))
	lines = lines[m.offset:min(len(lines), m.offset+max(avail, 0))]
	for len(lines) < avail {
		lines = append(lines, "")
	}
	return strings.Join(append(lines, foot...), "\n")
}

// fieldLines draws field i: label line, editor, problems and, when
// focused, its description.
func (m *Model) fieldLines(i int) []string {
	st := m.com.Styles
	fd := &m.form.Fields[i]
	focused := i == m.focus
	w := m.width
	pad := strings.Repeat(" ", indent)

	name := fd.Name
	if m.form.Raw {
		name = "input"
	}
	label := render.SanitizeLine(name)
	if fd.Required {
		label += " *"
	}
	if focused {
		label = st.Focused.Render(label)
	} else {
		label = st.Text.Render(label)
	}
	kind := fd.Kind.String()
	if fd.Title != "" && !m.form.Raw {
		kind = render.SanitizeLine(fd.Title) + " · " + kind
	}
	head := st.Cursor(focused) + label + "  " + st.Muted.Render(kind)
	lines := []string{common.Trunc(head, w)}

	switch fd.Kind {
	case form.KindString, form.KindNumber, form.KindInteger:
		lines = append(lines, common.Trunc(pad+m.inputs[i].View(), w))
	case form.KindJSON:
		for _, l := range strings.Split(m.areas[i].View(), "\n") {
			lines = append(lines, common.Trunc(pad+l, w))
		}
	case form.KindBoolean:
		box := map[form.BoolState]string{form.BoolUnset: "[ ] (not set)", form.BoolFalse: "[ ] false", form.BoolTrue: "[x] true"}[fd.Bool]
		if focused {
			box = st.Selected.Render(box)
		}
		lines = append(lines, common.Trunc(pad+box, w))
	case form.KindEnum:
		cur := "(none)"
		if fd.Choice >= 0 && fd.Choice < len(fd.Labels) {
			cur = render.SanitizeLine(fd.Labels[fd.Choice])
		}
		sel := fmt.Sprintf("‹ %s ›", cur)
		if focused {
			sel = st.Selected.Render(sel)
		}
		pos := fmt.Sprintf("  %d/%d", fd.Choice+1, len(fd.Enum))
		if fd.Choice < 0 {
			pos = fmt.Sprintf("  %d choices", len(fd.Enum))
		}
		lines = append(lines, common.Trunc(pad+sel+st.Muted.Render(pos), w))
	}
	for _, p := range m.problems.Fields[i] {
		lines = append(lines, common.Trunc(pad+st.Error.Render("✗ "+render.SanitizeLine(p)), w))
	}
	if focused && fd.Description != "" {
		desc := common.Wrap(render.SanitizeLine(fd.Description), max(w-indent, 10))
		for _, l := range strings.Split(desc, "\n") {
			lines = append(lines, common.Trunc(pad+st.Muted.Render(l), w))
		}
	}
	if focused && fd.Kind == form.KindEnum && len(fd.Labels) > 1 {
		opts := make([]string, len(fd.Labels))
		for j, l := range fd.Labels {
			opts[j] = render.SanitizeLine(l)
		}
		lines = append(lines, common.Trunc(pad+st.Muted.Render("one of: "+strings.Join(opts, ", ")), w))
	}
	return lines
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
