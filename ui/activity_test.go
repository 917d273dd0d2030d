package ui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"modbay/history"
	"modbay/modproto"
	"modbay/runner"
	"modbay/ui/dialog"
	"modbay/ui/internal/uitest"
)

// withCancel gives the listed fake module's fake.slow a cancel_capability.
func withCancel(t *testing.T, m *Model) {
	t.Helper()
	for _, mod := range m.modules.modules {
		if mod.ID == "fake" {
			for i := range mod.Descriptor.Capabilities {
				if c := &mod.Descriptor.Capabilities[i]; c.ID == "fake.slow" {
					c.CancelCapability = "fake.cancel"
					return
				}
			}
		}
	}
	t.Fatal("no fake.slow to give a cancel_capability")
}

// activityAt opens the activity view from the module list, its history
// listing loaded.
func activityAt(t *testing.T, b Backend, w, h int) *Model {
	t.Helper()
	m := historyModel(t, b, w, h, seedHistory)
	_, cmd := m.Update(uitest.Key("A"))
	if m.screen() != screenActivity {
		t.Fatalf("A from the module list opened %v", m.screen())
	}
	runCmd(m, cmd)
	return m
}

// TestActivityFromEveryList: A opens the activity view from the module
// list, a module's capabilities and the history, never from a form, where
// it is text; the view lists the jobs in flight first, the runs finished
// lately after, and leaves out older ones.
func TestActivityFromEveryList(t *testing.T) {
	m := activityAt(t, nil, 100, 20)
	out := frame(t, m)
	job, recent := strings.Index(out, "Fake Module › fake.slow"), strings.Index(out, "Fake Module › fake.report")
	if job < 0 || recent < 0 || job > recent || strings.Contains(out, "fake.echo") {
		t.Errorf("want the job in flight first, the run of 5 min ago after, not the one of 2 h ago:\n%s", out)
	}
	golden.RequireEqual(t, []byte(out))

	press(m, "esc")
	press(m, "enter") // the capabilities of fake
	if m.screen() != screenCaps {
		t.Fatalf("enter opened %v", m.screen())
	}
	press(m, "A")
	if m.screen() != screenActivity {
		t.Errorf("A from the capabilities opened %v", m.screen())
	}
	press(m, "esc", "esc", "H")
	press(m, "A")
	if m.screen() != screenActivity {
		t.Errorf("A from the history opened %v", m.screen())
	}
	m, _ = newTest(t, nil, 100, 20)
	openForm(t, m, 0)
	typeText(m, "A")
	if m.screen() != screenForm {
		t.Errorf("A in a form's field opened %v", m.screen())
	}
}

// TestActivityCancelsTheJobAfterAsking: X is offered only for a job whose
// capability declares a cancel_capability; it asks first, n leaves the
// job alone, y calls the cancel and the history then says the job was
// cancelled (docs/protocol.md §16).
func TestActivityCancelsTheJobAfterAsking(t *testing.T) {
	offered := func(m *Model) bool {
		return strings.Contains(strings.Join(helpKeys(m), " "), "X")
	}
	if m := activityAt(t, nil, 100, 20); offered(m) {
		t.Error("X offered for a job without a cancel_capability")
	}

	var planned []string
	fb := &fakeBackend{plan: func(mod *runner.Module, capID string, input json.RawMessage) (*runner.Plan, error) {
		planned = append(planned, capID+" "+string(input))
		c := *mod.Descriptor.Capability("fake.slow")
		c.ID = capID
		return &runner.Plan{Module: mod, Capability: c, Request: modproto.Request{RequestID: modproto.NewRequestID(), Input: input}}, nil
	}, result: &runner.Result{Envelope: &modproto.Envelope{OK: true, Result: json.RawMessage(`{"state":"cancelled"}`)}}}
	m := historyModel(t, fb, 100, 20, seedHistory)
	withCancel(t, m)
	_, cmd := m.Update(uitest.Key("A"))
	runCmd(m, cmd)
	if !offered(m) {
		t.Fatalf("X not offered for a job with a cancel_capability: %v\n%s", helpKeys(m), frame(t, m))
	}
	_, cmd = m.Update(uitest.Key("X"))
	runCmd(m, cmd)
	if len(m.dialogs) != 1 || !isConfirm(m.dialogs[0]) || len(planned) != 1 || planned[0] != `fake.cancel {"job_id":"job_7"}` {
		t.Fatalf("X: dialogs %d planned %v", len(m.dialogs), planned)
	}
	if out := frame(t, m); !strings.Contains(out, "Cancel job job_7 of fake?") || !strings.Contains(out, "fake.cancel") {
		t.Errorf("the question does not say what it cancels:\n%s", out)
	}
	press(m, "n")
	if runs, _, _ := fb.snapshot(); len(m.dialogs) != 0 || runs != 0 {
		t.Fatalf("n: dialogs %d, runs %d", len(m.dialogs), runs)
	}
	_, cmd = m.Update(uitest.Key("X"))
	runCmd(m, cmd)
	_, cmd = m.Update(uitest.Key("y"))
	runCmd(m, cmd)
	if runs, approved, _ := fb.snapshot(); runs != 1 || !approved {
		t.Fatalf("y: runs %d approved %v", runs, approved)
	}
	rec, _ := m.history.Get("req_00000000000000000000000000000003")
	if rec.Status != history.StatusCancelled || rec.Cancel == nil || rec.Cancel.Via != "fake.cancel" || strings.Contains(rec.Host.Detail, "continues") {
		t.Errorf("record after the cancel: status %s cancel %+v verdict %+v", rec.Status, rec.Cancel, rec.Host)
	}
	if out := frame(t, m); !strings.Contains(out, "Job cancelled through fake.cancel (state cancelled).") {
		t.Errorf("the view does not say the job was cancelled:\n%s", out)
	}
}

