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
	"modbay/render"
	"modbay/runner"
	"modbay/ui/clipboard"
	"modbay/ui/common"
	"modbay/ui/dialog"
	"modbay/ui/list"
	"modbay/ui/styles"
)

// screenHistory is the run history: every recorded run, newest first.
const screenHistory screenKind = "history"

func init() { register(screenHistory, openHistoryScreen) }

// HistoryKeyMap is the history screen's own bindings, beside the list's.
type HistoryKeyMap struct {
	// Status steps the status filter (all, ok, not ok, in flight).
	Status key.Binding
	// Pin pins or unpins the selected run (pinned runs are never pruned).
	Pin key.Binding
	// Rerun opens the run's form with its input as it was.
	Rerun key.Binding
	// Copy copies the `modbay invoke` line that repeats the run.
	Copy key.Binding
	// Delete deletes the run and frees its artifacts no other run keeps
	// (a pinned run after asking).
	Delete key.Binding
	// FollowJob takes over the polling of a job nothing polls (followjob.go).
	FollowJob key.Binding
	// Back leaves the history.
	Back key.Binding
}

// defaultHistoryKeys are the history screen's bindings; the module list
// opens the history with openHistoryKey.
func defaultHistoryKeys() HistoryKeyMap {
	return HistoryKeyMap{
		Status:    key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "status filter")), // statusKey names the next step
		Pin:       key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pin")),
		Rerun:     key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "re-run")),
		Copy:      key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "copy as command")),
		Delete:    key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "delete run")),
		FollowJob: followJobKey,
		Back:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
	}
}

// openHistoryKey opens the history from the module list.
var openHistoryKey = key.NewBinding(key.WithKeys("H"), key.WithHelp("H", "history"))

// historyScreen lists the recorded runs (newest first) with a filter
// ("/": module, capability, status, code, id or input text; "status:ok",
// "module:notes" match one field), a status filter (s) and the selected
// run's summary beside; enter reopens its result, r opens its form with its input, p pins it.
type historyScreen struct {
	com  *common.Common
	keys HistoryKeyMap
	list *list.Model
	// ticking says a re-read is scheduled (every sessionsEvery while on
	// top: runs recorded by other processes show).
	ticking bool
	// sums are every recorded run, newest first; status is the status
	// filter (statusGroups[status]; 0 all).
	sums   []history.Summary
	status int
	// loaded is false until the first listing arrived; warns are the
	// listing's warnings (damaged records skipped), note a line for the
	// person (a refused re-run, a pin's failure).
	loaded bool
	warns  []string
	note   string
	// none says why there is no history at all ("" when there is one).
	none string
	// live is the root's runs in flight by id, for their current state.
	live func(id string) *runView
	// cols are the rows' column widths for the rows drawn (layout).
	cols historyCols
}

// historyCols are the history rows' columns as layout sized them for
// the rows drawn: the "module › capability" and status cells, and
// whether the run id column fits.
type historyCols struct {
	when, name, status int
	id                 bool
}

// historyFixed is a row's cells before its name but the when column:
// mark, pin, glyph and duration (7) with their gaps.
const historyFixed = 2 + 1 + 1 + 1 + 1 + 7 + 2

// layout sizes the columns for the rows shown in w cells: the name column
// as wide as the widest name drawn, the status column as the widest
// status not ok (none when all are, or when it would cut a name), and
// the run id whole when all that fits; else the name gets what is left.
func (s *historyScreen) layout(shown []list.Item, w int) {
	c := historyCols{when: 7}
	now := s.com.Now()
	for _, it := range shown {
		h := it.(*historyItem)
		c.when = max(c.when, common.Width(words.Ago(now, h.sum.Started))) // "just now" is 8
		c.name = max(c.name, common.Width(h.name()))
		c.status = max(c.status, common.Width(h.status()))
	}
	rest := w - historyFixed - c.when
	if c.status > 0 && c.name+2+c.status > rest {
		c.status = 0 // the name first: the glyph still tells ok, failed, in flight
	}
	if c.status > 0 {
		rest -= c.status + 2
	}
	const idW = 2 + 4 + 32 // "  req_" and 32 hex (docs/protocol.md §1)
	c.id = c.name+idW <= rest
	if !c.id {
		c.name = min(c.name, max(rest, 8))
	}
	s.cols = c
}

