package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"modbay/config"
	"modbay/modproto"
	"modbay/runner"
	"modbay/schema"
)

// TestCrashMidCallSaysExited: a server that exits mid-call is reported as
// exited, with its status and the stderr line that explains it (node's
// "Error: …", not its closing version banner); the next call starts a new
// process whose stderr holds none of the crashed one's lines.
func TestCrashMidCallSaysExited(t *testing.T) {
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"test": testServer(t)})
	m := f.module("test")
	res := f.run(m, "crash", `{}`, runner.RunOptions{})
	if res.Host == nil || res.Host.Code != CodeSessionFailed {
		t.Fatalf("crash: %+v, want %s", res.Host, CodeSessionFailed)
	}
	for _, want := range []string{"exit status 7", "before answering the call", "Error: no database at /data"} {
		if !strings.Contains(res.Host.Detail, want) {
			t.Errorf("crash detail %q lacks %q", res.Host.Detail, want)
		}
	}
	if k := modproto.KindOf(res.Host.Code); k != modproto.KindSystem {
		t.Errorf("kind of %s = %s", res.Host.Code, k)
	}
	res = f.run(m, "echo", `{"text":"again"}`, runner.RunOptions{})
	if !res.OK() {
		t.Fatalf("after the crash: %+v", res.Host)
	}
	if strings.Contains(res.Stderr, "no database") {
		t.Errorf("the new process's stderr holds the crashed one's lines: %q", res.Stderr)
	}
}

// TestDeadlineNamesLimit: a call past its deadline returns at the
// deadline, says which limit and where it is set, and its raw exchange
// holds the notifications/cancelled sent.
func TestDeadlineNamesLimit(t *testing.T) {
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"test": testServer(t)})
	m := f.module("test")
	p, err := f.host.Plan(m, "progress", json.RawMessage(`{"name":"hang"}`))
	if err != nil {
		t.Fatal(err)
	}
	p.Request.DeadlineMS = 300
	var mu sync.Mutex
	var frames [][]byte
	started := time.Now()
	res, err := f.host.RunWith(f.ctx, p, runner.RunOptions{Approved: true, Record: func(fr runner.Frame) {
		mu.Lock()
		frames = append(frames, fr.Data)
		mu.Unlock()
	}})
	took := time.Since(started)
	if err != nil || res.Host == nil || res.Host.Code != modproto.CodeHostTimeout {
		t.Fatalf("hang: %v %+v", err, res)
	}
	if !strings.Contains(res.Host.Detail, "deadline of 300ms") || !strings.Contains(res.Host.Detail, "--deadline") {
		t.Errorf("timeout detail %q names neither the limit nor the flag", res.Host.Detail)
	}
	// Generous, not a timing assertion: the call must not wait on
	// anything past its deadline (startExitWait for an exit, the stop
	// grace, a reconnect).
	if took > 300*time.Millisecond+startExitWait*6/10 {
		t.Errorf("a 300 ms deadline returned after %s", took)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices0(frames, []byte(`"notifications/cancelled"`)) {
		t.Errorf("the exchange lacks notifications/cancelled: %d frames", len(frames))
	}
}

func slices0(frames [][]byte, sub []byte) bool {
	for _, b := range frames {
		if bytes.Contains(b, sub) {
			return true
		}
	}
	return false
}

// TestLogsKeptAndLevel: log messages are kept between calls (bounded),
// and the level set with SetLogLevel is asked of the server and kept
// when it restarts.
func TestLogsKeptAndLevel(t *testing.T) {
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"test": testServer(t)})
	m := f.module("test")
	d := f.src.Driver("test")
	if res := f.run(m, "progress", `{}`, runner.RunOptions{}); !res.OK() {
		t.Fatalf("progress: %+v", res.Host)
	}
	if logs := d.Logs(); len(logs) != 1 || logs[0].Level != "info" || logs[0].Text != "half way" {
		t.Fatalf("kept logs %+v, want the info message only (debug is below the default level)", logs)
	}
	if err := d.SetLogLevel(f.ctx, "loud"); err == nil {
		t.Error("an unknown level was accepted")
	}
	if err := d.SetLogLevel(f.ctx, "debug"); err != nil {
		t.Fatal(err)
	}
	// The crash restarts the server: the level holds in the new session.
	_ = f.run(m, "crash", `{}`, runner.RunOptions{})
	if res := f.run(m, "progress", `{}`, runner.RunOptions{}); !res.OK() {
		t.Fatalf("progress: %+v", res.Host)
	}
	var texts []string
	for _, l := range d.Logs() {
		texts = append(texts, l.Level+" "+l.Text)
	}
	if got := strings.Join(texts, ","); got != "info half way,debug detail,info half way" {
		t.Errorf("kept logs %q", got)
	}
	// Newest first, the restart marked.
	lines := d.LogLines(10)
	if len(lines) != 4 || !strings.HasSuffix(lines[0], "info half way") || !strings.HasSuffix(lines[1], "debug detail") || lines[2] != RestartMarker {
		t.Errorf("log lines %q, want newest first with the restart marked", lines)
	}
}

