// Package ui is modbay's interactive cockpit, a Bubble Tea program: the
// module list, a capability's form, the approval dialog, the run and result
// views and the artifact viewer (after charmbracelet/crush internal/ui).
//
// One root Model owns the screen and routes every message in one switch.
// Screens are plain structs with SetSize/Update/View; dialogs sit on a stack
// and answer with typed actions. Nothing in Update does I/O: discovery,
// planning, runs, file reads and renders are tea.Cmds whose results come
// back as messages carrying the id of the run (or the generation) that
// produced them, so a stale answer is recognised and dropped.
package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
	"modbay/ui/common"
	"modbay/ui/dialog"
	"modbay/ui/form"
	"modbay/ui/formview"
	"modbay/ui/inputs"
	"modbay/ui/viewer"
)

// Options configure the cockpit.
type Options struct {
	// Banner is shown as a line on the module list, e.g. "No modules in
	// <home>; showing the built-in examples.".
	Banner string
	// NoColor turns every color off (NO_COLOR); bold and reverse remain.
	NoColor bool
}

// screen is which screen has the focus.
type screen int

const (
	screenModules screen = iota
	screenCaps
	screenForm
	screenRun
	screenResult
	screenViewer
)

// runTick is how often the run view's elapsed time is redrawn.
const runTick = 100 * time.Millisecond

// Messages from background work. Each carries the generation or request id
// of the work that produced it.
type (
	// modulesMsg is a finished discovery of generation gen: every
	// module, id claims applied (the authoritative list).
	modulesMsg struct {
		gen     int
		modules []*runner.Module
	}
	// discoverStartMsg says discovery gen will describe total modules.
	discoverStartMsg struct {
		gen, total int
	}
	// moduleFoundMsg is one module of discovery gen, sent as soon as its
	// describe finished (before id claims: modulesMsg has the last word).
	moduleFoundMsg struct {
		gen    int
		module *runner.Module
	}
	// planMsg is a finished Plan for form submission seq.
	planMsg struct {
		seq  int
		plan *runner.Plan
		err  error
	}
	// runEventMsg is a live event of the run with request id id.
	runEventMsg struct {
		id string
		ev runner.Event
	}
	// runDoneMsg is the end of the run with request id id.
	runDoneMsg struct {
		id     string
		result *runner.Result
		err    error
	}
	// runTickMsg redraws the elapsed time of run id.
	runTickMsg struct{ id string }
	// savedInputsMsg is what the input store remembers for a capability.
	savedInputsMsg struct {
		module, capability string
		saved              inputs.Saved
		err                error
	}
	// inputSavedMsg reports a preset saved (name) or the last input
	// remembered (name "") for module's capability.
	inputSavedMsg struct {
		module, capability string
		name               string
		err                error
	}
)

// Model is the cockpit's root model.
type Model struct {
	com       *common.Common
	ctx       context.Context
	backend   Backend
	validate  form.Validator
	approvals Approvals
	opts      Options
	workspace string
	// send delivers a message to the running program from a run's
	// goroutines (program.Send); nil drops live events.
	send atomic.Pointer[func(tea.Msg)]
	// inflight counts runs in progress, so Run can wait for their process
	// trees to be killed before the program exits.
	inflight runGroup

	keys     KeyMap
	help     help.Model
	fullHelp bool
	// helpByQuestion is set while the full help is open because "?"
	// opened it.
	helpByQuestion bool
	spinner        spinner.Model

	screen  screen
	gen     int
	modules *moduleList
	caps    *capList

	form       *formview.Model
	formModule *runner.Module
	// drafts keeps every capability's form for the session (draftKey).
	drafts    map[string]formDraft
	formCap   modproto.Capability
	planSeq   int
	lastInput json.RawMessage
	// inputs remembers last inputs and presets; presetPrompt is set while
	// the prompt open on the stack asks for a preset's name.
	inputs       inputs.Store
	presetPrompt bool
	presetInput  json.RawMessage
	// lastUnchecked is true when lastInput was sent anyway, invalid.
	lastUnchecked bool

	dialogs []dialog.Dialog
	run     *runView
	result  *resultView
	viewer  *viewer.Model
	notice  string
	// viewerEnv is what the artifact viewers know about the terminal and
	// the machine (local display, ffprobe, image protocol), read once.
	viewerEnv viewer.Env
}