// openHistoryScreen shows the history and starts listing it.
func openHistoryScreen(m *Model, _ any) (Screen, tea.Cmd) {
	s := &historyScreen{com: m.com, keys: m.keys.History,
		list: list.New(m.com, m.keys.List, "filter: module, capability, status:ok, input…", "No run matches the filter."),
		live: func(id string) *runView { return m.runs[id] }}
	s.list.SetLayout(s.layout)
	s.list.SetShare(3) // the rows have columns; the detail needs less
	if m.history == nil {
		s.none, s.loaded = "No history: this cockpit has no home to record runs in.", true
		return s, nil
	}
	return s, m.loadHistory()
}

// historyListedMsg is a listing of the history.
type historyListedMsg struct {
	sums  []history.Summary
	warns []string
	err   error
}

// historyRecordMsg is one record read for purpose (open or re-run).
type historyRecordMsg struct {
	purpose historyPurpose
	id      string
	rec     *history.Record
	err     error
}

// historyPinnedMsg reports a pin or unpin.
type historyPinnedMsg struct {
	id     string
	pinned bool
	err    error
}

// historyPurpose is why a record is read.
type historyPurpose int

const (
	purposeOpen historyPurpose = iota
	purposeRerun
	purposeCopy
)

// historyMsg marks the messages the history routes (historyUpdate).
type historyMsg interface{ isHistoryMsg() }

func (historyListedMsg) isHistoryMsg() {}
func (historyRecordMsg) isHistoryMsg() {}
func (historyPinnedMsg) isHistoryMsg() {}
func (historyCopiedMsg) isHistoryMsg() {}

// historyCopiedMsg is a finished copy of a run's command line.
type historyCopiedMsg struct {
	id  string
	res clipboard.Result
	// needsYes: the run needed approval (history.Record.NeedsYes).
	needsYes bool
}

func (jobsResumedMsg) isHistoryMsg() {}

// loadHistory lists the history in the background.
func (m *Model) loadHistory() tea.Cmd {
	s := m.history
	return func() tea.Msg {
		sums, warns, err := s.List()
		return historyListedMsg{sums: sums, warns: warns, err: err}
	}
}

// historyTickMsg asks the history screen s to read the index again.
type historyTickMsg struct{ s *historyScreen }

func (historyTickMsg) isHistoryMsg() {}

// historyTick reads s again in sessionsEvery.
func historyTick(s *historyScreen) tea.Cmd {
	return tea.Tick(sessionsEvery, func(time.Time) tea.Msg { return historyTickMsg{s: s} })
}

// readRecord reads run id's record in the background.
func (m *Model) readRecord(id string, purpose historyPurpose) tea.Cmd {
	s := m.history
	if s == nil {
		return nil
	}
	return func() tea.Msg {
		rec, err := s.Get(id)
		return historyRecordMsg{purpose: purpose, id: id, rec: rec, err: err}
	}
}

// historyUpdate routes a history message.
func (m *Model) historyUpdate(msg historyMsg) tea.Cmd {
	hs, _ := find[*historyScreen](m)
	switch msg := msg.(type) {
	case historyListedMsg:
		if hs != nil {
			hs.setRuns(msg.sums, msg.warns, msg.err)
			if !hs.ticking {
				// Runs other processes record show while the list is open.
				hs.ticking = true
				return historyTick(hs)
			}
		}
	case historyTickMsg:
		if hs == nil || hs != msg.s {
			return nil // closed: the reading stops
		}
		if m.top() != Screen(hs) || m.history == nil {
			return historyTick(hs) // read once it is on top again
		}
		hs.ticking = false
		return m.loadHistory()
	case historyPinnedMsg:
		if msg.err != nil {
			if hs != nil {
				hs.note = "Cannot pin: " + msg.err.Error()
			}
			return nil
		}
		if hs != nil {
			hs.note = "Unpinned " + msg.id + "."
			if msg.pinned {
				hs.note = "Pinned " + msg.id + ": pruning never removes it."
			}
			return m.loadHistory()
		}
	case historyRecordMsg:
		if msg.err != nil {
			if hs != nil {
				hs.note = msg.err.Error()
			}
			return nil
		}
		switch msg.purpose {
		case purposeRerun:
			return m.rerunRecord(msg.rec)
		case purposeCopy:
			return m.copyRecord(msg.rec)
		}
		return m.openRecord(msg.rec)
	case historyDeletedMsg:
		if r, ok := m.runs[msg.id]; msg.err == nil && ok && r.done && !m.showsRun(msg.id) {
			m.forgetRun(msg.id) // deleted: A neither lists nor opens it
		}
		if hs == nil {
			return nil
		}
		if msg.err != nil {
			hs.note = "Not deleted: " + msg.err.Error()
			return nil
		}
		hs.note = fmt.Sprintf("Deleted %s; freed %s (%d bytes).", msg.id, words.Count(msg.d.Artifacts, "artifact", "artifacts"), msg.d.Bytes)
		return m.loadHistory()
	case historyCopiedMsg:
		if hs != nil {
			hs.note = msg.res.Note("the command that repeats " + msg.id)
			if msg.needsYes && msg.res.Err == nil {
				hs.note += "; " + runner.RepeatNeedsYes
			}
		}
	case jobsResumedMsg:
		return m.resumed(msg)
	case followJobMsg:
		return m.followJobDone(msg)
	default:
		return m.activityUpdate(msg)
	}
	return nil
}