// TestLogBetweenCallsAnnounced: a log message that arrives after its
// call is over is kept and announced to the watchers as a ChangeLog
// (the cockpit redraws its log pane on it).
func TestLogBetweenCallsAnnounced(t *testing.T) {
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"test": testServer(t)})
	m := f.module("test")
	d := f.src.Driver("test")
	changes := make(chan runner.Change, 8)
	defer d.Watch(func(c runner.Change) {
		select {
		case changes <- c:
		default:
		}
	})()
	if res := f.run(m, "later", `{}`, runner.RunOptions{}); !res.OK() {
		t.Fatalf("later: %+v", res.Host)
	}
	// The guard only ends a test that would hang; it times nothing.
	guard := time.After(30 * time.Second)
	for {
		select {
		case c := <-changes:
			if c.Kind != runner.ChangeLog {
				continue
			}
			logs := d.Logs()
			if len(logs) == 0 || logs[len(logs)-1].Text != "between calls" {
				t.Errorf("announced a log change, kept %+v", logs)
			}
			return
		case <-guard:
			t.Fatalf("no log change announced; kept %+v", d.Logs())
		}
	}
}

// TestLogLevelKept: the level chosen with SetLogLevel is kept in the
// server's state file: a new host on the same home reports it before
// connecting and asks the server for it; it wins over the entry's own
// log_level (docs/mcp.md, logging).
func TestLogLevelKept(t *testing.T) {
	home := t.TempDir()
	servers := map[string]config.MCPServer{"test": testServer(t)}
	f := newFixtureAt(t, home, config.SandboxOff, servers)
	d := f.src.Driver("test")
	if err := d.SetLogLevel(f.ctx, "debug"); err != nil {
		t.Fatal(err)
	}
	g := newFixtureAt(t, home, config.SandboxOff, servers)
	m := g.module("test")
	if lvl := g.src.Driver("test").LogLevel(); lvl != "debug" {
		t.Errorf("a new host reports level %q, want the kept debug", lvl)
	}
	if res := g.run(m, "progress", `{}`, runner.RunOptions{}); !res.OK() {
		t.Fatalf("progress: %+v", res.Host)
	}
	if logs := g.src.Driver("test").Logs(); len(logs) != 2 || logs[0].Level != "debug" {
		t.Errorf("kept logs %+v, want the debug message too (the kept level asked of the server)", logs)
	}
	edited := testServer(t)
	edited.LogLevel = "error"
	servers = map[string]config.MCPServer{"test": edited}
	h := newFixtureAt(t, home, config.SandboxOff, servers)
	_ = h.module("test")
	if lvl := h.src.Driver("test").LogLevel(); lvl != "debug" {
		t.Errorf("with the entry's log_level error: level %q, want the kept debug", lvl)
	}
}

