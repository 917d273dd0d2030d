package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/history"
	"modbay/internal/words"
	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
	"modbay/ui/common"
	"modbay/ui/dialog"
)

// screenActivity is every run and job in flight or recently finished, from
// every source, pending approvals first (A from every list).
const screenActivity screenKind = "activity"

func init() { register(screenActivity, openActivityScreen) }

// activityRecent is how long a finished run stays in the activity view.
const activityRecent = 15 * time.Minute

// ActivityKeyMap is the activity view's bindings.
type ActivityKeyMap struct {
	Up, Down key.Binding
	// Top and Bottom go to the first and the last entry.
	Top, Bottom key.Binding
	// Open goes to the run: live while in flight, else its result.
	Open key.Binding
	// CancelJob cancels the selected job through its capability's
	// cancel_capability, after asking (docs/protocol.md §16).
	CancelJob key.Binding
	// FollowJob takes over the polling of a job nothing polls.
	FollowJob key.Binding
	Back      key.Binding
}

func defaultActivityKeys() ActivityKeyMap {
	return ActivityKeyMap{
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Top:       key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home/g", "first")),
		Bottom:    key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end/G", "last")),
		Open:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open run")),
		CancelJob: cancelJobKey,
		FollowJob: followJobKey,
		Back:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
	}
}

// cancelJobKey cancels a job (the activity view, a job's run view).
var cancelJobKey = key.NewBinding(key.WithKeys("X"), key.WithHelp("X", "cancel the job"))

// lister is a screen that lists (modules, capabilities, the history, the
// skills): A opens the activity view from each.
type lister interface{ lists() }

func (*moduleList) lists()    {}
func (*capList) lists()       {}
func (*historyScreen) lists() {}
func (*skillsScreen) lists()  {}

// opensActivity reports whether A opens the activity view now: a list has
// the focus, no dialog is open and keys are not text.
func (m *Model) opensActivity() bool {
	_, ok := m.top().(lister)
	return ok && len(m.dialogs) == 0 && !m.typing()
}

// activityPhase orders the entries: pending approvals, then runs in
// flight, then finished ones.
type activityPhase int

const (
	phasePending activityPhase = iota
	phaseRunning
	phaseFinished
)

// activityEntry is one run or job as the activity view shows it. Any
// source of runs fills these (the cockpit's own session, the history's
// jobs polled elsewhere; an agent gateway's the same way): the view
// knows nothing else of where a run comes from. Strings are raw: the
// view sanitizes them.
type activityEntry struct {
	// Source names where the run comes from ("this cockpit", "history").
	Source string
	RunID  string
	Module string
	// Capability is the capability's id.
	Capability string
	Phase      activityPhase
	// Status is the one word of its state ("ok", "running", "detached").
	Status string
	// Started is the run's (a job's: the record's) start; Took its length
	// once finished.
	Started time.Time
	Took    time.Duration
	// Percent is the progress last reported, nil when none.
	Percent *float64
	// Detail is the last progress message or job detail.
	Detail string
	// JobID is the job's handle, "" for a run without one.
	JobID string
	// CancelVia is the capability that cancels the job now ("": the job
	// cannot be cancelled, only no longer followed).
	CancelVia string
	// Unpolled says no process polls the job: F follows it again.
	Unpolled bool
	// Yields says a later source's entry of the run is truer: a job this
	// cockpit stopped following goes on elsewhere, and its record says how.
	Yields bool
}

// activitySource lists the runs one source knows of at now.
type activitySource interface {
	activity(now time.Time) []activityEntry
}

// activityScreen is the activity view: the sources' entries, merged by
// run id (the first source that knows a run wins), sorted by phase then
// newest first, with the selected entry's detail below.
type activityScreen struct {
	com     *common.Common
	keys    ActivityKeyMap
	sources []activitySource
	// entries are as of the last View or key; sel the selected run id.
	entries []activityEntry
	sel     string
	w, h    int
	note    string
	// sessions reads the live agent sessions (Options.AgentSessions, nil
	// without serve); live is the last reading, re-read every
	// sessionsEvery while the view is on top.
	sessions func() []string
	live     []string
	// gen numbers the chain of readings: coming back on top starts a
	// new one at once (backOnTop), and the old chain's tick is dropped.
	gen int
}

