package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
	"modbay/schema"
	"modbay/ui/common"
	"modbay/ui/form"
	"modbay/ui/formview"
)

// formArg is what opens a form: a capability of a module.
type formArg struct {
	module *runner.Module
	cap    modproto.Capability
}

// formScreen is a capability's form: its summary and effects above the
// fields (formview). The formview model is the capability's draft, kept
// for the session.
type formScreen struct {
	// w and h are the screen's area in cells.
	w, h   int
	com    *common.Common
	form   *formview.Model
	module *runner.Module
	cap    modproto.Capability
	// handoff is the artifact a send-to hands to this form's runs (nil:
	// none); it goes with the screen.
	handoff *formHandoff
	// build is the form build the screen waits for (idle: the form is
	// there); onBuilt runs on the form once built.
	build   formBuild
	onBuilt []func(*formview.Model) tea.Cmd
	// fallback is the note of a form built as JSON because its schema
	// failed (costlyNote); "" otherwise.
	fallback string
}

// maxSummaryLines is the most lines the capability's summary takes above
// the form: it wraps rather than being cut, and past this it is cut with
// "…" (the capability list's detail shows it whole).
const maxSummaryLines = 3

// setupBanner is the line the form screen shows while the form's module
// needs setup: a call would only fail (docs/protocol.md §9), so the form says so
// before anyone submits it; "" otherwise.
func (f *formScreen) setupBanner() string {
	if f.module == nil || f.module.Status != runner.StatusNeedsSetup {
		return ""
	}
	s := "⚠ needs setup: a run fails until it is set up"
	if f.module.Reason != "" {
		s += " (" + render.SanitizeLine(f.module.Reason) + ")"
	}
	return s
}

// openFormScreen shows the form of a capability (arg: formArg), as it was left
// when the person comes back to it.
func openFormScreen(m *Model, arg any) (Screen, tea.Cmd) {
	a, ok := arg.(formArg)
	if !ok || a.module == nil {
		return nil, nil
	}
	mod, c := a.module, a.cap
	var raw json.RawMessage
	if c.RequestSchema != "" && mod.Descriptor != nil {
		raw = mod.Descriptor.RequestSchemas[c.RequestSchema]
	}
	fs := &formScreen{com: m.com, module: mod, cap: c}
	m.flow.module, m.flow.cap = mod, c
	if fv, ok := m.flow.draft(mod, c, raw); ok {
		// Coming back: the form exactly as left (values, focus, mode).
		fv.Restyle()
		return fs, fs.show(m, fv)
	}
	// The build compiles the schema and checks its defaults (a 6 MB
	// schema within the bounds takes a second): off the event loop
	// (startFormBuild), under "building the form…" once it outlasts
	// m.formWait.
	b, done, later := m.startFormBuild(&fs.build, raw)
	if done {
		return fs, fs.formBuilt(m, b)
	}
	return fs, later
}

// formBuild is the form build a screen waits for: its id (0: none) and
// what stops it.
type formBuild struct {
	id     uint64
	cancel context.CancelFunc
}

// pending reports whether a build is awaited.
func (fb *formBuild) pending() bool { return fb.id != 0 }

// awaits reports whether the build numbered id is the one awaited.
func (fb *formBuild) awaits(id uint64) bool { return fb.id != 0 && fb.id == id }

// stop cancels the awaited build, if any; its message is then stale.
func (fb *formBuild) stop() {
	if fb.cancel != nil {
		fb.cancel()
	}
	fb.id, fb.cancel = 0, nil
}

// formWaiter is a screen that waits for a form build (formBuiltMsg).
type formWaiter interface {
	// awaitsForm reports whether the screen waits for build id.
	awaitsForm(id uint64) bool
	// formBuilt gives the screen its finished build (the wait is over).
	formBuilt(m *Model, b formBuiltMsg) tea.Cmd
}

// startFormBuild builds raw's form (m.buildForm, else form.BuildContext)
// on a goroutine of its own (offLoop), stopping any build fb awaited: a
// module's schema may be costly (deep $ref expansion, thousands of
// fields), and the event loop waits for it at most m.formWait. done: it
// finished, b is it. Otherwise fb awaits it (fb.stop cancels it) and
// later yields its formBuiltMsg, which the root gives to the screen
// awaiting it (Model.formBuilt).
func (m *Model) startFormBuild(fb *formBuild, raw json.RawMessage) (b formBuiltMsg, done bool, later tea.Cmd) {
	fb.stop()
	ctx, cancel := context.WithCancel(m.ctx)
	build := m.buildForm
	if build == nil {
		build = form.BuildContext
	}
	m.formSeq++
	id := m.formSeq
	b, done, wait := offLoop(m.formWait, func() formBuiltMsg {
		f, err := build(ctx, raw)
		return formBuiltMsg{id: id, raw: raw, f: f, err: err}
	})
	if done {
		cancel()
		return b, true, nil
	}
	fb.id, fb.cancel = id, cancel
	return b, false, func() tea.Msg { return wait() }
}

