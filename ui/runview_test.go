package ui

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"charm.land/bubbles/v2/key"

	"modbay/runner"
	"modbay/ui/dialog"
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

// TestRunViewSaysArtifactsAreChecked: once the module has answered, the
// run screen says the host is checking its artifacts, not "running".
func TestRunViewSaysArtifactsAreChecked(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	openForm(t, m, 1)
	rv := newRunView(m.com, &runner.Plan{Module: m.flow.module, Capability: m.flow.cap}, func() {})
	m.keepRun(rv)
	m.push(&runScreen{com: m.com, keys: m.keys.Run, run: rv, sp: &m.spinner})
	if f := ansi.Strip(frame(t, m)); !strings.Contains(f, "running Fake Module") {
		t.Fatalf("before the answer:\n%s", f)
	}
	n := 3
	m.Update(runEventMsg{id: rv.id, ev: runner.Event{Staging: &n}})
	if f := ansi.Strip(frame(t, m)); !strings.Contains(f, "answered; checking 3 artifacts") || strings.Contains(f, "running Fake Module") {
		t.Errorf("while staging:\n%s", f)
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

// runningFor leaves m on the run screen of fake.report, approved.
func runningFor(t *testing.T, m *Model) *runner.Plan {
	t.Helper()
	openForm(t, m, 1)
	p := uitest.Plan(t, m.flow.module)
	m.Update(planMsg{seq: m.flow.planSeq, plan: p})
	m.com.Now = func() time.Time { return uitest.Epoch.Add(time.Second) }
	press(m, "a")
	if m.screen() != screenRun {
		t.Fatalf("screen %v after approving, want run", m.screen())
	}
	return p
}

// TestKeysTypedDuringARunReplayOnItsResult: enter typed on the run screen
// just before the result opens the artifact once the result is there; a
// key that starts something (r) is not replayed, nor a key typed long
// before; the result says which were and which were not.
func TestKeysTypedDuringARunReplayOnItsResult(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	p := runningFor(t, m)
	press(m, "G") // long before the result: not replayed
	m.com.Now = func() time.Time { return uitest.Epoch.Add(3 * time.Second) }
	press(m, "r", "enter")
	m.com.Now = func() time.Time { return uitest.Epoch.Add(3500 * time.Millisecond) }
	m.Update(runDoneMsg{id: m.run().id, result: uitest.Result(t, p, "invoke/success-with-artifact.json")})
	if m.screen() != screenViewer {
		t.Fatalf("screen %v, want the viewer the replayed enter opens", m.screen())
	}
	if len(m.dialogs) > 0 {
		t.Fatal("a replayed key opened a dialog")
	}
	if got, want := m.result().typedNote, "Keys typed during the run: replayed enter; not replayed G r."; got != want {
		t.Fatalf("note %q, want %q", got, want)
	}
	press(m, "esc")
	if got := ansi.Strip(frame(t, m)); !strings.Contains(got, "replayed enter; not replayed G r.") {
		t.Fatalf("the result does not say what became of the keys:\n%s", got)
	}
}

// TestKeysTypedDuringARunNeverReachADialog: with a dialog open when the
// result arrives, nothing typed on the run screen is replayed.
func TestKeysTypedDuringARunNeverReachADialog(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	p := runningFor(t, m)
	press(m, "enter", "down")
	m.dialogs = append(m.dialogs, dialog.NewApproval(m.com, p))
	m.Update(runDoneMsg{id: m.run().id, result: uitest.Result(t, p, "invoke/success-with-artifact.json")})
	if m.screen() != screenResult || len(m.dialogs) != 1 {
		t.Fatalf("screen %v, %d dialogs", m.screen(), len(m.dialogs))
	}
	if got := m.result().typedNote; got != "Keys typed during the run: not replayed enter down." {
		t.Fatalf("note %q", got)
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

// closingScreen is a screen that records being closed.
type closingScreen struct {
	Screen
	closed *int
}

func (s closingScreen) Close()           { *s.closed++ }
func (s closingScreen) Kind() screenKind { return screenViewer }

// TestScreensClosedWhenLeft: a screen with work to stop (a viewer's
// renders) is closed when popped, popped past, or replaced.
func TestScreensClosedWhenLeft(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	var n int
	base := m.stack[0]
	m.stack = append(m.stack, closingScreen{Screen: base, closed: &n}, closingScreen{Screen: base, closed: &n})
	m.pop()
	if n != 1 {
		t.Fatalf("pop closed %d", n)
	}
	m.popTo(base.Kind())
	if n != 2 {
		t.Fatalf("popTo closed %d in all", n)
	}
}
