package formview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"modbay/internal/words"
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
	// under the two-cell focus marker; depthIndent is added per nesting
	// level.
	indent      = 4
	depthIndent = 2
	// maxDescLines bounds the focused field's description: enough for a
	// short list its author wrote over several lines.
	maxDescLines = 6
	// textAreaMin and textAreaMax bound the height of a multi-line string
	// field's editor, which grows with its text between them.
	textAreaMin = 3
	textAreaMax = 8
	// maxAreaContent is the line limit of a field's editor: in effect
	// none (the textarea's default would refuse typing past 99 lines).
	maxAreaContent = 1 << 20
)

// Action is what the form asks the root model to do.
type Action interface{ isAction() }

// ActionSubmit asks to plan and run the capability with Input.
type ActionSubmit struct {
	// Input is the form's value, valid against the request schema unless
	// Unchecked.
	Input json.RawMessage
	// Unchecked is true for a deliberate "send anyway" of an input the
	// schema refuses: the runner must not validate it again.
	Unchecked bool
}

// ActionSavePreset asks to save Input as a named preset.
type ActionSavePreset struct{ Input json.RawMessage }

// ActionBack asks to leave the form; its state is kept for a return.
type ActionBack struct{}

func (ActionSubmit) isAction()     {}
func (ActionSavePreset) isAction() {}
func (ActionBack) isAction()       {}

// Model is the form screen.
type Model struct {
	com      *common.Common
	form     *form.Form
	validate form.Validator
	keys     KeyMap

	rows   []form.Row
	gen    int
	focus  int
	inputs map[*form.Node]*textinput.Model
	areas  map[*form.Node]*textarea.Model
	// defaultLook holds the inputs drawn with defaultStyles.
	defaultLook map[*form.Node]bool
	// revealed is the secret field shown in clear (KeyMap.Reveal) while
	// it keeps the focus; nil: every secret is masked.
	revealed *form.Node

	value    json.RawMessage
	problems form.Problems
	note     string
	// noteIsProblem is set when note is about the input's problems (a
	// refused submit, the host's refusal): the next edit clears it, so it
	// never outlives the problem it names.
	noteIsProblem bool
	// dirty holds the pointers edited since their field got the focus;
	// touched the pointers edited and then left. A field's problems show
	// once it is touched, or after a submit attempt (attempted), never
	// under a field the person has not got to yet.
	dirty, touched map[string]bool
	attempted      bool
	// armed is set after a refused ctrl+s: the next ctrl+s sends anyway.
	armed bool
	// strict refuses every invalid submit: no "send anyway" (SetStrict).
	strict bool
	// transient is set when note answers one key (a refused add, a hint
	// about text typed where it cannot go): the next key clears it.
	transient bool
	// escArmed is set after esc in JSON mode with text that does not
	// parse: the person was told the draft is kept; the next esc leaves.
	escArmed bool

	jsonMode bool
	jsonArea textarea.Model
	jsonErr  string

	recalls []Recall
	recall  int
	// pristine is the value as built, loaded or marked clean (Dirty).
	pristine string
	// cleanText is the unparsed JSON text last marked clean ("" none).
	cleanText string

	// completer offers completions (SetCompleter); compl is what it
	// offered for the focused field.
	completer Completer
	compl     *completion

	width, height int
	top, skip     int // the first row drawn, and its lines scrolled off

	// large: the form has more than liveCheckRows rows, so a keystroke
	// checks the field it changed and the whole input is checked once
	// the keys pause (checkDueMsg number seq); stale until then.
	large bool
	seq   int
	stale bool
}

// liveCheckRows is the most rows a form checks whole on every keystroke;
// a larger one checks the edited field at once and the whole input
// liveCheckDelay after the last key (or when it is read: sent, saved,
// shown as JSON), so a key costs the field, not the form.
const (
	liveCheckRows  = 300
	liveCheckDelay = 150 * time.Millisecond
)

// checkDueMsg asks for the whole-input check of a large form, unless a
// later key (a later seq) asked again.
type checkDueMsg struct{ seq int }

