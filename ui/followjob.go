package ui

import (
	"errors"
	"fmt"
	"modbay/internal/words"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/history"
	"modbay/runner"
)

// Following a job again: a job this cockpit (or an earlier one) stopped
// polling goes on in the module; F on its result, its row in A or in the
// history takes it over again as the next cockpit does at start
// (resume.go): its record is locked and the job polled in this process.

// followJobKey follows a job again (the result, A, the history).
var followJobKey = key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "follow the job again"))

// actionFollowJob takes over the polling of run id's job.
type actionFollowJob struct{ id string }

func (actionFollowJob) isAction() {}

// followJobMsg is the record of run id locked for polling (run), or why
// it could not be (err).
type followJobMsg struct {
	id  string
	run *history.Run
	err error
}

func (followJobMsg) isHistoryMsg() {}

// unpolled reports whether res is a job whose polling stopped before it
// ended: F follows it again.
func unpolled(res *runner.Result) bool {
	return res != nil && res.Job != nil && res.Job.ID != "" && !runner.IsTerminalJobState(res.Job.State) && res.Host != nil
}

// followJob locks run id's record off Update (history.Store.Resume).
func (m *Model) followJob(id string) tea.Cmd {
	st := m.history
	if st == nil {
		m.sayOnTop("No history in this cockpit: the job cannot be taken over (modbay jobs wait " + id + " polls it).")
		return nil
	}
	if _, ok := m.backend.(jobResumer); !ok {
		m.sayOnTop("This cockpit cannot poll jobs (modbay jobs wait " + id + " does).")
		return nil
	}
	if r, ok := m.runs[id]; ok && !r.done {
		return m.open(screenRun, id) // polled here already
	}
	return func() tea.Msg {
		run, err := st.Resume(id)
		return followJobMsg{id: id, run: run, err: err}
	}
}

// followJobDone polls the locked job in this cockpit and shows its run
// view in place of its result; a job another process polls is followed
// from its record instead.
func (m *Model) followJobDone(msg followJobMsg) tea.Cmd {
	if msg.err != nil {
		if errors.Is(msg.err, history.ErrBusy) {
			return m.readRecord(msg.id, purposeOpen) // another process polls it: follow that
		}
		m.sayOnTop("Cannot follow the job again: " + msg.err.Error())
		return nil
	}
	rec := msg.run.Record()
	mod := m.moduleForRecord(&rec)
	jr, _ := m.backend.(jobResumer)
	if mod == nil || jr == nil || rec.Job == nil {
		msg.run.Abandon()
		m.sayOnTop("Cannot follow the job again: module " + rec.Module + " is not listed.")
		return nil
	}
	var shown Screen
	for _, s := range m.stack {
		if rv, ok := s.(*resultView); ok && rv.res.RequestID == msg.id {
			shown = s
		}
	}
	m.forgetRun(msg.id)
	start := m.startResume(jr, msg.run, &rec, mod)
	if shown != nil {
		return tea.Batch(start, m.replace(shown, screenRun, msg.id))
	}
	return tea.Batch(start, m.open(screenRun, msg.id))
}

// sayOnTop puts note on the screen on top, where it has a note.
func (m *Model) sayOnTop(note string) {
	switch s := m.top().(type) {
	case *activityScreen:
		s.note = note
	case *historyScreen:
		s.note = note
	case *resultView:
		s.copyNote = note
		s.rebuild()
	}
}

// leftNote is what quitting leaves behind, said after the terminal is
// restored: jobs this cockpit polls go on in their modules (their records
// say detached, and the next cockpit takes them over); plain runs in
// flight are cancelled with it. "" when neither.
func (m *Model) leftNote() string {
	jobs, runs := 0, 0
	for _, r := range m.runs {
		switch {
		case r.done || r.follow != nil:
		case r.job != nil:
			jobs++
		default:
			runs++
		}
	}
	var parts []string
	if jobs > 0 {
		parts = append(parts, fmt.Sprintf("%s left running; the next modbay resumes %s (or modbay jobs list).",
			words.Count(jobs, "job", "jobs"), words.Plural(jobs, "it", "them")))
	}
	if runs > 0 {
		parts = append(parts, fmt.Sprintf("%s in flight cancelled.", words.Count(runs, "run", "runs")))
	}
	return strings.Join(parts, " ")
}