// moduleForRecord is the listed module a recorded run ran: the one with
// the recorded executable, else the one with its id, unless that id now
// names another executable (a run of a module loaded by path never goes
// to an installed module of its id: docs/protocol.md §13); an example's
// launcher moves with modbay, so an example is found by id. nil when none.
func (m *Model) moduleForRecord(rec *history.Record) *runner.Module {
	var byID *runner.Module
	for _, mod := range m.modules.modules {
		if mod.ID != rec.Module {
			continue
		}
		if rec.ModuleExe != "" && mod.Exe == rec.ModuleExe {
			return mod
		}
		if byID == nil || (byID.Status == runner.StatusBroken && mod.Status != runner.StatusBroken) {
			byID = mod
		}
	}
	if byID != nil && rec.ModuleExe != "" && byID.Exe != "" && byID.Origin != runner.OriginExamples {
		return nil
	}
	return byID
}

// openRecord reopens a recorded run's result (and through it, its
// artifacts): kept by id like any run of the session.
func (m *Model) openRecord(rec *history.Record) tea.Cmd {
	if r, ok := m.runs[rec.RunID]; ok && !m.staleRun(r) {
		if !r.done {
			return m.open(screenRun, rec.RunID)
		}
		if r.result != nil {
			return m.open(screenResult, rec.RunID)
		}
	}
	mod := m.moduleForRecord(rec)
	if mod == nil {
		mod = &runner.Module{ID: rec.Module}
	}
	if rec.Status == history.StatusRunning && m.history != nil {
		// Another process runs it now (its lock is held): follow it.
		return m.followRecord(rec, mod)
	}
	rv := &runView{com: m.com, id: rec.RunID, plan: rec.Plan(mod), cancel: func() {}, started: rec.Started, done: true, result: rec.Result()}
	if rec.Status == history.StatusRunning || rec.Status == history.StatusInterrupted {
		// Nothing to show but what was recorded: say the outcome is not.
		rv.result.Host = &runner.HostError{Code: string(rec.Status), Detail: "no outcome recorded yet: the run was " + string(rec.Status) + " when last written"}
	}
	m.keepRun(rv)
	return m.open(screenResult, rec.RunID)
}

// copyRecord copies the `modbay invoke` line that repeats rec (its input
// as recorded, secret values masked: history.Record.CommandLine) the
// session's way; the history's note says what became of it once the copy
// has finished, and claims no more than the way used can know.
func (m *Model) copyRecord(rec *history.Record) tea.Cmd {
	hs, _ := find[*historyScreen](m)
	line, ok := rec.CommandLine()
	if !ok {
		if hs != nil {
			hs.note = "Cannot copy a command: inputs are not recorded (history.record_inputs is false)."
		}
		return nil
	}
	if hs != nil {
		hs.note = "Copying the command…"
	}
	id, yes := rec.RunID, rec.NeedsYes()
	return m.viewerEnv.Clipboard.Copy(render.SanitizeLine(line), func(r clipboard.Result) tea.Msg {
		return historyCopiedMsg{id: id, res: r, needsYes: yes}
	})
}

// setRuns shows a listing.
func (s *historyScreen) setRuns(sums []history.Summary, warns []string, err error) {
	s.loaded, s.sums, s.warns = true, sums, warns
	if err != nil {
		s.warns = append(s.warns, err.Error())
	}
	s.refresh()
}

