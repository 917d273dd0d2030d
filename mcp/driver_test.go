package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"modbay/config"
	"modbay/modproto"
	"modbay/runner"
)

// fixture is a host in a temporary home whose config names the test
// server (and any extra entries), sandbox as given.
type fixture struct {
	t    testing.TB
	host *runner.Host
	src  *Source
	ctx  context.Context
	// home is the fixture's modbay home.
	home string
}

// testServer is the config entry of the test server; its env names the
// host variable MCP_TEST_HOST_SECRET.
func testServer(t *testing.T) config.MCPServer {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return config.MCPServer{Command: exe, Env: map[string]string{serverEnv: serverServe, "SECRET": "${MCP_TEST_HOST_SECRET}"}}
}

// hostVars is what the fixture's servers see of "the host's" variables.
var hostVars = map[string]string{"MCP_TEST_HOST_SECRET": "s3cret", "MCP_TEST_OTHER": "must-not-leak"}

func newFixture(t testing.TB, sandbox string, servers map[string]config.MCPServer) *fixture {
	t.Helper()
	return newFixtureAt(t, t.TempDir(), sandbox, servers)
}

// newFixtureAt is newFixture in the given home.
func newFixtureAt(t testing.TB, home, sandbox string, servers map[string]config.MCPServer) *fixture {
	t.Helper()
	cfg, err := config.Load(home)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Sandbox, cfg.MCPServers = sandbox, servers
	h := runner.NewHost(cfg)
	src := NewSource(cfg, func(k string) (string, bool) { v, ok := hostVars[k]; return v, ok })
	h.AddSource(src)
	t.Cleanup(func() { _ = src.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return &fixture{t: t, host: h, src: src, ctx: ctx, home: cfg.Home}
}

func (f *fixture) module(id string) *runner.Module {
	f.t.Helper()
	for _, m := range f.host.Discover(f.ctx) {
		if m.ID == id {
			return m
		}
	}
	f.t.Fatalf("module %s not discovered", id)
	return nil
}

func (f *fixture) run(m *runner.Module, tool, input string, opts runner.RunOptions) *runner.Result {
	f.t.Helper()
	p, err := f.host.Plan(m, tool, json.RawMessage(input))
	if err != nil {
		f.t.Fatal(err)
	}
	opts.Approved = true
	res, err := f.host.RunWith(f.ctx, p, opts)
	if err != nil {
		f.t.Fatal(err)
	}
	return res
}

func TestDiscoverAndApproval(t *testing.T) {
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"test": testServer(t)})
	m := f.module("test")
	if m.Status != runner.StatusReady || m.Origin != Origin || !m.EffectsAreHints || m.Key != "mcp:test" {
		t.Fatalf("module: status %s (%s), origin %s, hints %v, key %s", m.Status, m.Reason, m.Origin, m.EffectsAreHints, m.Key)
	}
	d := m.Descriptor
	if d.Name != "Test Server" || d.Version != "0.3.1" {
		t.Errorf("name %q version %q, want the implementation info", d.Name, d.Version)
	}
	// Two tools a page: all thirteen come through pagination (beside the
	// hidden capabilities of its resources and prompt).
	if tools(d) != 13 {
		t.Fatalf("%d capabilities, want 13: %+v", len(d.Capabilities), d.Capabilities)
	}
	echo := d.Capability("echo")
	if echo.Title != "Echo" || echo.Summary != "Echoes its text. Read-only, closed world." || echo.ResultSchema == "" {
		t.Errorf("echo = %+v", echo)
	}
	if echo.Effects != (modproto.Effects{Local: true}) {
		t.Errorf("echo effects %+v, want local only", echo.Effects)
	}
	if e := d.Capability("plain").Effects; !e.Network || !e.ExternalWrites || e.CostKnown {
		t.Errorf("unannotated effects %+v, want MCP's defaults: network, external writes, cost unknown", e)
	}
	// Resources and prompts, read-only, sanitized.
	res, prompts, problems := f.src.Driver("test").Catalog()
	if len(res) != 1 || res[0] != "Read me␛[31m — file:///readme.md · text/markdown" ||
		len(prompts) != 1 || prompts[0] != "review — Reviews a change. (diff*, tone)" || len(problems) != 0 {
		t.Errorf("catalog: resources %q prompts %q problems %q", res, prompts, problems)
	}
	if !strings.Contains(strings.Join(m.Warnings, "\n"), "contradict: annotations say both read-only and destructive") {
		t.Errorf("warnings %q lack the contradiction", m.Warnings)
	}
	// docs/protocol.md §11, MCP tools: read-only closed world runs at once, an
	// unannotated tool asks.
	p, err := f.host.Plan(m, "echo", json.RawMessage(`{"text":"hi"}`))
	if err != nil || p.NeedsApproval() {
		t.Errorf("echo: %v, approval %q", err, p.Approval)
	}
	// Hints left out are said to be MCP's defaults; the network is not
	// asked for on a server started without it (the plan says how to
	// grant it).
	p, err = f.host.Plan(m, "plain", nil)
	if err != nil || len(p.Approval) != 1 || !strings.Contains(p.Approval[0], "no readOnlyHint given: MCP's default is not read-only") ||
		!strings.Contains(p.Approval[0], "no destructiveHint given") || p.Destructive || !strings.Contains(p.NoNetwork, "network: true") {
		t.Errorf("plain: %v, approval %q, destructive %v, no network %q", err, p.Approval, p.Destructive, p.NoNetwork)
	}
	// An explicit destructiveHint says so, and marks the plan.
	if wp, err := f.host.Plan(m, "wipe", nil); err != nil || len(wp.Approval) != 1 || !wp.Destructive ||
		!strings.Contains(wp.Approval[0], "may delete or overwrite data (the server's destructiveHint: true") || wp.NoNetwork != "" {
		t.Errorf("wipe: %v, approval %q, destructive %v, no network %q", err, wp.Approval, wp.Destructive, wp.NoNetwork)
	}
	if _, err := f.host.Run(f.ctx, p, false, nil); !errors.Is(err, runner.ErrApprovalRequired) {
		t.Errorf("unapproved run: %v", err)
	}
	// Invalid input is refused before anything is sent.
	var ie *runner.InputError
	if _, err := f.host.Plan(m, "echo", json.RawMessage(`{"text":5}`)); !errors.As(err, &ie) {
		t.Errorf("invalid input: %v, want *runner.InputError", err)
	}
}

