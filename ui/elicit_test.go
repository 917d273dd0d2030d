package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"modbay/config"
	"modbay/modproto"
	"modbay/runner"
	"modbay/runner/runnertest"
	"modbay/schema"
	"modbay/ui/internal/uitest"
)

// deploySchema is the answer a module asks for mid-run: MCP's flat object
// of primitives.
var deploySchema = json.RawMessage(`{"type":"object","properties":{` +
	`"branch":{"type":"string","title":"Branch","description":"The branch to deploy."},` +
	`"count":{"type":"integer","minimum":1,"title":"Replicas"},` +
	`"confirm":{"type":"boolean","title":"Confirm"}},"required":["branch"]}`)

// hostileMessage is a question carrying terminal escapes (a color and an
// OSC 52 clipboard write) that must never reach the terminal.
const hostileMessage = "Which \x1b[31mbranch\x1b[0m should I deploy?\x1b]52;c;aGk=\x07 It goes to production."

// asking shows a question of fake's run on a fresh root of size w × h,
// the run in flight; the returned question's answer channel gets the
// person's answer.
func asking(t *testing.T, w, h int) (*Model, *elicitQuestion) {
	t.Helper()
	m, _ := newTest(t, nil, w, h)
	withModules(t, m)
	p := uitest.Plan(t, m.modules.Selected())
	r := newRunView(m.com, p, func() {})
	m.keepRun(r)
	m.open(screenRun, r.id)
	q := &elicitQuestion{runID: r.id, from: "Fake (fake)", e: runner.Elicitation{RequestID: r.id, Message: hostileMessage, Schema: deploySchema},
		answer: make(chan runner.ElicitAnswer, 1)}
	m.Update(elicitMsg{q: q})
	if m.screen() != screenElicit {
		t.Fatalf("screen %v after the question, want elicit", m.screen())
	}
	return m, q
}

func TestGoldenElicit(t *testing.T) {
	for _, s := range []struct{ w, h int }{{120, 40}, {40, 12}} {
		t.Run(fmt.Sprintf("%dx%d", s.w, s.h), func(t *testing.T) {
			m, _ := asking(t, s.w, s.h)
			out := frame(t, m)
			if strings.Contains(out, "\x1b[31m") || !strings.Contains(out, "␛[31mbranch") {
				t.Errorf("the module's escapes reach the terminal:\n%q", out)
			}
			golden.RequireEqual(t, []byte(out))
		})
	}
}

// TestElicitKeysAnswer: each answer key sends its action once and closes
// the question; accept is refused while the answer breaks the schema.
func TestElicitKeysAnswer(t *testing.T) {
	answered := func(t *testing.T, q *elicitQuestion) runner.ElicitAnswer {
		t.Helper()
		select {
		case a := <-q.answer:
			return a
		default:
			t.Fatal("no answer sent")
			return runner.ElicitAnswer{}
		}
	}
	t.Run("decline", func(t *testing.T) {
		m, q := asking(t, 100, 30)
		press(m, "ctrl+d")
		if a := answered(t, q); a.Action != runner.ElicitDecline || a.Content != nil {
			t.Fatalf("answer %+v", a)
		}
		if m.screen() != screenRun {
			t.Fatalf("screen %v after declining, want the run", m.screen())
		}
	})
	t.Run("dismiss", func(t *testing.T) {
		m, q := asking(t, 100, 30)
		press(m, "esc")
		if a := answered(t, q); a.Action != runner.ElicitCancel {
			t.Fatalf("answer %+v", a)
		}
	})
	t.Run("cancel run", func(t *testing.T) {
		m, q := asking(t, 100, 30)
		cancelled := false
		m.run().cancel = func() { cancelled = true }
		press(m, "ctrl+c")
		if a := answered(t, q); a.Action != runner.ElicitCancel || !cancelled || !m.run().cancelling {
			t.Fatalf("answer %+v, run cancelled %t", a, cancelled)
		}
	})
	t.Run("accept", func(t *testing.T) {
		m, q := asking(t, 100, 30)
		press(m, "ctrl+s")
		if m.screen() != screenElicit || len(q.answer) != 0 {
			t.Fatal("an answer missing its required branch was sent")
		}
		if n := m.top().(*elicitScreen).form.Note(); !strings.HasPrefix(n, "Not sent: 1 problem") || strings.Contains(n, "anyway") {
			t.Fatalf("note %q", n)
		}
		press(m, "ctrl+s") // never "send anyway"
		if len(q.answer) != 0 {
			t.Fatal("a second ctrl+s sent an invalid answer")
		}
		typeText(m, "main")
		press(m, "ctrl+s")
		if a := answered(t, q); a.Action != runner.ElicitAccept || string(a.Content) != `{"branch":"main"}` {
			t.Fatalf("answer %+v (%s)", a, a.Content)
		}
	})
	t.Run("run gone", func(t *testing.T) {
		m, q := asking(t, 100, 30)
		m.Update(elicitGoneMsg{q: q})
		if m.screen() != screenRun {
			t.Fatalf("screen %v after the run ended, want the run", m.screen())
		}
	})
}

