package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"modbay/approval"
	"modbay/config"
	"modbay/history"
	"modbay/internal/crash"
	"modbay/runner"
	"modbay/schema"
	"modbay/skills"
	"modbay/ui/common"
	"modbay/ui/dialog"
	"modbay/ui/form"
	"modbay/ui/formview"
	"modbay/ui/inputs"
	"modbay/ui/styles"
	"modbay/ui/viewer"
)

// Options configure the cockpit.
type Options struct {
	// Banner is shown as a line on the module list, e.g. "No modules in
	// <home>; showing the built-in examples.".
	Banner string
	// NoColor turns every color off (NO_COLOR); bold and reverse remain.
	NoColor bool
	// Profile is the terminal's colour profile, what the renderer reduces
	// every colour to (none under vt100, 16, 256 or true colour); nil lets
	// Bubble Tea read it from the environment.
	Profile *colorprofile.Profile
	// Glyphs is the glyph set: Unicode, ASCII, or (GlyphsAuto) what the
	// environment says (styles.DetectGlyphs) when the cockpit runs; a
	// model built by New with GlyphsAuto draws Unicode.
	Glyphs styles.Glyphs
	// History records every run and backs the history screen; nil
	// records nothing.
	History *history.Store
	// SkillFolders are where the skills screen looks for skill folders;
	// a skill inside one of SkillWritableRoots (the modules' writable
	// roots) is flagged as one modules may write (docs/skills.md).
	SkillFolders       []skills.Folder
	SkillWritableRoots []string
	// RunSkillScript runs a skill's script contained, as the config
	// allows (skills.RunScript with its options); nil means running
	// scripts is off.
	RunSkillScript func(ctx context.Context, dir, loc string) (skills.ScriptResult, error)
	// RenderedDir is where the skills screens write a skill rendered as
	// an agent gets it, and copies of resources, for the viewer: New sets
	// <home>/cache/rendered-skills from the host's config when it is
	// empty, so nothing is written outside the home; left empty, opening a
	// rendered skill fails and says so.
	RenderedDir string
	// Reload reads the home's config.yaml again and builds what depends
	// on it (r on the module list, then discovery runs): an error keeps
	// the previous config, and the module list says why (a
	// *config.FileError says where). nil: r only rediscovers.
	Reload func(ctx context.Context) (*Reloaded, error)
	// Refresh, when set, runs before a rediscovery the person asked for
	// (r): it makes cached MCP tool lists stale, so the servers are
	// listed again (mcp.Source.Refresh). It runs in the discovery's
	// command, never in Update.
	Refresh func()
	// Dev is the executable of the one module `modbay dev` opens the
	// cockpit on: the list shows only it, and it is described again
	// (the describe cache bypassed) whenever the files of its directory
	// or its launcher's change (dev.go). "" for the usual cockpit.
	Dev string
	// AgentApprovals is this cockpit's approval socket: serve processes
	// of the home ask it about agents' calls (agentask.go); nil: none.
	AgentApprovals *approval.Listener
	// AgentTools lists what modbay mcp serve would serve now, as an agent
	// reads it (the agent tools screen, T); nil: the screen is not offered.
	AgentTools func(context.Context) (AgentCatalogue, error)
	// Theme is config.yaml's theme: (validated on load): the palette, a
	// fixed background, colour overrides; "none" and "ascii" turn colour
	// off (and ascii the glyphs to ASCII).
	Theme config.Theme
	// Keys rebinds actions to keys (config.yaml's keys:, KeyMap.Rebind).
	Keys map[string]string
	// AgentSessions lists the live sessions of the home's serve processes,
	// one line each (client, since, calls, pending approvals), for the
	// same screen; nil: none shown.
	AgentSessions func() []string
}

