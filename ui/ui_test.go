package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"modbay/history"
	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
	"modbay/ui/common"
	"modbay/ui/dialog"
	"modbay/ui/inputs"
	"modbay/ui/internal/uitest"
	"modbay/ui/viewer"
)

// sizes are the terminal sizes every golden frame is drawn at.
var sizes = []struct{ w, h int }{{80, 24}, {120, 40}}

// newTest returns a root model over b with colors off, a fixed clock and
// the given size.
func newTest(t *testing.T, b Backend, w, h int) (*Model, *uitest.Clock) {
	t.Helper()
	m := newModel(b, "/home/u/.local/share/modbay/workspace", Options{NoColor: true, Banner: "No modules in /home/u/.local/share/modbay; showing the built-in examples.",
		RenderedDir: filepath.Join(t.TempDir(), "rendered-skills")})
	clock := uitest.NewClock()
	m.com.Now = clock.Now
	m.viewerEnv = viewer.Env{} // no display, no probes: the same frames everywhere
	m.formWait = time.Minute   // forms built before the key returns (TestFormBuildsOffTheLoop waits none)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m, clock
}

// frame returns the view's content, checking it fills the terminal exactly
// and that no line overflows the width.
func frame(t *testing.T, m *Model) string {
	t.Helper()
	v := m.View()
	if !v.AltScreen {
		t.Error("root view is not on the alternate screen")
	}
	lines := strings.Split(v.Content, "\n")
	if len(lines) != m.com.Height {
		t.Errorf("frame has %d lines, want %d", len(lines), m.com.Height)
	}
	for i, l := range lines {
		if w := common.Width(l); w > m.com.Width {
			t.Errorf("line %d is %d cells wide (> %d): %q", i, w, m.com.Width, l)
		}
		if strings.Contains(l, "\x1b]52;") {
			t.Errorf("line %d carries a module's escape sequence: %q", i, l)
		}
	}
	return v.Content
}

func press(m *Model, keys ...string) {
	for _, k := range keys {
		m.Update(uitest.Key(k))
	}
}

func typeText(m *Model, s string) {
	for _, msg := range uitest.Type(s) {
		m.Update(msg)
	}
}

// withModules loads the fixture modules and selects "fake".
func withModules(t *testing.T, m *Model) {
	t.Helper()
	m.Update(modulesMsg{gen: m.gen, modules: uitest.Modules(t)})
	press(m, "down", "down")
	if sel := m.modules.Selected(); sel == nil || sel.ID != "fake" {
		t.Fatalf("selected %v, want fake", sel)
	}
}

// openForm goes from the list to the form of capability index i of fake.
func openForm(t *testing.T, m *Model, i int) {
	t.Helper()
	withModules(t, m)
	press(m, "enter")
	for range i {
		press(m, "down")
	}
	press(m, "enter")
	if m.screen() != screenForm {
		t.Fatalf("screen %v, want form", m.screen())
	}
}

func each(t *testing.T, f func(t *testing.T, w, h int)) {
	for _, s := range sizes {
		t.Run(fmt.Sprintf("%dx%d", s.w, s.h), func(t *testing.T) { f(t, s.w, s.h) })
	}
}

func TestGoldenModuleList(t *testing.T) {
	each(t, func(t *testing.T, w, h int) {
		m, _ := newTest(t, nil, w, h)
		withModules(t, m)
		golden.RequireEqual(t, []byte(frame(t, m)))
	})
}

func TestGoldenDiscovering(t *testing.T) {
	m, _ := newTest(t, nil, 80, 24)
	golden.RequireEqual(t, []byte(frame(t, m)))
}

func TestGoldenCapabilityList(t *testing.T) {
	each(t, func(t *testing.T, w, h int) {
		m, _ := newTest(t, nil, w, h)
		withModules(t, m)
		press(m, "enter", "down")
		golden.RequireEqual(t, []byte(frame(t, m)))
	})
}

func TestGoldenForm(t *testing.T) {
	each(t, func(t *testing.T, w, h int) {
		m, _ := newTest(t, nil, w, h)
		openForm(t, m, 0)
		typeText(m, "hello")
		press(m, "tab")
		typeText(m, "3x")
		golden.RequireEqual(t, []byte(frame(t, m)))
	})
}

