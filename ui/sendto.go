package ui

import (
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
	"modbay/ui/common"
	"modbay/ui/form"
	"modbay/ui/formview"
	"modbay/ui/list"
)

// screenSendTo hands an artifact to a capability of another module:
// pick the capability and the read root that
// receives the file, then the form field that names it; the form opens
// prefilled and its run gets a fresh read-only copy of the artifact.
const screenSendTo screenKind = "sendto"

func init() { register(screenSendTo, openSendToScreen) }

// SendToKeyMap is the send-to screen's own bindings, beside the list's.
type SendToKeyMap struct {
	// Back goes from the field picker to the capability picker, and from
	// there back to the result.
	Back key.Binding
	// Quit quits, as on the other lists (never while the filter takes
	// the keys).
	Quit key.Binding
}

// defaultSendToKeys are the send-to screen's bindings; the result screen
// opens it with its SendTo key.
func defaultSendToKeys() SendToKeyMap {
	return SendToKeyMap{
		Back: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Quit: key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
	}
}

// sendArg is what opens the send-to screen: an artifact of run reqID
// (from module producer).
type sendArg struct {
	reqID, producer string
	art             runner.VerifiedArtifact
}

// sendTarget is a capability that can receive a handed file: its module
// declares root in filesystem_read (and does not write it).
type sendTarget struct {
	module *runner.Module
	cap    modproto.Capability
	root   string
}

// sendToScreen is the two pickers of a handoff: targets, then fields.
type sendToScreen struct {
	com  *common.Common
	keys SendToKeyMap
	list *list.Model
	arg  sendArg
	// name is the file name the artifact is handed under (the base name
	// of its declared path).
	name string
	// target is the capability picked; nil while picking it.
	target *sendTarget
	// targets are every capability that can receive the file.
	targets []sendTarget
	// m starts the builds of the targets' forms (startFormBuild).
	m *Model
	// build is the picked target's form build the field picker waits
	// for (a costly schema builds off the loop); note says why it offers
	// only "none" (the schema is too costly for a form, or unreadable).
	build formBuild
	note  string
}

// sendTargets lists, in module order, each capability of a module other
// than producer that declares a read root a file can be handed to, once
// per such root. Disabled and broken modules are left out.
func sendTargets(mods []*runner.Module, producer string) []sendTarget {
	var out []sendTarget
	for _, m := range mods {
		if m.ID == producer || m.Descriptor == nil || m.Status == runner.StatusDisabled || m.Status == runner.StatusBroken {
			continue
		}
		roots := runner.HandoffRoots(m.Descriptor)
		for _, c := range m.Descriptor.Listed() {
			for _, r := range roots {
				out = append(out, sendTarget{module: m, cap: c, root: r})
			}
		}
	}
	return out
}

// noSendTarget is what the picker says when no module can take the file.
const noSendTarget = "No other module declares a read root other than workspace (a name in permissions.filesystem_read it does not also write, nor bundle) to hand this file to."

// HelpNotes shows why nothing (or only "none") is offered whole under the
// full help (on screen it wraps to at most common.MaxNoteLines).
func (s *sendToScreen) HelpNotes() []string {
	switch {
	case len(s.targets) == 0:
		return []string{noSendTarget}
	case s.note != "":
		return []string{s.note}
	}
	return nil
}

// openSendToScreen opens the capability picker for an artifact (arg:
// sendArg); nil when the artifact cannot be handed (no usable name).
func openSendToScreen(m *Model, arg any) (Screen, tea.Cmd) {
	a, ok := arg.(sendArg)
	if !ok {
		return nil, nil
	}
	s := &sendToScreen{com: m.com, keys: m.keys.SendTo, arg: a, name: runner.HandoffName(a.art.Path),
		targets: sendTargets(m.modules.modules, a.producer), m: m}
	s.list = list.New(m.com, m.keys.List, "filter: module, capability, root…", noSendTarget)
	s.showTargets()
	return s, nil
}