// activityReadMsg is one reading for the activity view s: the live agent
// sessions (when s reads them) and the history's runs and jobs (listed,
// when the cockpit has a history); activityTick asks s for the next,
// every sessionsEvery while s is on top.
type (
	activityReadMsg struct {
		s      *activityScreen
		gen    int
		live   []string
		listed bool
		sums   []history.Summary
		err    error
	}
	activityTick struct {
		s   *activityScreen
		gen int
	}
)

func (activityReadMsg) isHistoryMsg() {}
func (activityTick) isHistoryMsg()    {}

// maxActivitySessions bounds the sessions the view lists (T lists all).
const maxActivitySessions = 3

// read reads the live sessions and the history off Update.
func (s *activityScreen) read(st *history.Store) tea.Cmd {
	sessions, gen := s.sessions, s.gen
	return func() tea.Msg {
		msg := activityReadMsg{s: s, gen: gen}
		if sessions != nil {
			msg.live = sessions()
		}
		if st != nil {
			msg.sums, _, msg.err = st.List()
			msg.listed = true
		}
		return msg
	}
}

// openActivityScreen shows the activity of this session and starts
// reading the live agent sessions and the history's jobs in flight and
// recent runs, again every sessionsEvery while the view is on top.
func openActivityScreen(m *Model, _ any) (Screen, tea.Cmd) {
	hs := &historyActivity{m: m}
	s := &activityScreen{com: m.com, keys: m.keys.Activity, sources: []activitySource{agentActivity{m}, sessionActivity{m}, hs},
		sessions: m.opts.AgentSessions}
	s.refresh()
	return s, s.read(m.history)
}

// activityListedMsg is the history's listing for the activity view.
type activityListedMsg struct {
	sums []history.Summary
	err  error
}

func (activityListedMsg) isHistoryMsg() {}

// Kind implements Screen.
func (s *activityScreen) Kind() screenKind { return screenActivity }

// SetSize implements Screen.
func (s *activityScreen) SetSize(w, h int) { s.w, s.h = w, h }

// Typing implements Screen.
func (s *activityScreen) Typing() bool { return false }

// Crumb implements Screen.
func (s *activityScreen) Crumb(bool) string { return "activity" }

// refresh lists every source again, keeping the selection.
func (s *activityScreen) refresh() {
	now := s.com.Now()
	seen := map[string]int{}
	var out []activityEntry
	for _, src := range s.sources {
		for _, e := range src.activity(now) {
			i, ok := seen[e.RunID]
			switch {
			case !ok:
				seen[e.RunID] = len(out)
				out = append(out, e)
			case out[i].Yields:
				out[i] = e
			}
		}
	}
	slices.SortStableFunc(out, func(a, b activityEntry) int {
		if a.Phase != b.Phase {
			return int(a.Phase) - int(b.Phase)
		}
		return b.Started.Compare(a.Started)
	})
	s.recordedTimes(out)
	s.entries = out
	if s.index() < 0 && len(out) > 0 {
		s.sel = out[0].RunID
	}
}

// recordedTimes gives the finished entries the history has a record of
// the record's start and duration: the history and the activity view say
// the same of one run (the record's times are the job's, also for a job
// this cockpit took over, and they include staging).
func (s *activityScreen) recordedTimes(es []activityEntry) {
	byID := map[string]*history.Summary{}
	for _, src := range s.sources {
		if h, ok := src.(*historyActivity); ok {
			for i := range h.sums {
				byID[h.sums[i].RunID] = &h.sums[i]
			}
		}
	}
	for i := range es {
		if x := byID[es[i].RunID]; x != nil && es[i].Phase == phaseFinished && x.Status != history.StatusRunning {
			es[i].Started, es[i].Took = x.Started, time.Duration(x.DurationMS)*time.Millisecond
		}
	}
}

// index is the selected entry's position, -1 when none.
func (s *activityScreen) index() int {
	return slices.IndexFunc(s.entries, func(e activityEntry) bool { return e.RunID == s.sel })
}

// selected is the selected entry, nil when the view is empty.
func (s *activityScreen) selected() *activityEntry {
	if i := s.index(); i >= 0 {
		return &s.entries[i]
	}
	return nil
}