// Model is the cockpit's root model.
type Model struct {
	// formSeq numbers form builds (formBuiltMsg); formWait is how long
	// opening a form waits for its build before showing that it builds.
	formSeq  uint64
	formWait time.Duration
	// buildForm builds a form off the loop (nil: form.BuildContext), and
	// the capability list's summaries of request schemas (capSums).
	buildForm func(context.Context, json.RawMessage) (*form.Form, error)
	capSums   capSummaries
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
	// helpMemo is the last help bar drawn (help.go).
	helpMemo helpMemo
	// helpByQuestion is set while the full help is open because "?"
	// opened it.
	helpByQuestion bool
	spinner        spinner.Model

	// jumpTargets are where the open jump prompt's entries go (jump.go).
	jumpTargets []jumpTarget

	// stack is the screens, the focused one last; the module list is
	// always at the bottom (m.modules).
	stack []Screen
	// gen numbers discoveries: a discovery's messages carry the gen it
	// started under, and those of an older one are dropped.
	gen     int
	modules *moduleList

	// watched are the drivers whose announced changes are followed
	// (surface.go), once each; reads are the runs of resource reads
	// whose one artifact opens once they end.
	watched map[changeWatcher]bool
	reads   map[string]bool

	// reloadSeq numbers config reloads (r): only the last one's answer
	// is taken.
	reloadSeq int

	// flow is the submit flow: the form prepared, its drafts, the plan
	// in flight and the last input (submit.go).
	flow submitFlow

	dialogs []dialog.Dialog
	// confirmYes is what y on the confirmation dialog on the stack does.
	confirmYes func() tea.Cmd
	// cancelAsk is the job cancel confirmation open, withdrawn when the
	// job ends meanwhile (activity.go).
	cancelAsk cancelAsk
	// runs are the runs of this session by request id, in flight or done:
	// a run outlives its screen, and its events and result are routed by
	// id. runOrder is their ids oldest first, lastRun the newest.
	runs     map[string]*runView
	runOrder []string
	lastRun  string
	// viewerEnv is what the artifact viewers know about the terminal and
	// the machine (local display, ffprobe, image protocol), read once.
	viewerEnv viewer.Env
	// history records runs (nil: none); resumeStarted is set once the
	// jobs the history left unpolled were taken over (resume.go).
	history       *history.Store
	resumeStarted bool
	// skillSession is the session's active skills (the skills screen).
	skillSession skills.Session
	// windowTitle is the terminal window's title ("" leaves it alone):
	// set when a background run finishes (finishedNotice).
	windowTitle string
	// dev is the dev session's state (Options.Dev); nil otherwise.
	dev *devState
	// quitArmed is set by a ctrl+c that kept a form's draft instead of
	// quitting: the next key, if ctrl+c, quits (drafts.go).
	quitArmed bool
	// approvalClosed is when the last approval dialog was answered and
	// approvalForm the form it was opened over: keys within
	// dialog.GracePeriod of the answer (typed ahead for the dialog) never
	// reach that form.
	approvalClosed time.Time
	approvalForm   *formview.Model
	// disambiguated is set when the terminal reports keys by its
	// keyboard protocol, so esc never merges with the next key.
	disambiguated bool
	// exitNote is the line Run prints once the screen is gone: the drafts
	// kept on quitting ("" when none).
	exitNote string
	// agentAsks are the agents' questions waiting, oldest first; agentNote
	// says, until the next key, what became of one (agentask.go).
	agentAsks []approval.Question
	// agentLater holds the questions put off (l in their dialog): they
	// wait in A and do not open again by themselves.
	agentLater map[string]bool
	// askHeld says the oldest question waits for the person to pause
	// typing (showAgentAsk); askRecheck that a look again is due;
	// lastKey is when the last key came.
	askHeld, askRecheck bool
	lastKey             time.Time
	agentNote           string
	// agentOrphans are the questions open after their serve process
	// ended (answered, they apply to the agent's retry).
	agentOrphans map[string]bool
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
		m.flow.inputs = inputs.Store{Dir: host.Config().InputsDir()}
		m.viewerEnv.TmpDir = host.Config().TmpDir()
		if m.opts.RenderedDir == "" {
			m.opts.RenderedDir = filepath.Join(host.Config().CacheDir(), "rendered-skills")
		}
	}
	return m
}

