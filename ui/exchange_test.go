package ui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"modbay/config"
	"modbay/runner"
	"modbay/ui/clipboard"
	"modbay/ui/internal/uitest"
)

func init() {
	helpStates[screenExchange] = []helpState{
		{"fits", func(t *testing.T) *Model { return exchangeOpen(t, 120, 40) }},
		{"scrolls", func(t *testing.T) *Model { return exchangeOpen(t, 80, 24) }},
	}
}

// fixtureExchange is a recorded exchange with fixed times, paths and
// bytes (a module's ESC in its stderr included), for the goldens.
func fixtureExchange(id string) exchangeArg {
	at := uitest.Epoch
	req := `{"protocol":"xibodev.module/v1","capability":"fake.report","request_id":"` + id + `","input":{"title":"Quarterly"},"deadline_ms":30000}`
	out := `{"protocol":"xibodev.module/v1","module":"fake","operation":"invoke","request_id":"` + id + `","ok":true,"result":{"rows":3}}`
	c := runner.ExchangeCall{
		RequestID: id,
		Argv:      []string{"module", "invoke", "fake.report", "--input", "/tmp/modbay-run/request.json"},
		Env:       []string{"TMPDIR=/tmp/modbay-run/tmp"},
		Dir:       "/tmp/modbay-run/cwd",
		Request:   []byte(req), Stdout: []byte(out), StdoutBytes: len(out),
		Stderr: []byte("reading 3 rows\x1b[31m red\n"),
		Exit:   &runner.ExitFrame{Code: 0},
		Phases: []runner.PhaseMark{{Name: runner.PhaseStart, At: at}, {Name: runner.PhaseSpawn, At: at.Add(2 * time.Millisecond)},
			{Name: runner.PhaseFirstByte, At: at.Add(40 * time.Millisecond)}, {Name: runner.PhaseExit, At: at.Add(45 * time.Millisecond)},
			{Name: runner.PhaseVerify, At: at.Add(46 * time.Millisecond)}},
	}
	file := "/home/u/.local/share/modbay/state/.requests/" + id + ".json"
	return exchangeArg{requestID: id, calls: []runner.ExchangeCall{c}, copy: runner.CopyLines{
		Invoke:      runner.InvokeLine(runner.Globals{}, "fake", "fake.report", json.RawMessage(`{"title":"Quarterly"}`)),
		ModuleCall:  runner.ModuleCallLine("/home/u/.local/share/modbay/modules/fake/fake", "fake.report", file),
		RequestFile: file, Note: runner.ModuleCallNote,
	}}
}

// exchangeOpen shows a result whose run recorded fixtureExchange, then
// presses x.
func exchangeOpen(t *testing.T, w, h int) *Model {
	m := submittedResult(t, "invoke/success-with-artifact.json", w, h)
	x := fixtureExchange(m.run().id)
	m.run().exchange = &x
	m.result().exchange = &x
	press(m, "x")
	if m.screen() != screenExchange {
		t.Fatalf("screen %v after x, want exchange", m.screen())
	}
	return m
}