// cancellable reports whether e's job can be cancelled now.
func (e *activityEntry) cancellable() bool {
	return e != nil && e.JobID != "" && e.CancelVia != "" && e.Phase == phaseRunning
}

// Update implements Screen.
func (s *activityScreen) Update(msg tea.Msg) (Action, tea.Cmd) {
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	s.refresh()
	i := s.index()
	switch {
	case key.Matches(kp, s.keys.Back):
		return actionPop{}, nil
	case key.Matches(kp, s.keys.Up) && i > 0:
		s.sel = s.entries[i-1].RunID
	case key.Matches(kp, s.keys.Down) && i >= 0 && i+1 < len(s.entries):
		s.sel = s.entries[i+1].RunID
	case key.Matches(kp, s.keys.Top) && len(s.entries) > 0:
		s.sel = s.entries[0].RunID
	case key.Matches(kp, s.keys.Bottom) && len(s.entries) > 0:
		s.sel = s.entries[len(s.entries)-1].RunID
	case key.Matches(kp, s.keys.Open) && i >= 0:
		return actionOpenRun{id: s.sel}, nil
	case key.Matches(kp, s.keys.CancelJob) && s.selected().cancellable():
		return actionCancelJob{id: s.sel}, nil
	case key.Matches(kp, s.keys.FollowJob) && i >= 0 && s.entries[i].Unpolled:
		return actionFollowJob{id: s.sel}, nil
	}
	return nil, nil
}

// ShortHelp implements help.KeyMap.
func (s *activityScreen) ShortHelp() []key.Binding {
	var b []key.Binding
	if len(s.entries) > 1 {
		b = append(b, s.keys.Up, s.keys.Down)
	}
	if len(s.entries) > 0 {
		b = append(b, s.keys.Open)
	}
	if s.selected().cancellable() {
		b = append(b, s.keys.CancelJob)
	}
	if e := s.selected(); e != nil && e.Unpolled {
		b = append(b, s.keys.FollowJob)
	}
	return append(b, s.keys.Back)
}

// EssentialHelp is what the help bar keeps at any width.
func (s *activityScreen) EssentialHelp() []key.Binding {
	if e := s.selected(); e != nil && e.Unpolled {
		return []key.Binding{s.keys.FollowJob, s.keys.Back} // the way back to the job
	}
	return []key.Binding{s.keys.Back}
}

// FullHelp implements help.KeyMap.
func (s *activityScreen) FullHelp() [][]key.Binding {
	if len(s.entries) > 1 {
		return [][]key.Binding{{s.keys.Up, s.keys.Down, s.keys.Top, s.keys.Bottom}, s.ShortHelp()[2:]}
	}
	return [][]key.Binding{s.ShortHelp()}
}

// View implements Screen: a count line, one row per entry, the selected
// entry's detail.
func (s *activityScreen) View() string {
	s.refresh()
	st := s.com.Styles
	w := max(s.w, 1)
	var pending, running, finished int
	for _, e := range s.entries {
		switch e.Phase {
		case phasePending:
			pending++
		case phaseRunning:
			running++
		default:
			finished++
		}
	}
	head := fmt.Sprintf("%d running · %d finished in the last %d min", running, finished, int(activityRecent.Minutes()))
	if pending > 0 {
		head = fmt.Sprintf("%d waiting for approval · ", pending) + head
	}
	lines := []string{st.Muted.Render(common.Trunc(head, w))}
	if n := len(s.live); n > 0 {
		lines = append(lines, st.Title.Render(common.Trunc(fmt.Sprintf("%d live agent %s (modbay mcp serve):", n, words.Plural(n, "session", "sessions")), w)))
		for _, l := range s.live[:min(n, maxActivitySessions)] {
			lines = append(lines, common.Trunc("  "+render.SanitizeLine(l), w))
		}
		if n > maxActivitySessions {
			lines = append(lines, st.Muted.Render(common.Trunc(fmt.Sprintf("  and %d more (T on the module list lists them all)", n-maxActivitySessions), w)))
		}
	}
	if s.note != "" {
		lines = append(lines, strings.Split(st.Warning.Render(common.FitWidth(common.Wrap(render.SanitizeLine(s.note), w), w)), "\n")...)
	}
	if len(s.entries) == 0 {
		lines = append(lines, "", st.Muted.Render(common.Wrap("Nothing running and nothing finished lately: runs and jobs from the cockpit and the history appear here.", w)))
		return strings.Join(lines, "\n")
	}
	detail := s.detail(w)
	room := max(s.h-len(lines)-common.Lines(detail)-1, 1)
	i := max(s.index(), 0)
	first := max(0, min(i-room/2, len(s.entries)-room))
	for j := first; j < len(s.entries) && j < first+room; j++ {
		lines = append(lines, s.row(&s.entries[j], j == i, w))
	}
	return strings.Join(append(lines, "", detail), "\n")
}

