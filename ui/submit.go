package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"modbay/history"
	"modbay/internal/words"
	"modbay/modproto"
	"modbay/runner"
	"modbay/ui/dialog"
	"modbay/ui/formview"
	"modbay/ui/inputs"
)

// submitFlow is the state of preparing and submitting a capability's
// input, from the form opened to the run started: the root Model holds one
// and routes the flow's messages to the methods of this file.
type submitFlow struct {
	// module and cap are the capability the person prepares: the last
	// form opened. Planning and the input memory route on them.
	module *runner.Module
	cap    modproto.Capability
	// drafts keeps every capability's form for the session (draftKey).
	drafts map[string]formDraft
	// planSeq numbers submits: only the last one's plan is taken.
	planSeq int
	// planning is set while a submitted input is being planned: keys
	// pressed then (an "a" meant for the approval dialog about to open)
	// must not edit the form that was submitted.
	planning bool
	// lastInput is the input last submitted (r re-runs it); lastUnchecked
	// is true when it was sent anyway, invalid.
	lastInput     json.RawMessage
	lastUnchecked bool
	// inputs remembers last inputs and presets; presetPrompt is set while
	// the prompt open on the stack asks for presetInput's name.
	inputs       inputs.Store
	presetPrompt bool
	presetInput  json.RawMessage
	// rerunOf is the recorded run the form was last prefilled from.
	rerunOf rerunOf
	// rerunSeq numbers r's checks of the module (rerun.go).
	rerunSeq int
	// kept holds the draftKeys of the drafts this session wrote to the
	// input store and has not sent since (drafts.go).
	kept map[string]bool
	// sent holds the draftKeys of the forms whose input was sent and not
	// edited since: reopened, such a form is fresh (ctrl+l loads the sent
	// input), so new text is not appended to the last.
	sent map[string]bool
	// keeping counts the draft writes of a first ctrl+c not back yet; a
	// quit waits for them (quitWhenKept) so its line says what was kept.
	keeping      int
	quitWhenKept bool
}

// prepares reports whether the form last opened is capability capID of
// the module whose inputsKey is modID.
func (f *submitFlow) prepares(modID, capID string) bool {
	return f.module != nil && inputsKey(f.module) == modID && f.cap.ID == capID
}

// draft is the kept form of (mod, c) when it was built from schema.
func (f *submitFlow) draft(mod *runner.Module, c modproto.Capability, schema json.RawMessage) (*formview.Model, bool) {
	k := draftKey(mod, c)
	d, ok := f.drafts[k]
	if !ok || d.schema != string(schema) || (f.sent[k] && !d.form.Dirty()) {
		return nil, false
	}
	return d.form, true
}

// keepDraft keeps fv as the form of (mod, c), built from schema.
func (f *submitFlow) keepDraft(mod *runner.Module, c modproto.Capability, schema json.RawMessage, fv *formview.Model) {
	if f.drafts == nil {
		f.drafts = map[string]formDraft{}
	}
	delete(f.sent, draftKey(mod, c))
	f.drafts[draftKey(mod, c)] = formDraft{schema: string(schema), form: fv, module: mod, cap: c}
}

// restyle applies the current styles to every kept form.
func (f *submitFlow) restyle() {
	for _, d := range f.drafts {
		d.form.Restyle()
	}
}

// beginOptions are how the history records plan p started from the
// cockpit: a re-run when the form was prefilled from the history.
func (f *submitFlow) beginOptions(p *runner.Plan, approved bool) history.BeginOptions {
	o := history.BeginOptions{Source: history.SourceCockpit, Approved: approved}
	if r := f.rerunOf; r.id != "" && p.Module != nil && p.Module.ID == r.module && p.Capability.ID == r.capability {
		o.Source, o.RerunOf = history.SourceRerun, r.id
	}
	return o
}