func TestGoldenApproval(t *testing.T) {
	each(t, func(t *testing.T, w, h int) {
		m, _ := newTest(t, nil, w, h)
		openForm(t, m, 1)
		typeText(m, "Quarterly")
		press(m, "ctrl+s")
		m.Update(planMsg{seq: m.flow.planSeq, plan: uitest.Plan(t, m.flow.module)})
		if len(m.dialogs) != 1 {
			t.Fatal("approval dialog did not open")
		}
		golden.RequireEqual(t, []byte(frame(t, m)))
	})
}

// resultFor shows fixture rel as the result of a run of fake.report.
func resultFor(t *testing.T, m *Model, rel string) {
	t.Helper()
	openForm(t, m, 1)
	p := uitest.Plan(t, m.flow.module)
	m.Update(planMsg{seq: m.flow.planSeq, plan: p})
	press(m, "a") // in the grace period: ignored
	if len(m.dialogs) != 1 {
		t.Fatal("a key in the grace period closed the dialog")
	}
	m.com.Now = func() time.Time { return uitest.Epoch.Add(time.Second) }
	press(m, "a")
	if m.screen() != screenRun {
		t.Fatalf("screen %v after approving, want run", m.screen())
	}
	m.Update(runDoneMsg{id: m.run().id, result: uitest.Result(t, p, rel)})
	if m.screen() != screenResult {
		t.Fatalf("screen %v, want result", m.screen())
	}
}

func TestGoldenResult(t *testing.T) {
	for _, fx := range []string{"success-with-artifact", "error-provider-failure-unknown-cost"} {
		t.Run(fx, func(t *testing.T) {
			each(t, func(t *testing.T, w, h int) {
				m, _ := newTest(t, nil, w, h)
				resultFor(t, m, "invoke/"+fx+".json")
				golden.RequireEqual(t, []byte(frame(t, m)))
			})
		})
	}
}

func TestGoldenRunView(t *testing.T) {
	m, clock := newTest(t, nil, 80, 24)
	resultFor(t, m, "invoke/success-with-artifact.json") // leaves a finished run
	m.run().done = false
	m.pop() // the result gives way to the run screen again
	m.push(&runScreen{com: m.com, keys: m.keys.Run, run: m.run(), sp: &m.spinner})
	m.run().started = clock.Now()
	clock.Advance(3200 * time.Millisecond)
	m.com.Now = clock.Now
	pct := 40.0
	m.Update(runEventMsg{id: m.run().id, ev: runner.Event{PID: 4242, Stderr: []byte("step 1\nstep 2\x1b[2J\npartial")}})
	m.Update(runEventMsg{id: m.run().id, ev: runner.Event{Job: &runner.JobStatus{ID: "job_fake_0001", State: "running", Percent: &pct, Detail: "rendering", Polls: 3}}})
	m.Update(runEventMsg{id: "req_other", ev: runner.Event{Stderr: []byte("not mine\n")}})
	out := frame(t, m)
	for _, want := range []string{"3.2s / 30s", "job_fake_0001", "40%", "step 2␛[2J", "partial"} {
		if !strings.Contains(out, want) {
			t.Errorf("run view lacks %q", want)
		}
	}
	if strings.Contains(out, "not mine") {
		t.Error("run view shows another run's stderr")
	}
	golden.RequireEqual(t, []byte(out))
}

func TestResultShowsCostsAndEffects(t *testing.T) {
	m, _ := newTest(t, nil, 120, 80)
	resultFor(t, m, "invoke/error-provider-failure-unknown-cost.json")
	content := m.result().content()
	for _, want := range []string{"provider_failure", "Retryable   yes", "Estimated   unknown", "Actual      unknown", "network         no        yes ≠"} {
		if !strings.Contains(content, want) {
			t.Errorf("result lacks %q:\n%s", want, content)
		}
	}
	if strings.Contains(content, "free") || strings.Contains(content, "$0") {
		t.Errorf("unknown cost shown as free:\n%s", content)
	}
	m2, _ := newTest(t, nil, 120, 80)
	resultFor(t, m2, "invoke/success-with-artifact.json")
	c2 := m2.result().content()
	for _, want := range []string{"Estimated   free ($0.00)", "Quarterly report", "sha256:6ee6c487e431…", "✓ verified, staged · json · 158 B · application/json"} {
		if !strings.Contains(c2, want) {
			t.Errorf("result lacks %q:\n%s", want, c2)
		}
	}
}