// New builds the form screen for f, validating with validate (nil: only
// the fields' own checks).
func New(com *common.Common, f *form.Form, validate form.Validator) *Model {
	m := &Model{com: com, form: f, validate: validate, keys: DefaultKeyMap(), width: com.Width, height: com.Height, recall: -1,
		dirty: map[string]bool{}, touched: map[string]bool{}}
	m.resetEditors()
	m.jsonArea = textarea.New()
	m.jsonArea.ShowLineNumbers = false
	m.jsonArea.Prompt = "│ "
	m.jsonArea.CharLimit = 0
	m.jsonArea.MaxHeight = 0
	m.applyStyles()
	m.SetSize(com.Width, com.Height)
	m.check()
	m.MarkClean()
	m.setFocus(0)
	return m
}

// resetEditors drops every editor (they are rebuilt from the nodes' text)
// and the rows.
func (m *Model) resetEditors() {
	m.inputs = map[*form.Node]*textinput.Model{}
	m.areas = map[*form.Node]*textarea.Model{}
	m.defaultLook = map[*form.Node]bool{}
	m.rows = m.form.Rows()
	m.large = len(m.rows) > liveCheckRows
	m.gen = m.form.Gen
}

// input returns n's text input, creating it from n's text.
func (m *Model) input(n *form.Node) *textinput.Model {
	if in, ok := m.inputs[n]; ok {
		return in
	}
	in := textinput.New()
	in.Prompt = "> "
	in.CharLimit = 0
	if n.Kind == form.KindEntry {
		in.SetValue(editorText(n.Key))
		in.Placeholder = "key"
	} else {
		in.SetValue(editorText(n.Text))
		// The schema's example: module text, drawn as given by the
		// editor (it cleans only the value), marked as an example.
		in.Placeholder = examplePlaceholder(n)
	}
	in.SetStyles(m.inputStyles())
	delete(m.defaultLook, n) // a new editor has the ordinary look
	in.SetWidth(m.editorWidth(n) - 1)
	m.inputs[n] = &in
	return &in
}

// secretField reports whether n is a field whose typed value the view
// masks (form.Node.Secret): text edited in place, not a map entry's key.
func secretField(n *form.Node) bool {
	return n != nil && (n.IsText() || n.ReadOnly) && n.Kind != form.KindEntry && n.Secret()
}

// masked reports whether n's value is drawn masked: a secret field not
// revealed, or revealed but no longer focused.
func (m *Model) masked(n *form.Node) bool {
	return secretField(n) && (m.revealed != n || m.FocusedNode() != n)
}

// usesArea reports whether n is edited in a multi-line editor: JSON text,
// or a string field with long text (form.Node.IsMultiline).
func usesArea(n *form.Node) bool { return n.IsJSONText() || n.IsMultiline() }

// area returns n's multi-line editor, creating it from n's text.
func (m *Model) area(n *form.Node) *textarea.Model {
	if a, ok := m.areas[n]; ok {
		return a
	}
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = "│ "
	ta.CharLimit = 0
	ta.MaxContentHeight = maxAreaContent
	ta.SetHeight(jsonAreaHeight)
	if n.Parent == nil {
		ta.SetHeight(rawAreaHeight)
	}
	ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys(append([]string{"enter"}, m.keys.Newline.Keys()...)...))
	if !n.IsJSONText() {
		// Multi-line text: enter (or ctrl+j, alt+enter) breaks the line,
		// tab moves on; the editor grows with the text.
		ta.DynamicHeight, ta.MinHeight, ta.MaxHeight = true, textAreaMin, textAreaMax
	}
	if n.Placeholder != "" {
		ta.Placeholder = "e.g. " + render.Sanitize(n.Placeholder)
	}
	ta.SetStyles(m.areaStyles())
	ta.SetWidth(m.editorWidth(n))
	ta.SetValue(editorText(n.Text))
	ta.MoveToBegin()
	m.areas[n] = &ta
	return &ta
}