// refresh rebuilds the items the status filter keeps.
func (s *historyScreen) refresh() {
	items := make([]list.Item, 0, len(s.sums))
	for i := range s.sums {
		if statusGroups[s.status].keeps(s.sums[i].Status) {
			items = append(items, &historyItem{s: s, sum: &s.sums[i]})
		}
	}
	s.list.SetItems(items, func(a, b list.Item) bool {
		return a.(*historyItem).sum.RunID == b.(*historyItem).sum.RunID
	})
}

// Kind implements Screen.
func (s *historyScreen) Kind() screenKind { return screenHistory }

// SetSize implements Screen.
func (s *historyScreen) SetSize(w, h int) { s.list.SetSize(w, h) }

// Typing implements Screen.
func (s *historyScreen) Typing() bool { return s.list.Typing() }

// Crumb implements Screen.
func (s *historyScreen) Crumb(bool) string { return "history" }

// selected is the summary under the cursor, or nil.
func (s *historyScreen) selected() *history.Summary {
	if it, ok := s.list.Selected().(*historyItem); ok {
		return it.sum
	}
	return nil
}

// Update implements Screen.
func (s *historyScreen) Update(msg tea.Msg) (Action, tea.Cmd) {
	act, cmd, handled := s.list.Update(msg)
	if a, ok := act.(list.ActionOpen); ok {
		s.note = ""
		return actionHistory{id: a.Item.(*historyItem).sum.RunID, purpose: purposeOpen}, cmd
	}
	kp, isKey := msg.(tea.KeyPressMsg)
	if handled || !isKey {
		return nil, cmd
	}
	if !key.Matches(kp, s.keys.Back) {
		s.note = "" // an action's note says what it did, never an earlier one's
	}
	switch {
	case key.Matches(kp, s.keys.Back):
		return actionPop{}, nil
	case key.Matches(kp, s.keys.Status) && s.loaded && len(s.sums) > 0:
		s.status = s.nextStatus()
		s.refresh()
	case key.Matches(kp, s.keys.Pin):
		if sel := s.selected(); sel != nil {
			return actionPin{id: sel.RunID, pinned: !sel.Pinned}, nil
		}
	case key.Matches(kp, s.keys.Rerun):
		if sel := s.selected(); sel != nil {
			return actionHistory{id: sel.RunID, purpose: purposeRerun}, nil
		}
	case key.Matches(kp, s.keys.Copy):
		if sel := s.selected(); sel != nil {
			return actionHistory{id: sel.RunID, purpose: purposeCopy}, nil
		}
	case key.Matches(kp, s.keys.Delete):
		if sel := s.selected(); sel != nil {
			return actionDeleteRun{id: sel.RunID, pinned: sel.Pinned}, nil
		}
	case key.Matches(kp, s.keys.FollowJob) && unpolledSummary(s.selected()):
		return actionFollowJob{id: s.selected().RunID}, nil
	}
	return nil, nil
}

// unpolledSummary reports whether x is a job in flight that no process
// polls (detached, or interrupted: its poller ended).
func unpolledSummary(x *history.Summary) bool {
	return x != nil && x.JobID != "" && !runner.IsTerminalJobState(x.JobState) &&
		(x.Status == history.StatusDetached || x.Status == history.StatusInterrupted)
}

// statusGroup is one step of the status filter: a name and the statuses
// it keeps (nil: all).
type statusGroup struct {
	name string
	of   []history.Status
}

func (g statusGroup) keeps(st history.Status) bool { return g.of == nil || slices.Contains(g.of, st) }

// statusGroups are the status filter's steps, s going to the next: all,
// ok, not ok (ended other than well, or never run), in flight (running,
// or a job left running). Every status is in one group
// (TestStatusGroupsCoverEveryStatus); /status:NAME filters one status.
var statusGroups = []statusGroup{
	{name: "all"},
	{name: "ok", of: []history.Status{history.StatusOK}},
	{name: "not ok", of: []history.Status{history.StatusError, history.StatusFailed, history.StatusCancelled, history.StatusDenied, history.StatusInterrupted}},
	{name: "in flight", of: []history.Status{history.StatusRunning, history.StatusDetached}},
}

// nextStatus is the status filter's next step that keeps some run (all
// keeps every one): s never lands on an empty list.
func (s *historyScreen) nextStatus() int {
	for i := 1; i < len(statusGroups); i++ {
		n := (s.status + i) % len(statusGroups)
		if n == 0 || slices.ContainsFunc(s.sums, func(x history.Summary) bool { return statusGroups[n].keeps(x.Status) }) {
			return n
		}
	}
	return 0
}