// TestActivityCancelOfAnEndedJob: the cancel confirmation withdraws when
// the job ends meanwhile, and a cancel answered "succeeded" (too late)
// leaves the record ok and says it came too late, never "cancelled".
func TestActivityCancelOfAnEndedJob(t *testing.T) {
	const id = "req_00000000000000000000000000000003"
	fb := &fakeBackend{plan: func(mod *runner.Module, capID string, input json.RawMessage) (*runner.Plan, error) {
		c := *mod.Descriptor.Capability("fake.slow")
		c.ID = capID
		return &runner.Plan{Module: mod, Capability: c, Request: modproto.Request{RequestID: modproto.NewRequestID(), Input: input}}, nil
	}, result: &runner.Result{Envelope: &modproto.Envelope{OK: true, Result: json.RawMessage(`{"job":{"job_id":"job_7","state":"succeeded"}}`)}}}
	m := historyModel(t, fb, 100, 20, seedHistory)
	withCancel(t, m)
	_, cmd := m.Update(uitest.Key("A"))
	runCmd(m, cmd)

	// y comes too late: the module answers that the job succeeded.
	_, cmd = m.Update(uitest.Key("X"))
	runCmd(m, cmd)
	_, cmd = m.Update(uitest.Key("y"))
	runCmd(m, cmd)
	rec, _ := m.history.Get(id)
	if rec.Status == history.StatusCancelled || (rec.Host != nil && rec.Host.Code == modproto.CodeCancelled) || rec.Cancel == nil ||
		rec.Cancel.Detail != "cancel came too late: the job had succeeded" {
		t.Errorf("record after a late cancel: status %s cancel %+v verdict %+v", rec.Status, rec.Cancel, rec.Host)
	}
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "came too late: the job had succeeded") || strings.Contains(out, "Job cancelled") {
		t.Errorf("the view does not say the cancel came too late:\n%s", out)
	}

	// The job ends while the confirmation is up: it withdraws.
	m = historyModel(t, fb, 100, 20, seedHistory)
	withCancel(t, m)
	_, cmd = m.Update(uitest.Key("A"))
	runCmd(m, cmd)
	_, cmd = m.Update(uitest.Key("X"))
	runCmd(m, cmd)
	if len(m.dialogs) != 1 || !isConfirm(m.dialogs[0]) {
		t.Fatalf("X: dialogs %d", len(m.dialogs))
	}
	if _, err := m.history.Update(id, func(r *history.Record) error {
		r.Status, r.Job.State, r.Host = history.StatusOK, "succeeded", nil
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sums, _, err := m.history.List()
	if err != nil {
		t.Fatal(err)
	}
	m.Update(activityListedMsg{sums: sums})
	if len(m.dialogs) != 0 || m.confirmYes != nil {
		t.Fatalf("the confirmation stayed up after the job ended: dialogs %d", len(m.dialogs))
	}
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "Job job_7 ended (succeeded) before it was cancelled") {
		t.Errorf("the view does not say why the question went:\n%s", out)
	}
	if runs, _, _ := fb.snapshot(); runs != 1 {
		t.Errorf("runs %d: a cancel was sent for the ended job", runs)
	}
}

// helpKeys are the keys the help bar shows now.
func helpKeys(m *Model) []string {
	var out []string
	for _, b := range m.ShortHelp() {
		out = append(out, b.Help().Key)
	}
	return out
}

// TestCtrlZSuspends: ctrl+z hands the terminal back to the shell from any
// screen, a form's field too (tea.Suspend), and the full help lists it.
func TestCtrlZSuspends(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	openForm(t, m, 0)
	_, cmd := m.Update(uitest.Key("ctrl+z"))
	if cmd == nil {
		t.Fatal("ctrl+z did nothing")
	}
	if _, ok := cmd().(tea.SuspendMsg); !ok {
		t.Fatal("ctrl+z does not suspend")
	}
	press(m, "f1")
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "ctrl+z suspend") {
		t.Errorf("the full help does not list ctrl+z:\n%s", out)
	}
}