// newModel builds the root model over any backend.
func newModel(b Backend, workspace string, opts Options) *Model {
	switch opts.Theme.Name {
	case config.ThemeNone:
		opts.NoColor = true
	case config.ThemeASCII:
		opts.NoColor, opts.Glyphs = true, styles.GlyphsASCII
	}
	com := common.New(opts.NoColor)
	com.ASCII = opts.Glyphs == styles.GlyphsASCII
	com.Colors = opts.Theme.Colors
	switch opts.Theme.Name {
	case config.ThemeDark, config.ThemeLight:
		com.Dark, com.FixedBackground = opts.Theme.Name == config.ThemeDark, true
	}
	com.SetDark(com.Dark)
	m := &Model{
		com: com, ctx: context.Background(), backend: b,
		validate: schema.ValidateForm, approvals: &runner.SessionApprovals{},
		opts: opts, workspace: workspace,
		keys: keyMapFor(opts.Keys), help: help.New(),
		viewerEnv: viewer.DetectEnv(), history: opts.History,
		formWait: formInlineWait,
	}
	m.spinner = spinner.New(spinner.WithSpinner(spinner.MiniDot))
	m.runs = map[string]*runView{}
	if opts.Dev != "" {
		m.dev = &devState{path: opts.Dev}
	}
	m.open(screenModules, nil)
	m.modules.agentTools = opts.AgentTools != nil
	m.restyle()
	m.layout()
	return m
}

// formInlineWait is how long opening a form may hold the event loop for
// its build (a few frames); a longer build shows "Building the form…".
const formInlineWait = 20 * time.Millisecond

// renderFPS is how often the renderer may write a changed frame, Bubble
// Tea's most: it writes on a ticker, so a key's answer waits for the next
// tick, 4 ms on average here against 8 ms at its default of 60.
const renderFPS = 120

// Run runs the cockpit until the person quits or ctx ends.
func Run(ctx context.Context, host *runner.Host, opts Options) error {
	if opts.Theme.Name == config.ThemeASCII {
		opts.Glyphs = styles.GlyphsASCII
	}
	if opts.Glyphs == styles.GlyphsAuto {
		opts.Glyphs = styles.DetectGlyphs(os.Getenv)
	}
	m := New(host, opts)
	// Runs live in a context of their own that ends with the program: on
	// quit, a closed terminal (SIGHUP) or any other exit, every run in
	// flight is cancelled and Run waits until the runner has killed its
	// process tree, so no module process outlives the cockpit.
	runCtx, cancelRuns := context.WithCancel(ctx)
	m.ctx = runCtx
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(renderFPS)}
	if opts.Profile != nil {
		popts = append(popts, tea.WithColorProfile(*opts.Profile))
	}
	p := tea.NewProgram(m, popts...)
	m.SetSender(p.Send)
	// A panic on a goroutine of ours gives the terminal back first.
	crash.OnCrash(func() { _ = p.ReleaseTerminal() })
	_, err := p.Run()
	crash.OnCrash(nil)
	if m.exitNote != "" {
		fmt.Fprintln(os.Stderr, m.exitNote)
	}
	if note := m.leftNote(); note != "" {
		fmt.Fprintln(os.Stderr, note)
	}
	m.closeDev()
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
	return tea.Batch(m.discover(), tea.RequestBackgroundColor, m.waitAgentAsk())
}

// discover starts discovery generation m.gen+1.
func (m *Model) discover() tea.Cmd { return m.discoverWith(nil) }

// discoverWith starts discovery generation m.gen+1, running before (when
// set) in the command first.
func (m *Model) discoverWith(before func()) tea.Cmd {
	m.gen++
	gen := m.gen
	m.modules.discovering = true
	b, ctx := m.backend, m.ctx
	if b == nil {
		return nil
	}
	if m.dev != nil {
		return tea.Batch(m.spinner.Tick, m.devDiscover(gen))
	}
	return tea.Batch(m.spinner.Tick, func() tea.Msg {
		if before != nil {
			before()
		}
		sd, ok := b.(streamDiscoverer)
		send := m.send.Load()
		if !ok || send == nil {
			return modulesMsg{gen: gen, modules: b.Discover(ctx)}
		}
		// Modules show as their describes finish, gathered for
		// foundBatchDelay: the program draws the whole screen after
		// every message, so a warm discovery of thousands is a few
		// batches, not a frame per module. A hanging describe only keeps
		// "describing 1 more…" on screen.
		(*send)(discoverStartMsg{gen: gen, total: sd.CountCandidates()})
		var mu sync.Mutex
		var batch []*runner.Module
		flush := func() {
			mu.Lock()
			b := batch
			batch = nil
			mu.Unlock()
			(*send)(moduleFoundMsg{gen: gen, modules: b})
		}
		mods := sd.DiscoverStream(ctx, func(mod *runner.Module) {
			mu.Lock()
			batch = append(batch, mod)
			first := len(batch) == 1
			mu.Unlock()
			if first {
				time.AfterFunc(foundBatchDelay, flush)
			}
		})
		return modulesMsg{gen: gen, modules: mods}
	})
}