func TestCost(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tt := range []struct {
		in   *float64
		want string
	}{{nil, "unknown"}, {f(0), "free ($0.00)"}, {f(1.5), "$1.50"}, {f(0.0031), "$0.0031"}} {
		if got := render.Cost(tt.in); got != tt.want {
			t.Errorf("Cost(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNarrowTerminalsNeverOverflow(t *testing.T) {
	for _, w := range []int{40, 80, 99, 100, 160} {
		m, _ := newTest(t, nil, w, 24)
		withModules(t, m)
		frame(t, m)
		press(m, "enter")
		frame(t, m)
		press(m, "enter")
		frame(t, m)
	}
}

func TestModuleTextIsSanitized(t *testing.T) {
	m, _ := newTest(t, nil, 120, 40)
	withModules(t, m)
	press(m, "down")
	out := frame(t, m)
	if strings.Contains(out, "\x1b[31mred") || strings.Contains(out, "\x1b]52") {
		t.Fatalf("a module's escape sequence reached the screen:\n%q", out)
	}
	if !strings.Contains(out, "␛[31mred") {
		t.Fatalf("the broken module's reason is not shown inertly:\n%s", out)
	}
}

func TestFilterAndQuit(t *testing.T) {
	m, _ := newTest(t, nil, 80, 24)
	withModules(t, m)
	press(m, "/")
	typeText(m, "q")
	if _, cmd := m.Update(uitest.Key("q")); cmd != nil {
		if _, quit := cmd().(tea.QuitMsg); quit {
			t.Fatal("q quit while typing in the filter")
		}
	}
	if m.modules.list.Len() != 0 {
		t.Fatalf("filter qq shows %d modules", m.modules.list.Len())
	}
	press(m, "esc")
	if m.modules.list.Len() != 4 {
		t.Fatalf("cleared filter shows %d modules", m.modules.list.Len())
	}
	press(m, "/")
	typeText(m, "echo")
	press(m, "enter")
	if sel := m.modules.Selected(); sel == nil || sel.ID != "echo" {
		t.Fatalf("filtered selection %v", sel)
	}
	_, cmd := m.Update(uitest.Key("q"))
	if cmd == nil {
		t.Fatal("q on the list did not quit")
	}
	if _, quit := cmd().(tea.QuitMsg); !quit {
		t.Fatal("q on the list did not quit")
	}
}

func TestHelpFollowsFocus(t *testing.T) {
	m, _ := newTest(t, nil, 120, 40)
	withModules(t, m)
	if h := m.helpView(); !strings.Contains(h, "filter") || !strings.Contains(h, "quit") {
		t.Errorf("list help = %q", h)
	}
	press(m, "?")
	if h := m.helpView(); !strings.Contains(h, "rediscover") || common.Lines(h) < 2 {
		t.Errorf("full help = %q", h)
	}
	press(m, "?")
	press(m, "enter", "enter")
	if h := m.helpView(); !strings.Contains(h, "submit") || strings.Contains(h, "quit") {
		t.Errorf("form help = %q", h)
	}
}

// fakeBackend plans and runs without subprocesses.
type fakeBackend struct {
	mu       sync.Mutex
	plan     func(m *runner.Module, capID string, input json.RawMessage) (*runner.Plan, error)
	result   *runner.Result
	block    bool
	runs     int
	approved bool
	inputs   []string
}

// snapshot returns the run count, the last approved flag and the inputs.
func (f *fakeBackend) snapshot() (int, bool, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.runs, f.approved, append([]string(nil), f.inputs...)
}

func (f *fakeBackend) Discover(context.Context) []*runner.Module { return nil }

func (f *fakeBackend) Plan(m *runner.Module, capID string, input json.RawMessage) (*runner.Plan, error) {
	f.mu.Lock()
	f.inputs = append(f.inputs, string(input))
	f.mu.Unlock()
	return f.plan(m, capID, input)
}

func (f *fakeBackend) Run(ctx context.Context, p *runner.Plan, approved bool, events func(runner.Event)) (*runner.Result, error) {
	f.mu.Lock()
	f.runs++
	f.approved = approved
	f.mu.Unlock()
	events(runner.Event{RequestID: p.Request.RequestID, Stderr: []byte("working\n")})
	if f.block {
		<-ctx.Done()
		return &runner.Result{RequestID: p.Request.RequestID, Host: &runner.HostError{Code: modproto.CodeCancelled, Detail: "cancelled by the person"}}, nil
	}
	return f.result, nil
}

// harness runs the model's commands in goroutines and feeds their messages
// back, as the program would; timer ticks are dropped.
type harness struct {
	t    *testing.T
	m    *Model
	msgs chan tea.Msg
	// running counts commands not yet returned: the test's end waits a
	// while for them, so one still writing into a t.TempDir home does not
	// fail its cleanup.
	running sync.WaitGroup
}

func newHarness(t *testing.T, m *Model) *harness {
	h := &harness{t: t, m: m, msgs: make(chan tea.Msg, 64)}
	m.SetSender(func(msg tea.Msg) { h.msgs <- msg })
	t.Cleanup(func() {
		done := make(chan struct{})
		go func() { h.running.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second): // one waiting on a context or a timer
		}
	})
	return h
}

func (h *harness) do(cmd tea.Cmd) {
	if cmd != nil {
		h.running.Add(1)
		go func() {
			msg := cmd()
			h.running.Done()
			if msg != nil {
				h.msgs <- msg
			}
		}()
	}
}

func (h *harness) key(k string) {
	_, cmd := h.m.Update(uitest.Key(k))
	h.do(cmd)
}

// until feeds messages until cond holds (within 5 s).
func (h *harness) until(what string, cond func() bool) {
	h.t.Helper()
	h.untilWithin(5*time.Second, what, cond)
}

func TestFlowApproveRunResultRerun(t *testing.T) {
	mod := uitest.Module(t)
	fb := &fakeBackend{}
	fb.plan = func(m *runner.Module, capID string, input json.RawMessage) (*runner.Plan, error) {
		p := uitest.Plan(t, m)
		p.Request.Input = input
		return p, nil
	}
	fb.result = uitest.Result(t, uitest.Plan(t, mod), "invoke/success-with-artifact.json")
	m, clock := newTest(t, fb, 100, 30)
	h := newHarness(t, m)
	openForm(t, m, 1)
	typeText(m, "Q1")
	h.key("ctrl+s")
	h.until("approval dialog", func() bool { return len(m.dialogs) == 1 })
	h.key("s") // grace period: ignored
	if len(m.dialogs) != 1 {
		t.Fatal("a key in the grace period answered the dialog")
	}
	clock.Advance(dialog.GracePeriod)
	h.key("s")
	h.until("result", func() bool { return m.screen() == screenResult })
	if runs, approved, inputs := fb.snapshot(); runs != 1 || !approved || inputs[0] != `{"title":"Q1"}` {
		t.Fatalf("runs %d approved %v inputs %q", runs, approved, inputs)
	}
	// Re-run: the session approval covers it, so no dialog.
	h.key("r")
	h.until("second result", func() bool { runs, _, _ := fb.snapshot(); return runs == 2 && m.screen() == screenResult })
	if len(m.dialogs) != 0 {
		t.Fatal("session approval did not cover the re-run")
	}
	// esc back to the form keeps the input.
	h.key("esc")
	if m.screen() != screenForm || m.form().Form().Fields()[0].Text != "Q1" {
		t.Fatalf("back to form: screen %v text %q", m.screen(), m.form().Form().Fields()[0].Text)
	}
}

func TestFlowDenyRunsNothing(t *testing.T) {
	fb := &fakeBackend{plan: func(m *runner.Module, _ string, _ json.RawMessage) (*runner.Plan, error) {
		return uitest.Plan(t, m), nil
	}}
	m, clock := newTest(t, fb, 100, 30)
	h := newHarness(t, m)
	openForm(t, m, 1)
	typeText(m, "Q1")
	h.key("ctrl+s")
	h.until("approval dialog", func() bool { return len(m.dialogs) == 1 })
	clock.Advance(dialog.GracePeriod)
	h.key("d")
	if runs, _, _ := fb.snapshot(); len(m.dialogs) != 0 || m.screen() != screenForm || runs != 0 {
		t.Fatalf("deny: dialogs %d screen %v runs %d", len(m.dialogs), m.screen(), runs)
	}
	if !strings.Contains(m.form().Note(), "Denied") {
		t.Fatalf("note %q", m.form().Note())
	}
}

func TestFlowCtrlCCancelsRunThenQuits(t *testing.T) {
	fb := &fakeBackend{block: true, plan: func(m *runner.Module, _ string, _ json.RawMessage) (*runner.Plan, error) {
		p := uitest.Plan(t, m)
		p.Approval = nil
		return p, nil
	}}
	m, _ := newTest(t, fb, 100, 30)
	h := newHarness(t, m)
	openForm(t, m, 0)
	typeText(m, "hello")
	h.key("ctrl+s")
	h.until("run started", func() bool { return m.screen() == screenRun && m.run().stderrTail() == "working" })
	_, cmd := m.Update(uitest.Key("ctrl+c"))
	if cmd != nil {
		if _, quit := cmd().(tea.QuitMsg); quit {
			t.Fatal("ctrl+c quit during a run instead of cancelling")
		}
	}
	if !strings.Contains(frame(t, m), "cancelling…") {
		t.Fatal("run view does not say cancelling…")
	}
	h.until("cancelled result", func() bool { return m.screen() == screenResult })
	if m.result().res.Code() != modproto.CodeCancelled {
		t.Fatalf("code %q", m.result().res.Code())
	}
	_, cmd = m.Update(uitest.Key("ctrl+c"))
	if cmd == nil {
		t.Fatal("ctrl+c with no run did not quit")
	}
	if _, quit := cmd().(tea.QuitMsg); !quit {
		t.Fatal("ctrl+c with no run did not quit")
	}
}

func TestFlowHostRefusesInput(t *testing.T) {
	fb := &fakeBackend{plan: func(*runner.Module, string, json.RawMessage) (*runner.Plan, error) {
		return nil, &runner.InputError{Schema: "fake.echo.request/v1", Violations: modproto.ValidationErrors{{Path: "/repeat", Detail: "must be >= 1"}}}
	}}
	m, _ := newTest(t, fb, 100, 30)
	h := newHarness(t, m)
	openForm(t, m, 0)
	typeText(m, "hello")
	h.key("ctrl+s")
	h.until("refusal shown", func() bool { return strings.Contains(m.form().Note(), "refused") })
	if got := m.form().Problems().At("/repeat"); len(got) != 1 || got[0] != "must be >= 1" {
		t.Fatalf("repeat problems %q", got)
	}
}

func TestFormValidatesWithRunnerSchema(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	openForm(t, m, 0)
	// Empty required name: one "required" under the field, nothing at the root.
	p := m.form().Problems()
	if got := p.At("/name"); len(got) != 1 || got[0] != "required" || len(p.Root) != 0 {
		t.Fatalf("problems %#v", p)
	}
	typeText(m, "hello")
	press(m, "tab")
	typeText(m, "99999999999999999999")
	// Kept as typed, and flagged: most readers lose its digits, so sending it takes a second ctrl+s.
	if p := m.form().Problems(); p.Count() != 1 || len(p.At("/repeat")) != 1 {
		t.Fatalf("an integer past 2^53: problems %#v", p)
	}
	if got := string(m.form().Value()); got != `{"name":"hello","repeat":99999999999999999999}` {
		t.Fatalf("value %s", got)
	}
}

func TestRecallsReloadAfterSubmitAndPresetSave(t *testing.T) {
	fb := &fakeBackend{}
	fb.plan = func(m *runner.Module, capID string, input json.RawMessage) (*runner.Plan, error) {
		p := uitest.Plan(t, m)
		p.Request.Input = input
		return p, nil
	}
	m, clock := newTest(t, fb, 100, 30)
	m.flow.inputs = inputs.Store{Dir: t.TempDir()}
	h := newHarness(t, m)
	openForm(t, m, 1)
	typeText(m, "Q1")
	h.key("ctrl+s")
	h.until("the sent input offered by ctrl+l", func() bool { return len(m.form().Recalls()) == 1 })
	clock.Advance(dialog.GracePeriod)
	h.key("esc")
	h.until("approval closed", func() bool { return len(m.dialogs) == 0 })
	clock.Advance(dialog.GracePeriod) // keys just after the answer are the dialog's
	h.key("ctrl+p")
	typeText(m, "mine")
	h.key("enter")
	h.until("the preset offered by ctrl+l", func() bool { return len(m.form().Recalls()) == 2 })
	r := m.form().Recalls()
	if r[0].Name != "last input" || string(r[0].Input) != `{"title":"Q1"}` || r[1].Name != "preset mine" {
		t.Fatalf("recalls %+v", r)
	}
}

// TestRunViewStderrKeepsItsOrder: a line too long to wait for its newline
// is kept after the complete lines of its chunk, not before them, and a
// CRLF line end is a line end.
func TestRunViewStderrKeepsItsOrder(t *testing.T) {
	r := &runView{}
	long := strings.Repeat("b", stderrPartialMax+1)
	r.addStderr("a\r\nz\n" + long)
	r.addStderr("c\n")
	if got := r.lines; len(got) != 4 || got[0] != "a" || got[1] != "z" || got[2] != long || got[3] != "c" {
		t.Fatalf("lines %q", got)
	}
}

// TestSpinnerTicksOnlyWhileSomethingSpins: once discovery ends and no run
// is in flight, a spinner tick schedules no other (no redraw while idle);
// a rediscovery starts the ticks again.
func TestSpinnerTicksOnlyWhileSomethingSpins(t *testing.T) {
	m, _ := newTest(t, &fakeBackend{}, 80, 24)
	if _, cmd := m.Update(m.spinner.Tick()); cmd == nil {
		t.Fatal("the spinner does not tick while discovering")
	}
	withModules(t, m)
	if _, cmd := m.Update(m.spinner.Tick()); cmd != nil {
		t.Fatal("the spinner still ticks with nothing to show")
	}
	m.Update(uitest.Key("r"))
	if _, cmd := m.Update(m.spinner.Tick()); !m.modules.discovering || cmd == nil {
		t.Fatal("rediscovery did not start the spinner again")
	}
}

// TestSavedInputsLeaveSecretsOut: the last input and a preset written to
// disk keep no value the request schema marks format: password or
// writeOnly (schema.Redact), and the form says the preset was saved
// without it.
func TestSavedInputsLeaveSecretsOut(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	dir := t.TempDir()
	m.flow.inputs = inputs.Store{Dir: dir}
	openForm(t, m, 1)
	m.flow.module.Descriptor.RequestSchemas[m.flow.cap.RequestSchema] = json.RawMessage(`{"type":"object",
		"properties":{"title":{"type":"string"},"api_key":{"type":"string","format":"password"},
		"auth":{"$ref":"#/$defs/auth"}},"$defs":{"auth":{"properties":{"token":{"writeOnly":true}}}}}`)
	in := json.RawMessage(`{"title":"Q1","api_key":"hunter2","auth":{"token":"s3cret","user":"ann"}}`)
	for _, name := range []string{"", "mine"} {
		msg := m.flow.saveInput(name, in, m.com.Now())()
		saved, ok := msg.(inputSavedMsg)
		if !ok || saved.err != nil || saved.withheld != 2 {
			t.Fatalf("save %q: %#v", name, msg)
		}
		m.Update(saved)
	}
	if note := m.form().Note(); !strings.Contains(note, "without its 2 secret values") {
		t.Fatalf("note %q", note)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("hunter2")) || bytes.Contains(b, []byte("s3cret")) || bytes.Contains(b, []byte("api_key")) {
		t.Fatalf("a secret reached the disk:\n%s", b)
	}
	sv, err := m.flow.inputs.Load(m.flow.module.ID, m.flow.cap.ID)
	if err != nil || string(sv.Last) != `{"title":"Q1","auth":{"user":"ann"}}` || len(sv.Presets) != 1 || string(sv.Presets[0].Input) != string(sv.Last) {
		t.Fatalf("saved %+v %v", sv, err)
	}
}

// TestKeysWhilePlanningDoNotEditTheForm: a key pressed between ctrl+s and
// the approval dialog (meant for the dialog: "a" allow), or just after
// the answer (a second "d" deny), must not reach the submitted form, so
// the next submit sends what was approved.
func TestKeysWhilePlanningDoNotEditTheForm(t *testing.T) {
	fb := &fakeBackend{}
	fb.plan = func(mod *runner.Module, capID string, input json.RawMessage) (*runner.Plan, error) {
		return uitest.Plan(t, mod), nil
	}
	m, clock := newTest(t, fb, 100, 30)
	openForm(t, m, 1)
	typeText(m, "Quarterly")
	before := m.form().Value()
	press(m, "ctrl+s") // the plan is a command not yet delivered
	typeText(m, "a")
	press(m, "tab")
	if after := m.form().Value(); string(after) != string(before) {
		t.Fatalf("keys while planning edited the form: %s, was %s", after, before)
	}
	m.Update(planMsg{seq: m.flow.planSeq, plan: uitest.Plan(t, m.flow.module)})
	if len(m.dialogs) != 1 {
		t.Fatal("approval dialog did not open")
	}
	clock.Advance(time.Second) // past the dialog's grace
	press(m, "esc")            // deny
	typeText(m, "d")           // typed ahead for the dialog: never the form's
	if after := m.form().Value(); string(after) != string(before) {
		t.Fatalf("a key just after the answer edited the form: %s, was %s", after, before)
	}
	clock.Advance(dialog.GracePeriod) // then the form takes keys again
	typeText(m, "!")
	if after := m.form().Value(); string(after) == string(before) {
		t.Fatal("after the answer, the form does not take keys")
	}
}

// TestFlowSessionApprovalAsksAnotherExecutable: "allow for this session"
// covers the module it was given for; the same id from another executable
// opens the approval again, and it says why.
func TestFlowSessionApprovalAsksAnotherExecutable(t *testing.T) {
	mod := uitest.Module(t)
	impostor := false
	fb := &fakeBackend{}
	fb.plan = func(m *runner.Module, capID string, input json.RawMessage) (*runner.Plan, error) {
		p := uitest.Plan(t, m)
		if impostor {
			other := *p.Module
			other.Key, other.Exe = "/tmp/elsewhere/fake", "/tmp/elsewhere/fake"
			p.Module = &other
		}
		return p, nil
	}
	fb.result = uitest.Result(t, uitest.Plan(t, mod), "invoke/success-with-artifact.json")
	m, clock := newTest(t, fb, 100, 30)
	h := newHarness(t, m)
	openForm(t, m, 1)
	typeText(m, "Q1")
	h.key("ctrl+s")
	h.until("approval dialog", func() bool { return len(m.dialogs) == 1 })
	clock.Advance(dialog.GracePeriod)
	h.key("s")
	h.until("result", func() bool { return m.screen() == screenResult })
	impostor = true
	h.key("r")
	h.until("approval dialog again", func() bool { return len(m.dialogs) == 1 })
	ap, ok := m.dialogs[0].(*dialog.Approval)
	if !ok || !strings.Contains(ap.Plan().AskedAgain, "another executable claims") {
		t.Fatalf("the approval does not say why it asks again: %#v", m.dialogs[0])
	}
}

// TestRecordFindsTheExecutableItRan: a recorded run is reopened, re-run
// and resumed with the module whose executable it ran, never another
// module claiming its id (docs/protocol.md §13); an example by id.
func TestRecordFindsTheExecutableItRan(t *testing.T) {
	m, _ := newTest(t, &fakeBackend{}, 100, 30)
	installed := &runner.Module{ID: "notes", Exe: "/h/modules/notes/notes", Origin: runner.OriginHome, Status: runner.StatusBroken}
	path := &runner.Module{ID: "notes", Exe: "/src/notes/notes", Origin: runner.OriginFlag, Status: runner.StatusReady}
	example := &runner.Module{ID: "text", Exe: "/h/examples/k2/text/text", Origin: runner.OriginExamples, Status: runner.StatusReady}
	m.modules.modules = []*runner.Module{installed, path, example}
	for _, c := range []struct {
		rec  history.Record
		want *runner.Module
	}{
		{history.Record{Module: "notes", ModuleExe: "/h/modules/notes/notes"}, installed},
		{history.Record{Module: "notes", ModuleExe: "/src/notes/notes"}, path},
		{history.Record{Module: "notes", ModuleExe: "/tmp/gone/notes"}, nil},
		{history.Record{Module: "text", ModuleExe: "/h/examples/k1/text/text"}, example},
	} {
		if got := m.moduleForRecord(&c.rec); got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.rec.ModuleExe, got, c.want)
		}
	}
}

// TestArtifactLineKeepsItsPresentationAt80: at 80 columns the artifact's
// line shows how it opens and its size whole; the digest is what a cut
// takes first.
func TestArtifactLineKeepsItsPresentationAt80(t *testing.T) {
	m, _ := newTest(t, nil, 80, 24)
	resultFor(t, m, "invoke/success-with-artifact.json")
	r := m.result()
	a := &r.res.Artifacts[0]
	a.MediaType, a.Presentation, a.Size = "text/markdown", "markdown", 1234
	r.rebuild()
	if out := frame(t, m); !strings.Contains(out, "✓ verified, staged · markdown · 1.2 KiB") {
		t.Fatalf("the artifact line cuts its presentation:\n%s", out)
	}
}