// showTargets lists the capabilities (the first picker), stopping the
// build of a target's form the field picker waited for.
func (s *sendToScreen) showTargets() {
	s.build.stop()
	s.target, s.note = nil, ""
	items := make([]list.Item, 0, len(s.targets))
	for i := range s.targets {
		items = append(items, &targetItem{s: s, t: &s.targets[i]})
	}
	s.list.SetItems(items, nil)
}

// showFields lists the string fields of t's request schema (the second
// picker), then "none": the person then names the file in the form. The
// form is built as the form screen builds it, off the event loop: until
// it is there the picker says so and only esc acts (the returned command
// yields the build, a formBuiltMsg).
func (s *sendToScreen) showFields(t *sendTarget) tea.Cmd {
	s.target, s.note = t, ""
	var raw json.RawMessage
	if t.cap.RequestSchema != "" {
		raw = t.module.Descriptor.RequestSchemas[t.cap.RequestSchema]
	}
	b, done, later := s.m.startFormBuild(&s.build, raw)
	if done {
		s.fieldsBuilt(b)
		return nil
	}
	s.list.SetItems(nil, nil)
	return later
}

// fieldsBuilt lists the fields of a finished build; a build that failed
// offers only "none" and says why (the form then opens as JSON).
func (s *sendToScreen) fieldsBuilt(b formBuiltMsg) {
	var items []list.Item
	if b.err != nil {
		s.note = costlyNote("The request schema of "+render.SanitizeLine(s.target.cap.ID), "its form opens as JSON", b.err)
	} else {
		for _, n := range b.f.Fields() {
			if n.Kind == form.KindString && !n.ReadOnly {
				items = append(items, &fieldItem{s: s, node: n})
			}
		}
	}
	s.list.SetItems(append(items, &fieldItem{s: s}), nil)
}

// awaitsForm implements formWaiter.
func (s *sendToScreen) awaitsForm(id uint64) bool { return s.build.awaits(id) }

// formBuilt implements formWaiter: the picked target's fields.
func (s *sendToScreen) formBuilt(_ *Model, b formBuiltMsg) tea.Cmd {
	s.build.stop()
	s.fieldsBuilt(b)
	return nil
}

// Kind implements Screen.
func (s *sendToScreen) Kind() screenKind { return screenSendTo }

// SetSize implements Screen.
func (s *sendToScreen) SetSize(w, h int) { s.list.SetSize(w, h) }

// Typing implements Screen.
func (s *sendToScreen) Typing() bool { return s.list.Typing() }

// Crumb implements Screen.
func (s *sendToScreen) Crumb(bool) string {
	if s.target != nil {
		return "send to " + render.SanitizeLine(s.target.cap.ID)
	}
	return "send to"
}

// Update implements Screen: enter on a capability lists its fields;
// enter on a field opens the form prefilled (actionSend). While the
// fields are read, only esc (back, stopping it) and q act.
func (s *sendToScreen) Update(msg tea.Msg) (Action, tea.Cmd) {
	if s.build.pending() {
		if kp, ok := msg.(tea.KeyPressMsg); ok {
			switch {
			case key.Matches(kp, s.keys.Back):
				s.showTargets()
			case key.Matches(kp, s.keys.Quit):
				s.build.stop()
				return actionQuit{}, nil
			}
		}
		return nil, nil
	}
	act, cmd, handled := s.list.Update(msg)
	if a, ok := act.(list.ActionOpen); ok {
		switch it := a.Item.(type) {
		case *targetItem:
			return nil, tea.Batch(cmd, s.showFields(it.t))
		case *fieldItem:
			field := ""
			if it.node != nil {
				field = it.node.Name
			}
			return actionSend{target: *s.target, field: field, arg: s.arg, name: s.name}, cmd
		}
	}
	kp, isKey := msg.(tea.KeyPressMsg)
	if handled || !isKey {
		return nil, cmd
	}
	if key.Matches(kp, s.keys.Back) {
		if s.target != nil {
			s.showTargets()
			return nil, nil
		}
		return actionPop{}, nil
	}
	if key.Matches(kp, s.keys.Quit) {
		return actionQuit{}, nil
	}
	return nil, nil
}