// foundBatchDelay is how long modules found by a streamed discovery are
// gathered before the list shows them: about a frame.
const foundBatchDelay = 16 * time.Millisecond

// spinning reports whether a spinner is on screen: discovery or a run in
// progress.
func (m *Model) spinning() bool {
	if m.modules.discovering {
		return true
	}
	for _, r := range m.runs {
		if !r.done {
			return true
		}
	}
	return false
}

// restyle applies the current styles to the widgets that copy them.
func (m *Model) restyle() {
	m.help.Styles = m.com.Styles.Help
	if m.com.NoColor {
		m.spinner.Style = m.com.Styles.Text
	} else {
		m.spinner.Style = m.com.Styles.Title
	}
	m.flow.restyle()
}

// bodyHeight is the height left for the screen between the header line and
// the help bar.
func (m *Model) bodyHeight() int {
	return max(m.com.Height-1-m.helpHeight(), 1)
}

// layout gives every screen its size.
func (m *Model) layout() {
	w, h := m.com.Width, m.bodyHeight()
	m.help.SetWidth(w)
	for _, s := range m.stack {
		s.SetSize(w, h)
	}
}

// Update routes every message; then, with the capability list on top,
// starts the build of its selected capability's summary if it is missing
// (the pane draws "…" until it is there, never building it itself).
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.route(msg)
	if c, ok := m.top().(*capList); ok {
		cmd = tea.Batch(cmd, c.summarize())
	}
	return m, cmd
}

