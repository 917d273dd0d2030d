package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/internal/words"
	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
	"modbay/schema"
	"modbay/ui/common"
	"modbay/ui/dialog"
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
	var fv *formview.Model
	dk := draftKey(mod, c)
	if d, ok := m.drafts[dk]; ok && d.schema == string(raw) {
		// Coming back: the form exactly as left (values, focus, mode).
		fv = d.form
		fv.Restyle()
	} else {
		f, err := form.Build(raw)
		if err != nil {
			f, _ = form.Build(nil)
		}
		fv = formview.New(m.com, f, m.validate)
		switch {
		case schema.IsBound(err):
			fv.SetNote("The request schema is too costly for a form (" + render.SanitizeLine(err.Error()) + "); edit the input as JSON.")
		case err != nil:
			fv.SetNote("The request schema cannot be read (" + render.SanitizeLine(err.Error()) + "); edit the input as JSON.")
		}
		if m.drafts == nil {
			m.drafts = map[string]formDraft{}
		}
		m.drafts[dk] = formDraft{schema: string(raw), form: fv}
	}
	if mod.Status == runner.StatusDisabled {
		fv.SetNote("This module is disabled: it is listed but never run.")
	}
	if why, ok := mod.Refused[c.ID]; ok {
		fv.SetNote("This capability is refused: its request schema admits no input (" + render.SanitizeLine(why) + "). Fix the descriptor.")
	}
	fv.SetCompleter(completerFor(m.ctx, mod, c.ID))
	m.formModule, m.formCap = mod, c
	return &formScreen{com: m.com, form: fv, module: mod, cap: c}, m.loadInputs(inputsKey(mod), c.ID)
}

// form returns the form of the top-most form screen, or nil.
func (m *Model) form() *formview.Model {
	if f, ok := find[*formScreen](m); ok {
		return f.form
	}
	return nil
}

// Kind implements Screen.
func (f *formScreen) Kind() screenKind { return screenForm }

// SetSize implements Screen: the fields get what the header leaves.
func (f *formScreen) SetSize(w, h int) {
	f.w, f.h = w, h
	f.form.SetSize(w, h-common.Lines(f.header()))
}

// Typing implements Screen.
func (f *formScreen) Typing() bool { return f.form.Typing() }

// questionIsText marks the form as a place where "?" may be text.
func (f *formScreen) questionIsText() {}

// Crumb implements Screen: the capability's title.
func (f *formScreen) Crumb(bool) string {
	return render.SanitizeLine(common.TitleOr(f.cap.Title, f.cap.ID))
}

// ShortHelp implements help.KeyMap.
func (f *formScreen) ShortHelp() []key.Binding { return f.form.ShortHelp() }

// EssentialHelp is what the help bar keeps at any width: submit (esc and
// the way to the full help are always kept).
func (f *formScreen) EssentialHelp() []key.Binding {
	return []key.Binding{formview.DefaultKeyMap().Submit}
}

// FullHelp implements help.KeyMap.
func (f *formScreen) FullHelp() [][]key.Binding { return f.form.FullHelp() }

// HelpNotes states the form's defaults rule under its full help
// (form.DefaultRule).
func (f *formScreen) HelpNotes() []string { return []string{form.DefaultRule} }