func (m *Model) inputStyles() textinput.Styles {
	var s textinput.Styles
	if !m.com.NoColor {
		s = textinput.DefaultStyles(m.com.Dark)
	}
	s.Cursor.Blink = false
	return s
}

// defaultStyles are inputStyles for a field holding its default as built
// (form.Node.Defaulted): the text muted and italic, apart from typed text
// (the field's line says "(default)" in words too).
func (m *Model) defaultStyles() textinput.Styles {
	s := m.inputStyles()
	look := m.com.Styles.Muted.Italic(true)
	if m.com.NoColor {
		look = s.Focused.Text.Italic(true)
	}
	s.Focused.Text, s.Blurred.Text = look, look
	return s
}

// lookDefault gives n's input the default look while n holds its default,
// the ordinary look otherwise; styles are set only when that changes.
func (m *Model) lookDefault(n *form.Node, in *textinput.Model) {
	want := n.Defaulted
	if m.defaultLook[n] == want {
		return
	}
	if want {
		in.SetStyles(m.defaultStyles())
	} else {
		in.SetStyles(m.inputStyles())
	}
	m.defaultLook[n] = want
}

func (m *Model) areaStyles() textarea.Styles {
	var s textarea.Styles
	if !m.com.NoColor {
		s = textarea.DefaultStyles(m.com.Dark)
	}
	s.Cursor.Blink = false
	return s
}

// applyStyles gives the editors the cockpit's colors, or none.
func (m *Model) applyStyles() {
	for _, in := range m.inputs {
		in.SetStyles(m.inputStyles())
	}
	clear(m.defaultLook)
	for _, a := range m.areas {
		a.SetStyles(m.areaStyles())
	}
	m.jsonArea.SetStyles(m.areaStyles())
}

// Restyle re-applies the styles after the background color changed.
func (m *Model) Restyle() { m.applyStyles() }

// editorWidth is the width of n's editor at its depth.
func (m *Model) editorWidth(n *form.Node) int {
	d := 0
	for _, r := range m.rows {
		if r.Node == n {
			d = r.Depth
		}
	}
	return max(m.width-indent-depthIndent*d-3, 10)
}

// SetSize sets the space the form may use.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	for n, in := range m.inputs {
		in.SetWidth(m.editorWidth(n) - 1)
	}
	for n, a := range m.areas {
		a.SetWidth(m.editorWidth(n))
	}
	m.jsonArea.SetWidth(max(w-3, 10))
	m.jsonArea.SetHeight(max(h-3, 3))
}

// SetNote shows a one-line note under the form (e.g. why a run was denied).
func (m *Model) SetNote(s string) { m.note, m.noteIsProblem, m.transient = s, false, false }

// setTransientNote shows a note that answers one key: the next key clears
// it, so "the list is full" never outlives the add it refused.
func (m *Model) setTransientNote(s string) { m.note, m.noteIsProblem, m.transient = s, false, true }

// SetHint shows s above the fields until the next key.
func (m *Model) SetHint(s string) { m.setTransientNote(s) }

// SetProblemNote shows a note about the input's problems (e.g. the host
// refused it); the next edit clears it, since it may no longer hold.
func (m *Model) SetProblemNote(s string) { m.note, m.noteIsProblem, m.transient = s, true, false }

// SetStrict makes the form refuse an invalid input on every ctrl+s, never
// offering to send it anyway: for answers the host checks against the
// schema itself and refuses when invalid (an MCP elicitation's).
func (m *Model) SetStrict(on bool) { m.strict, m.armed = on, false }

// Note returns the current note.
func (m *Model) Note() string { return m.note }

// ShowProblems places findings the runner reported (runner.InputError)
// under their fields, in addition to the form's own.
func (m *Model) ShowProblems(errs modproto.ValidationErrors) {
	m.problems.Merge(m.form.Place(errs))
	m.attempted = true
}