// TestRefusedLogLevelNotKept: a level the server refuses
// (testdata/servers/picky_log.py refuses debug) is not kept, in this
// process or the state file, and the refusal is in the server's log; a
// level it takes is kept.
func TestRefusedLogLevelNotKept(t *testing.T) {
	script, _ := filepath.Abs(filepath.Join("testdata", "servers", "picky_log.py"))
	home := t.TempDir()
	servers := map[string]config.MCPServer{"picky": {Command: "python3", Args: []string{script}}}
	f := newFixtureAt(t, home, config.SandboxOff, servers)
	m := f.module("picky")
	if res := f.run(m, "echo", `{}`, runner.RunOptions{}); !res.OK() {
		t.Fatalf("echo: %+v", res.Host)
	}
	d := f.src.Driver("picky")
	if err := d.SetLogLevel(f.ctx, "warning"); err != nil {
		t.Fatal(err)
	}
	if err := d.SetLogLevel(f.ctx, "debug"); err == nil || !strings.Contains(err.Error(), "debug is too loud") {
		t.Fatalf("refused level: err %v, want the server's refusal", err)
	}
	if lvl := d.LogLevel(); lvl != "warning" {
		t.Errorf("after the refusal the level is %q, want warning kept", lvl)
	}
	if !slices.ContainsFunc(d.LogLines(10), func(l string) bool { return strings.Contains(l, "refused logging/setLevel debug") }) {
		t.Errorf("the log %q does not say the level was refused", d.LogLines(10))
	}
	g := newFixtureAt(t, home, config.SandboxOff, servers)
	_ = g.module("picky")
	if lvl := g.src.Driver("picky").LogLevel(); lvl != "warning" {
		t.Errorf("a new host reports %q, want the taken warning, not the refused debug", lvl)
	}
}

func TestExplainingLines(t *testing.T) {
	for _, tc := range []struct{ stderr, want string }{
		{"node:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\nError: Cannot find module '/x/index.js'\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)\n\nNode.js v20.20.2\n",
			"Error: Cannot find module '/x/index.js' · Node.js v20.20.2"},
		{"Traceback (most recent call last):\n  File \"/s/server.py\", line 1, in <module>\n    import mcp\nModuleNotFoundError: No module named 'mcp'\n",
			"ModuleNotFoundError: No module named 'mcp'"},
		{"panic: runtime error: index out of range\n\ngoroutine 1 [running]:\nmain.main()\n", "panic: runtime error: index out of range · main.main()"},
		{"listening\nbye\n", "bye"},
		{"\x1b[31mfatal: no token\x1b[0m\n", "␛[31mfatal: no token␛[0m"},
		{"", ""},
	} {
		if got := explainingLines(tc.stderr); got != tc.want {
			t.Errorf("explainingLines(%q) = %q, want %q", tc.stderr, got, tc.want)
		}
	}
}

// TestReplyLimit: a 900 KiB reply fits MCP's default ceiling; an entry's
// limits.max_output_bytes bounds it and the verdict names the limit.
func TestReplyLimit(t *testing.T) {
	small := testServer(t)
	small.Limits.MaxOutputBytes = 512 << 10
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"test": testServer(t), "small": small})
	if res := f.run(f.module("test"), "big", `{"kb":900}`, runner.RunOptions{}); !res.OK() {
		t.Errorf("a 900 KiB reply under the default ceiling: %+v", res.Host)
	}
	res := f.run(f.module("small"), "big", `{"kb":900}`, runner.RunOptions{})
	if res.Host == nil || res.Host.Code != modproto.CodeHostOutputTooLarge || !strings.Contains(res.Host.Detail, "(524288; set with limits.max_output_bytes in the server's mcp_servers entry") {
		t.Errorf("a 900 KiB reply over a 512 KiB entry limit: %+v", res.Host)
	}
	if err := config.CheckMCPServer("x", config.MCPServer{Command: "/bin/true", Limits: config.MCPLimits{MaxOutputBytes: 32 << 20}}); err == nil {
		t.Error("a limit past one MCP message's size was accepted")
	}
}

// TestReplyPastOneMessage: a reply past what one MCP message may be (a
// 17 MiB text; a 12 MiB image is 16.7 MB of base64) is
// host.output_too_large naming that bound, not a failed session: the
// SDK drops the session and the server then exits 0.
func TestReplyPastOneMessage(t *testing.T) {
	srv := testServer(t)
	srv.Limits.MaxOutputBytes = config.MCPMaxOutputBytes // the most an entry may set
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"test": srv})
	res := f.run(f.module("test"), "big", `{"kb":17408}`, runner.RunOptions{})
	if res.Host == nil || res.Host.Code != modproto.CodeHostOutputTooLarge || !strings.Contains(res.Host.Detail, "16 MiB") {
		t.Fatalf("a 17 MiB reply: %+v", res.Host)
	}
	if res := f.run(f.module("test"), "big", `{"kb":1}`, runner.RunOptions{}); !res.OK() {
		t.Errorf("the next call: %+v", res.Host)
	}
}

