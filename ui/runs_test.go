package ui

import (
	"testing"

	"modbay/runner"
	"modbay/ui/internal/uitest"
)

// Runs are kept by request id: two runs in flight each get their own
// events, and a run that ends under another screen (or after its screen
// was left) keeps its result without taking the focus.
func TestRunsAreRoutedByID(t *testing.T) {
	m, _ := newTest(t, nil, 80, 24)
	openForm(t, m, 1)
	pa := uitest.Plan(t, m.flow.module)
	pb := uitest.Plan(t, m.flow.module)
	pb.Request.RequestID = "req_second"
	m.startRun(pa, true)
	m.startRun(pb, true)
	a, b := m.runs[pa.Request.RequestID], m.runs["req_second"]
	if a == nil || b == nil || a == b {
		t.Fatalf("runs by id: %v", m.runs)
	}
	if top, ok := m.top().(*runScreen); !ok || top.run != b {
		t.Fatalf("top screen %v, want the second run", m.screen())
	}
	m.Update(runEventMsg{id: a.id, ev: runner.Event{Stderr: []byte("from a\n")}})
	m.Update(runEventMsg{id: b.id, ev: runner.Event{Stderr: []byte("from b\n")}})
	if a.stderrTail() != "from a" || b.stderrTail() != "from b" {
		t.Fatalf("events crossed: a %q, b %q", a.stderrTail(), b.stderrTail())
	}
	if !m.spinning() {
		t.Fatal("no spinner with two runs in flight")
	}
	// The first run ends under the second's screen: its result takes its
	// run screen's place, the focus stays on the run in flight.
	m.Update(runDoneMsg{id: a.id, result: uitest.Result(t, pa, "invoke/success-with-artifact.json")})
	if top, ok := m.top().(*runScreen); !ok || top.run != b {
		t.Fatalf("a finished run took the focus: %v", m.screen())
	}
	if m.stack[len(m.stack)-2].Kind() != screenResult {
		t.Fatalf("the first run's screen did not become its result: %v", m.stack[len(m.stack)-2].Kind())
	}
	// Leave the second run's screen: the run goes on, and its end is
	// recorded without opening anything.
	m.pop()
	before := m.screen()
	m.Update(runDoneMsg{id: b.id, result: uitest.Result(t, pb, "invoke/success-with-artifact.json")})
	if m.screen() != before || !b.done || b.result == nil {
		t.Fatalf("run ended away from its screen: screen %v (was %v), done %v", m.screen(), before, b.done)
	}
	if m.spinning() {
		t.Fatal("spinner still on with every run done")
	}
	// A stale id is dropped.
	m.Update(runDoneMsg{id: "req_unknown"})
	if m.screen() != before {
		t.Fatal("an unknown run's end changed the screen")
	}
}