// ProblemsShownAt reports whether the problems at JSON pointer ptr are
// shown under their field: after a submit attempt, or once the field (or
// one inside it) was edited and left.
func (m *Model) ProblemsShownAt(ptr string) bool {
	if m.attempted || m.touched[ptr] {
		return true
	}
	for t := range m.touched {
		if strings.HasPrefix(t, ptr+"/") {
			return true
		}
	}
	return false
}

// Problems returns the current findings.
func (m *Model) Problems() form.Problems {
	m.settle()
	return m.problems
}

// Value returns the input as currently built.
func (m *Model) Value() json.RawMessage {
	m.settle()
	return m.value
}

// settle runs a large form's pending whole-input check.
func (m *Model) settle() {
	if m.stale {
		m.check()
	}
}

// Focused returns the index of the focused row.
func (m *Model) Focused() int { return m.focus }

// FocusedNode returns the focused node (nil for an empty form).
func (m *Model) FocusedNode() *form.Node {
	if m.focus < 0 || m.focus >= len(m.rows) {
		return nil
	}
	return m.rows[m.focus].Node
}

// Form returns the form model.
func (m *Model) Form() *form.Form { return m.form }

// JSONMode reports whether the JSON editor is showing.
func (m *Model) JSONMode() bool { return m.jsonMode }

// Typing reports whether the focused field takes free text, so keys like
// "q" belong to it.
func (m *Model) Typing() bool {
	if m.jsonMode {
		return true
	}
	n := m.FocusedNode()
	return n != nil && n.IsText() && !n.ReadOnly
}

// setFocus moves the focus to row i (wrapping), focusing its editor.
func (m *Model) setFocus(i int) tea.Cmd {
	n := len(m.rows)
	if n == 0 {
		return nil
	}
	i = (i%n + n) % n
	if old := m.FocusedNode(); old != nil && old != m.rows[i].Node {
		m.revealed = nil // a secret shown is masked again once left
		// Leaving a field: what was edited is now touched.
		for p := range m.dirty {
			m.touched[p] = true
		}
		clear(m.dirty)
	}
	for _, in := range m.inputs {
		in.Blur()
	}
	for _, a := range m.areas {
		a.Blur()
	}
	m.focus = i
	node := m.rows[i].Node
	switch {
	case node.ReadOnly || node.Null:
	case usesArea(node):
		return m.area(node).Focus()
	case node.IsText():
		return m.input(node).Focus()
	}
	return nil
}

// syncRows rebuilds the rows after the tree's shape changed, keeping the
// focus on the same node (or near where it was).
func (m *Model) syncRows(prefer *form.Node) tea.Cmd {
	if m.gen == m.form.Gen && prefer == nil {
		return nil
	}
	cur := m.FocusedNode()
	if prefer != nil {
		cur = prefer
	}
	m.rows = m.form.Rows()
	m.large = len(m.rows) > liveCheckRows
	m.gen = m.form.Gen
	for n := range m.inputs {
		if !m.visible(n) {
			delete(m.inputs, n)
		}
	}
	for n := range m.areas {
		if !m.visible(n) {
			delete(m.areas, n)
		}
	}
	for i, r := range m.rows {
		if r.Node == cur {
			return m.setFocus(i)
		}
	}
	return m.setFocus(min(m.focus, len(m.rows)-1))
}

func (m *Model) visible(n *form.Node) bool {
	for _, r := range m.rows {
		if r.Node == n {
			return true
		}
	}
	return false
}

// check rebuilds the value and its problems from the tree.
func (m *Model) check() {
	m.stale = false
	if m.jsonMode {
		m.checkJSON()
		return
	}
	m.value, m.problems = m.form.Check(m.validate)
}

// checkJSON validates the JSON editor's text as the input.
func (m *Model) checkJSON() {
	text := strings.TrimSpace(m.jsonArea.Value())
	m.problems = form.Problems{}
	if err := form.JSONError([]byte(text)); err != nil {
		m.jsonErr = err.Error()
		m.problems.Root = []string{m.jsonErr}
		return
	}
	m.jsonErr = ""
	m.value = compactJSON(text)
	// One verdict: the problems the form will show for this value, found
	// the same way (form.CheckValue), listed by pointer.
	if p, err := m.form.CheckValue(m.value, m.validate); err == nil {
		m.problems = p
	}
}