// TestReplyPastTheSDKsDepth: a reply nesting past what the SDK reads
// (which ends the session) is a protocol violation naming the depth, not
// the server's exit that follows; the next call starts it again.
func TestReplyPastTheSDKsDepth(t *testing.T) {
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"raw": rawServer(t)})
	res := f.run(f.module("raw"), "deep", `{}`, runner.RunOptions{})
	if res.Host == nil || res.Host.Code != modproto.CodeHostProtocolViolation || !strings.Contains(res.Host.Detail, "deeper than 1000 levels") {
		t.Fatalf("a 1,200-level reply: %+v", res.Host)
	}
	if res := f.run(f.module("raw"), "grumble", `{}`, runner.RunOptions{}); !res.OK() {
		t.Errorf("the next call: %+v", res.Host)
	}
}

// TestNeverAnsweringHeldBack: a server that never answers initialize
// (testdata/servers/hang_server.sh) fails within its entry's
// limits.initialize_seconds, naming the key, and is remembered as broken
// across hosts (the state file), so the next command does not start it
// again; a refresh tries it at once.
func TestNeverAnsweringHeldBack(t *testing.T) {
	script, err := filepath.Abs(filepath.Join("testdata", "servers", "hang_server.sh"))
	if err != nil {
		t.Fatal(err)
	}
	starts := filepath.Join(t.TempDir(), "starts")
	hang := config.MCPServer{Command: "/bin/sh", Args: []string{script}, Env: map[string]string{"STARTS": starts},
		Limits: config.MCPLimits{InitializeSeconds: 1}}
	home := t.TempDir()
	host := func() (*runner.Host, *Source) {
		cfg, err := config.Load(home)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Sandbox, cfg.MCPServers = config.SandboxOff, map[string]config.MCPServer{"hang": hang}
		h := runner.NewHost(cfg)
		src := NewSource(cfg, nil)
		h.AddSource(src)
		t.Cleanup(func() { _ = src.Close() })
		return h, src
	}
	count := func() int {
		b, _ := os.ReadFile(starts)
		return strings.Count(string(b), "start")
	}
	h, _ := host()
	ctx := context.Background()
	m, err := h.Load(ctx, "hang")
	if err != nil || m.Status != runner.StatusBroken || !strings.Contains(m.Reason, "did not answer initialize within 1s (set with limits.initialize_seconds") {
		t.Fatalf("first load: %v %+v", err, m)
	}
	if n := count(); n != 1 {
		t.Fatalf("started %d times, want 1", n)
	}
	h, src := host()
	m, err = h.Load(ctx, "hang")
	if err != nil || m.Status != runner.StatusBroken || !strings.Contains(m.Reason, "not started again until") {
		t.Fatalf("second load: %v %+v", err, m)
	}
	if n := count(); n != 1 {
		t.Errorf("the held-back server was started again (%d starts)", n)
	}
	src.Refresh()
	if m, _ = h.Load(ctx, "hang"); strings.Contains(m.Reason, "not started again") || count() != 2 {
		t.Errorf("after a refresh the server is still held back (%d starts): %s", count(), m.Reason)
	}
}

// TestInitializeTimeoutDefaults: 10 s, 60 s for a command that fetches
// its package first, the entry's limits.initialize_seconds over both.
func TestInitializeTimeoutDefaults(t *testing.T) {
	for _, tc := range []struct {
		srv  config.MCPServer
		want time.Duration
	}{
		{config.MCPServer{Command: "/usr/bin/node", Args: []string{"index.js"}}, InitializeTimeout},
		{config.MCPServer{URL: "https://h/mcp"}, InitializeTimeout},
		{config.MCPServer{Command: "npx", Args: []string{"-y", "pkg"}}, FetchingInitializeTimeout},
		{config.MCPServer{Command: "/usr/local/bin/uvx", Args: []string{"mcp-server-time"}}, FetchingInitializeTimeout},
		{config.MCPServer{Command: "pipx", Args: []string{"run", "mcp-server-fetch"}}, FetchingInitializeTimeout},
		{config.MCPServer{Command: "pipx", Args: []string{"list"}}, InitializeTimeout},
		{config.MCPServer{Command: "uv", Args: []string{"tool", "run", "x"}}, FetchingInitializeTimeout},
		{config.MCPServer{Command: "uv", Args: []string{"run", "server.py"}}, InitializeTimeout},
		{config.MCPServer{Command: "pnpm", Args: []string{"dlx", "x"}}, FetchingInitializeTimeout},
		{config.MCPServer{Command: "npx", Limits: config.MCPLimits{InitializeSeconds: 5}}, 5 * time.Second},
	} {
		if got := initializeTimeout(tc.srv); got != tc.want {
			t.Errorf("%s %v: %s, want %s", tc.srv.Command, tc.srv.Args, got, tc.want)
		}
	}
}

