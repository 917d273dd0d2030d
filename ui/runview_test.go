package ui

import (
	"strings"
	"testing"

	"modbay/runner"
)

// TestRunViewShowsProgressAndLogs: an MCP server's progress (percent and
// message) and log messages show on the run screen as they arrive,
// sanitized.
func TestRunViewShowsProgressAndLogs(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	openForm(t, m, 1)
	rv := newRunView(m.com, &runner.Plan{Module: m.formModule, Capability: m.formCap}, func() {})
	m.keepRun(rv)
	m.push(&runScreen{com: m.com, keys: m.keys.Run, run: rv, sp: &m.spinner})
	pct := 40.0
	m.Update(runEventMsg{id: rv.id, ev: runner.Event{Progress: &runner.Progress{Percent: &pct, Message: "step 2 of 5"}}})
	m.Update(runEventMsg{id: rv.id, ev: runner.Event{Log: &runner.LogLine{Level: "warning", Text: "disk \x1b[31mlow"}}})
	f := frame(t, m)
	for _, want := range []string{"40% [████████", "step 2 of 5", "warning disk ␛[31mlow"} {
		if !strings.Contains(f, want) {
			t.Errorf("the run screen lacks %q:\n%s", want, f)
		}
	}
	if strings.Contains(f, "\x1b[31m") {
		t.Errorf("a log message's escape reached the screen:\n%s", f)
	}
}
