package ui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"modbay/history"
	"modbay/runner"
)

// jobsResumedMsg carries the jobs this cockpit took over at start: their
// polling had stopped (a quit, a crash) before they ended.
type jobsResumedMsg struct{ runs []*history.Run }

// jobResumer is a backend that can poll a recorded job again
// (runner.Host.ResumeJob).
type jobResumer interface {
	ResumeJob(ctx context.Context, m *runner.Module, capID, requestID string, job runner.JobStatus, opts runner.RunOptions) (*runner.Result, error)
}

// resumeJobs takes over, once per cockpit, the jobs of the history whose
// polling stopped: each is locked (one poller per job across processes:
// one another process polls is left to it) and polled again.
func (m *Model) resumeJobs() tea.Cmd {
	if m.history == nil || m.resumeStarted {
		return nil
	}
	if _, ok := m.backend.(jobResumer); !ok {
		return nil
	}
	m.resumeStarted = true
	s := m.history
	return func() tea.Msg {
		sums, _, err := s.List()
		if err != nil {
			return jobsResumedMsg{}
		}
		var runs []*history.Run
		for _, x := range sums {
			if x.JobID == "" || runner.IsTerminalJobState(x.JobState) ||
				(x.Status != history.StatusDetached && x.Status != history.StatusInterrupted) {
				continue
			}
			if r, err := s.Resume(x.RunID); err == nil {
				runs = append(runs, r)
			}
		}
		return jobsResumedMsg{runs: runs}
	}
}

// resumed starts polling each job taken over, in the background.
func (m *Model) resumed(msg jobsResumedMsg) tea.Cmd {
	jr, _ := m.backend.(jobResumer)
	var cmds []tea.Cmd
	for _, run := range msg.runs {
		rec := run.Record()
		mod := m.moduleForRecord(&rec)
		if mod == nil || jr == nil || rec.Job == nil {
			run.Abandon()
			continue
		}
		cmds = append(cmds, m.startResume(jr, run, &rec, mod))
	}
	return tea.Batch(cmds...)
}

// startResume polls a recorded job again as a run of this session: kept by
// id, its events and end routed like any run's, shown by no screen until
// the person opens it (the header counts it).
func (m *Model) startResume(jr jobResumer, run *history.Run, rec *history.Record, mod *runner.Module) tea.Cmd {
	ctx, cancel := context.WithCancel(m.ctx)
	rv := &runView{com: m.com, id: rec.RunID, plan: rec.Plan(mod), cancel: cancel, started: rec.Started}
	// A masked id's handle comes from the host's job state; without it
	// the polls fail, and the run says why.
	job, jerr := run.JobStatus()
	shown := job
	shown.Handle, shown.Secrets = "", nil
	rv.job = &shown
	m.keepRun(rv)
	id := rec.RunID
	events := func(ev runner.Event) {
		if send := m.send.Load(); send != nil {
			(*send)(runEventMsg{id: id, ev: ev})
		}
	}
	capID := rec.Capability
	return tea.Batch(func() tea.Msg {
		defer cancel()
		if !m.inflight.enter() {
			run.Abandon()
			return runDoneMsg{id: id, err: context.Canceled}
		}
		defer m.inflight.leave()
		if jerr != nil {
			run.Finish(nil, jerr)
			return runDoneMsg{id: id, err: jerr}
		}
		res, err := jr.ResumeJob(ctx, mod, capID, id, job, runner.RunOptions{Events: run.Events(events)})
		run.Finish(res, err)
		return runDoneMsg{id: id, result: res, err: err}
	}, m.tick(id), m.spinner.Tick)
}

var _ jobResumer = (*runner.Host)(nil)