// The activity view lists the live agent sessions of the home's serve
// processes under its count line, at most three and how many more.
func TestActivityListsAgentSessions(t *testing.T) {
	m := historyModel(t, nil, 100, 24, seedHistory)
	reads := 0
	m.opts.AgentSessions = func() []string {
		reads++
		return []string{"claude-code (stdio, pid 42) since 10:00:00: 3 calls, 1 running", "cursor (stdio, pid 43) since 10:01:00: 0 calls",
			"codex (stdio, pid 44) since 10:02:00: 1 call", "vscode\x1b[2J (http, pid 45) since 10:03:00: 2 calls"}
	}
	_, cmd := m.Update(uitest.Key("A"))
	// One reading: the sessions and the history; the next one is ticked.
	_, tick := m.Update(cmd())
	if tick == nil {
		t.Fatal("no next reading of the sessions")
	}
	out := frame(t, m)
	for _, want := range []string{"4 live agent sessions (modbay mcp serve):", "claude-code (stdio, pid 42)", "codex (stdio, pid 44)", "and 1 more (T on the module list lists them all)"} {
		if !strings.Contains(out, want) {
			t.Errorf("view lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "vscode") || reads != 1 {
		t.Errorf("a fourth session shown, or %d reads:\n%s", reads, out)
	}
	// The tick reads them again while the view is on top.
	if _, next := m.Update(tick()); next == nil {
		t.Error("the tick read nothing")
	} else if m.Update(next()); reads != 2 {
		t.Errorf("%d reads after a tick", reads)
	}
}

// isConfirm reports whether d is a confirmation dialog.
func isConfirm(d dialog.Dialog) bool {
	_, ok := d.(*dialog.Confirm)
	return ok
}

// TestActivityRefreshesTheHistory: while A is on top, each tick reads the
// history again, so a call that finished stops showing as running; with a
// run on top the ticks wait, and reading resumes once A is back.
func TestActivityRefreshesTheHistory(t *testing.T) {
	m := historyModel(t, nil, 100, 20, nil)
	put := func(status history.Status) {
		t.Helper()
		if err := m.history.Put(&history.Record{RunID: "req_00000000000000000000000000000009", Module: "fake", Capability: "fake.report",
			Source: history.SourceMCPServe, Status: status, Started: uitest.Epoch.Add(-time.Minute), DurationMS: 1500, InputRecorded: true,
			Input: json.RawMessage(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	lock, err := m.history.LockRun("req_00000000000000000000000000000009") // the serve process running it
	if err != nil {
		t.Fatal(err)
	}
	put(history.StatusRunning)
	_, cmd := m.Update(uitest.Key("A"))
	_, tick := m.Update(cmd())
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "1 running") {
		t.Fatalf("the agent's call is not running:\n%s", out)
	}
	put(history.StatusOK)
	lock.Release()
	// A run on top: the tick reads nothing, only ticks again.
	as := m.top()
	m.stack = append(m.stack, m.stack[0]) // another screen on top
	_, next := m.Update(tick())
	if next == nil {
		t.Fatal("the ticks stopped while a run was on top")
	}
	if _, ok := next().(activityTick); !ok {
		t.Fatal("a tick read while the view was not on top")
	}
	m.stack = m.stack[:len(m.stack)-1]
	if m.top() != as {
		t.Fatal("the activity view is not back on top")
	}
	_, read := m.Update(activityTick{s: as.(*activityScreen)})
	if read == nil {
		t.Fatal("the tick read nothing once the view was back")
	}
	m.Update(read())
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "0 running · 1 finished") {
		t.Errorf("the finished call still shows as running:\n%s", out)
	}
}

// TestActivityAndHistoryAgreeOnDuration: a run this cockpit made and the
// history recorded shows the record's duration in the activity view, as
// the history list does, not the runner's own measure rounded.
func TestActivityAndHistoryAgreeOnDuration(t *testing.T) {
	m := historyModel(t, nil, 100, 20, nil)
	const id = "req_00000000000000000000000000000042"
	var mod *runner.Module
	for _, x := range m.modules.modules {
		if x.ID == "fake" {
			mod = x
		}
	}
	p := uitest.Plan(t, mod)
	p.Request.RequestID = id
	rv := newRunView(m.com, p, func() {})
	rv.done = true
	rv.result = &runner.Result{RequestID: id, Started: uitest.Epoch.Add(-10 * time.Second), Duration: 200 * time.Millisecond,
		Envelope: &modproto.Envelope{OK: true}}
	m.keepRun(rv)
	if err := m.history.Put(&history.Record{RunID: id, Module: mod.ID, Capability: p.Capability.ID, Source: history.SourceCockpit,
		Status: history.StatusOK, Started: uitest.Epoch.Add(-10*time.Second - 5*time.Millisecond), DurationMS: 162,
		InputRecorded: true, Input: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	_, cmd := m.Update(uitest.Key("A"))
	m.Update(cmd())
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "162ms") || strings.Contains(out, "200ms") {
		t.Fatalf("the activity view does not say the recorded 162ms:\n%s", out)
	}
	m.Update(uitest.Key("esc"))
	_, cmd = m.Update(uitest.Key("H"))
	m.Update(cmd())
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "162ms") {
		t.Fatalf("the history does not say 162ms:\n%s", out)
	}
}