func compactJSON(s string) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		return json.RawMessage(s)
	}
	return buf.Bytes()
}

// edited records an edit of n: conditionals, rows and validation.
func (m *Model) edited(n *form.Node) tea.Cmd {
	m.armed = false
	m.dirty[n.Pointer()] = true
	m.clearProblemNote()
	m.form.Changed(n)
	cmd := m.syncRows(nil)
	if !m.large {
		m.check()
		return cmd
	}
	m.checkField(n)
	m.seq++
	seq := m.seq
	return tea.Batch(cmd, tea.Tick(liveCheckDelay, func(time.Time) tea.Msg { return checkDueMsg{seq} }))
}

// checkField replaces the problems at and under n with n's own
// (form.CheckField); the whole input's check is then due.
func (m *Model) checkField(n *form.Node) {
	ptr := n.Pointer()
	for at := range m.problems.Fields {
		if at == ptr || strings.HasPrefix(at, ptr+"/") {
			delete(m.problems.Fields, at)
		}
	}
	m.problems.Merge(m.form.CheckField(n))
	m.stale = true
}

// clearProblemNote drops a note about problems once the input changed.
func (m *Model) clearProblemNote() {
	if m.noteIsProblem {
		m.note, m.noteIsProblem = "", false
	}
}

// Update handles a message while the form has focus and returns the action
// it asks for, if any.
func (m *Model) Update(msg tea.Msg) (Action, tea.Cmd) {
	switch msg := msg.(type) {
	case checkDueMsg:
		if msg.seq == m.seq {
			m.settle()
		}
		return nil, nil
	case editorReadyMsg:
		return nil, m.runEditor(msg)
	case editorDoneMsg:
		m.editorDone(msg)
		return nil, nil
	case Completions:
		return nil, m.completed(msg)
	case tea.PasteMsg:
		if m.transient {
			m.note, m.transient = "", false
		}
		return nil, m.paste(msg.Content)
	case tea.KeyPressMsg:
		if m.transient {
			m.note, m.transient = "", false
		}
		if m.jsonMode {
			return m.updateJSON(msg)
		}
		return m.updateForm(msg)
	}
	return nil, m.updateEditor(msg)
}