// TestElicitDefaultsNotSent: an accepted answer holds only the fields the
// person set (the answer on the wire; the test server's SDK fills in
// defaults on its side); the defaults are shown with the question, kept
// in its schema.
func TestElicitDefaultsNotSent(t *testing.T) {
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"test": testServer(t)})
	var asked runner.Elicitation
	var mu sync.Mutex
	var answer []byte
	res := f.run(f.module("test"), "askdefaults", `{}`, runner.RunOptions{
		Elicit: func(_ context.Context, e runner.Elicitation) (runner.ElicitAnswer, error) {
			asked = e
			return runner.ElicitAnswer{Action: runner.ElicitAccept, Content: json.RawMessage(`{"count":7}`)}, nil
		},
		Record: func(fr runner.Frame) {
			mu.Lock()
			defer mu.Unlock()
			if fr.Direction == runner.FrameSent && bytes.Contains(fr.Data, []byte(`"action":"accept"`)) {
				answer = fr.Data
			}
		},
	})
	if !res.OK() {
		t.Fatalf("askdefaults: %+v", res.Host)
	}
	if !bytes.Contains(asked.Schema, []byte(`"default":"Dear Sir"`)) {
		t.Errorf("the question's schema lost its defaults: %s", asked.Schema)
	}
	mu.Lock()
	defer mu.Unlock()
	if !bytes.Contains(answer, []byte(`"content":{"count":7}`)) || bytes.Contains(answer, []byte("Dear Sir")) {
		t.Errorf("the answer sent is %s, want only what was set", answer)
	}
}