// elicitHost is a real host serving one in-memory module whose "ask"
// capability asks the person mid-call and returns the answer it got.
func elicitHost(t *testing.T) (*runner.Host, *runner.Module) {
	t.Helper()
	cfg, err := config.Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	host := runner.NewHost(cfg)
	d := runnertest.New(&modproto.Descriptor{
		Module: "asker", Name: "Asker", Version: "1.0.0", ProtocolVersions: []string{modproto.ProtocolID},
		Capabilities: []modproto.Capability{{ID: "ask", Title: "Ask", Summary: "Asks mid-call.",
			Effects: modproto.Effects{Local: true, CostKnown: true}}},
		RequestSchemas: map[string]json.RawMessage{}, ResultSchemas: map[string]json.RawMessage{},
		ArtifactSchemas: map[string]json.RawMessage{},
	}, func(ctx context.Context, call *runner.Call) *runner.Reply {
		ans, err := call.Elicit(ctx, runner.Elicitation{Message: "Deploy which branch?", Schema: deploySchema})
		out := map[string]any{"action": string(ans.Action), "content": ans.Content}
		if err != nil {
			out["error"] = err.Error()
		}
		return &runner.Reply{Envelope: runnertest.OK(call.Request, "asker", out)}
	})
	host.AddSource(runnertest.Source{Drivers: []*runnertest.Driver{d}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, mod := range host.Discover(ctx) {
		if mod.ID == "asker" {
			return host, mod
		}
	}
	t.Fatal("the in-memory module was not discovered")
	return nil, nil
}

// TestFlowElicitThroughTheHost runs a real host's call that asks the
// person: the question opens mid-run, and what the person does is what
// the module receives (accept with the typed value, decline, cancel), the
// host checking the answer against the schema.
func TestFlowElicitThroughTheHost(t *testing.T) {
	for _, tc := range []struct {
		name    string
		keys    func(m *Model)
		action  string
		content string
	}{
		{"accept", func(m *Model) { typeText(m, "release"); press(m, "tab"); typeText(m, "3"); press(m, "ctrl+s") }, "accept", `{"branch":"release","count":3}`},
		{"decline", func(m *Model) { press(m, "ctrl+d") }, "decline", ""},
		{"cancel", func(m *Model) { press(m, "esc") }, "cancel", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			host, mod := elicitHost(t)
			m := New(host, Options{NoColor: true})
			m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
			h := newHarness(t, m)
			p, err := host.Plan(mod, "ask", json.RawMessage(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			h.do(m.startRun(p, true))
			h.until("the question", func() bool { return m.screen() == screenElicit })
			if out := frame(t, m); !strings.Contains(out, "Deploy which branch?") || !strings.Contains(out, "Asker (asker) asks, mid-run of Ask") {
				t.Fatalf("the question screen:\n%s", out)
			}
			tc.keys(m)
			h.until("the result", func() bool { return m.screen() == screenResult })
			res := m.result().res
			if !res.OK() {
				t.Fatalf("run: %s %+v", res.Code(), res.Host)
			}
			var got struct {
				Action  string          `json:"action"`
				Content json.RawMessage `json:"content"`
			}
			if err := json.Unmarshal(res.Envelope.Result, &got); err != nil {
				t.Fatal(err)
			}
			content := string(got.Content)
			if content == "null" {
				content = ""
			}
			if got.Action != tc.action || content != tc.content {
				t.Fatalf("the module got %s %s, want %s %s", got.Action, content, tc.action, tc.content)
			}
		})
	}
}

// TestFlowElicitRunCancelled: ctrl+c on the question cancels the run; the
// module's question is answered cancel and the run ends cancelled.
func TestFlowElicitRunCancelled(t *testing.T) {
	host, mod := elicitHost(t)
	m := New(host, Options{NoColor: true})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	h := newHarness(t, m)
	p, err := host.Plan(mod, "ask", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	h.do(m.startRun(p, true))
	h.until("the question", func() bool { return m.screen() == screenElicit })
	h.key("ctrl+c")
	h.until("the run's end", func() bool { r := m.runs[p.Request.RequestID]; return r != nil && r.done })
	if m.screen() == screenElicit {
		t.Fatal("the question outlived its run")
	}
}

// askingGated shows question e of fake's run as asking does, its form's
// build waiting for release (gateBuilds): a schema whose build does not
// end.
func askingGated(t *testing.T, e runner.Elicitation) (m *Model, q *elicitQuestion, cmd tea.Cmd, release func()) {
	t.Helper()
	m, _ = newTest(t, nil, 100, 30)
	withModules(t, m)
	p := uitest.Plan(t, m.modules.Selected())
	r := newRunView(m.com, p, func() {})
	m.keepRun(r)
	m.open(screenRun, r.id)
	release = gateBuilds(t, m)
	e.RequestID = r.id
	q = &elicitQuestion{runID: r.id, from: "Fake (fake)", e: e, answer: make(chan runner.ElicitAnswer, 1)}
	_, cmd = m.Update(elicitMsg{q: q})
	if m.screen() != screenElicit {
		t.Fatalf("screen %v after the question, want elicit", m.screen())
	}
	return m, q, cmd, release
}

// TestElicitFormBuildsOffTheLoop: the answer's form is built off the
// event loop: until it is there the screen says so, accepting and typing
// do nothing, esc dismisses (stopping the build, whose late message is
// dropped) and ctrl+d declines; a finished build becomes the form.
func TestElicitFormBuildsOffTheLoop(t *testing.T) {
	e := runner.Elicitation{Message: "Which branch?", Schema: deploySchema}
	m, q, cmd, _ := askingGated(t, e)
	s := m.top().(*elicitScreen)
	if s.form != nil {
		t.Fatal("the answer's form was built on the event loop")
	}
	if out := frame(t, m); !strings.Contains(out, "Building the answer's form… (esc dismisses)") || strings.Contains(m.helpView(), "accept") {
		t.Fatalf("while building:\n%s\nhelp %q", out, m.helpView())
	}
	typeText(m, "main")
	press(m, "ctrl+s", "enter")
	if m.screen() != screenElicit || len(q.answer) != 0 {
		t.Fatal("keys answered a question whose form is not there")
	}
	press(m, "esc")
	if a := <-q.answer; a.Action != runner.ElicitCancel || m.screen() != screenRun {
		t.Fatalf("esc while building: answer %+v, screen %v", a, m.screen())
	}
	stale := msgOf[formBuiltMsg](t, cmd)
	if !errors.Is(stale.err, schema.ErrCancelled) {
		t.Fatalf("esc did not stop the build: %v", stale.err)
	}
	m.Update(stale)
	if m.screen() != screenRun {
		t.Fatalf("a stale build reopened %v", m.screen())
	}

	m, q, _, _ = askingGated(t, e)
	press(m, "ctrl+d")
	if a := <-q.answer; a.Action != runner.ElicitDecline {
		t.Fatalf("ctrl+d while building: %+v", a)
	}

	m, q, cmd, release := askingGated(t, e)
	release()
	m.Update(msgOf[formBuiltMsg](t, cmd))
	typeText(m, "main")
	press(m, "ctrl+s")
	if a := <-q.answer; a.Action != runner.ElicitAccept || string(a.Content) != `{"branch":"main"}` {
		t.Fatalf("answer %+v (%s)", a, a.Content)
	}
}

// TestElicitCostlySchema: a requested schema too costly for a form (deep
// $ref doubling) is answered in JSON, the note naming the bound passed.
func TestElicitCostlySchema(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	withModules(t, m)
	q := &elicitQuestion{runID: "req_x", from: "Fake (fake)", e: runner.Elicitation{Message: "?", Schema: hostileSchema(t, "refs-doubling")},
		answer: make(chan runner.ElicitAnswer, 1)}
	m.Update(elicitMsg{q: q})
	s, ok := m.top().(*elicitScreen)
	if !ok || s.form == nil || !s.form.Form().Raw() {
		t.Fatalf("screen %v: want the answer in JSON", m.screen())
	}
	if n := s.form.Note(); !strings.Contains(n, "too costly for a form") || !strings.Contains(n, "MaxSchemaExpansion") {
		t.Fatalf("note %q", n)
	}
}