// updateForm handles a key in form mode.
func (m *Model) updateForm(kp tea.KeyPressMsg) (Action, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(kp, k.Submit):
		return m.submit()
	case key.Matches(kp, k.Back):
		return ActionBack{}, nil
	case key.Matches(kp, k.JSON):
		m.enterJSON(string(m.Value()))
		return nil, m.jsonArea.Focus()
	case key.Matches(kp, k.Editor):
		return nil, m.openEditor(m.Value())
	case key.Matches(kp, k.Save):
		return ActionSavePreset{Input: m.Value()}, nil
	case key.Matches(kp, k.Recall):
		return nil, m.nextRecall()
	case key.Matches(kp, k.NextProblem):
		return nil, m.nextProblem()
	case key.Matches(kp, k.Next):
		return nil, m.setFocus(m.focus + 1)
	case key.Matches(kp, k.Prev):
		return nil, m.setFocus(m.focus - 1)
	}
	n := m.FocusedNode()
	if n == nil {
		return nil, nil
	}
	inArea := usesArea(n) && !n.ReadOnly && !n.Null
	switch {
	case key.Matches(kp, k.Complete) && m.completable(n):
		return nil, m.complete(n)
	case key.Matches(kp, k.Reveal) && secretField(n):
		if m.revealed == n {
			m.revealed = nil
		} else {
			m.revealed = n
		}
		return nil, nil
	case !inArea && key.Matches(kp, k.Down):
		return nil, m.setFocus(m.focus + 1)
	case !inArea && key.Matches(kp, k.Up):
		return nil, m.setFocus(m.focus - 1)
	case key.Matches(kp, k.Enter) && !inArea:
		// In a multi-line editor enter is a line break (the editor takes
		// it); anywhere else it moves on.
		return nil, m.setFocus(m.focus + 1)
	case n.ReadOnly && n.Kind != form.KindObject && n.Kind != form.KindArray && (kp.Text != "" || key.Matches(kp, k.Clear, k.Null, k.Left, k.Right, k.Newline)):
		m.setTransientNote("This field is read-only: shown as the schema gives it, never sent.")
		return nil, nil
	case key.Matches(kp, k.Newline) && n.Kind == form.KindString && !n.Raw && !n.Null && !inArea:
		if !takesNewlines(n) {
			m.setTransientNote("A " + n.Schema.Format + " has no line breaks: ctrl+j does nothing here.")
			return nil, nil
		}
		return nil, m.breakLine(n)
	case key.Matches(kp, k.Null) && n.Nullable:
		m.form.ToggleNull(n)
		if n.Null {
			delete(m.inputs, n)
			delete(m.areas, n)
		}
		m.form.Gen++
		return nil, m.edited(n)
	case key.Matches(kp, k.Null):
		m.setTransientNote("ctrl+n sets a field to null: this field's schema does not allow null.")
		return nil, nil
	case key.Matches(kp, k.Empty):
		if !m.form.SetEmpty(n) {
			m.setTransientNote(`ctrl+r sets a text field to the empty string "": this field is not one.`)
			return nil, nil
		}
		if in, ok := m.inputs[n]; ok {
			in.SetValue("")
		}
		if a, ok := m.areas[n]; ok {
			a.SetValue("")
		}
		return nil, m.edited(n)
	case key.Matches(kp, k.Add):
		return nil, m.add(n)
	case key.Matches(kp, k.Clear):
		return nil, m.clear(n)
	case key.Matches(kp, k.MoveUp), key.Matches(kp, k.MoveDown):
		d := 1
		if key.Matches(kp, k.MoveUp) {
			d = -1
		}
		if it := movable(n); it != nil && m.form.Move(it, d) {
			return nil, m.edited(it)
		}
		return nil, nil
	}
	if n.Null || n.IsText() {
		if n.Null {
			return nil, nil
		}
		cmd := m.updateEditor(kp)
		return nil, cmd
	}
	switch n.Kind {
	case form.KindBoolean:
		if key.Matches(kp, k.Toggle) {
			n.Toggle()
			return nil, m.edited(n)
		}
	case form.KindEnum:
		switch {
		case key.Matches(kp, k.Left):
			n.Cycle(-1)
			return nil, m.edited(n)
		case key.Matches(kp, k.Right), key.Matches(kp, k.Toggle):
			n.Cycle(1)
			return nil, m.edited(n)
		}
	case form.KindMulti:
		switch {
		case key.Matches(kp, k.Left):
			n.Cursor = max(n.Cursor-1, 0)
		case key.Matches(kp, k.Right):
			n.Cursor = min(n.Cursor+1, len(n.Options)-1)
		case key.Matches(kp, k.Toggle) && len(n.Checked) > 0:
			n.Checked[n.Cursor] = !n.Checked[n.Cursor]
			return nil, m.edited(n)
		}
	case form.KindUnion:
		switch {
		case key.Matches(kp, k.Left):
			m.form.CycleVariant(n, -1)
			return nil, m.edited(n)
		case key.Matches(kp, k.Right), key.Matches(kp, k.Toggle):
			m.form.CycleVariant(n, 1)
			return nil, m.edited(n)
		}
	case form.KindObject, form.KindArray:
		if key.Matches(kp, k.Toggle) || key.Matches(kp, k.Right) && n.Collapsed || key.Matches(kp, k.Left) && !n.Collapsed {
			m.form.ToggleCollapsed(n)
			return nil, m.syncRows(n)
		}
	case form.KindNull:
		if key.Matches(kp, k.Toggle) {
			n.Present = !n.Present
			m.armed = false
			m.dirty[n.Pointer()] = true
			m.clearProblemNote()
			m.check()
			return nil, nil
		}
	}
	if ok, cmd := m.jumpToLetter(n, kp.Text); ok {
		return nil, cmd
	}
	if kp.Text != "" && !key.Matches(kp, k.Toggle) {
		// Text typed where no text goes is not dropped without a word.
		m.setTransientNote(fmt.Sprintf("%q was not typed: %s", kp.Text, notTextHint(n)))
	}
	return nil, nil
}