// New returns the root model for host; host may be nil in tests that feed
// messages directly.
func New(host *runner.Host, opts Options) *Model {
	var b Backend
	ws := ""
	if host != nil {
		b = host
		if c := host.Config(); c != nil {
			ws = c.Workspace
		}
	}
	m := newModel(b, ws, opts)
	if host != nil && host.Config() != nil {
		m.inputs = inputs.Store{Dir: host.Config().StateDir(".modbay", "inputs")}
	}
	return m
}

// newModel builds the root model over any backend.
func newModel(b Backend, workspace string, opts Options) *Model {
	com := common.New(opts.NoColor)
	m := &Model{
		com: com, ctx: context.Background(), backend: b,
		validate: runner.ValidateInput, approvals: &runner.SessionApprovals{},
		opts: opts, workspace: workspace,
		keys: DefaultKeyMap(), help: help.New(),
		viewerEnv: viewer.DetectEnv(),
	}
	m.spinner = spinner.New(spinner.WithSpinner(spinner.MiniDot))
	m.modules = newModuleList(com, m.keys.List, opts.Banner)
	m.restyle()
	m.layout()
	return m
}

// Run runs the cockpit until the person quits or ctx ends.
func Run(ctx context.Context, host *runner.Host, opts Options) error {
	m := New(host, opts)
	// Runs live in a context of their own that ends with the program: on
	// quit, a closed terminal (SIGHUP) or any other exit, every run in
	// flight is cancelled and Run waits until the runner has killed its
	// process tree, so no module process outlives the cockpit.
	runCtx, cancelRuns := context.WithCancel(ctx)
	m.ctx = runCtx
	p := tea.NewProgram(m, tea.WithContext(ctx))
	m.SetSender(p.Send)
	_, err := p.Run()
	m.inflight.close()
	cancelRuns()
	m.inflight.wait()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// SetSender sets how live run events reach the program (program.Send).
func (m *Model) SetSender(send func(tea.Msg)) { m.send.Store(&send) }

// Init starts discovery and asks the terminal for its background color.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.discover(), tea.RequestBackgroundColor)
}

// discover starts discovery generation m.gen+1.
func (m *Model) discover() tea.Cmd {
	m.gen++
	gen := m.gen
	m.modules.discovering = true
	b, ctx := m.backend, m.ctx
	if b == nil {
		return nil
	}
	return tea.Batch(m.spinner.Tick, func() tea.Msg {
		sd, ok := b.(streamDiscoverer)
		send := m.send.Load()
		if !ok || send == nil {
			return modulesMsg{gen: gen, modules: b.Discover(ctx)}
		}
		// Modules show as their describes finish; a hanging one only
		// keeps "describing 1 more…" on screen.
		(*send)(discoverStartMsg{gen: gen, total: sd.CountCandidates()})
		mods := sd.DiscoverStream(ctx, func(mod *runner.Module) {
			(*send)(moduleFoundMsg{gen: gen, module: mod})
		})
		return modulesMsg{gen: gen, modules: mods}
	})
}

// spinning reports whether a spinner is on screen: discovery or a run in
// progress.
func (m *Model) spinning() bool {
	return m.modules.discovering || m.run != nil && !m.run.done
}

// restyle applies the current styles to the widgets that copy them.
func (m *Model) restyle() {
	m.help.Styles = m.com.Styles.Help
	if m.com.NoColor {
		m.spinner.Style = m.com.Styles.Text
	} else {
		m.spinner.Style = m.com.Styles.Title
	}
	if m.form != nil {
		m.form.Restyle()
	}
}

// bodyHeight is the height left for the screen between the header line and
// the help bar.
func (m *Model) bodyHeight() int {
	return max(m.com.Height-1-m.helpHeight(), 1)
}

func (m *Model) helpHeight() int {
	return max(common.Lines(m.helpView()), 1)
}