// statusKey is the status filter's binding saying where s goes next.
func (s *historyScreen) statusKey() key.Binding {
	b := s.keys.Status
	b.SetHelp(b.Help().Key, "show "+statusGroups[s.nextStatus()].name)
	return b
}

// Actions of the history screen.
type (
	// actionHistory reads a record to open or re-run it.
	actionHistory struct {
		id      string
		purpose historyPurpose
	}
	// actionPin pins or unpins a run.
	actionPin struct {
		id     string
		pinned bool
	}
	// actionDeleteRun deletes a run after asking (pinned: saying so).
	actionDeleteRun struct {
		id     string
		pinned bool
	}
)

func (actionDeleteRun) isAction() {}

// historyDeletedMsg reports a deletion.
type historyDeletedMsg struct {
	id  string
	d   *history.Deleted
	err error
}

func (historyDeletedMsg) isHistoryMsg() {}

// deleteRun deletes run id in the background (history.Store.Delete).
func (m *Model) deleteRun(id string, pinned bool) tea.Cmd {
	s := m.history
	if s == nil {
		return nil
	}
	return func() tea.Msg {
		d, err := s.Delete(id, pinned)
		return historyDeletedMsg{id: id, d: d, err: err}
	}
}

func (actionHistory) isAction() {}
func (actionPin) isAction()     {}

// historyAction carries out a history screen's action (from act).
func (m *Model) historyAction(a Action) tea.Cmd {
	switch a := a.(type) {
	case actionHistory:
		return m.readRecord(a.id, a.purpose)
	case actionDeleteRun:
		if r, ok := m.runs[a.id]; ok && !r.done {
			// Its lock is this cockpit's own: say so, not "another process".
			if hs, _ := find[*historyScreen](m); hs != nil {
				what := "running"
				if r.job != nil {
					what = "following its job"
				}
				hs.note = "Not deleted: this cockpit is " + what + " (run " + a.id + "); delete it once it has ended."
			}
			return nil
		}
		title, body := "Delete run "+a.id+"?", "Deleting removes its record and the artifacts no other run keeps; this cannot be undone."
		if a.pinned {
			title, body = "Delete pinned run "+a.id+"?", "It is pinned: pruning never removes it. "+body
		}
		m.confirmYes = func() tea.Cmd { return m.deleteRun(a.id, a.pinned) }
		m.dialogs = append(m.dialogs, dialog.NewConfirm(m.com, title, "delete it", body))
	case actionPin:
		s := m.history
		if s == nil {
			return nil
		}
		return func() tea.Msg { return historyPinnedMsg{id: a.id, pinned: a.pinned, err: s.Pin(a.id, a.pinned)} }
	}
	return nil
}

// ShortHelp implements help.KeyMap.
func (s *historyScreen) ShortHelp() []key.Binding {
	b := s.list.ShortHelp()
	if s.list.Typing() {
		return b
	}
	if s.list.Len() > 0 {
		b = append(b, s.keys.Rerun, s.keys.Pin)
	}
	if len(s.sums) > 0 {
		b = append(b, s.statusKey())
	}
	if s.list.Len() > 0 {
		b = append(b, s.keys.Copy)
	}
	if unpolledSummary(s.selected()) {
		b = append(b, s.keys.FollowJob)
	}
	if s.list.FilterValue() != "" {
		return b // esc clears the filter first
	}
	return append(b, s.keys.Back)
}

// EssentialHelp is what the help bar keeps at any width.
func (s *historyScreen) EssentialHelp() []key.Binding {
	if s.list.Len() == 0 {
		return []key.Binding{s.keys.Back}
	}
	return append(s.list.EssentialHelp(), s.keys.Back)
}

// FullHelp implements help.KeyMap.
func (s *historyScreen) FullHelp() [][]key.Binding {
	g := s.list.FullHelp()
	if s.list.Typing() {
		return g
	}
	var own []key.Binding
	if s.list.Len() > 0 {
		own = append(own, s.keys.Rerun, s.keys.Pin, s.keys.Copy, s.keys.Delete)
	}
	if unpolledSummary(s.selected()) {
		own = append(own, s.keys.FollowJob)
	}
	if len(s.sums) > 0 {
		own = append(own, s.statusKey())
	}
	if s.list.FilterValue() == "" {
		// Else esc clears the filter first (the list's group says so).
		own = append(own, s.keys.Back)
	}
	return append(g, own)
}