// notTextHint says what the keys do on a field that takes no text.
func notTextHint(n *form.Node) string {
	switch n.Kind {
	case form.KindObject:
		if n.HasMap {
			return "this is a section. tab moves to its fields, space opens or closes it, ctrl+a adds an entry."
		}
		return "this is a section. tab moves to its fields, space opens or closes it."
	case form.KindArray:
		return "this is a list. ctrl+a adds an item, tab moves to its items, space opens or closes it."
	case form.KindBoolean:
		return "space toggles this field."
	case form.KindMulti:
		return "←/→ move between the options, space checks one."
	case form.KindNull:
		return "this field only takes null (space toggles it)."
	}
	return "←/→ or space pick a choice here."
}

// breakLine inserts a newline at the cursor of a one-line string field,
// which from then on is edited over several lines.
func (m *Model) breakLine(n *form.Node) tea.Cmd {
	in := m.input(n)
	r := []rune(in.Value())
	pos := min(max(in.Position(), 0), len(r))
	before, after := string(r[:pos]), string(r[pos:])
	n.Text = nodeText(before + "\n" + after)
	delete(m.inputs, n)
	a := m.area(n)
	a.SetValue(before + "\n")
	a.InsertString(after)
	a.SetCursorColumn(0)
	return tea.Batch(a.Focus(), m.edited(n))
}

// movable is the list item or entry that n belongs to (n itself, or the
// nearest ancestor that is one).
func movable(n *form.Node) *form.Node {
	for p := n; p != nil && p.Parent != nil; p = p.Parent {
		if p.Kind == form.KindEntry || p.Parent.Kind == form.KindArray {
			return p
		}
	}
	return nil
}

// add adds an item to the focused list or map, or the nearest enclosing
// one, and focuses it.
func (m *Model) add(n *form.Node) tea.Cmd {
	if n.Kind == form.KindUnion && len(n.Children) > 0 {
		// A union's chosen variant has no row of its own (its fields show
		// under the picker): ctrl+a on the picker adds to it, so a
		// free-form object or a list under a union is reachable.
		if c := n.Children[0]; c.Kind == form.KindArray || c.Kind == form.KindObject && (c.HasMap || c.Lazy) {
			n = c
		}
	}
	for p := n; p != nil; p = p.Parent {
		if p.Kind == form.KindArray || p.Kind == form.KindObject && (p.HasMap || p.Lazy) {
			it := m.form.Add(p)
			if it == nil {
				m.setTransientNote("Cannot add: the list is full (maxItems) or takes no more entries.")
				return nil
			}
			m.edited(it)
			return m.syncRows(it)
		}
	}
	m.setTransientNote("Nothing to add to here: ctrl+a adds to a list or a map.")
	return nil
}

// clear removes a focused list item or entry, else leaves the field out.
func (m *Model) clear(n *form.Node) tea.Cmd {
	if n.Kind == form.KindEntry || n.Parent != nil && n.Parent.Kind == form.KindArray {
		parent := n.Parent
		list := parent.Children
		if n.Kind == form.KindEntry {
			list = parent.Entries
		}
		i := slices.Index(list, n)
		if m.form.Remove(n) {
			delete(m.inputs, n)
			delete(m.areas, n)
			cmd := m.edited(parent)
			return tea.Batch(cmd, m.syncRows(m.afterRemove(parent, i)))
		}
		m.setTransientNote("Cannot remove: a tuple position cannot leave a gap.")
		return nil
	}
	m.form.Clear(n)
	delete(m.inputs, n)
	delete(m.areas, n)
	m.armed = false
	m.dirty[n.Pointer()] = true
	m.clearProblemNote()
	cmd := m.syncRows(n)
	m.check()
	return cmd
}