// TestGoldenExchange draws the raw exchange at 120×40 (40×12 is drawn by
// TestGoldenSmall with every registered screen).
func TestGoldenExchange(t *testing.T) {
	m := exchangeOpen(t, 120, 40)
	out := frame(t, m)
	golden.RequireEqual(t, []byte(out))
	for _, want := range []string{"Repeat with modbay", "modbay invoke fake fake.report --input '{\"title\":\"Quarterly\"}'",
		"env -i TMPDIR=", "without modbay's containment", "spawn 2ms", "first byte 38ms", "exit 43ms", "verify 1ms", "reading 3 rows"} {
		if !strings.Contains(out, want) {
			t.Errorf("the exchange lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[31m") {
		t.Error("a module's escape reached the screen")
	}
}

// TestResultOffersXOnlyWithAnExchange: x is in the result's help only
// when the run's exchange was recorded.
func TestResultOffersXOnlyWithAnExchange(t *testing.T) {
	m := submittedResult(t, "invoke/success-with-artifact.json", 120, 40)
	if strings.Contains(m.helpView(), "raw exchange") {
		t.Error("x offered without an exchange")
	}
	press(m, "x")
	if m.screen() != screenResult {
		t.Fatalf("x without an exchange opened %v", m.screen())
	}
	m = exchangeOpen(t, 120, 40)
	press(m, "esc")
	if m.screen() != screenResult || !strings.Contains(ansi.Strip(m.helpView()), "x raw exchange") {
		t.Fatalf("screen %v, help %q", m.screen(), m.helpView())
	}
}

// TestExchangeOfARealRunCopiesInvokeTraceLines runs a real module through
// the cockpit on a real host: the result's x shows the exchange as
// recorded, and its copy lines are the strings `modbay invoke --trace`
// prints for that run (runner.Host.CopyLines over the same calls, the
// module named as invoke names it); a copy goes through ui/clipboard and
// says only what the clipboard did.
func TestExchangeOfARealRunCopiesInvokeTraceLines(t *testing.T) {
	home := tinyHome(t)
	cfg, err := config.Load(home)
	if err != nil {
		t.Fatal(err)
	}
	host := runner.NewHost(cfg)
	m := New(host, Options{NoColor: true})
	m.viewerEnv.Clipboard = clipboard.Clipboard{} // OSC 52, whatever the test runs in
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	h := newHarness(t, m)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	mod, err := host.Load(ctx, "tiny")
	if err != nil {
		t.Fatal(err)
	}
	input := json.RawMessage(`{"name":"Ada"}`)
	p, err := host.Plan(mod, "tiny.hello", input)
	if err != nil {
		t.Fatal(err)
	}
	h.do(m.startRun(p, true))
	h.until("result", func() bool { return m.screen() == screenResult })
	requests := filepath.Join(home, "state", ".requests")
	if _, err := os.Stat(requests); !os.IsNotExist(err) {
		t.Fatalf("a request file was saved before the exchange was opened (%v)", err)
	}
	h.key("x")
	s, ok := m.top().(*exchangeScreen)
	if !ok {
		t.Fatalf("screen %v after x, want exchange", m.screen())
	}
	h.until("the copy lines", func() bool { return s.arg.copy.Invoke != "" })
	calls := s.arg.calls
	if len(calls) != 1 || !strings.Contains(string(calls[0].Stdout), "hi e2e") || string(calls[0].Stderr) != "hello from stderr\n" {
		t.Fatalf("calls %+v", calls)
	}
	want := host.CopyLines(p, "tiny", input, calls)
	if s.arg.copy != want {
		t.Fatalf("copy lines\n%+v\nwant (invoke --trace's)\n%+v", s.arg.copy, want)
	}
	if want.Invoke != "modbay --home "+host.Config().Home+` invoke tiny tiny.hello --input '{"name":"Ada"}'` || !strings.Contains(want.ModuleCall, "env -i TMPDIR=") {
		t.Fatalf("copy lines %+v", want)
	}
	saved, err := os.ReadFile(want.RequestFile)
	if err != nil || string(saved) != string(calls[0].Request) {
		t.Fatalf("saved request file %q (%v), want the request as written %q", saved, err, calls[0].Request)
	}
	out := frame(t, m)
	for _, line := range []string{want.Invoke, "spawn", "first byte", "hello from stderr", "status 0"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(line), " ")) {
			t.Errorf("the screen lacks %q:\n%s", line, out)
		}
	}
	h.key("m")
	if !strings.Contains(s.note, "Copying the module call") {
		t.Fatalf("note %q", s.note)
	}
	h.until("copy note", func() bool {
		return strings.HasPrefix(s.note, "Sent to the terminal's clipboard (OSC 52, unconfirmed)")
	})
	if strings.Contains(strings.ToLower(s.note), "copied") {
		t.Errorf("an unconfirmed OSC 52 write claims a copy: %q", s.note)
	}
}

// TestExchangeOfASessionCall: an MCP call's raw exchange shows its
// JSON-RPC messages (sent and received, sanitized), not blank argv, env
// and stdout; a call with nothing recorded opens no screen.
func TestExchangeOfASessionCall(t *testing.T) {
	m := submittedResult(t, "invoke/success-with-artifact.json", 120, 40)
	at := uitest.Epoch
	id := m.run().id
	c := runner.ExchangeCall{RequestID: id, Messages: []runner.ExchangeMessage{
		{At: at, Direction: runner.FrameSent, Data: []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo"}}`), Bytes: 71},
		{At: at.Add(4 * time.Millisecond), Direction: runner.FrameReceived, Data: []byte(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"hi` + "\x1b[31m" + `"}]}}`), Bytes: 70},
	}}
	x := exchangeArg{requestID: id, calls: []runner.ExchangeCall{c}, copy: runner.CopyLines{Invoke: runner.InvokeLine(runner.Globals{}, "srv", "echo", nil)}}
	m.run().exchange, m.result().exchange = &x, &x
	press(m, "x")
	if m.screen() != screenExchange {
		t.Fatalf("screen %v after x, want exchange", m.screen())
	}
	out := frame(t, m)
	for _, want := range []string{"JSON-RPC, 2 messages", "→ sent +0s", `"method":"tools/call"`, "← received +4ms", `"text":"hi`} {
		if !strings.Contains(out, want) {
			t.Errorf("the session exchange lacks %q:\n%s", want, out)
		}
	}
	for _, not := range []string{"argv    ", "stdout  ", "\x1b[31m"} {
		if strings.Contains(out, not) {
			t.Errorf("the session exchange shows %q:\n%s", not, out)
		}
	}
	// Frames of no kind the screen shows: nothing to open.
	empty := []runner.ExchangeCall{{RequestID: id}}
	if recorded(empty) {
		t.Error("an empty call counted as recorded")
	}
	if s, _ := openExchangeScreen(m, exchangeArg{requestID: id, calls: empty}); s != nil {
		t.Error("a blank exchange screen opened")
	}
}