// row draws one entry: mark, state, time, module › capability, progress,
// run id.
func (s *activityScreen) row(e *activityEntry, sel bool, w int) string {
	st := s.com.Styles
	mark := "  "
	if sel {
		mark = "› "
	}
	var when string
	switch e.Phase {
	case phaseFinished:
		when = shortDuration(e.Took)
	default:
		when = s.com.Now().Sub(e.Started).Round(time.Second).String()
	}
	state := render.SanitizeLine(e.Status)
	if e.Percent != nil {
		state += fmt.Sprintf(" %.0f%%", *e.Percent)
	}
	row := fmt.Sprintf("%s%-18s %8s  %s", mark, common.Trunc(state, 18), when, calledText(e.Module, e.Capability))
	if e.Percent != nil && w >= 100 {
		row += "  " + bar(*e.Percent, 20)
	}
	if w >= 120 {
		row += "  " + e.RunID
	}
	row = common.Trunc(row, w)
	if sel {
		return st.Selected.Render(row)
	}
	return row
}

// detail is the selected entry's lines: ids, source, detail, and what
// cancelling does for it.
func (s *activityScreen) detail(w int) string {
	st := s.com.Styles
	e := s.selected()
	if e == nil {
		return ""
	}
	lines := []string{st.Label.Render("run    ") + st.ID.Render(e.RunID) + st.Muted.Render("  from "+render.SanitizeLine(e.Source))}
	if e.JobID != "" {
		lines = append(lines, st.Label.Render("job    ")+st.ID.Render(render.SanitizeLine(e.JobID)))
	}
	if e.Detail != "" {
		lines = append(lines, render.SanitizeLine(e.Detail))
	}
	switch {
	case e.cancellable():
		lines = append(lines, st.Muted.Render("X cancels the job through "+render.SanitizeLine(e.CancelVia)+", after asking; enter follows it"))
	case e.JobID != "" && e.Phase == phaseRunning:
		lines = append(lines, st.Muted.Render("no cancel_capability: the job can only be stopped following, and goes on in the module"))
	}
	return common.FitWidth(common.Wrap(strings.Join(lines, "\n"), w), w)
}

// Actions of the activity view.
type (
	// actionOpenRun opens run id: live while in flight, else its result.
	actionOpenRun struct{ id string }
	// actionCancelJob asks, then cancels run id's job (docs/protocol.md §16).
	actionCancelJob struct{ id string }
)

func (actionOpenRun) isAction()   {}
func (actionCancelJob) isAction() {}

// sessionActivity is this cockpit's own runs (m.runs, jobs taken over at
// start among them) and the approval it waits for.
type sessionActivity struct{ m *Model }

func (a sessionActivity) activity(now time.Time) []activityEntry {
	m := a.m
	var out []activityEntry
	for _, d := range m.dialogs {
		if ap, ok := d.(*dialog.Approval); ok && ap.Plan() != nil && ap.Ask() == "" { // agents' are agentActivity's
			p := ap.Plan()
			out = append(out, activityEntry{Source: "this cockpit", RunID: p.Request.RequestID, Module: moduleName(p.Module),
				Capability: p.Capability.ID, Phase: phasePending, Status: "needs approval", Started: now})
		}
	}
	for _, id := range m.runOrder {
		r, ok := m.runs[id]
		if !ok || r.plan == nil || r.plan.Module == nil || r.follow != nil { // followed: the history's
			continue
		}
		e := activityEntry{Source: "this cockpit", RunID: id, Module: moduleName(r.plan.Module), Capability: r.plan.Capability.ID,
			Started: r.started, Phase: phaseRunning, Status: "running"}
		if r.progress != nil {
			e.Percent, e.Detail = r.progress.Percent, r.progress.Message
		}
		if j := r.job; j != nil {
			e.JobID, e.Status, e.Percent, e.Detail = j.ID, "job "+j.State, j.Percent, j.Detail
			e.CancelVia = m.cancelVia(r.plan.Module.ID, r.plan.Capability.ID)
		}
		if r.cancelling {
			e.Status = "stopping"
		}
		if r.done {
			e.Phase, e.Status = phaseFinished, "done"
			if res := r.result; res != nil {
				e.Status = resultWord(res)
				e.Took = res.Duration
				if !res.Started.IsZero() {
					e.Started = res.Started
				}
			}
			if now.Sub(e.Started.Add(e.Took)) > activityRecent {
				continue
			}
			// A job no longer polled here goes on: the history's record
			// (another process may poll it now) tells its state.
			e.Yields = r.result != nil && stoppedFollowing(r.result)
		}
		out = append(out, e)
	}
	return out
}