// formDraft is a capability's form as the person left it, kept in memory
// for the session so leaving the form (esc) never loses what was typed.
type formDraft struct {
	// schema is the request schema the form was built from; a module that
	// changed its schema since gets a fresh form.
	schema string
	form   *formview.Model
	// module and cap are whose form it is.
	module *runner.Module
	cap    modproto.Capability
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
func (f *submitFlow) loadInputs(module, capability string) tea.Cmd {
	if f.inputs.Dir == "" {
		return nil
	}
	st := f.inputs
	return func() tea.Msg {
		sv, err := st.Load(module, capability)
		return savedInputsMsg{module: module, capability: capability, saved: sv, err: err}
	}
}

// offerInputs offers the remembered inputs to the form they belong to.
func (m *Model) offerInputs(msg savedInputsMsg) {
	if m.form() == nil || !m.flow.prepares(msg.module, msg.capability) || msg.err != nil {
		return
	}
	var r []formview.Recall
	switch {
	case msg.saved.Draft != nil:
		r = append(r, formview.Recall{Name: "kept draft", Input: msg.saved.Draft})
	case msg.saved.DraftText != "":
		r = append(r, formview.Recall{Name: "kept JSON draft", Text: msg.saved.DraftText})
	}
	if msg.saved.Last != nil {
		r = append(r, formview.Recall{Name: "last input", Input: msg.saved.Last})
	}
	for _, p := range msg.saved.Presets {
		r = append(r, formview.Recall{Name: "preset " + p.Name, Input: p.Input})
	}
	m.form().SetRecalls(r)
}

// saveInput remembers input as the last one (name "") or as a preset,
// stamped now.
func (f *submitFlow) saveInput(name string, input json.RawMessage, now time.Time) tea.Cmd {
	if f.inputs.Dir == "" || f.module == nil {
		return nil
	}
	st, mod, capID := f.inputs, inputsKey(f.module), f.cap.ID
	// What goes to disk has its secrets left out: loading it back leaves
	// those fields to be typed.
	input, withheld := redactForStore(f.module, f.cap, input)
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
	m.flow.planSeq++
	seq := m.flow.planSeq
	m.flow.lastInput, m.flow.lastUnchecked = input, unchecked
	f := m.form()
	if f == nil {
		return nil
	}
	f.SetNote("Planning…")
	if unchecked {
		f.SetNote("Planning, sending the input anyway (invalid against its schema)…")
	}
	b, mod, capID := m.backend, m.flow.module, m.flow.cap.ID
	if b == nil {
		return nil
	}
	var handoff []runner.HandoffFile
	if fs, ok := find[*formScreen](m); ok && fs.handoff != nil {
		handoff = []runner.HandoffFile{fs.handoff.file}
	}
	m.flow.planning = true
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
	if msg.seq != m.flow.planSeq {
		return nil
	}
	m.flow.planning = false
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
	remember := m.flow.saveInput("", m.flow.lastInput, m.com.Now())
	f.MarkClean() // what was typed is the last input now (ctrl+l)
	delete(m.flow.kept, draftKey(m.flow.module, m.flow.cap))
	if m.flow.sent == nil {
		m.flow.sent = map[string]bool{}
	}
	m.flow.sent[draftKey(m.flow.module, m.flow.cap)] = true
	if msg.plan.NeedsApproval() && !m.approvals.Covers(msg.plan) {
		if why := m.approvals.Why(msg.plan); why != "" && msg.plan.AskedAgain == "" {
			msg.plan.AskedAgain = why
		}
		m.dialogs = append(m.dialogs, dialog.NewApproval(m.com, msg.plan))
		// Its "(wait…)" must go when the grace ends, even if nothing
		// else redraws the screen then.
		return tea.Batch(remember, graceEnds())
	}
	// Past the dialog check, a plan that needs approval is one this
	// session allowed.
	return tea.Batch(remember, m.startRun(msg.plan, msg.plan.NeedsApproval()))
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
	return m.flow.loadInputs(msg.module, msg.capability)
}