// afterRemove is where the focus goes once item i of parent's list was
// removed: the item now at i, else the one before it (the new last), else
// the list's own row, so the focus never leaves the list.
func (m *Model) afterRemove(parent *form.Node, i int) *form.Node {
	list := parent.Children
	if parent.Kind == form.KindObject {
		list = parent.Entries
	}
	switch {
	case i >= 0 && i < len(list):
		return list[i]
	case len(list) > 0:
		return list[len(list)-1]
	}
	for p := parent; p != nil; p = p.Parent {
		if m.visible(p) {
			return p
		}
	}
	return nil
}

// updateEditor forwards msg to the focused node's editor and copies the
// text back into the node exactly as typed.
func (m *Model) updateEditor(msg tea.Msg) tea.Cmd {
	if m.jsonMode {
		cmd := updateArea(&m.jsonArea, msg)
		m.checkJSON()
		return cmd
	}
	n := m.FocusedNode()
	if n == nil || !n.IsText() || n.Null || n.ReadOnly {
		return nil
	}
	var cmd tea.Cmd
	if usesArea(n) {
		a := m.area(n)
		cmd = updateArea(a, msg)
		t := nodeText(a.Value())
		if t == n.Text {
			return cmd
		}
		n.Text = t
	} else {
		in := m.input(n)
		cmd = updateInput(in, msg)
		t := nodeText(in.Value())
		if n.Kind == form.KindEntry {
			if t == n.Key {
				return cmd
			}
			n.Key = t
			m.form.Rekey(n)
			return tea.Batch(cmd, m.edited(n))
		}
		if t == n.Text {
			return cmd
		}
		n.Text = t
	}
	if n.Text != "" {
		n.Empty = false // text typed: no longer the empty-string state
	}
	return tea.Batch(cmd, m.edited(n))
}

// focusFirstProblem moves the focus to the first row whose field has a
// problem, unless the focused one has; nil when no row has.
func (m *Model) focusFirstProblem() tea.Cmd {
	if n := m.FocusedNode(); n != nil && len(m.problems.At(n.Pointer())) > 0 {
		return nil
	}
	for i, r := range m.rows {
		if r.Node != nil && len(m.problems.At(r.Node.Pointer())) > 0 {
			return m.setFocus(i)
		}
	}
	return nil
}

// submit sends the input when valid; while invalid it refuses with the
// reason, and a second ctrl+s in a row sends anyway.
func (m *Model) submit() (Action, tea.Cmd) {
	m.check()
	m.attempted = true
	if m.jsonMode && m.jsonErr != "" {
		// The ✗ line under the text already says what and where.
		m.SetProblemNote("Not submitted: the JSON does not parse (the ✗ line says where).")
		return nil, nil
	}
	if n := m.problems.Count(); n > 0 {
		if m.armed && !m.strict {
			m.armed = false
			m.SetNote("")
			return ActionSubmit{Input: m.value, Unchecked: true}, nil
		}
		m.armed = true
		m.noteIsProblem = true
		where := "marked ✗"
		if h := m.problems.Hidden; h > 0 {
			where += fmt.Sprintf("; %d from variants not chosen", h)
		}
		m.note = fmt.Sprintf("Not submitted: %d %s to fix first (%s). ctrl+s again sends it anyway, invalid.", n, words.Plural(n, "problem", "problems"), where)
		if m.strict {
			m.note = fmt.Sprintf("Not sent: %d %s to fix first (%s).", n, words.Plural(n, "problem", "problems"), where)
		}
		// The cursor goes to the first field with a problem, unless
		// it is on one already.
		return nil, m.focusFirstProblem()
	}
	m.SetNote("")
	return ActionSubmit{Input: m.value}, nil
}
