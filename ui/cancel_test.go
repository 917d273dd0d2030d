package ui

import (
	"strings"
	"testing"

	"modbay/runner"
)

// TestRunViewCancelSaysWhatStops: before a job handle arrives ctrl+c kills
// the run's process tree and the screen says so; once a job is being
// polled ctrl+c stops the polling and the screen (and its help) say the
// job continues in the module, never that it was cancelled.
func TestRunViewCancelSaysWhatStops(t *testing.T) {
	for _, withJob := range []bool{false, true} {
		m, _ := newTest(t, nil, 100, 30)
		openForm(t, m, 1)
		cancelled := false
		rv := newRunView(m.com, &runner.Plan{Module: m.flow.module, Capability: m.flow.cap}, func() { cancelled = true })
		m.keepRun(rv)
		m.push(&runScreen{com: m.com, keys: m.keys.Run, run: rv, sp: &m.spinner})
		if withJob {
			m.Update(runEventMsg{id: rv.id, ev: runner.Event{Job: &runner.JobStatus{ID: "job_42", State: "running"}}})
		}
		before, help := frame(t, m), m.top().(*runScreen).ShortHelp()
		press(m, "ctrl+c")
		if !cancelled {
			t.Fatalf("job %v: ctrl+c did not cancel the run's context", withJob)
		}
		after := frame(t, m)
		want := []string{"ctrl+c cancels the run", "cancel run", "cancelling…", "the module's process tree is being stopped"}
		if withJob {
			want = []string{"ctrl+c stops polling (the job continues in the module)", "stop polling", "stopping polling…", "Polling stops; job job_42 continues in the module."}
		}
		if !strings.Contains(before, want[0]) || len(help) != 2 || help[0].Help().Desc != want[1] || help[1].Help().Key != "esc" { // esc: the background
			t.Errorf("job %v: before ctrl+c:\n%s\nhelp %+v", withJob, before, help)
		}
		if !strings.Contains(after, want[2]) || !strings.Contains(after, want[3]) {
			t.Errorf("job %v: after ctrl+c:\n%s", withJob, after)
		}
	}
}