func TestInvokeResults(t *testing.T) {
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"test": testServer(t)})
	m := f.module("test")

	res := f.run(m, "echo", `{"text":"hi"}`, runner.RunOptions{})
	if !res.OK() || string(res.Envelope.Result) != `{"echo":"hi"}` {
		t.Fatalf("echo: %+v %s", res.Host, res.Envelope.Result)
	}
	if len(res.Artifacts) != 1 || res.Artifacts[0].Presentation != "json" {
		t.Fatalf("echo artifacts %+v, want the text block as json", res.Artifacts)
	}
	if b, err := os.ReadFile(res.Artifacts[0].Staged); err != nil || string(b) != `{"echo":"hi"}` {
		t.Errorf("staged text %q, %v", b, err)
	}

	res = f.run(m, "image", `{}`, runner.RunOptions{})
	if !res.OK() || len(res.Artifacts) != 2 {
		t.Fatalf("image: %+v, %d artifacts", res.Host, len(res.Artifacts))
	}
	img, csv := res.Artifacts[0], res.Artifacts[1]
	if img.Presentation != "image" || img.MediaType != "image/png" || csv.Presentation != "table" || csv.Title != "file:///t.csv" {
		t.Errorf("image artifacts %+v", res.Artifacts)
	}
	if b, _ := os.ReadFile(img.Staged); !bytes.Equal(b, testPNG()) {
		t.Error("the staged image differs from the server's bytes")
	}
	if fi, err := os.Stat(img.Staged); err != nil || fi.Mode().Perm()&0o222 != 0 {
		t.Errorf("staged image mode %v, %v: want read-only", fi.Mode(), err)
	}

	res = f.run(m, "fail", `{}`, runner.RunOptions{})
	if res.Host != nil || res.Envelope == nil || res.Envelope.Error == nil || res.Envelope.Error.Code != CodeToolError ||
		!strings.Contains(res.Envelope.Error.Message, "it broke on purpose") {
		t.Errorf("isError: host %+v envelope %+v", res.Host, res.Envelope)
	}

	// An unknown tool is a JSON-RPC error: a host verdict with its code.
	p := &runner.Plan{Module: m, Capability: modproto.Capability{ID: "nope"}, Request: modproto.Request{
		Protocol: modproto.ProtocolID, Capability: "nope", RequestID: modproto.NewRequestID(), Input: json.RawMessage(`{}`)}}
	p.Request.Normalize()
	res, err := f.host.Run(f.ctx, p, true, nil)
	if err != nil || res.Host == nil || res.Host.Code != CodeMCPError {
		t.Errorf("unknown tool: %v %+v", err, res)
	}
}

