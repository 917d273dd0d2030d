package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
)

// runTick is how often the run view's elapsed time is redrawn.
const runTick = 100 * time.Millisecond

// maxKeptRuns bounds the finished runs the root keeps by id (each keeps
// its result and a bounded stderr tail) once no screen shows them.
const maxKeptRuns = 32

// startRun runs plan in the background and shows its run screen; events
// and the result come back as messages carrying its request id, so the run
// goes on (and ends) whatever screen has the focus. approved says the
// plan needed approval and got it (the dialog, or the session's allow);
// the history records it as given.
func (m *Model) startRun(p *runner.Plan, approved bool) tea.Cmd {
	ctx, cancel := context.WithCancel(m.ctx)
	rv := newRunView(m.com, p, cancel)
	id := rv.id
	m.keepRun(rv)
	open := m.open(screenRun, id)
	b := m.backend
	if b == nil {
		cancel()
		return open
	}
	events := func(ev runner.Event) {
		if send := m.send.Load(); send != nil {
			(*send)(runEventMsg{id: id, ev: ev})
		}
	}
	hist, opts := m.history, m.flow.beginOptions(p, approved)
	xr, _ := b.(exchangeRecorder)
	// runWith runs the plan, recording its raw exchange when the backend
	// can (the result's x).
	runWith := func(ev func(runner.Event)) (*runner.Result, *exchangeArg, error) {
		if xr == nil {
			res, err := b.Run(ctx, p, approved, ev)
			return res, nil, err
		}
		x := runner.NewExchange()
		res, err := xr.RunWith(ctx, p, runner.RunOptions{Approved: approved, Events: ev, Record: x.Recorder(),
			Elicit: m.elicitor(id, p.Module)})
		calls := x.Calls()
		if !recorded(calls) {
			return res, nil, err
		}
		// The copy lines are built (and the request file saved) only if
		// the person opens the exchange (x).
		mk := func() runner.CopyLines { return xr.CopyLines(p, runner.ModuleRef(p.Module), planInput(p), calls) }
		return res, &exchangeArg{requestID: id, calls: calls, makeCopy: mk}, err
	}
	run := func() tea.Msg {
		defer cancel()
		if !m.inflight.enter() {
			return runDoneMsg{id: id, err: context.Canceled}
		}
		defer m.inflight.leave()
		if hist != nil {
			// Recorded from its start; a failure to record never stops
			// the run.
			if rec, herr := hist.Begin(p, opts); herr == nil {
				res, x, err := runWith(rec.Events(events))
				rec.Finish(res, err)
				return runDoneMsg{id: id, result: res, err: err, exchange: x}
			}
		}
		res, x, err := runWith(events)
		return runDoneMsg{id: id, result: res, err: err, exchange: x}
	}
	return tea.Batch(open, run, m.tick(id), m.spinner.Tick)
}

// planInput is the input as the person gave it: the request's input, or
// for a whole-request schema the value it was split from (its "input"
// and the top-level values beside it, modproto.SplitWholeRequest).
func planInput(p *runner.Plan) json.RawMessage {
	in := p.Request.Input
	if !p.WholeRequest {
		return in
	}
	obj := map[string]json.RawMessage{"input": in}
	for k, v := range p.Request.Extra {
		obj[k] = v
	}
	if b, err := modproto.EncodeJSON(obj); err == nil {
		return b
	}
	return in
}

// keepRun records r by id, forgetting the oldest finished runs that no
// screen shows beyond maxKeptRuns.
func (m *Model) keepRun(r *runView) {
	m.runs[r.id] = r
	m.runOrder = append(m.runOrder, r.id)
	m.lastRun = r.id
	for len(m.runOrder) > maxKeptRuns {
		i := slices.IndexFunc(m.runOrder, func(id string) bool {
			old := m.runs[id]
			return old.done && !m.showsRun(id)
		})
		if i < 0 {
			return
		}
		delete(m.runs, m.runOrder[i])
		m.runOrder = slices.Delete(m.runOrder, i, i+1)
	}
}

// showsRun reports whether a screen on the stack shows run id.
func (m *Model) showsRun(id string) bool {
	for _, s := range m.stack {
		switch s := s.(type) {
		case *runScreen:
			if s.run.id == id {
				return true
			}
		case *resultView:
			if s.res.RequestID == id {
				return true
			}
		}
	}
	return false
}

// run returns the newest run, or nil.
func (m *Model) run() *runView { return m.runs[m.lastRun] }

// tick schedules the next elapsed-time redraw of run id.
func (m *Model) tick(id string) tea.Cmd {
	return tea.Tick(runTick, func(time.Time) tea.Msg { return runTickMsg{id: id} })
}

// finished records the end of the run it belongs to; where its run screen
// is on the stack, its result takes its place.
func (m *Model) finished(msg runDoneMsg) tea.Cmd {
	r, ok := m.runs[msg.id]
	if !ok {
		return nil
	}
	background := !r.done && !m.showsRun(msg.id)
	r.done = true
	res := msg.result
	if res == nil {
		res = &runner.Result{RequestID: msg.id, Host: &runner.HostError{Code: "host.error", Detail: errText(msg.err)}}
		if r.plan.Module != nil {
			res.Module = r.plan.Module.ID
		}
		res.Capability = r.plan.Capability.ID
	}
	r.result = res
	var notice tea.Cmd
	if background && msg.err == nil && reallyFinished(res) {
		notice = m.finishedNotice(res)
	}
	r.exchange = msg.exchange
	var reload tea.Cmd
	if _, ok := find[*historyScreen](m); ok && m.history != nil {
		// The run's record was written before this message was sent: a
		// history on the stack shows it as it ended, not as it was.
		reload = m.loadHistory()
	}
	for _, s := range m.stack {
		if rs, ok := s.(*runScreen); ok && rs.run == r {
			return tea.Batch(m.replace(rs, screenResult, msg.id), m.showRead(msg.id, r.plan, res), reload, notice)
		}
	}
	return tea.Batch(reload, notice)
}

// bell is the terminal bell (BEL), written as is.
const bell = "\a"

// reallyFinished reports whether res is the end of the run's work, not a
// stop of the watching: a cancelled run, a job whose polling stopped
// before a terminal state (its deadline, a quit) did not finish.
func reallyFinished(res *runner.Result) bool {
	if res.Code() == modproto.CodeCancelled {
		return false
	}
	return res.Job == nil || runner.IsTerminalJobState(res.Job.State)
}

// finishedNotice tells the person a background run finished while they
// did something else: the terminal bell, and the window's
// title naming the run and how it ended.
func (m *Model) finishedNotice(res *runner.Result) tea.Cmd {
	how := "done"
	if !res.OK() {
		how = "failed: " + res.Code()
	}
	m.windowTitle = render.SanitizeLine(fmt.Sprintf("modbay: %s %s %s", res.Module, res.Capability, how))
	return tea.Raw(bell)
}

func errText(err error) string {
	if err == nil {
		return "the run returned no result"
	}
	return err.Error()
}