// resultWord is a finished run's one word: ok, error, cancelled, a job
// that goes on, or the host's verdict.
func resultWord(res *runner.Result) string {
	switch {
	case res.Job != nil && !runner.IsTerminalJobState(res.Job.State) && res.Host != nil:
		return "detached"
	case jobEndWord(res) != "":
		return jobEndWord(res)
	case res.Host != nil:
		return render.SanitizeLine(res.Host.Code)
	case res.Envelope != nil && res.Envelope.OK:
		return "ok"
	}
	return "error"
}

// jobEndWord is the word of a job that ended other than well, by its
// state ("cancelled", "failed", "error"): a poll that answered ok about a
// cancelled job is not an ok run. "" for no job or one that succeeded.
func jobEndWord(res *runner.Result) string {
	if res.Job == nil || !runner.IsTerminalJobState(res.Job.State) {
		return ""
	}
	switch st := res.Job.State; st {
	case "cancelled", "failed", "error":
		return st
	}
	return ""
}

// stoppedFollowing reports whether res is a job whose polling this
// cockpit stopped while the job goes on (docs/protocol.md §16).
func stoppedFollowing(res *runner.Result) bool {
	return res.Job != nil && !runner.IsTerminalJobState(res.Job.State) && res.Host != nil &&
		res.Host.Code == modproto.CodeCancelled
}

// staleRun reports whether r, kept by this cockpit, may no longer say what
// became of its run: a job it stopped following goes on (the module runs
// it, another process may poll it), so the record is read again; r is then
// forgotten unless a screen shows it.
func (m *Model) staleRun(r *runView) bool {
	if m.history == nil || !r.done || r.result == nil || r.follow != nil || !stoppedFollowing(r.result) {
		return false
	}
	if !m.showsRun(r.id) {
		m.forgetRun(r.id)
	}
	return true
}

// historyActivity is the history's jobs in flight that no run of this
// cockpit follows (detached, or polled by another process) and its runs
// finished lately, once listed.
type historyActivity struct {
	m    *Model
	sums []history.Summary
}

func (a *historyActivity) activity(now time.Time) []activityEntry {
	var out []activityEntry
	for _, x := range a.sums {
		inFlight := x.JobID != "" && !runner.IsTerminalJobState(x.JobState) &&
			(x.Status == history.StatusRunning || x.Status == history.StatusDetached || x.Status == history.StatusInterrupted)
		took := time.Duration(x.DurationMS) * time.Millisecond
		// An agent's call through modbay mcp serve, running in that
		// process (a recent one: an older "running" record's process died).
		agentRunning := x.Source == history.SourceMCPServe && x.JobID == "" && x.Status == history.StatusRunning && now.Sub(x.Started) <= activityRecent
		if !inFlight && !agentRunning && (x.Status == history.StatusRunning || now.Sub(x.Started.Add(took)) > activityRecent) {
			continue
		}
		name := x.Module
		for _, mod := range a.m.modules.modules {
			if mod.ID == x.Module {
				name = moduleName(mod) // as this cockpit's own runs are named
				break
			}
		}
		e := activityEntry{Source: "history (" + x.Source + ")", RunID: x.RunID, Module: name, Capability: x.Capability,
			Phase: phaseFinished, Status: string(x.Status), Started: x.Started, Took: took, JobID: x.JobID, Percent: x.JobPercent}
		if agentRunning {
			e.Phase, e.Took, e.Status = phaseRunning, 0, "running"
		}
		if inFlight {
			e.Phase, e.Took = phaseRunning, 0
			e.Status = "job " + x.JobState
			if x.Status != history.StatusRunning {
				// Nothing polls it: it goes on in the module unwatched.
				e.Detail = "job " + string(x.Status) + ": no modbay process polls it (F follows it here; modbay jobs wait " + x.RunID + " in a shell)"
				e.Unpolled = true
			}
			e.CancelVia = a.m.cancelVia(x.Module, x.Capability)
		}
		out = append(out, e)
	}
	return out
}