// layout gives every screen its size.
func (m *Model) layout() {
	w, h := m.com.Width, m.bodyHeight()
	m.help.SetWidth(w)
	m.modules.SetSize(w, h)
	if m.caps != nil {
		m.caps.SetSize(w, h)
	}
	if m.form != nil {
		m.form.SetSize(w, h-m.formHeaderLines())
	}
	if m.result != nil {
		m.result.SetSize(w, h)
	}
	if m.viewer != nil {
		m.viewer.SetSize(w, h)
	}
}

// formHeader is the form screen's lines above the fields, besides the
// setup banner (formHeaderLines).
const formHeader = 2

// formHeaderLines is the form screen's lines above the fields: the
// capability, its effects, and the setup banner when there is one.
func (m *Model) formHeaderLines() int {
	if m.setupBanner() != "" {
		return formHeader + 1
	}
	return formHeader
}

// setupBanner is the line the form screen shows while the form's module
// needs setup: a call would only fail (WIRE.md §9), so the form says so
// before anyone submits it; "" otherwise.
func (m *Model) setupBanner() string {
	if m.formModule == nil || m.formModule.Status != runner.StatusNeedsSetup {
		return ""
	}
	s := "⚠ needs setup: a run fails until it is set up"
	if m.formModule.Reason != "" {
		s += " (" + render.SanitizeLine(m.formModule.Reason) + ")"
	}
	return s
}

// Update routes every message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.com.Width, m.com.Height = msg.Width, msg.Height
		m.layout()
		if m.screen == screenViewer && m.viewer != nil {
			return m, m.viewer.Reflow()
		}
		return m, nil
	case tea.BackgroundColorMsg:
		m.com.SetDark(msg.IsDark())
		m.restyle()
		if m.viewer != nil {
			return m, m.viewer.Reflow()
		}
		return m, nil
	case spinner.TickMsg:
		if !m.spinning() {
			// Nothing shows the spinner: its ticks stop, and with them a
			// redraw of the whole screen a dozen times a second.
			// discover and startRun start them again.
			return m, nil
		}
		var cmd tea.Cmd
		m.spinner, cmd = m.spinner.Update(msg)
		return m, cmd
	case modulesMsg:
		if msg.gen == m.gen {
			m.modules.SetModules(msg.modules)
			m.layout()
		}
		return m, nil
	case discoverStartMsg:
		if msg.gen == m.gen && m.modules.discovering {
			m.modules.StartDiscovery(msg.total)
		}
		return m, nil
	case moduleFoundMsg:
		if msg.gen == m.gen && m.modules.discovering {
			m.modules.AddModule(msg.module)
		}
		return m, nil
	case planMsg:
		return m, m.planned(msg)
	case runEventMsg:
		if m.run != nil && m.run.id == msg.id {
			m.run.event(msg.ev)
		}
		return m, nil
	case runTickMsg:
		if m.run != nil && m.run.id == msg.id && !m.run.done {
			return m, m.tick(msg.id)
		}
		return m, nil
	case runDoneMsg:
		return m, m.finished(msg)
	case savedInputsMsg:
		m.offerInputs(msg)
		return m, nil
	case inputSavedMsg:
		if m.form != nil && msg.name != "" {
			if msg.err != nil {
				m.form.SetNote("Preset not saved: " + msg.err.Error())
			} else {
				m.form.SetNote("Saved preset " + msg.name + ".")
			}
		}
		if msg.err != nil {
			return m, nil
		}
		// What ctrl+l offers changed: read it again (last input, presets).
		return m, m.loadInputs(msg.module, msg.capability)
	case viewer.Msg:
		if m.viewer != nil {
			_, cmd := m.viewer.Update(msg)
			return m, cmd
		}
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	return m, m.forward(msg)
}

// forward hands other messages (cursor blinks, pastes) to what has focus.
func (m *Model) forward(msg tea.Msg) tea.Cmd {
	if len(m.dialogs) > 0 {
		_, cmd := m.dialogs[len(m.dialogs)-1].Update(msg)
		return cmd
	}
	switch m.screen {
	case screenModules:
		_, cmd := m.modules.Update(msg)
		return cmd
	case screenForm:
		if m.form != nil {
			_, cmd := m.form.Update(msg)
			return cmd
		}
	}
	return nil
}

