package ui

import (
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"modbay/history"
	"modbay/runner"
)

// Following a run of another process (an agent's call through modbay mcp
// serve, a job another modbay polls): its run view reads the run's live
// events (history.Store.ReadLive) and its record every followEvery, off
// Update, while the view is on the stack; the record's outcome replaces
// the view with the result. Leaving the view stops the reading and
// forgets the run, so opening it again reads it afresh.

// followEvery is how often a followed run is read.
const followEvery = 250 * time.Millisecond

// following is a followed run's reading state.
type following struct {
	// source is where the run comes from (the record's source).
	source string
	// next is the live events' offset to read from.
	next int64
	// cut says the run wrote more events than the history keeps live.
	cut bool
}

// Messages of a followed run, routed by its id.
type (
	followTickMsg struct{ id string }
	followedMsg   struct {
		id   string
		live history.Live
		// rec is the record as read now (nil when it could not be).
		rec *history.Record
	}
)

// followRecord opens rec (running in another process) as a followed run.
func (m *Model) followRecord(rec *history.Record, mod *runner.Module) tea.Cmd {
	rv := &runView{com: m.com, id: rec.RunID, plan: rec.Plan(mod), cancel: func() {}, started: rec.Started,
		follow: &following{source: rec.Source}}
	rv.job = recordJob(rec)
	m.keepRun(rv)
	return tea.Batch(m.open(screenRun, rec.RunID), m.readFollowed(rec.RunID, 0), m.tick(rec.RunID), m.spinner.Tick)
}

// readFollowed reads run id's live events from off, then its record.
func (m *Model) readFollowed(id string, off int64) tea.Cmd {
	st := m.history
	if st == nil {
		return nil
	}
	return func() tea.Msg {
		live, _ := st.ReadLive(id, off)
		rec, _ := st.Get(id)
		return followedMsg{id: id, live: live, rec: rec}
	}
}

// followed applies a reading: the events, the job as recorded, and the
// outcome once recorded (the result replaces the run view). A run no
// screen shows any more stops being read and is forgotten.
func (m *Model) followed(msg followedMsg) tea.Cmd {
	r, ok := m.runs[msg.id]
	if !ok || r.follow == nil || r.done {
		return nil
	}
	if !m.showsRun(msg.id) {
		m.forgetRun(msg.id)
		return nil
	}
	r.follow.next = msg.live.Next
	r.follow.cut = r.follow.cut || msg.live.Cut
	for _, ev := range msg.live.Events {
		r.event(ev)
	}
	rec := msg.rec
	if rec != nil {
		if j := recordJob(rec); j != nil && (r.job == nil || j.Polls >= r.job.Polls) {
			r.job = j
		}
	}
	if rec == nil || rec.Status == history.StatusRunning {
		id := msg.id
		return tea.Tick(followEvery, func(time.Time) tea.Msg { return followTickMsg{id: id} })
	}
	r.done = true
	r.result = rec.Result()
	if rec.Status == history.StatusInterrupted {
		r.result.Host = &runner.HostError{Code: string(rec.Status), Detail: "no outcome recorded: the process running it ended without one"}
	}
	if r.result.Stderr == "" {
		r.result.Stderr = r.stderrTail()
	}
	var reload tea.Cmd
	if _, ok := find[*historyScreen](m); ok {
		reload = m.loadHistory()
	}
	for _, s := range m.stack {
		if rs, ok := s.(*runScreen); ok && rs.run == r {
			return tea.Batch(m.replace(rs, screenResult, msg.id), reload)
		}
	}
	return reload
}

// followTick reads run id again, unless it is no longer followed.
func (m *Model) followTick(msg followTickMsg) tea.Cmd {
	r, ok := m.runs[msg.id]
	if !ok || r.follow == nil || r.done {
		return nil
	}
	if !m.showsRun(msg.id) {
		m.forgetRun(msg.id)
		return nil
	}
	return m.readFollowed(msg.id, r.follow.next)
}

// forgetRun drops run id from the runs kept.
func (m *Model) forgetRun(id string) {
	delete(m.runs, id)
	m.runOrder = slices.DeleteFunc(m.runOrder, func(x string) bool { return x == id })
	if m.lastRun == id && len(m.runOrder) > 0 {
		m.lastRun = m.runOrder[len(m.runOrder)-1]
	}
}

// recordJob is rec's job as a poll's status, nil without one.
func recordJob(rec *history.Record) *runner.JobStatus {
	j := rec.Job
	if j == nil || j.ID == "" {
		return nil
	}
	return &runner.JobStatus{ID: j.ID, State: j.State, Percent: j.Percent, Detail: j.Detail, Polls: j.Polls}
}