// formBuiltMsg is a form built off the event loop: for the screen
// awaiting the build id it carries, dropped when that screen is gone or
// waits no more.
type formBuiltMsg struct {
	id  uint64
	raw json.RawMessage
	f   *form.Form
	err error
}

// formBuilt gives a built form to the screen that awaits it, the top-most
// first; a stale build (its screen left, or it was replaced) is dropped.
func (m *Model) formBuilt(b formBuiltMsg) tea.Cmd {
	for i := len(m.stack) - 1; i >= 0; i-- {
		if w, ok := m.stack[i].(formWaiter); ok && w.awaitsForm(b.id) {
			return w.formBuilt(m, b)
		}
	}
	return nil
}

// costlyNote is the note of a form that falls back to JSON for err, its
// build's error: subject ("The request schema") is too costly for a form
// when err passed a bound (schema.IsBound, which it names), else it
// cannot be read; then what the person does instead ("edit the input as
// JSON").
func costlyNote(subject, instead string, err error) string {
	why := " cannot be read ("
	if schema.IsBound(err) {
		why = " is too costly for a form ("
	}
	return subject + why + render.SanitizeLine(err.Error()) + "); " + instead + "."
}

// awaitsForm implements formWaiter.
func (f *formScreen) awaitsForm(id uint64) bool { return f.build.awaits(id) }

// formBuilt implements formWaiter: the build becomes the form.
func (f *formScreen) formBuilt(m *Model, b formBuiltMsg) tea.Cmd {
	f.build.stop()
	return f.built(m, b)
}

// built makes the form view of a finished build, keeps it as the
// capability's draft and shows it.
func (f *formScreen) built(m *Model, b formBuiltMsg) tea.Cmd {
	fm, err := b.f, b.err
	if err != nil {
		fm, _ = form.Build(nil)
	}
	fv := formview.New(m.com, fm, m.validate)
	if err != nil {
		f.fallback = costlyNote("The request schema", "edit the input as JSON", err)
		fv.SetNote(f.fallback)
	}
	m.flow.keepDraft(f.module, f.cap, b.raw, fv)
	return f.show(m, fv)
}

// show puts fv on the screen with the module's notes, its completer and
// its remembered inputs, then runs what waited for the form.
func (f *formScreen) show(m *Model, fv *formview.Model) tea.Cmd {
	mod, c := f.module, f.cap
	if mod.Status == runner.StatusDisabled {
		fv.SetNote("This module is disabled: it is listed but never run.")
	}
	if why, ok := mod.Refused[c.ID]; ok {
		fv.SetNote("This capability is refused: its request schema admits no input (" + render.SanitizeLine(why) + "). Fix the descriptor.")
	}
	fv.SetCompleter(completerFor(m.ctx, mod, c.ID))
	f.form = fv
	if f.w > 0 {
		f.SetSize(f.w, f.h)
	}
	cmds := []tea.Cmd{m.flow.loadInputs(inputsKey(mod), c.ID)}
	for _, then := range f.onBuilt {
		cmds = append(cmds, then(fv))
	}
	f.onBuilt = nil
	return tea.Batch(cmds...)
}

// whenForm runs then on the top-most form screen's form: now when it is
// built, else once it is (a re-run's input waits for its form).
func (m *Model) whenForm(then func(*formview.Model) tea.Cmd) tea.Cmd {
	fs, ok := find[*formScreen](m)
	if !ok {
		return nil
	}
	if fs.form != nil {
		return then(fs.form)
	}
	fs.onBuilt = append(fs.onBuilt, then)
	return nil
}

// form returns the form of the top-most form screen, or nil (none, or
// still building).
func (m *Model) form() *formview.Model {
	if f, ok := find[*formScreen](m); ok && f.form != nil {
		return f.form
	}
	return nil
}

// Kind implements Screen.
func (f *formScreen) Kind() screenKind { return screenForm }