// typing reports whether keys are text for a field or the filter.
func (m *Model) typing() bool {
	if len(m.dialogs) > 0 {
		return m.dialogs[len(m.dialogs)-1].ID() == "prompt"
	}
	switch m.screen {
	case screenModules:
		return m.modules.Typing()
	case screenCaps:
		return m.caps != nil && m.caps.Typing()
	case screenForm:
		return m.form != nil && m.form.Typing()
	case screenViewer:
		return m.viewer != nil && m.viewer.Typing()
	}
	return false
}

// key handles a key press: global keys first, then the top dialog, then the
// focused screen.
func (m *Model) key(kp tea.KeyPressMsg) tea.Cmd {
	g := m.keys.Global
	switch {
	case key.Matches(kp, g.Interrupt):
		if m.run != nil && !m.run.done {
			return m.cancelRun()
		}
		return tea.Quit
	case key.Matches(kp, g.HelpAnywhere):
		m.toggleHelp(false)
		return nil
	case key.Matches(kp, g.Help) && (!m.typing() || m.fullHelp && m.helpByQuestion):
		// "?" is text in a field; it opens help only where keys are not
		// text, and closes the help it opened wherever the focus went.
		m.toggleHelp(true)
		return nil
	case m.fullHelp && key.Matches(kp, g.CloseHelp):
		// esc closes the open help before it does anything else (leaving a
		// form, clearing a filter, denying a call).
		m.toggleHelp(false)
		return nil
	}
	if len(m.dialogs) > 0 {
		act, cmd := m.dialogs[len(m.dialogs)-1].Update(kp)
		return tea.Batch(cmd, m.dialogAction(act))
	}
	switch m.screen {
	case screenModules:
		if key.Matches(kp, g.Quit) && !m.typing() {
			return tea.Quit
		}
		act, cmd := m.modules.Update(kp)
		switch a := act.(type) {
		case listOpen:
			m.caps = newCapList(m.com, m.keys.List, a.module)
			m.screen = screenCaps
			m.layout()
		case listRediscover:
			return tea.Batch(cmd, m.discover())
		}
		return cmd
	case screenCaps:
		if key.Matches(kp, g.Quit) && !m.typing() {
			return tea.Quit
		}
		act, cmd := m.caps.Update(kp)
		switch a := act.(type) {
		case capBack:
			m.screen = screenModules
		case capOpen:
			return tea.Batch(cmd, m.openForm(m.caps.module, a.cap))
		}
		return cmd
	case screenForm:
		act, cmd := m.form.Update(kp)
		switch a := act.(type) {
		case formview.ActionBack:
			m.screen = screenCaps
		case formview.ActionSubmit:
			return tea.Batch(cmd, m.submit(a.Input, a.Unchecked))
		case formview.ActionSavePreset:
			m.presetInput = a.Input
			m.presetPrompt = true
			m.dialogs = append(m.dialogs, dialog.NewPrompt(m.com, "Save this input as preset named", ""))
		}
		return cmd
	case screenRun:
		return nil
	case screenResult:
		return m.resultKey(kp)
	case screenViewer:
		return m.viewerKey(kp)
	}
	return nil
}

// toggleHelp opens or closes the full help; byQuestion records that "?"
// opened it, so "?" closes it again even from a text field.
func (m *Model) toggleHelp(byQuestion bool) {
	m.fullHelp = !m.fullHelp
	m.helpByQuestion = m.fullHelp && byQuestion
	m.layout()
}

