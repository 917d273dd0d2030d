package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"modbay/history"
	"modbay/modproto"
	"modbay/runner"
	"modbay/ui/internal/uitest"
)

// agentCall begins an agent's call of the listed fake.report as a serve
// process would (its lock held, live events on), started at the test
// clock's epoch.
func agentCall(t *testing.T, m *Model) *history.Run {
	t.Helper()
	var mod *runner.Module
	for _, x := range m.modules.modules {
		if x.ID == "fake" {
			mod = x
		}
	}
	p := &runner.Plan{Module: mod, Capability: *mod.Descriptor.Capability("fake.report"),
		Request: modproto.Request{RequestID: "req_00000000000000000000000000000042", Capability: "fake.report", Input: json.RawMessage(`{}`), DeadlineMS: 60000}}
	run, err := m.history.Begin(p, history.BeginOptions{Source: history.SourceMCPServe, Client: "claude-code", Live: true, Approved: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.history.Update(p.Request.RequestID, func(r *history.Record) error { r.Started = uitest.Epoch; return nil }); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Finish(nil, nil) })
	return run
}

// openFollowed opens the running agent call from A and reads it once.
func openFollowed(t *testing.T, m *Model, id string) {
	t.Helper()
	_, cmd := m.Update(uitest.Key("A"))
	m.Update(cmd()) // the history's listing
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "1 running") {
		t.Fatalf("A does not list the agent's call:\n%s", out)
	}
	_, cmd = m.Update(uitest.Key("enter"))
	m.Update(cmd()) // the record: a followed run view
	if m.screen() != screenRun {
		t.Fatalf("enter opened %s", m.screen())
	}
	m.Update(m.readFollowed(id, 0)())
}

// An agent's call opened from A is the live run view: its stderr,
// progress and pid as the serve process writes them, read again on each
// tick, with no cancel offered (another process runs it); the outcome
// replaces it with the result.
func TestFollowsAnAgentsCallLive(t *testing.T) {
	m := historyModel(t, nil, 80, 24, nil)
	run := agentCall(t, m)
	id := run.ID()
	pct := 33.0
	run.Event(runner.Event{PID: 4242})
	run.Event(runner.Event{Stderr: []byte("step 1 of 3\n\x1b[2Jstep 2 of 3\n")})
	run.Event(runner.Event{Progress: &runner.Progress{Percent: &pct, Message: "converting"}})
	openFollowed(t, m, id)
	out := ansi.Strip(frame(t, m))
	for _, want := range []string{"running in modbay mcp serve", "step 1 of 3", "␛[2Jstep 2 of 3", "33%", "converting", "4242", "cannot stop it"} {
		if !strings.Contains(out, want) {
			t.Errorf("the followed run lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ctrl+c cancels") || strings.Contains(out, "ctrl+c stop") {
		t.Errorf("a cancel is offered for another process's run:\n%s", out)
	}
	golden.RequireEqual(t, []byte(frame(t, m)))

	// The next tick reads only what is new.
	run.Event(runner.Event{Stderr: []byte("step 3 of 3\n")})
	_, cmd := m.Update(followTickMsg{id: id})
	if cmd == nil {
		t.Fatal("the tick read nothing")
	}
	m.Update(cmd())
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "step 3 of 3") || strings.Count(out, "step 1 of 3") != 1 {
		t.Errorf("after a tick:\n%s", out)
	}

	// The outcome: the result takes the run view's place.
	if _, err := run.Finish(&runner.Result{RequestID: id, Module: "fake", Capability: "fake.report",
		Envelope: &modproto.Envelope{OK: true, Result: json.RawMessage(`{"words":12}`)}}, nil); err != nil {
		t.Fatal(err)
	}
	_, cmd = m.Update(followTickMsg{id: id})
	m.Update(cmd())
	if m.screen() != screenResult {
		t.Fatalf("after the outcome the screen is %s", m.screen())
	}
	if _, cmd := m.Update(followTickMsg{id: id}); cmd != nil {
		t.Error("a finished run is still read")
	}
}

// Leaving a followed run (esc: it goes on) stops the reading and forgets
// it; the activity view, back on top, reads the sessions and the history
// at once (the call finished meanwhile) and keeps reading.
func TestLeavingAFollowedRunStopsReading(t *testing.T) {
	m := historyModel(t, nil, 100, 30, nil)
	run := agentCall(t, m)
	id := run.ID()
	openFollowed(t, m, id)
	rs := m.top().(*runScreen)
	if !rs.backgroundable() || rs.cancellable() {
		t.Fatalf("followed run: back %v, cancel %v", rs.backgroundable(), rs.cancellable())
	}
	// A serve call finished meanwhile: coming back reads at once.
	run.Finish(&runner.Result{RequestID: id, Envelope: &modproto.Envelope{OK: true, Result: json.RawMessage(`{}`)}}, nil)
	_, back := m.Update(uitest.Key("esc"))
	if m.screen() != screenActivity {
		t.Fatalf("esc went to %s", m.screen())
	}
	if _, cmd := m.Update(followTickMsg{id: id}); cmd != nil {
		t.Error("the run is still read once left")
	}
	if _, ok := m.runs[id]; ok {
		t.Error("a run left is still kept as followed")
	}
	as := m.top().(*activityScreen)
	if _, cmd := m.Update(activityTick{s: as, gen: as.gen - 1}); cmd != nil {
		t.Error("the chain of readings from before is not dropped")
	}
	if back == nil {
		t.Fatal("coming back to the activity view read nothing")
	}
	msg := back()
	if _, ok := msg.(activityReadMsg); !ok {
		t.Fatalf("coming back brought %T", msg)
	}
	_, next := m.Update(msg)
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "0 running · 1 finished") {
		t.Errorf("the activity view is stale once back:\n%s", out)
	}
	if next == nil {
		t.Error("no next reading scheduled")
	}
	// Opened again once finished: its result.
	_, cmd := m.Update(uitest.Key("enter"))
	m.Update(cmd())
	if m.screen() != screenResult {
		t.Errorf("reopened a finished call: %s", m.screen())
	}
}