// SetSize implements Screen: the fields get what the header leaves.
func (f *formScreen) SetSize(w, h int) {
	f.w, f.h = w, h
	if f.form != nil {
		f.form.SetSize(w, h-common.Lines(f.header()))
	}
}

// Typing implements Screen.
func (f *formScreen) Typing() bool { return f.form != nil && f.form.Typing() }

// questionIsText marks the form as a place where "?" may be text.
func (f *formScreen) questionIsText() {}

// Crumb implements Screen: the capability's title.
func (f *formScreen) Crumb(bool) string {
	return render.SanitizeLine(common.TitleOr(f.cap.Title, f.cap.ID))
}

// ShortHelp implements help.KeyMap: while the form builds, only esc.
func (f *formScreen) ShortHelp() []key.Binding {
	if f.form == nil {
		return []key.Binding{formview.DefaultKeyMap().Back}
	}
	return f.form.ShortHelp()
}

// EssentialHelp is what the help bar keeps at any width: submit (esc and
// the way to the full help are always kept).
func (f *formScreen) EssentialHelp() []key.Binding {
	if f.form == nil {
		return []key.Binding{formview.DefaultKeyMap().Back}
	}
	return []key.Binding{formview.DefaultKeyMap().Submit}
}

// FullHelp implements help.KeyMap.
func (f *formScreen) FullHelp() [][]key.Binding {
	if f.form == nil {
		return [][]key.Binding{f.ShortHelp()}
	}
	return f.form.FullHelp()
}

// HelpNotes states the form's defaults rule under its full help
// (form.DefaultRule).
func (f *formScreen) HelpNotes() []string { return []string{form.DefaultRule} }

// Update implements Screen: while the form builds, esc stops the build
// and leaves; nothing else acts.
func (f *formScreen) Update(msg tea.Msg) (Action, tea.Cmd) {
	if f.form == nil {
		if k, ok := msg.(tea.KeyPressMsg); ok && key.Matches(k, formview.DefaultKeyMap().Back) {
			f.build.stop()
			return actionPop{}, nil
		}
		return nil, nil
	}
	act, cmd := f.form.Update(msg)
	switch a := act.(type) {
	case formview.ActionBack:
		return actionPop{}, cmd
	case formview.ActionSubmit:
		return actionSubmit{input: a.Input, unchecked: a.Unchecked}, cmd
	case formview.ActionSavePreset:
		return actionSavePreset{input: a.Input}, cmd
	}
	return nil, cmd
}

// View implements Screen: the capability's summary, then the form (or
// that it is being built).
func (f *formScreen) View() string {
	if f.form == nil {
		return f.header() + "\n\n" + f.com.Styles.Muted.Render(common.FitWidth("Building the form… (esc leaves)", max(f.w, 1)))
	}
	return f.header() + "\n" + f.form.View()
}

// header is the capability's id and summary, then its effects, each
// wrapped to the width (a long summary is not cut to one line).
func (f *formScreen) header() string {
	st := f.com.Styles
	c := f.cap
	w := max(f.w, 1)
	line := st.ID.Render(render.SanitizeLine(c.ID)) + "  " + st.Muted.Render(render.SanitizeLine(c.Summary))
	summary := common.FitHeight(common.Wrap(line, w), maxSummaryLines)
	effects := st.Muted.Render(strings.Join(render.EffectBadges(c.Effects, c.LongRunning), " · "))
	head := summary + "\n" + common.FitWidth(common.Wrap(effects, w), w)
	if b := f.setupBanner(); b != "" {
		head += "\n" + st.Warning.Render(common.FitHeight(common.Wrap(b, w), maxSummaryLines-1))
	}
	if h := f.handoff; h != nil {
		line := fmt.Sprintf("⇢ hands %s to read root %s as %s (a read-only copy for the run)",
			render.SanitizeLine(h.file.Origin), render.SanitizeLine(h.file.Root), render.SanitizeLine(h.file.Name))
		head += "\n" + st.Label.Render(common.FitWidth(common.Wrap(line, w), w))
	}
	return head
}

// Actions of the form screen.
type (
	// actionSubmit plans (and runs) the capability with input; unchecked
	// is the person's "send anyway".
	actionSubmit struct {
		input     json.RawMessage
		unchecked bool
	}
	// actionSavePreset asks for a name to save input under.
	actionSavePreset struct{ input json.RawMessage }
)

func (actionSubmit) isAction()     {}
func (actionSavePreset) isAction() {}