// View implements Screen: the status filter and the warnings, the
// filter, then the runs and the selected run's summary.
func (s *historyScreen) View() string {
	st := s.com.Styles
	w, h := s.list.Width(), s.list.Height()
	var top []string
	if s.none != "" {
		return st.Muted.Render(s.none)
	}
	if !s.loaded {
		return st.Muted.Render("Reading the history…")
	}
	head := fmt.Sprintf("%d %s recorded", len(s.sums), words.Plural(len(s.sums), "run", "runs"))
	if s.status != 0 {
		head += fmt.Sprintf(" · %d %s (s: %s)", s.list.Len(), statusGroups[s.status].name, statusGroups[s.nextStatus()].name)
	}
	top = append(top, st.Muted.Render(common.Trunc(head, w)))
	if len(s.warns) > 0 {
		wline := render.SanitizeLine(s.warns[0])
		if len(s.warns) > 1 {
			wline += fmt.Sprintf(" (+%d more)", len(s.warns)-1)
		}
		top = append(top, st.Warning.Render(common.Trunc("⚠ "+wline, w)))
	}
	if s.note != "" {
		top = append(top, strings.Split(st.Warning.Render(common.FitWidth(common.Wrap(render.SanitizeLine(s.note), max(w, 1)), w)), "\n")...)
	}
	if f := s.list.FilterView(); f != "" {
		top = append(top, f)
	}
	if len(s.sums) == 0 {
		top = append(top, st.Muted.Render("No runs recorded yet: runs from the cockpit and modbay invoke appear here."))
		return strings.Join(top, "\n")
	}
	return strings.Join(append(top, s.list.PaneView(h-len(top))), "\n")
}

// historyItem is one recorded run as a list item.
type historyItem struct {
	s   *historyScreen
	sum *history.Summary
	// filter is the item's filter value, built once.
	filter string
}

// FilterValue matches the run's fields, "status:ok module:notes
// capability:notes.report code:… id …" and its input's start, lowercase.
func (it *historyItem) FilterValue() string {
	if it.filter == "" {
		x := it.sum
		it.filter = strings.ToLower("status:" + string(x.Status) + " module:" + x.Module + " capability:" + x.Capability +
			" code:" + x.Code + " source:" + history.SourceWord(x.Source) + " " + x.RunID + " " + x.JobID + " " + x.Input +
			" " + render.SanitizeLine(x.Error))
	}
	return it.filter
}

// MatchFilter implements list.Matcher: every word of q must occur in the
// run's fields (FilterValue), in any field and any order, so "notes
// status:error" finds the failed runs of notes.
func (it *historyItem) MatchFilter(q string) bool {
	v := it.FilterValue()
	for _, tok := range strings.Fields(q) {
		if !strings.Contains(v, tok) {
			return false
		}
	}
	return true
}

// statusGlyph marks a status in a row.
func statusGlyph(st history.Status) string {
	switch st {
	case history.StatusOK:
		return "✓"
	case history.StatusError, history.StatusFailed:
		return "✗"
	case history.StatusRunning:
		return "●"
	case history.StatusDetached, history.StatusInterrupted:
		return "◌"
	}
	return "-"
}

// name is the row's "module › capability", sanitized.
func (it *historyItem) name() string {
	return calledText(it.sum.Module, it.sum.Capability)
}

// status is the row's status column: "" for ok, else the status, live
// for a run in flight ("running 42%": the job's percent as last polled).
func (it *historyItem) status() string {
	x := it.sum
	status := string(x.Status)
	if r := it.s.live(x.RunID); r != nil && !r.done {
		status = "running"
		if j := r.job; j != nil && j.Percent != nil {
			status = fmt.Sprintf("running %.0f%%", *j.Percent)
		}
	}
	if status == string(history.StatusOK) {
		return ""
	}
	return status
}