// Update implements Screen.
func (f *formScreen) Update(msg tea.Msg) (Action, tea.Cmd) {
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

// View implements Screen: the capability's summary, then the form.
func (f *formScreen) View() string { return f.header() + "\n" + f.form.View() }

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

// formDraft is a capability's form as the person left it, kept in memory
// for the session so leaving the form (esc) never loses what was typed.
type formDraft struct {
	// schema is the request schema the form was built from; a module that
	// changed its schema since gets a fresh form.
	schema string
	form   *formview.Model
}

// draftKey names a capability's draft: module id, source identity and
// capability id.
func draftKey(mod *runner.Module, c modproto.Capability) string {
	return mod.ID + "\x00" + mod.Key + "\x00" + c.ID
}

// inputsKey names a module in the input store: its state key, which the
// host derives (docs/protocol.md §13), so a module loaded by path that claims
// an installed module's id never sees that module's inputs; the id for a
// module never described.
func inputsKey(mod *runner.Module) string {
	if mod.StateKey != "" {
		return mod.StateKey
	}
	return mod.ID
}

// loadInputs reads what the input store remembers for a capability.
func (m *Model) loadInputs(module, capability string) tea.Cmd {
	if m.inputs.Dir == "" {
		return nil
	}
	st := m.inputs
	return func() tea.Msg {
		sv, err := st.Load(module, capability)
		return savedInputsMsg{module: module, capability: capability, saved: sv, err: err}
	}
}

// offerInputs offers the remembered inputs to the form they belong to.
func (m *Model) offerInputs(msg savedInputsMsg) {
	if m.form() == nil || m.formModule == nil || inputsKey(m.formModule) != msg.module || m.formCap.ID != msg.capability || msg.err != nil {
		return
	}
	var r []formview.Recall
	if msg.saved.Last != nil {
		r = append(r, formview.Recall{Name: "last input", Input: msg.saved.Last})
	}
	for _, p := range msg.saved.Presets {
		r = append(r, formview.Recall{Name: "preset " + p.Name, Input: p.Input})
	}
	m.form().SetRecalls(r)
}

// saveInput remembers input as the last one (name "") or as a preset.
func (m *Model) saveInput(name string, input json.RawMessage) tea.Cmd {
	if m.inputs.Dir == "" || m.formModule == nil {
		return nil
	}
	st, mod, capID, now := m.inputs, inputsKey(m.formModule), m.formCap.ID, m.com.Now()
	// What goes to disk has its secrets left out (the one redaction rule,
	// schema.Redact): loading it back leaves those fields to be typed.
	var h *schema.Compiled
	if d := m.formModule.Descriptor; d != nil && m.formCap.RequestSchema != "" {
		h, _ = schema.Compile(d.RequestSchemas[m.formCap.RequestSchema])
	}
	input, withheld := schema.Redact(h, input, schema.RedactOmit)
	return func() tea.Msg {
		if input == nil {
			return inputSavedMsg{module: mod, capability: capID, name: name, withheld: withheld}
		}
		if name == "" {
			return inputSavedMsg{module: mod, capability: capID, withheld: withheld, err: st.SaveLast(mod, capID, input, now)}
		}
		return inputSavedMsg{module: mod, capability: capID, name: name, withheld: withheld, err: st.SavePreset(mod, capID, name, input, now)}
	}
}

// uncheckedPlanner is a backend that can plan without validating the
// input (runner.Host.PlanWith), for the form's "send anyway".
type uncheckedPlanner interface {
	PlanWith(m *runner.Module, capID string, input json.RawMessage, opts runner.PlanOptions) (*runner.Plan, error)
}

// submit plans the call with input; the plan comes back as a planMsg.
// unchecked is the person's "send anyway": the runner does not validate.
func (m *Model) submit(input json.RawMessage, unchecked bool) tea.Cmd {
	m.planSeq++
	seq := m.planSeq
	m.lastInput, m.lastUnchecked = input, unchecked
	f := m.form()
	if f == nil {
		return nil
	}
	f.SetNote("Planning…")
	if unchecked {
		f.SetNote("Planning, sending the input anyway (invalid against its schema)…")
	}
	b, mod, capID := m.backend, m.formModule, m.formCap.ID
	if b == nil {
		return nil
	}
	var handoff []runner.HandoffFile
	if fs, ok := find[*formScreen](m); ok && fs.handoff != nil {
		handoff = []runner.HandoffFile{fs.handoff.file}
	}
	m.planning = true
	return func() tea.Msg {
		if up, ok := b.(uncheckedPlanner); ok {
			p, err := up.PlanWith(mod, capID, input, runner.PlanOptions{SkipValidation: unchecked, Handoff: handoff})
			return planMsg{seq: seq, plan: p, err: err}
		}
		if unchecked || len(handoff) > 0 {
			return planMsg{seq: seq, err: errors.New("this backend cannot send an input its schema refuses, nor hand a file over")}
		}
		p, err := b.Plan(mod, capID, input)
		return planMsg{seq: seq, plan: p, err: err}
	}
}

// planned opens the approval dialog or starts the run.
func (m *Model) planned(msg planMsg) tea.Cmd {
	if msg.seq != m.planSeq {
		return nil
	}
	m.planning = false
	f := m.form()
	if f == nil {
		return nil
	}
	var ie *runner.InputError
	switch {
	case errors.As(msg.err, &ie):
		f.SetProblemNote("The host refused the input: fix the fields marked ✗.")
		f.ShowProblems(ie.Violations)
		return nil
	case errors.Is(msg.err, runner.ErrDisabled):
		f.SetNote("This module is disabled: it is listed but never run.")
		return nil
	case msg.err != nil:
		f.SetNote("Cannot plan the call: " + msg.err.Error())
		return nil
	}
	f.SetNote("")
	remember := m.saveInput("", m.lastInput)
	if msg.plan.NeedsApproval() && !m.approvals.Covers(msg.plan) {
		if why := m.approvals.Why(msg.plan); why != "" && msg.plan.AskedAgain == "" {
			msg.plan.AskedAgain = why
		}
		m.dialogs = append(m.dialogs, dialog.NewApproval(m.com, msg.plan))
		// Its "(wait…)" must go when the grace ends, even if nothing
		// else redraws the screen then.
		return tea.Batch(remember, graceEnds())
	}
	return tea.Batch(remember, m.startRun(msg.plan, true))
}

// inputSaved says on the form whether a preset was saved, and reads the
// remembered inputs again (what ctrl+l offers changed).
func (m *Model) inputSaved(msg inputSavedMsg) tea.Cmd {
	if f := m.form(); f != nil && msg.name != "" {
		if msg.err != nil {
			f.SetNote("Preset not saved: " + msg.err.Error())
		} else {
			note := "Saved preset " + msg.name + "."
			if msg.withheld > 0 {
				note = fmt.Sprintf("Saved preset %s without its %d secret %s (password, write-only): type %s again after loading it.",
					msg.name, msg.withheld, words.Plural(msg.withheld, "value", "values"), words.Plural(msg.withheld, "it", "them"))
			}
			f.SetNote(note)
		}
	}
	if msg.err != nil {
		return nil
	}
	return m.loadInputs(msg.module, msg.capability)
}
