package ui

import (
	"strings"
	"testing"

	"modbay/runner"
	"modbay/ui/internal/uitest"
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

// logFake is a driver keeping a server's log, as mcp.Driver does.
type logFake struct {
	runner.Driver
	lines []string
}

func (f logFake) LogLines(n int) []string { return f.lines[max(len(f.lines)-n, 0):] }
func (f logFake) LogLevel() string        { return "debug" }

// TestModuleDetailShowsServerLog: a server's log messages, kept between
// calls, show in its detail pane with the level asked for, sanitized.
func TestModuleDetailShowsServerLog(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	mod := *uitest.Module(t)
	mod.Driver = logFake{lines: []string{"12:00:01 info started", "12:00:02 error disk \x1b[2Jfull"}}
	d := moduleDetail(m.com, &mod, 90)
	for _, want := range []string{"Log (level debug and above)", "12:00:01 info started", "12:00:02 error disk ␛[2Jfull"} {
		if !strings.Contains(d, want) {
			t.Errorf("the detail lacks %q:\n%s", want, d)
		}
	}
}