// Row draws the run in columns (layout): pin, status glyph, when,
// duration, module › capability, status when not ok, and the run id
// (what history show and rm take) when it fits whole.
func (it *historyItem) Row(sel bool, w int) string {
	st := it.s.com.Styles
	x := it.sum
	c := it.s.cols
	mark := "  "
	if sel {
		mark = "› "
	}
	pin := " "
	if x.Pinned {
		pin = "*"
	}
	when := words.Ago(it.s.com.Now(), x.Started)
	row := fmt.Sprintf("%s%s%s %*s %7s  ", mark, pin, statusGlyph(x.Status), c.when, when, rowDuration(x))
	row += pad(common.Trunc(it.name(), c.name), c.name)
	if c.status > 0 {
		row += "  " + pad(it.status(), c.status)
	}
	if c.id {
		row += "  " + x.RunID
	}
	row = common.Trunc(strings.TrimRight(row, " "), w)
	if sel {
		return st.Selected.Render(row)
	}
	return row
}

// rowDuration is a row's duration column: how long the run took ("…"
// while it runs), in at most 7 cells.
func rowDuration(x *history.Summary) string {
	if x.Status == history.StatusRunning {
		return "…"
	}
	return shortDuration(time.Duration(x.DurationMS) * time.Millisecond)
}

// shortDuration is d in at most 7 cells ("162ms", "1.2s", "3m05s",
// "2h10m"): the one way the history and the activity view say how long
// a run took.
func shortDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// tookLine is the detail's duration line: how long the run took, or, while it
// is still running, how long it has been going, said so.
func tookLine(label func(...string) string, now time.Time, x *history.Summary) string {
	if x.Status == history.StatusRunning {
		return label("running  ") + "for " + now.Sub(x.Started).Round(time.Second).String() + " so far"
	}
	return label("took     ") + (time.Duration(x.DurationMS) * time.Millisecond).Round(time.Millisecond).String()
}

// Detail is the run as the index knows it (the record is read on open).
func (it *historyItem) Detail(w int) string {
	st := it.s.com.Styles
	x := it.sum
	lines := []string{
		calledTitle(st, x.Module, x.Capability),
		st.Label.Render("run      ") + st.ID.Render(x.RunID),
		st.Label.Render("status   ") + string(x.Status) + codeSuffix(x),
	}
	if x.Error != "" && x.Status != history.StatusOK {
		lines = append(lines, st.Label.Render("error    ")+render.SanitizeLine(x.Error))
	}
	lines = append(lines,
		st.Label.Render("started  ")+x.Started.UTC().Format("2006-01-02 15:04:05 UTC"),
		tookLine(st.Label.Render, it.s.com.Now(), x),
		st.Label.Render("by       ")+render.SanitizeLine(x.Source),
	)
	if x.Pinned {
		lines = append(lines, st.Label.Render("pinned   ")+"never pruned")
	}
	if x.JobID != "" {
		j := render.SanitizeLine(x.JobID) + " " + render.SanitizeLine(x.JobState)
		if x.JobPercent != nil {
			j += fmt.Sprintf(" %.0f%%", *x.JobPercent)
		}
		lines = append(lines, st.Label.Render("job      ")+j)
	}
	if x.Input != "" {
		lines = append(lines, "", st.Subtitle.Render("input"), render.SanitizeLine(x.Input))
	}
	lines = append(lines, "", st.Muted.Render("enter opens the result and its artifacts; r opens its form with the input it had (ctrl+s runs it)"))
	if unpolledSummary(x) {
		lines = append(lines, st.Muted.Render("no modbay process polls the job: F follows it here"))
	}
	return common.FitWidth(common.Wrap(strings.Join(lines, "\n"), max(w, 1)), w)
}

func codeSuffix(x *history.Summary) string {
	if x.Code == "" || x.Status == history.StatusOK {
		return ""
	}
	return " (" + render.SanitizeLine(x.Code) + ")"
}

// calledText is what a run called, sanitized: "<module> › <capability>",
// or for a gateway call refused because it named no tool served (a
// record without a module), "tool <name> (not served)".
func calledText(module, capability string) string {
	if module == "" {
		return "tool " + render.SanitizeLine(capability) + " (not served)"
	}
	return render.SanitizeLine(module) + " › " + render.SanitizeLine(capability)
}

// calledTitle is calledText styled as a detail pane's title.
func calledTitle(st *styles.Styles, module, capability string) string {
	if module == "" {
		return st.Title.Render("tool "+render.SanitizeLine(capability)) + st.Muted.Render(" (not served)")
	}
	return st.Title.Render(render.SanitizeLine(module)) + st.Muted.Render(" › ") + render.SanitizeLine(capability)
}