// openForm shows the form of capability c of module mod.
func (m *Model) openForm(mod *runner.Module, c modproto.Capability) tea.Cmd {
	var schema json.RawMessage
	if c.RequestSchema != "" && mod.Descriptor != nil {
		schema = mod.Descriptor.RequestSchemas[c.RequestSchema]
	}
	dk := draftKey(mod, c)
	if d, ok := m.drafts[dk]; ok && d.schema == string(schema) {
		// Coming back: the form exactly as left (values, focus, mode).
		m.form = d.form
		m.form.Restyle()
	} else {
		f, err := form.Build(schema)
		if err != nil {
			f, _ = form.Build(nil)
		}
		m.form = formview.New(m.com, f, m.validate)
		if err != nil {
			m.form.SetNote("The request schema cannot be read (" + err.Error() + "); edit the input as JSON.")
		}
		if m.drafts == nil {
			m.drafts = map[string]formDraft{}
		}
		m.drafts[dk] = formDraft{schema: string(schema), form: m.form}
	}
	if mod.Status == runner.StatusDisabled {
		m.form.SetNote("This module is disabled: it is listed but never run.")
	}
	m.formModule, m.formCap = mod, c
	m.screen = screenForm
	m.layout()
	return m.loadInputs(mod.ID, c.ID)
}

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
	if m.form == nil || m.formModule == nil || m.formModule.ID != msg.module || m.formCap.ID != msg.capability || msg.err != nil {
		return
	}
	var r []formview.Recall
	if msg.saved.Last != nil {
		r = append(r, formview.Recall{Name: "last input", Input: msg.saved.Last})
	}
	for _, p := range msg.saved.Presets {
		r = append(r, formview.Recall{Name: "preset " + p.Name, Input: p.Input})
	}
	m.form.SetRecalls(r)
}