// route routes one message.
func (m *Model) route(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.com.Width, m.com.Height = msg.Width, msg.Height
		m.layout()
		if r, ok := m.top().(reflower); ok {
			return r.Reflow()
		}
		return nil
	case tea.BackgroundColorMsg:
		m.com.SetDark(msg.IsDark())
		m.restyle()
		var cmds []tea.Cmd
		for _, s := range m.stack {
			if r, ok := s.(reflower); ok {
				cmds = append(cmds, r.Reflow())
			}
		}
		return tea.Batch(cmds...)
	case spinner.TickMsg:
		if !m.spinning() {
			// Nothing shows the spinner: its ticks stop, and with them a
			// redraw of the whole screen a dozen times a second.
			// discover and startRun start them again.
			return nil
		}
		var cmd tea.Cmd
		m.spinner, cmd = m.spinner.Update(msg)
		return cmd
	case modulesMsg:
		if msg.gen == m.gen {
			m.modules.SetModules(msg.modules)
			m.watchChanges(msg.modules)
			m.refreshOpen(msg.modules)
			m.layout()
			return m.resumeJobs()
		}
		return nil
	case historyMsg:
		return m.historyUpdate(msg)
	case logLevelMsg:
		// The detail pane reads the level from the driver.
		m.modules.list.InvalidateDetail()
		return nil
	case configReloadedMsg:
		return m.reloaded(msg)
	case devLoadedMsg:
		return m.devLoaded(msg)
	case devChangedMsg:
		return m.devChanged(msg)
	case devDescribedMsg:
		return m.devDescribed(msg)
	case rerunCheckedMsg:
		return m.rerunAfterCheck(msg)
	case discoverStartMsg:
		if msg.gen == m.gen && m.modules.discovering {
			m.modules.StartDiscovery(msg.total)
		}
		return nil
	case moduleFoundMsg:
		if msg.gen == m.gen && m.modules.discovering {
			m.modules.AddModules(msg.modules)
		}
		return nil
	case planMsg:
		return m.planned(msg)
	case runEventMsg:
		if r, ok := m.runs[msg.id]; ok {
			r.event(msg.ev)
		}
		if msg.ev.Log != nil {
			// The server's log in its detail pane grew.
			m.modules.list.InvalidateDetail()
		}
		return nil
	case runTickMsg:
		if r, ok := m.runs[msg.id]; ok && !r.done {
			return m.tick(msg.id)
		}
		return nil
	case runDoneMsg:
		return m.finished(msg)
	case followTickMsg:
		return m.followTick(msg)
	case followedMsg:
		return m.followed(msg)
	case surfaceEvent:
		return m.surfaceEvent(msg)
	case elicitMsg:
		return m.open(screenElicit, msg.q)
	case elicitGoneMsg:
		m.elicitGone(msg.q)
		return nil
	case savedInputsMsg:
		m.offerInputs(msg)
		return nil
	case formBuiltMsg:
		return m.formBuilt(msg)
	case capSummaryMsg:
		m.capSummaryDone(msg)
		return nil
	case inputSavedMsg:
		return m.inputSaved(msg)
	case draftsKeptMsg:
		return m.draftsKept(msg)
	case viewer.Msg:
		if v, ok := find[*viewerScreen](m); ok {
			act, cmd := v.Update(msg)
			return tea.Batch(cmd, m.act(act))
		}
		return nil
	case viewer.OpenedCopyMsg:
		// The pager or editor was run from the screen on top, which
		// says how it went (not a dialog opened meanwhile).
		act, cmd := m.top().Update(msg)
		return tea.Batch(cmd, m.act(act))
	case agentAskMsg:
		return m.agentAsk(msg)
	case agentAnsweredMsg:
		return m.agentAnswered(msg)
	case agentAskRecheck:
		m.askRecheck = false
		return m.showAgentAsk()
	case graceEndMsg:
		// Nothing to change: the frame drawn after this message is the
		// one without "(wait…)".
		return nil
	case tea.KeyboardEnhancementsMsg:
		m.disambiguated = msg.SupportsKeyDisambiguation()
		return nil
	case tea.KeyPressMsg:
		if esc, next, ok := splitEscape(msg, m.disambiguated); ok {
			// esc and a key close together (two esc presses: back out
			// twice) reached the program as alt+key (escape.go).
			return tea.Batch(m.key(esc), m.key(next))
		}
		return m.key(msg)
	}
	return m.forward(msg)
}

// forward hands other messages (cursor blinks, pastes, an editor's end)
// to what has focus.
func (m *Model) forward(msg tea.Msg) tea.Cmd {
	if len(m.dialogs) > 0 {
		_, cmd := m.dialogs[len(m.dialogs)-1].Update(msg)
		return cmd
	}
	act, cmd := m.top().Update(msg)
	return tea.Batch(cmd, m.act(act))
}

// typing reports whether keys are text for a field or the filter.
func (m *Model) typing() bool {
	if len(m.dialogs) > 0 {
		switch m.dialogs[len(m.dialogs)-1].(type) {
		case *dialog.Prompt, *dialog.Jump:
			return true
		}
		return false
	}
	return m.top().Typing()
}

// key handles a key press: global keys first, then the top dialog, then the
// focused screen.
func (m *Model) key(kp tea.KeyPressMsg) tea.Cmd {
	cmd := m.keyNow(kp)
	m.lastKey = m.com.Now()
	if m.askHeld && !m.typing() {
		// The person left what they typed in: the question opens now.
		return tea.Batch(cmd, m.showAgentAsk())
	}
	return cmd
}