// ShortHelp implements help.KeyMap: esc and q while the fields are read.
func (s *sendToScreen) ShortHelp() []key.Binding {
	if s.build.pending() {
		return []key.Binding{s.keys.Back, s.keys.Quit}
	}
	b := s.list.ShortHelp()
	if s.list.Typing() {
		return b
	}
	return append(b, s.keys.Back, s.keys.Quit)
}

// EssentialHelp is what the help bar keeps at any width.
func (s *sendToScreen) EssentialHelp() []key.Binding {
	if s.list.Len() == 0 || s.build.pending() {
		return []key.Binding{s.keys.Back}
	}
	return append(s.list.EssentialHelp(), s.keys.Back)
}

// FullHelp implements help.KeyMap.
func (s *sendToScreen) FullHelp() [][]key.Binding {
	if s.build.pending() {
		return [][]key.Binding{s.ShortHelp()}
	}
	g := s.list.FullHelp()
	if s.list.Typing() {
		return g
	}
	return append(g, []key.Binding{s.keys.Back, s.keys.Quit})
}

// View implements Screen: what is handed, the step, then the picker (or
// that the picked target's fields are being read, or why it offers only
// "none").
func (s *sendToScreen) View() string {
	st := s.com.Styles
	w, h := s.list.Width(), s.list.Height()
	what := render.SanitizeLine(common.TitleOr(s.arg.art.Title, s.arg.art.Path))
	head := []string{st.Title.Render(common.Trunc("Send "+what+" as "+render.SanitizeLine(s.name), w))}
	step := "1/2 pick the capability and the read root that receives a read-only copy"
	if s.target != nil {
		step = fmt.Sprintf("2/2 pick the field of %s that names the file (its path in root %s)",
			render.SanitizeLine(s.target.cap.ID), render.SanitizeLine(s.target.root))
	}
	head = append(head, strings.Split(st.Muted.Render(common.Note(step, w)), "\n")...)
	if s.build.pending() {
		head = append(head, "", st.Muted.Render(common.Wrap("Building the form… (esc goes back)", max(w, 1))))
		return common.FitHeight(strings.Join(head, "\n"), h)
	}
	if s.note != "" {
		head = append(head, strings.Split(st.Warning.Render(common.Note(s.note, w)), "\n")...)
	}
	if f := s.list.FilterView(); f != "" {
		head = append(head, f)
	}
	return strings.Join(append(head, s.list.PaneView(h-len(head))), "\n")
}

// targetItem is a capability and read root in the first picker.
type targetItem struct {
	s *sendToScreen
	t *sendTarget
}

// FilterValue implements list.Item.
func (it *targetItem) FilterValue() string {
	return it.t.module.ID + " " + it.t.cap.ID + " " + it.t.cap.Title + " root:" + it.t.root
}

// Row implements list.Item: module › capability → root.
func (it *targetItem) Row(sel bool, w int) string {
	st := it.s.com.Styles
	mark := "  "
	if sel {
		mark = "› "
	}
	row := mark + render.SanitizeLine(it.t.module.ID) + " › " + render.SanitizeLine(it.t.cap.ID) + st.Muted.Render("  → root "+render.SanitizeLine(it.t.root))
	if sel {
		return st.Selected.Render(common.Trunc(row, w))
	}
	return common.Trunc(row, w)
}

// Detail implements list.Item: the capability's summary and what the
// module will be given.
func (it *targetItem) Detail(w int) string {
	st := it.s.com.Styles
	t := it.t
	lines := []string{
		st.Title.Render(render.SanitizeLine(common.TitleOr(t.cap.Title, t.cap.ID))),
		render.SanitizeLine(t.cap.Summary),
		"",
		st.Label.Render("root     ") + render.SanitizeLine(t.root) + " (read-only)",
		st.Label.Render("file     ") + render.SanitizeLine(it.s.name),
		"",
		st.Muted.Render("The run gets a directory of its own holding only this file, read-only, removed when the run ends; the module declares the root in permissions.filesystem_read."),
	}
	return common.FitWidth(common.Wrap(strings.Join(lines, "\n"), max(w, 1)), w)
}