func TestProgressLogRecordElicit(t *testing.T) {
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"test": testServer(t)})
	m := f.module("test")
	var mu sync.Mutex
	var events []runner.Event
	var frames []runner.Frame
	res := f.run(m, "progress", `{}`, runner.RunOptions{
		Events: func(e runner.Event) { mu.Lock(); events = append(events, e); mu.Unlock() },
		Record: func(fr runner.Frame) { mu.Lock(); frames = append(frames, fr); mu.Unlock() },
	})
	if !res.OK() {
		t.Fatalf("progress: %+v", res.Host)
	}
	mu.Lock()
	var pcts []float64
	var logs []string
	for _, e := range events {
		if e.RequestID != res.RequestID {
			t.Errorf("event under %q, want %q", e.RequestID, res.RequestID)
		}
		if e.Progress != nil && e.Progress.Percent != nil {
			pcts = append(pcts, *e.Progress.Percent)
		}
		if e.Log != nil {
			logs = append(logs, e.Log.Level+" "+e.Log.Text)
		}
	}
	if len(pcts) != 2 || pcts[0] != 25 || pcts[1] != 50 {
		t.Errorf("progress %v, want [25 50]", pcts)
	}
	if len(logs) != 1 || logs[0] != "info half way" {
		t.Errorf("logs %q", logs)
	}
	var sent, recv int
	for _, fr := range frames {
		if fr.Kind == runner.FramePhase {
			continue // the host's own phases (verify, stage) close every exchange
		}
		if fr.Kind != runner.FrameJSONRPC || !json.Valid(fr.Data) {
			t.Errorf("frame %s %q", fr.Kind, fr.Data)
		}
		if fr.Direction == runner.FrameSent {
			sent++
		} else {
			recv++
		}
	}
	// The session's first call: its start, then the call.
	call := slices.IndexFunc(frames, func(fr runner.Frame) bool { return bytes.Contains(fr.Data, []byte(`"tools/call"`)) })
	if sent < 1 || recv < 3 || call < 0 || !bytes.Contains(frames[0].Data, []byte(`"initialize"`)) {
		t.Errorf("frames: %d sent, %d received, tools/call at %d; first %s", sent, recv, call, frames[0].Data)
	}
	mu.Unlock()

	for _, tc := range []struct {
		ans  runner.ElicitAnswer
		want string
	}{
		{runner.ElicitAnswer{Action: runner.ElicitAccept, Content: json.RawMessage(`{"shout":true}`)}, "HELLO (ACCEPT)"},
		{runner.ElicitAnswer{Action: runner.ElicitDecline}, "hello (decline)"},
	} {
		var asked runner.Elicitation
		res = f.run(m, "ask", `{}`, runner.RunOptions{Elicit: func(_ context.Context, e runner.Elicitation) (runner.ElicitAnswer, error) {
			asked = e
			return tc.ans, nil
		}})
		if !res.OK() || len(res.Artifacts) != 1 {
			t.Fatalf("ask: %+v", res.Host)
		}
		if b, _ := os.ReadFile(res.Artifacts[0].Staged); string(b) != tc.want {
			t.Errorf("ask answered %q, want %q", b, tc.want)
		}
		if asked.Message != "Shout?" || !bytes.Contains(asked.Schema, []byte(`"shout"`)) {
			t.Errorf("elicitation %+v", asked)
		}
	}
}