// keyNow handles a key press (key).
func (m *Model) keyNow(kp tea.KeyPressMsg) tea.Cmd {
	m.agentNote = ""
	g := m.keys.Global
	armed := m.quitArmed
	m.quitArmed = false
	switch {
	case key.Matches(kp, g.Interrupt) && !m.keyMsgIsFocus(kp):
		// ctrl+c quits unless what has focus binds it (a run in flight
		// cancels instead); over typed input, it keeps it first.
		return m.interrupt(armed)
	case key.Matches(kp, g.HelpAnywhere):
		m.toggleHelp(false)
		return nil
	case key.Matches(kp, g.Suspend):
		// Runs in flight go on; fg brings the cockpit back as it was.
		return tea.Suspend
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
	if m.opensActivity() && key.Matches(kp, m.keys.Global.Activity) {
		return m.open(screenActivity, nil)
	}
	if m.opensActivity() && key.Matches(kp, m.keys.Global.Jump) {
		return m.openJump()
	}
	if rs, ok := m.top().(*runScreen); ok && (key.Matches(kp, m.keys.Global.Activity) || key.Matches(kp, m.keys.Global.Jump)) {
		// Not a list: say how to get to one rather than do nothing.
		rs.note = kp.String() + " opens from a list: esc first (the run goes on in the background)."
		if !rs.backgroundable() {
			rs.note = kp.String() + " opens from a list, once the run has stopped."
		}
		return nil
	}
	if m.screen() == screenForm && (m.flow.planning || m.justAnswered()) {
		// The input was submitted and its plan (then perhaps an approval
		// dialog) is on its way, or the dialog was just answered: a key
		// now was typed for the dialog, and changes nothing, as in the
		// dialog's grace period.
		return nil
	}
	act, cmd := m.top().Update(kp)
	return tea.Batch(cmd, m.act(act))
}

// justAnswered reports whether the form on top is the one an approval
// dialog was answered over, less than dialog.GracePeriod ago.
func (m *Model) justAnswered() bool {
	f := m.form()
	return f != nil && f == m.approvalForm && m.com.Now().Sub(m.approvalClosed) < dialog.GracePeriod
}

// act carries out what the focused screen asked.
func (m *Model) act(a Action) tea.Cmd {
	switch a := a.(type) {
	case actionOpen:
		return m.open(a.kind, a.arg)
	case actionPop:
		m.pop()
		return m.backOnTop()
	case actionQuit:
		return m.quit()
	case actionRediscover:
		return m.reload()
	case actionSubmit:
		return m.submit(a.input, a.unchecked)
	case actionSavePreset:
		m.flow.presetInput = a.input
		m.flow.presetPrompt = true
		m.dialogs = append(m.dialogs, dialog.NewPrompt(m.com, "Save this input as preset named", ""))
	case actionRerun:
		// A fresh plan: a new request id, and approval asked again unless
		// the session covers it.
		if _, ok := find[*formScreen](m); ok && m.flow.lastInput != nil {
			// The module is checked first: a re-run never goes out with
			// a descriptor its files no longer give (rerun.go).
			if cmd := m.rerunChecked(); cmd != nil {
				return cmd
			}
			m.popTo(screenForm)
			return m.submit(m.flow.lastInput, m.flow.lastUnchecked)
		}
		return m.rerunFromResult()
	case actionHistory, actionPin, actionDeleteRun:
		return m.historyAction(a)
	case actionOpenRun, actionCancelJob:
		return m.activityAction(a)
	case actionFollowJob:
		return m.followJob(a.id)
	case actionSend:
		return m.sendTo(a)
	case actionAcceptTool:
		return m.confirmAcceptTool(a)
	case actionAskSaveDir:
		m.dialogs = append(m.dialogs, dialog.NewPrompt(m.com, "Save a copy into directory", a.dir).SetHint(saveHint(a.base)))
	default:
		if cmd, ok := m.surfaceAct(a); ok {
			return cmd
		}
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

// dialogAction carries out what the top dialog answered; then the next
// agent's question waiting, if any, opens.
func (m *Model) dialogAction(act dialog.Action) tea.Cmd {
	if act == nil {
		return nil
	}
	top := m.dialogs[len(m.dialogs)-1]
	m.dialogs = m.dialogs[:len(m.dialogs)-1]
	if _, ok := top.(*dialog.Approval); ok {
		m.approvalClosed, m.approvalForm = m.com.Now(), m.form()
	}
	if ap, ok := top.(*dialog.Approval); ok && ap.Ask() != "" {
		if _, later := act.(dialog.ActionClose); later {
			// Put off: the question waits in A, unanswered.
			if m.agentLater == nil {
				m.agentLater = map[string]bool{}
			}
			m.agentLater[ap.Ask()] = true
			m.agentNote = "The agent's question " + ap.Ask() + " waits in A (activity): enter there opens it."
			return m.showAgentAsk()
		}
		d := approval.Deny
		if a, ok := act.(dialog.ActionApprove); ok {
			d = approval.Once
			if a.Scope == dialog.ScopeSession {
				d = approval.Session
			}
		}
		return m.answerAgent(ap.Ask(), d)
	}
	return tea.Batch(m.closedDialog(top, act), m.showAgentAsk())
}

// closedDialog carries out what top, just closed, answered.
func (m *Model) closedDialog(top dialog.Dialog, act dialog.Action) tea.Cmd {
	if _, ok := top.(*dialog.Confirm); ok {
		yes := m.confirmYes
		m.confirmYes = nil
		if _, ok := act.(dialog.ActionApprove); ok && yes != nil {
			return yes()
		}
		return nil
	}
	if _, ok := top.(*dialog.Prompt); ok && m.flow.presetPrompt {
		m.flow.presetPrompt = false
		if a, ok := act.(dialog.ActionSubmitText); ok {
			return m.flow.saveInput(a.Value, m.flow.presetInput, m.com.Now())
		}
		return nil
	}
	switch a := act.(type) {
	case dialog.ActionJump:
		return m.jump(a.Index)
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
		var record tea.Cmd
		if ap, _ := top.(*dialog.Approval); ap != nil {
			record = m.recordDenied(ap.Plan())
			ap.Plan().Discard() // a handoff's directory, made for a run that will not happen
		}
		if f := m.form(); f != nil {
			f.SetNote("Denied: the call was not run.")
		}
		m.popTo(screenForm)
		return record
	case dialog.ActionSubmitText:
		if v, ok := find[*viewerScreen](m); ok {
			return v.v.Save(a.Value)
		}
	}
	return nil
}

// View draws the header, the focused screen (or the top dialog) and the
// help bar.
func (m *Model) View() tea.View {
	body, help := m.draw()
	if common.Lines(body)+common.Lines(help)+1 != m.com.Height {
		// Drawing the body changed what the help shows (a detail pane
		// that now scrolls adds its keys): size the screens for the help
		// as it is now and draw again, so the frame fills the terminal.
		m.layout()
		body, help = m.draw()
	}
	frame := m.header() + "\n" + body + "\n" + help
	if m.com.ASCII {
		// One place translates every glyph, the renderers' too.
		frame = styles.FitASCII(frame, m.com.Width)
	}
	v := tea.NewView(frame)
	v.AltScreen = true
	v.WindowTitle = m.windowTitle
	return v
}

// draw returns the body, fitted to the height the help bar leaves, and
// the help bar. The help bar is drawn after the body: a dialog's View
// decides whether its scroll keys apply.
func (m *Model) draw() (body, help string) {
	w := m.com.Width
	h := m.bodyHeight()
	body = m.top().View()
	if len(m.dialogs) > 0 {
		body = dialog.Place(w, h, m.dialogs[len(m.dialogs)-1].View(w, h))
	}
	body = common.FitWidth(common.FitHeight(body, h), w)
	if n := common.Lines(body); n < h {
		body += strings.Repeat("\n", h-n)
	}
	return body, m.helpView()
}

// header is the title line with where the person is: each screen on the
// stack adds its crumb.
func (m *Model) header() string {
	st := m.com.Styles
	crumbs := []string{st.Title.Render("modbay")}
	for i, s := range m.stack {
		if c := s.Crumb(i == len(m.stack)-1); c != "" {
			crumbs = append(crumbs, c)
		}
	}
	return common.Trunc(strings.Join(crumbs, st.Muted.Render(" › "))+m.jobsBadge()+m.devBadge()+m.agentBadge()+m.agentNoteView(), m.com.Width)
}

func moduleName(mod *runner.Module) string {
	if mod.Descriptor != nil && mod.Descriptor.Name != "" {
		return mod.Descriptor.Name
	}
	return mod.ID
}

// recordDenied records a denied call in the history as not run (its
// verdict history.DeniedDetail), so the history says what was refused.
func (m *Model) recordDenied(p *runner.Plan) tea.Cmd {
	s := m.history
	if s == nil || p == nil || p.Module == nil {
		return nil
	}
	o := m.flow.beginOptions(p, false)
	return func() tea.Msg {
		_ = s.RecordDenied(p, o)
		return nil
	}
}
