package ui

import (
	"context"
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"

	"modbay/runner"
	"modbay/ui/internal/uitest"
)

// TestRunViewShowsProgressAndLogs: an MCP server's progress (percent and
// message) and log messages show on the run screen as they arrive,
// sanitized.
func TestRunViewShowsProgressAndLogs(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	openForm(t, m, 1)
	rv := newRunView(m.com, &runner.Plan{Module: m.flow.module, Capability: m.flow.cap}, func() {})
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
	for _, want := range []string{"Log (level debug and above, newest first)", "12:00:01 info started", "12:00:02 error disk ␛[2Jfull"} {
		if !strings.Contains(d, want) {
			t.Errorf("the detail lacks %q:\n%s", want, d)
		}
	}
}

// levelFake is a driver taking a log level, as mcp.Driver does.
type levelFake struct {
	runner.Driver
	level *string
}

func (f levelFake) LogLevel() string { return *f.level }
func (f levelFake) SetLogLevel(_ context.Context, l string) error {
	*f.level = l
	return nil
}

// TestLogLevelKey: + and - on an MCP server ask it for the next more or
// less verbose log level, in a command, held at the ends; on a module
// without a server log they are not offered.
func TestLogLevelKey(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	m.Update(modulesMsg{gen: m.gen, modules: uitest.Modules(t)})
	l, ok := m.top().(*moduleList)
	if !ok {
		t.Fatalf("top screen %T", m.top())
	}
	offered := func(k string) bool {
		return slices.ContainsFunc(l.ShortHelp(), func(b key.Binding) bool { return b.Help().Key == k })
	}
	if offered("+") || offered("-") {
		t.Error("+/- offered for a module without a server log level")
	}
	level := "info"
	sel := l.Selected()
	if sel == nil {
		t.Fatal("no module selected")
	}
	sel.Driver = levelFake{level: &level}
	if !offered("+") || !offered("-") {
		t.Error("+/- not offered for an MCP server")
	}
	for _, step := range []struct{ key, want string }{{"+", "debug"}, {"+", "debug"}, {"-", "info"}, {"-", "notice"}} {
		_, cmd := l.Update(uitest.Key(step.key))
		if cmd == nil {
			t.Fatalf("%s gave no command", step.key)
		}
		if msg := cmd(); msg.(logLevelMsg).level != step.want || level != step.want {
			t.Errorf("%s asked for %+v (level now %s), want %s", step.key, msg, level, step.want)
		}
	}
}

// declaredFake is a log driver whose server did not declare logging.
type declaredFake struct{ logFake }

func (declaredFake) LogsDeclared() (bool, bool) { return false, true }

// TestModuleDetailSaysNoLogging: a server that does not declare the
// logging capability is said to send none.
func TestModuleDetailSaysNoLogging(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	mod := *uitest.Module(t)
	mod.Driver = declaredFake{}
	if d := moduleDetail(m.com, &mod, 90); !strings.Contains(d, "does not declare MCP's logging capability") {
		t.Errorf("the detail does not say the server declares no logging:\n%s", d)
	}
}

// liveLogFake is a driver whose server's log grows between calls.
type liveLogFake struct {
	runner.Driver
	lines *[]string
}

func (f liveLogFake) LogLines(n int) []string { return (*f.lines)[max(len(*f.lines)-n, 0):] }
func (f liveLogFake) LogLevel() string        { return "info" }

// TestServerLogBetweenCallsRedraws: a log message that arrives between
// calls reaches the detail pane when the server's ChangeLog does, not
// only on the next selection; it starts no discovery.
func TestServerLogBetweenCallsRedraws(t *testing.T) {
	m, _ := newTest(t, nil, 120, 40)
	mods := uitest.Modules(t)
	lines := []string{"12:00:01 info started"}
	m.Update(modulesMsg{gen: m.gen, modules: mods})
	l := m.top().(*moduleList)
	for i := 0; i < len(mods) && l.Selected().Descriptor == nil; i++ {
		m.Update(uitest.Key("j"))
	}
	sel := l.Selected()
	sel.Driver = liveLogFake{lines: &lines}
	m.modules.list.InvalidateDetail()
	if f := frame(t, m); !strings.Contains(f, "12:00:01 info started") {
		t.Fatalf("the detail lacks the server's log:\n%s", f)
	}
	lines = append(lines, "12:00:05 warning between calls")
	if f := frame(t, m); strings.Contains(f, "between calls") {
		t.Fatalf("the detail changed without a message (the test shows nothing):\n%s", f)
	}
	_, cmd := m.Update(surfaceChangedMsg{module: sel.ID, change: runner.Change{Kind: runner.ChangeLog}})
	if cmd != nil || m.modules.discovering {
		t.Error("a log change started a command (a discovery)")
	}
	if f := frame(t, m); !strings.Contains(f, "12:00:05 warning between calls") {
		t.Errorf("after the log change the detail lacks the new message:\n%s", f)
	}
}