// cancelVia is the cancel_capability capID of the listed module modID
// declares now, "" when none (or the module is not listed).
func (m *Model) cancelVia(modID, capID string) string {
	for _, mod := range m.modules.modules {
		if mod.ID == modID && mod.Descriptor != nil {
			if c := mod.Descriptor.Capability(capID); c != nil {
				return c.CancelCapability
			}
		}
	}
	return ""
}

// activityAction carries out the activity view's actions (from act).
func (m *Model) activityAction(a Action) tea.Cmd {
	switch a := a.(type) {
	case actionOpenRun:
		if m.isAgentAsk(a.id) {
			return m.openAgentAsk(a.id)
		}
		if r, ok := m.runs[a.id]; ok && !m.staleRun(r) {
			if !r.done {
				return m.open(screenRun, a.id)
			}
			if r.result != nil {
				return m.open(screenResult, a.id)
			}
		}
		return m.readRecord(a.id, purposeOpen)
	case actionCancelJob:
		return m.planCancel(a.id)
	}
	return nil
}

// activityUpdate routes the activity view's messages.
func (m *Model) activityUpdate(msg historyMsg) tea.Cmd {
	as, _ := find[*activityScreen](m)
	switch msg := msg.(type) {
	case activityReadMsg:
		if as == nil || as != msg.s {
			return nil // the view was closed: its readings stop
		}
		as.live = msg.live
		if msg.listed {
			as.listed(msg.sums, msg.err)
		}
		if msg.gen != as.gen {
			return nil // a newer chain reads on
		}
		gen := as.gen
		return tea.Tick(sessionsEvery, func(time.Time) tea.Msg { return activityTick{s: as, gen: gen} })
	case activityTick:
		if as == nil || as != msg.s || msg.gen != as.gen {
			return nil
		}
		if m.top() != Screen(as) {
			// A run or result is on top: read again once the view is
			// back (backOnTop reads at once).
			gen := as.gen
			return tea.Tick(sessionsEvery, func(time.Time) tea.Msg { return activityTick{s: as, gen: gen} })
		}
		return as.read(m.history)
	case activityListedMsg:
		if as == nil {
			return nil
		}
		as.listed(msg.sums, msg.err)
	case cancelPlannedMsg:
		return m.cancelPlanned(msg)
	case jobCancelledMsg:
		note := jobCancelNote(msg)
		if as != nil {
			as.note = note
		}
		if rs, ok := m.top().(*runScreen); ok && rs.run.id == msg.id {
			rs.note = note
		}
		if as != nil && m.history != nil {
			st := m.history
			return func() tea.Msg {
				sums, _, err := st.List()
				return activityListedMsg{sums: sums, err: err}
			}
		}
	}
	return nil
}

// backOnTop reads the activity view again at once when a pop brought it
// back on top (a run or result left), rather than at the next tick: the
// sessions and runs it shows are as of now, not of when it was left.
func (m *Model) backOnTop() tea.Cmd {
	as, ok := m.top().(*activityScreen)
	if !ok {
		return nil
	}
	as.gen++
	return as.read(m.history)
}

// listed takes the history's runs and jobs as read.
func (s *activityScreen) listed(sums []history.Summary, err error) {
	for _, src := range s.sources {
		if h, ok := src.(*historyActivity); ok {
			h.sums = sums
		}
	}
	if err != nil {
		s.note = "Cannot read the history: " + err.Error()
	}
	s.refresh()
}