// fieldItem is a form field in the second picker; node nil is "none".
type fieldItem struct {
	s    *sendToScreen
	node *form.Node
}

// FilterValue implements list.Item.
func (it *fieldItem) FilterValue() string {
	if it.node == nil {
		return "none"
	}
	return it.node.Name + " " + it.node.Schema.Title
}

// Row implements list.Item: the field's name and title.
func (it *fieldItem) Row(sel bool, w int) string {
	st := it.s.com.Styles
	mark := "  "
	if sel {
		mark = "› "
	}
	row := mark + st.Muted.Render("(none: name the file in the form)")
	if it.node != nil {
		row = mark + render.SanitizeLine(it.node.Name)
		if t := it.node.Schema.Title; t != "" {
			row += st.Muted.Render("  " + render.SanitizeLine(t))
		}
		if it.node.Required {
			row += st.Muted.Render("  required")
		}
	}
	if sel {
		return st.Selected.Render(common.Trunc(row, w))
	}
	return common.Trunc(row, w)
}

// Detail implements list.Item: what the field will hold.
func (it *fieldItem) Detail(w int) string {
	st := it.s.com.Styles
	var lines []string
	if it.node == nil {
		lines = []string{"The form opens as it is; the file is " + render.SanitizeLine(it.s.name) + " in root " + render.SanitizeLine(it.s.target.root) + "."}
	} else {
		lines = []string{st.Label.Render("field    ") + render.SanitizeLine(it.node.Name),
			st.Label.Render("gets     ") + render.SanitizeLine(it.s.name)}
		if d := it.node.Schema.Description; d != "" {
			lines = append(lines, "", render.SanitizeLine(d))
		}
	}
	return common.FitWidth(common.Wrap(strings.Join(lines, "\n"), max(w, 1)), w)
}

// actionSend opens target's form with field set to name, the artifact
// to be handed to target.root when the form is submitted.
type actionSend struct {
	target sendTarget
	field  string
	arg    sendArg
	name   string
}

func (actionSend) isAction() {}

// formHandoff is what a form opened by a send-to hands to its runs: the
// artifact's file for the read root, and a line saying so.
type formHandoff struct {
	file runner.HandoffFile
}

// sendTo carries out actionSend: the target's form, prefilled once it is
// built (it may build off the loop), with the handoff attached to the
// form screen (so only its runs get it).
func (m *Model) sendTo(a actionSend) tea.Cmd {
	open := m.open(screenForm, formArg{module: a.target.module, cap: a.target.cap})
	fs, ok := m.top().(*formScreen)
	if !ok {
		return open
	}
	fs.handoff = &formHandoff{file: runner.HandoffFile{Root: a.target.root, Source: a.arg.art.Staged, Name: a.name,
		Digest: a.arg.art.Digest, Origin: a.arg.reqID + ":" + a.arg.art.ID}}
	fs.SetSize(fs.w, fs.h)
	note := fmt.Sprintf("Hands %s to root %s as %s.", render.SanitizeLine(fs.handoff.file.Origin), render.SanitizeLine(a.target.root), render.SanitizeLine(a.name))
	prefill := func(fv *formview.Model) tea.Cmd {
		if a.field == "" {
			if fs.fallback != "" {
				note = fs.fallback + " " + note // why it is JSON, kept
			}
			fv.SetNote(note)
			return nil
		}
		obj := map[string]json.RawMessage{}
		_ = json.Unmarshal(fv.Value(), &obj)
		v, _ := modproto.EncodeJSON(a.name)
		obj[a.field] = v
		b, _ := modproto.EncodeJSON(obj)
		cmd, err := fv.LoadInput(b, note+" Field "+render.SanitizeLine(a.field)+" names it.")
		if err != nil {
			fv.SetNote(note + " (" + render.SanitizeLine(err.Error()) + ")")
		}
		return cmd
	}
	if fs.form == nil {
		fs.onBuilt = append(fs.onBuilt, prefill)
		return open
	}
	return tea.Batch(open, prefill(fs.form))
}