// saveInput remembers input as the last one (name "") or as a preset.
func (m *Model) saveInput(name string, input json.RawMessage) tea.Cmd {
	if m.inputs.Dir == "" || m.formModule == nil {
		return nil
	}
	st, mod, capID, now := m.inputs, m.formModule.ID, m.formCap.ID, m.com.Now()
	return func() tea.Msg {
		if name == "" {
			return inputSavedMsg{module: mod, capability: capID, err: st.SaveLast(mod, capID, input, now)}
		}
		return inputSavedMsg{module: mod, capability: capID, name: name, err: st.SavePreset(mod, capID, name, input, now)}
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
	m.form.SetNote("Planning…")
	if unchecked {
		m.form.SetNote("Planning, sending the input anyway (invalid against its schema)…")
	}
	b, mod, capID := m.backend, m.formModule, m.formCap.ID
	if b == nil {
		return nil
	}
	return func() tea.Msg {
		if up, ok := b.(uncheckedPlanner); ok {
			p, err := up.PlanWith(mod, capID, input, runner.PlanOptions{SkipValidation: unchecked})
			return planMsg{seq: seq, plan: p, err: err}
		}
		if unchecked {
			return planMsg{seq: seq, err: errors.New("this backend cannot send an input its schema refuses")}
		}
		p, err := b.Plan(mod, capID, input)
		return planMsg{seq: seq, plan: p, err: err}
	}
}

// planned opens the approval dialog or starts the run.
func (m *Model) planned(msg planMsg) tea.Cmd {
	if msg.seq != m.planSeq || m.form == nil {
		return nil
	}
	var ie *runner.InputError
	switch {
	case errors.As(msg.err, &ie):
		m.form.SetProblemNote("The host refused the input: fix the fields marked ✗.")
		m.form.ShowProblems(ie.Violations)
		return nil
	case errors.Is(msg.err, runner.ErrDisabled):
		m.form.SetNote("This module is disabled: it is listed but never run.")
		return nil
	case msg.err != nil:
		m.form.SetNote("Cannot plan the call: " + msg.err.Error())
		return nil
	}
	m.form.SetNote("")
	remember := m.saveInput("", m.lastInput)
	if msg.plan.NeedsApproval() && !m.approvals.Covers(msg.plan) {
		m.dialogs = append(m.dialogs, dialog.NewApproval(m.com, msg.plan))
		return remember
	}
	return tea.Batch(remember, m.startRun(msg.plan, true))
}

// dialogAction carries out what the top dialog answered.
func (m *Model) dialogAction(act dialog.Action) tea.Cmd {
	if act == nil {
		return nil
	}
	top := m.dialogs[len(m.dialogs)-1]
	m.dialogs = m.dialogs[:len(m.dialogs)-1]
	if m.presetPrompt && top.ID() == "prompt" {
		m.presetPrompt = false
		if a, ok := act.(dialog.ActionSubmitText); ok {
			return m.saveInput(a.Value, m.presetInput)
		}
		return nil
	}
	switch a := act.(type) {
	case dialog.ActionApprove:
		ap, _ := top.(*dialog.Approval)
		if ap == nil {
			return nil
		}
		if a.Scope == dialog.ScopeSession {
			m.approvals.Allow(ap.Plan())
		}
		return m.startRun(ap.Plan(), true)
	case dialog.ActionDeny:
		if m.form != nil {
			m.form.SetNote("Denied: the call was not run.")
		}
		m.screen = screenForm
	case dialog.ActionSubmitText:
		if m.viewer != nil {
			return m.viewer.Save(a.Value)
		}
	}
	return nil
}

// startRun runs plan in the background; events and the result come back
// as messages carrying its request id.
func (m *Model) startRun(p *runner.Plan, approved bool) tea.Cmd {
	ctx, cancel := context.WithCancel(m.ctx)
	rv := newRunView(m.com, p, cancel)
	m.run = rv
	m.screen = screenRun
	id := rv.id
	b := m.backend
	if b == nil {
		cancel()
		return nil
	}
	events := func(ev runner.Event) {
		if send := m.send.Load(); send != nil {
			(*send)(runEventMsg{id: id, ev: ev})
		}
	}
	run := func() tea.Msg {
		defer cancel()
		if !m.inflight.enter() {
			return runDoneMsg{id: id, err: context.Canceled}
		}
		defer m.inflight.leave()
		res, err := b.Run(ctx, p, approved, events)
		return runDoneMsg{id: id, result: res, err: err}
	}
	return tea.Batch(run, m.tick(id), m.spinner.Tick)
}

// tick schedules the next elapsed-time redraw of run id.
func (m *Model) tick(id string) tea.Cmd {
	return tea.Tick(runTick, func(time.Time) tea.Msg { return runTickMsg{id: id} })
}

// cancelRun cancels the run in progress; the runner kills its process tree
// and the run ends as "cancelled".
func (m *Model) cancelRun() tea.Cmd {
	m.run.cancelling = true
	m.run.cancel()
	return nil
}

// finished shows the result of the run it belongs to.
func (m *Model) finished(msg runDoneMsg) tea.Cmd {
	if m.run == nil || m.run.id != msg.id {
		return nil
	}
	m.run.done = true
	res := msg.result
	if res == nil {
		res = &runner.Result{RequestID: msg.id, Host: &runner.HostError{Code: "host.error", Detail: errText(msg.err)}}
		if m.run.plan.Module != nil {
			res.Module = m.run.plan.Module.ID
		}
		res.Capability = m.run.plan.Capability.ID
	}
	m.result = newResultView(m.com, m.keys.Result, m.run.plan, res, m.run.stderrTail())
	m.screen = screenResult
	m.layout()
	return nil
}

func errText(err error) string {
	if err == nil {
		return "the run returned no result"
	}
	return err.Error()
}

// resultKey handles a key on the result view.
func (m *Model) resultKey(kp tea.KeyPressMsg) tea.Cmd {
	k := m.keys.Result
	switch {
	case key.Matches(kp, k.Back):
		m.screen = screenForm
		return nil
	case key.Matches(kp, k.Rerun):
		// A fresh plan: a new request id, and approval asked again unless
		// the session covers it.
		if m.form != nil && m.lastInput != nil {
			m.screen = screenForm
			return m.submit(m.lastInput, m.lastUnchecked)
		}
	case key.Matches(kp, k.Open):
		if a, ok := m.result.SelectedArtifact(); ok {
			m.viewer = viewer.New(m.com, m.keys.Viewer, m.viewerEnv, m.result.res.RequestID, a, m.result.res.Artifacts, m.workspace)
			m.screen = screenViewer
			m.layout()
			return m.viewer.Load()
		}
	case key.Matches(kp, m.keys.Global.Quit):
		return nil
	default:
		m.result.Update(kp)
	}
	return nil
}

// viewerKey handles a key on the artifact viewer and what it asks for.
func (m *Model) viewerKey(kp tea.KeyPressMsg) tea.Cmd {
	act, cmd := m.viewer.Update(kp)
	switch a := act.(type) {
	case viewer.ActionBack:
		m.screen = screenResult
	case viewer.ActionAskSaveDir:
		m.dialogs = append(m.dialogs, dialog.NewPrompt(m.com, "Save a copy into directory", a.Dir).SetHint(saveHint(a.Base)))
	}
	return cmd
}

// saveHint tells the save prompt's reader how the answer is read (see
// viewer.ResolveSaveDir).
func saveHint(base string) string {
	if base == "" {
		return "~ is your home directory; give an absolute path or ~/…"
	}
	return "~ is your home directory; a relative path starts in " + base
}

// View draws the header, the focused screen (or the top dialog) and the
// help bar.
func (m *Model) View() tea.View {
	w := m.com.Width
	h := m.bodyHeight()
	var body string
	switch m.screen {
	case screenModules:
		body = m.modules.View(m.spinner)
	case screenCaps:
		body = m.caps.View()
	case screenForm:
		body = m.formView()
	case screenRun:
		body = m.run.View(m.spinner, w, h)
	case screenResult:
		body = m.result.View()
	case screenViewer:
		body = m.viewer.View()
	}
	if len(m.dialogs) > 0 {
		body = dialog.Place(w, h, m.dialogs[len(m.dialogs)-1].View(w, h))
	}
	body = common.FitWidth(common.FitHeight(body, h), w)
	if n := common.Lines(body); n < h {
		body += strings.Repeat("\n", h-n)
	}
	// The help bar is drawn after the body: a dialog's View decides
	// whether its scroll keys apply.
	v := tea.NewView(m.header() + "\n" + body + "\n" + m.helpView())
	v.AltScreen = true
	return v
}

// header is the title line with where the person is.
func (m *Model) header() string {
	st := m.com.Styles
	crumbs := []string{st.Title.Render("modbay")}
	mod := m.formModule
	if m.screen == screenCaps && m.caps != nil {
		mod = m.caps.module
	}
	if m.screen != screenModules && mod != nil {
		crumbs = append(crumbs, render.SanitizeLine(moduleName(mod)))
		if m.screen != screenCaps {
			crumbs = append(crumbs, render.SanitizeLine(common.TitleOr(m.formCap.Title, m.formCap.ID)))
		}
		switch m.screen {
		case screenRun:
			crumbs = append(crumbs, "run")
		case screenResult:
			crumbs = append(crumbs, "result")
		case screenViewer:
			crumbs = append(crumbs, "artifact")
		}
	} else if m.screen == screenModules && !m.modules.discovering {
		crumbs = append(crumbs, st.Muted.Render(fmt.Sprintf("%d modules", len(m.modules.modules))))
	}
	return common.Trunc(strings.Join(crumbs, st.Muted.Render(" › ")), m.com.Width)
}

func moduleName(mod *runner.Module) string {
	if mod.Descriptor != nil && mod.Descriptor.Name != "" {
		return mod.Descriptor.Name
	}
	return mod.ID
}

// formView draws the form screen: the capability's summary, then the form.
func (m *Model) formView() string {
	st := m.com.Styles
	c := m.formCap
	line := st.ID.Render(render.SanitizeLine(c.ID)) + "  " + st.Muted.Render(render.SanitizeLine(c.Summary))
	effects := st.Muted.Render(strings.Join(render.EffectBadges(c.Effects, c.LongRunning), " · "))
	head := common.Trunc(line, m.com.Width) + "\n" + common.Trunc(effects, m.com.Width) + "\n"
	if b := m.setupBanner(); b != "" {
		head += st.Warning.Render(common.Trunc(b, m.com.Width)) + "\n"
	}
	return head + m.form.View()
}

// helpView draws the help bar for what has focus.
func (m *Model) helpView() string {
	if m.fullHelp {
		return m.fullHelpView(m.FullHelp())
	}
	return m.help.ShortHelpView(m.fitShortHelp(m.ShortHelp()))
}

// fullHelpView lays groups out as columns, side by side while they fit
// the width and then on further rows, so no binding is ever cut (the
// help model alone drops the columns past the width).
func (m *Model) fullHelpView(groups [][]key.Binding) string {
	h := m.help
	h.SetWidth(0) // measure unbounded; the rows are fitted here
	w := m.com.Width
	var rows []string
	var row [][]key.Binding
	for _, g := range groups {
		if len(row) > 0 && common.BlockWidth(h.FullHelpView(append(row[:len(row):len(row)], g))) > w {
			rows = append(rows, h.FullHelpView(row))
			row = nil
		}
		row = append(row, g)
	}
	if len(row) > 0 {
		rows = append(rows, h.FullHelpView(row))
	}
	return strings.Join(rows, "\n")
}

// fitShortHelp drops bindings from the end of b until the one-line bar
// fits the width, never the last one (the way to the full help, or to
// close it) nor an esc: those two keep every other key reachable.
func (m *Model) fitShortHelp(b []key.Binding) []key.Binding {
	h := m.help
	h.SetWidth(0)
	keep := func(i int) bool {
		return i == len(b)-1 || slices.Contains(b[i].Keys(), "esc")
	}
	for common.Width(h.ShortHelpView(b)) > m.com.Width {
		drop := -1
		for i := len(b) - 1; i >= 0; i-- {
			if !keep(i) {
				drop = i
				break
			}
		}
		if drop < 0 {
			break
		}
		b = slices.Delete(slices.Clone(b), drop, drop+1)
	}
	return b
}

// ShortHelp implements help.KeyMap: the bindings of what has focus.
func (m *Model) ShortHelp() []key.Binding {
	g := m.keys.Global
	var b []key.Binding
	if len(m.dialogs) > 0 {
		return m.dialogs[len(m.dialogs)-1].ShortHelp()
	}
	switch m.screen {
	case screenModules:
		b = m.modules.ShortHelp()
		if !m.modules.Typing() {
			b = append(b, g.Quit)
		}
	case screenCaps:
		b = m.caps.ShortHelp()
		if !m.caps.Typing() {
			b = append(b, g.Quit)
		}
	case screenForm:
		b = m.form.ShortHelp()
	case screenRun:
		return []key.Binding{m.keys.Run.Cancel}
	case screenResult:
		b = m.result.ShortHelp()
	case screenViewer:
		b = m.viewer.ShortHelp()
	}
	switch {
	case m.fullHelp:
		b = append(b, g.CloseHelp)
	case m.screen == screenForm || m.typing():
		// In a form (and in any text) "?" is text: help is on ctrl+g.
		b = append(b, g.HelpAnywhere)
	default:
		b = append(b, g.Help)
	}
	return b
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	g := m.keys.Global
	if len(m.dialogs) > 0 {
		return m.dialogs[len(m.dialogs)-1].FullHelp()
	}
	var groups [][]key.Binding
	switch m.screen {
	case screenModules, screenCaps:
		l := m.keys.List
		groups = [][]key.Binding{{l.Up, l.Down, l.Top, l.Bottom}, {l.Open, l.Back}, {l.Filter, l.ClearFilter, l.Rediscover}, {l.DetailUp, l.DetailDown}}
	case screenForm:
		groups = m.form.FullHelp()
	case screenRun:
		groups = [][]key.Binding{{m.keys.Run.Cancel}}
	case screenResult:
		r := m.keys.Result
		groups = [][]key.Binding{{r.Up, r.Down, r.PageUp, r.PageDown, r.Top, r.Bottom}, {r.Open, r.Stderr, r.Rerun, r.Back}}
	case screenViewer:
		groups = m.viewer.FullHelp()
	}
	help := g.Help
	if m.screen == screenForm || m.typing() {
		help = g.HelpAnywhere
	}
	return append(groups, []key.Binding{g.Quit, g.Interrupt, help, g.CloseHelp})
}

// runGroup tracks runs in flight. Once closed, no run may start: a run
// command that Bubble Tea executes after the program ended runs nothing.
type runGroup struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// enter registers a run about to start; false means the group is closed.
func (g *runGroup) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.wg.Add(1)
	return true
}

// leave marks a run finished.
func (g *runGroup) leave() { g.wg.Done() }

// close refuses every later run.
func (g *runGroup) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// wait blocks until every entered run has left.
func (g *runGroup) wait() { g.wg.Wait() }