// jobCancelNote is what the cockpit says of a cancel's outcome.
func jobCancelNote(msg jobCancelledMsg) string {
	switch {
	case msg.err != nil:
		return "Cancel not sent: " + msg.err.Error()
	case msg.outcome == nil:
		return "Cancel not sent."
	case !msg.outcome.OK:
		return fmt.Sprintf("%s refused to cancel the job: %s %s", msg.outcome.Via, msg.outcome.Code, msg.outcome.Detail)
	case msg.state != "" && runner.IsTerminalJobState(msg.state):
		return fmt.Sprintf("Job cancelled through %s (state %s).", msg.outcome.Via, msg.state)
	case msg.state != "":
		return fmt.Sprintf("Cancel accepted by %s (state %s): the job is stopping.", msg.outcome.Via, msg.state)
	}
	return "Cancel accepted by " + msg.outcome.Via + "."
}

// cancelPlannedMsg is the plan of a job's cancel, ready to confirm.
type cancelPlannedMsg struct {
	id     string
	jobID  string
	module string
	plan   *runner.Plan
	err    error
}

// jobCancelledMsg is a cancel's outcome, recorded.
type jobCancelledMsg struct {
	id      string
	outcome *history.CancelOutcome
	state   string
	err     error
}

func (cancelPlannedMsg) isHistoryMsg() {}
func (jobCancelledMsg) isHistoryMsg()  {}

// planCancel reads run id's record and plans its job's cancel in the
// background (history.PlanCancel).
func (m *Model) planCancel(id string) tea.Cmd {
	st := m.history
	if st == nil {
		return nil
	}
	mods := m.modules.modules
	b := m.backend
	return func() tea.Msg {
		rec, err := st.Get(id)
		if err != nil {
			return cancelPlannedMsg{id: id, err: err}
		}
		mod := recordModule(mods, rec)
		if mod == nil {
			return cancelPlannedMsg{id: id, err: fmt.Errorf("module %s is not listed", rec.Module)}
		}
		p, err := st.PlanCancel(b, mod, rec)
		jobID := ""
		if rec.Job != nil {
			jobID = rec.Job.ID
		}
		return cancelPlannedMsg{id: id, jobID: jobID, module: rec.Module, plan: p, err: err}
	}
}

// recordModule is the module of mods rec ran, by executable then by id.
func recordModule(mods []*runner.Module, rec *history.Record) *runner.Module {
	var byID *runner.Module
	for _, mod := range mods {
		if rec.ModuleExe != "" && mod.Exe == rec.ModuleExe {
			return mod
		}
		if mod.ID == rec.Module && byID == nil {
			byID = mod
		}
	}
	return byID
}

// cancelPlanned asks before cancelling: the confirmation names the job and
// the capability, and the approval the call needs, if any; y is that
// approval (docs/protocol.md §11, §16).
func (m *Model) cancelPlanned(msg cancelPlannedMsg) tea.Cmd {
	if msg.err != nil {
		return m.activityUpdate(jobCancelledMsg{id: msg.id, err: msg.err})
	}
	p := msg.plan
	lines := []string{
		fmt.Sprintf("Calls %s with {\"job_id\": %q}: the module stops the job; this cannot be undone.", p.Capability.ID, msg.jobID),
		"n keeps it running (esc on its run view only stops following).",
	}
	if p.NeedsApproval() {
		lines = append(lines, "", "This call needs approval; y approves it:")
		for _, r := range p.Approval {
			lines = append(lines, "  - "+r)
		}
	}
	m.confirmYes = func() tea.Cmd { return m.runCancel(msg.id, p) }
	m.dialogs = append(m.dialogs, dialog.NewConfirm(m.com, fmt.Sprintf("Cancel job %s of %s?", msg.jobID, msg.module), "cancel the job", lines...))
	return nil
}

// runCancel runs the confirmed cancel and records its outcome
// (history.FinishCancel).
func (m *Model) runCancel(id string, p *runner.Plan) tea.Cmd {
	st, b, ctx := m.history, m.backend, m.ctx
	return func() tea.Msg {
		res, err := b.Run(ctx, p, true, func(runner.Event) {})
		if err != nil {
			return jobCancelledMsg{id: id, err: err}
		}
		out, state, err := st.FinishCancel(id, p, res)
		return jobCancelledMsg{id: id, outcome: out, state: state, err: err}
	}
}