// TestPlanServerRoots: an MCP call's plan carries the server's own
// folders (its roots and cwd, read-only unless listed), which history
// and the dialog show as the sandbox grants them.
func TestPlanServerRoots(t *testing.T) {
	srv := testServer(t)
	dir := t.TempDir()
	srv.Roots, srv.Cwd = map[string]string{"/usr/share": config.RootRO}, dir
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"test": srv})
	p, err := f.host.Plan(f.module("test"), "echo", json.RawMessage(`{"text":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]modproto.Root{"server": {Path: dir, Mode: "ro"}, "server2": {Path: "/usr/share", Mode: "ro"}}
	if len(p.ServerRoots) != 2 || p.ServerRoots["server"] != want["server"] || p.ServerRoots["server2"] != want["server2"] {
		t.Errorf("server roots %+v, want %+v", p.ServerRoots, want)
	}
}

// TestLogLevelFromEntry: the entry's log_level is asked of the server.
func TestLogLevelFromEntry(t *testing.T) {
	srv := testServer(t)
	srv.LogLevel = "debug"
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"test": srv})
	if res := f.run(f.module("test"), "progress", `{}`, runner.RunOptions{}); !res.OK() {
		t.Fatalf("progress: %+v", res.Host)
	}
	if logs := f.src.Driver("test").LogLines(10); len(logs) != 2 || !strings.HasSuffix(logs[1], " debug detail") || !strings.HasSuffix(logs[0], " info half way") {
		t.Errorf("log lines %q, want the debug message too, newest first", logs)
	}
	if err := config.CheckMCPServer("x", config.MCPServer{Command: "/bin/true", LogLevel: "loud"}); err == nil {
		t.Error("an unknown log_level was accepted")
	}
}

// TestCancelRecorded: a call the person cancels keeps the
// notifications/cancelled sent in its raw exchange.
func TestCancelRecorded(t *testing.T) {
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"test": testServer(t)})
	m := f.module("test")
	p, err := f.host.Plan(m, "progress", json.RawMessage(`{"name":"hang"}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(f.ctx)
	defer cancel()
	var mu sync.Mutex
	var frames [][]byte
	res, err := f.host.RunWith(ctx, p, runner.RunOptions{Approved: true,
		Events: func(e runner.Event) {
			if e.Log != nil {
				cancel()
			}
		},
		Record: func(fr runner.Frame) {
			mu.Lock()
			frames = append(frames, fr.Data)
			mu.Unlock()
		}})
	if err != nil || res.Host == nil || res.Host.Code != modproto.CodeCancelled {
		t.Fatalf("cancelled: %v %+v", err, res)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices0(frames, []byte(`"notifications/cancelled"`)) {
		t.Errorf("the exchange lacks notifications/cancelled: %d frames", len(frames))
	}
}

// TestLogLevelPersisted: the level a person chose is kept in the server's
// state file, so a later process (a modbay invoke) asks for it too.
func TestLogLevelPersisted(t *testing.T) {
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"test": testServer(t)})
	_ = f.module("test")
	if err := f.src.Driver("test").SetLogLevel(f.ctx, "debug"); err != nil {
		t.Fatal(err)
	}
	if declared, known := f.src.Driver("test").LogsDeclared(); !known || !declared {
		t.Errorf("LogsDeclared = %v, %v; the test server declares logging", declared, known)
	}
	cfg, err := config.Load(f.home)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MCPServers = map[string]config.MCPServer{"test": testServer(t)}
	src := NewSource(cfg, func(k string) (string, bool) { v, ok := hostVars[k]; return v, ok })
	t.Cleanup(func() { _ = src.Close() })
	host := runner.NewHost(cfg)
	host.AddSource(src)
	var m *runner.Module
	for _, mm := range host.Discover(f.ctx) {
		if mm.ID == "test" {
			m = mm
		}
	}
	p, err := host.Plan(m, "progress", []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if res, err := host.RunWith(f.ctx, p, runner.RunOptions{Approved: true}); err != nil || !res.OK() {
		t.Fatalf("progress: %v %+v", err, res)
	}
	d := src.Driver("test")
	if d.LogLevel() != "debug" || !slices.ContainsFunc(d.Logs(), func(l LogEntry) bool { return l.Level == "debug" }) {
		t.Errorf("a new process asked for %s, logs %+v: want the chosen debug", d.LogLevel(), d.Logs())
	}
}

// TestFirstCallShowsSessionStart: the raw exchange of a session's first
// call begins with how the session started (initialize and its answer,
// logging/setLevel); a later call's does not repeat it.
func TestFirstCallShowsSessionStart(t *testing.T) {
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"test": testServer(t)})
	m := f.module("test")
	exchange := func() [][]byte {
		p, err := f.host.Plan(m, "echo", json.RawMessage(`{"text":"hi"}`))
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var frames [][]byte
		res, err := f.host.RunWith(f.ctx, p, runner.RunOptions{Approved: true, Record: func(fr runner.Frame) {
			mu.Lock()
			frames = append(frames, fr.Data)
			mu.Unlock()
		}})
		if err != nil || !res.OK() {
			t.Fatalf("echo: %v %+v", err, res)
		}
		mu.Lock()
		defer mu.Unlock()
		return frames
	}
	first := exchange()
	for _, want := range []string{`"method":"initialize"`, `"protocolVersion"`, `"method":"logging/setLevel"`, `"method":"tools/call"`} {
		if !slices0(first, []byte(want)) {
			t.Errorf("the first call's exchange lacks %s: %q", want, first)
		}
	}
	if len(first) > 0 && !bytes.Contains(first[0], []byte(`"method":"initialize"`)) {
		t.Errorf("the exchange starts with %q, want initialize", first[0])
	}
	if later := exchange(); slices0(later, []byte(`"method":"initialize"`)) {
		t.Errorf("a later call's exchange repeats initialize: %q", later)
	}
}

// TestKeptLogsMasked: a log message a server sends between calls, kept
// for its detail pane, has the last call's secrets masked, a cut one's
// start included.
func TestKeptLogsMasked(t *testing.T) {
	const k = "KKKKsecK"
	d := &Driver{lastEchoes: []schema.Echo{{Pointer: "/k", Why: "writeOnly", Value: k}}}
	d.log(json.RawMessage(`{"level":"info","data":"key ` + k + ` now"}`))
	d.log(json.RawMessage(`{"level":"info","data":"` + strings.Repeat("x", maxLogText-4) + k + `"}`))
	logs := d.Logs()
	if len(logs) != 2 || logs[0].Text != "key ‹masked: writeOnly /k› now" || strings.Contains(logs[1].Text, "KKKK") {
		t.Errorf("kept logs %+v", logs)
	}
	time.Sleep(2 * logQuiet) // the announcement, to no one
}