func TestCancelKeepsSession(t *testing.T) {
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"test": testServer(t)})
	m := f.module("test")
	p, err := f.host.Plan(m, "progress", json.RawMessage(`{"name":"hang"}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(f.ctx)
	res, err := f.host.Run(ctx, p, true, func(e runner.Event) {
		if e.Log != nil {
			cancel() // the server is now waiting for cancellation
		}
	})
	cancel()
	if err != nil || res.Host == nil || res.Host.Code != modproto.CodeCancelled {
		t.Fatalf("cancelled call: %v %+v", err, res)
	}
	// The session lives on: the next call is served.
	if res := f.run(m, "echo", `{"text":"again"}`, runner.RunOptions{}); !res.OK() {
		t.Errorf("after cancel: %+v", res.Host)
	}
}

func TestBrokenServers(t *testing.T) {
	crash := testServer(t)
	crash.Env = map[string]string{serverEnv: serverCrash}
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{
		"badcmd": {Command: "/nonexistent/mcp-server"},
		"crash":  crash,
		"both":   {Command: "x", URL: "https://example.org/mcp"},
	})
	mods := map[string]*runner.Module{}
	for _, m := range f.host.Discover(f.ctx) {
		mods[m.ID] = m
	}
	for id, want := range map[string]string{"badcmd": "/nonexistent/mcp-server", "crash": "the server exited (exit status 3) before answering initialize: boom: GITHUB_TOKEN is not set", "both": "both command and url"} {
		m := mods[id]
		if m == nil || m.Status != runner.StatusBroken || !strings.Contains(m.Reason, want) {
			t.Errorf("%s: %+v, want broken mentioning %q", id, m, want)
		}
	}
	if m := mods["crash"]; m != nil && !strings.Contains(m.Stderr, "boom: GITHUB_TOKEN is not set") {
		t.Errorf("crash: stderr tail %q lacks the server's words", m.Stderr)
	}
}

func TestEnvOnlyNamedVariables(t *testing.T) {
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"test": testServer(t)})
	t.Setenv("MCP_TEST_OTHER", "must-not-leak")
	res := f.run(f.module("test"), "env", `{}`, runner.RunOptions{})
	if !res.OK() || len(res.Artifacts) != 1 {
		t.Fatalf("env: %+v", res.Host)
	}
	b, _ := os.ReadFile(res.Artifacts[0].Staged)
	var names []string
	for _, kv := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(kv, "=")
		names = append(names, k)
		if k == "SECRET" && v != "s3cret" {
			t.Errorf("SECRET=%q, want the host variable's value", v)
		}
	}
	if got := strings.Join(names, ","); got != serverEnv+",SECRET,TMPDIR" {
		t.Errorf("the server's environment holds %s, want only %s,SECRET,TMPDIR", got, serverEnv)
	}
}

// TestContainedNoProcessLeft runs the server under the host's sandbox
// (auto: as far as this machine allows), and checks Close leaves no
// process behind.
func TestContainedNoProcessLeft(t *testing.T) {
	f := newFixture(t, config.SandboxAuto, map[string]config.MCPServer{"test": testServer(t)})
	m := f.module("test")
	if m.Status != runner.StatusReady {
		t.Fatalf("contained server: %s: %s\n%s", m.Status, m.Reason, m.Stderr)
	}
	res := f.run(m, "echo", `{"text":"boxed"}`, runner.RunOptions{})
	if !res.OK() {
		t.Fatalf("contained echo: %+v", res.Host)
	}
	d := f.src.Driver("test")
	d.mu.Lock()
	pid := d.sess.proc.cmd.Process.Pid
	d.mu.Unlock()
	if err := f.src.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("server pid %d still exists after Close (kill 0: %v)", pid, err)
	}
	if st := d.Status(); st.State != runner.LifecycleClosed {
		t.Errorf("status after Close: %+v", st)
	}
}

// A server that keeps running after its stdin ends is killed, tree and
// all, once CloseWithin's grace is over: a command's exit leaves no
// server behind without waiting out StopGrace.
func TestCloseWithinKillsALingeringServer(t *testing.T) {
	srv := testServer(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	srv.Env = map[string]string{serverEnv: serverLinger, lingerPIDEnv: pidFile}
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"test": srv})
	f.module("test") // connects: the server lists its tools
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.src.CloseWithin(10 * time.Millisecond); err != nil {
		t.Logf("close: %v", err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the server (pid %d) outlived CloseWithin: kill 0 says %v", pid, err)
	}
}
