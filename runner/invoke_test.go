package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"modbay/modproto"
)

func TestRunWellBehavedEchoAndArtifact(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("good", "good")
	m := f.load("good")

	var mu sync.Mutex
	var sawPID bool
	p, err := f.host.Plan(m, "t.echo", json.RawMessage(`{"name":"ada","count":2}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.host.Run(ctxGuard(t), p, false, func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		if e.PID > 0 && e.RequestID == p.Request.RequestID {
			sawPID = true
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() || res.Code() != "" {
		t.Fatalf("echo failed: %+v %+v stderr %s", res.Host, res.Envelope, res.Stderr)
	}
	if res.RequestID != p.Request.RequestID || !modproto.ValidRequestID(res.RequestID) {
		t.Errorf("request id %q", res.RequestID)
	}
	if got := string(res.Envelope.Result); !strings.Contains(got, `"name":"ada"`) {
		t.Errorf("result %s", got)
	}
	mu.Lock()
	if !sawPID {
		t.Error("no PID event")
	}
	mu.Unlock()

	res = f.run(m, "t.art", `{"mode":"ok"}`, nil)
	if !res.OK() {
		t.Fatalf("artifact run failed: %+v", res.Host)
	}
	if len(res.Artifacts) != 1 {
		t.Fatalf("artifacts: %+v", res.Artifacts)
	}
	a := res.Artifacts[0]
	content := []byte(`{"title":"report","rows":[1,2,3]}`)
	want := modproto.Digest(content)
	if a.Digest != want || a.Size != int64(len(content)) || a.Presentation != "json" {
		t.Errorf("artifact %+v", a)
	}
	if a.Source != filepath.Join(f.cfg.Workspace, "report.json") {
		t.Errorf("source %s", a.Source)
	}
	hexSum := strings.TrimPrefix(want, "sha256:")
	if a.Staged != filepath.Join(f.cfg.ArtifactsDir(), "sha256", hexSum[:2], hexSum) {
		t.Errorf("staged at %s", a.Staged)
	}
	fi, err := os.Stat(a.Staged)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o444 {
		t.Errorf("staged mode %o, want 0444", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(a.Staged)
	if modproto.Digest(b) != want {
		t.Error("staged content differs")
	}
	// A second identical artifact reuses the stored file.
	res2 := f.run(m, "t.art", `{"mode":"ok"}`, nil)
	if !res2.OK() || res2.Artifacts[0].Staged != a.Staged {
		t.Fatalf("second run: %+v", res2.Host)
	}
	// An artifact in a state (write) root is fine too.
	if res := f.run(m, "t.art", `{"mode":"state"}`, nil); !res.OK() {
		t.Fatalf("state root artifact: %+v", res.Host)
	}
}

func TestRunEnvironmentIsOnlyTMPDIR(t *testing.T) {
	// Not parallel: t.Setenv. The canary is in the host's environment and
	// must not reach the module.
	t.Setenv("MODBAY_CANARY_SECRET", "leak")
	f := newFixture(t)
	f.addLinkedModule("envdump", "good")
	m := f.load("envdump")
	// The run takes the directory made ahead of it (runDirs).
	FlushRunDirs()
	PrepareRunDir()
	runDirs.wait()
	runDirs.mu.Lock()
	spare := ""
	if len(runDirs.free) == 1 {
		spare = runDirs.free[0]
	}
	runDirs.mu.Unlock()
	if spare == "" {
		t.Fatal("PrepareRunDir made no directory")
	}
	res := f.run(m, "t.hostile", `{"mode":"env"}`, nil)
	if !res.OK() {
		t.Fatalf("%+v", res.Host)
	}
	FlushRunDirs() // removals run in the background
	var out struct {
		Env         []string `json:"env"`
		Cwd         string   `json:"cwd"`
		TmpIsDir    bool     `json:"tmpdir_is_dir"`
		RequestPath string   `json:"request_path"`
		RequestMode string   `json:"request_mode"`
	}
	if err := json.Unmarshal(res.Envelope.Result, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Env) != 1 || !strings.HasPrefix(out.Env[0], "TMPDIR=/") {
		t.Fatalf("module environment = %q, want exactly TMPDIR", out.Env)
	}
	tmp := strings.TrimPrefix(out.Env[0], "TMPDIR=")
	if tmp != filepath.Join(spare, "tmp") || out.Cwd != filepath.Join(spare, "work") || out.RequestPath != filepath.Join(spare, "request.json") {
		t.Errorf("TMPDIR %s, cwd %s, request %s: not in the directory made ahead, %s", tmp, out.Cwd, out.RequestPath, spare)
	}
	if !out.TmpIsDir {
		t.Error("TMPDIR was not a directory during the run")
	}
	host, _ := os.Getwd()
	if out.Cwd == host || out.Cwd == "" {
		t.Errorf("cwd %q is the host's", out.Cwd)
	}
	if out.RequestMode != "600" || !filepath.IsAbs(out.RequestPath) {
		t.Errorf("request file %s mode %s", out.RequestPath, out.RequestMode)
	}
	runDirs.mu.Lock()
	left := runDirs.free
	runDirs.mu.Unlock()
	if len(left) > 0 {
		t.Errorf("FlushRunDirs left %v", left)
	}
	for _, p := range []string{tmp, out.Cwd, out.RequestPath, spare} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s survived the run (err %v)", p, err)
		}
	}
	// describe ran in the same sandbox.
	var denv []string
	b, _ := os.ReadFile(filepath.Join(filepath.Dir(m.Exe), "describe.env"))
	if err := json.Unmarshal(b, &denv); err != nil || len(denv) != 1 || !strings.HasPrefix(denv[0], "TMPDIR=") {
		t.Errorf("describe environment = %q (%v)", denv, err)
	}
}

// TestRunOutcomes covers the module's lies, docs/protocol.md §5 outcomes 5–9.
func TestRunOutcomes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("liar", "good")
	m := f.load("liar")
	cases := []struct {
		cap, mode, code string
		violation       string // a substring of some violation's path or detail
	}{
		{"t.hostile", "empty", modproto.CodeHostInvalidJSON, ""},
		{"t.hostile", "not_json", modproto.CodeHostInvalidJSON, ""},
		{"t.hostile", "crash", modproto.CodeHostNoEnvelope, ""},
		{"t.hostile", "trailing", modproto.CodeHostProtocolViolation, ""},
		{"t.hostile", "wrong_id", modproto.CodeHostProtocolViolation, "request_id"},
		{"t.hostile", "ok_with_error", modproto.CodeHostProtocolViolation, "error"},
		{"t.hostile", "wrong_module", modproto.CodeHostProtocolViolation, "module"},
		{"t.art", "kind", modproto.CodeHostProtocolViolation, "t.undeclared"},
		{"t.art", "dotdot", modproto.CodePathOutsideRoot, "escapes root"},
		{"t.art", "symlink", modproto.CodePathOutsideRoot, "goes through a symlink"},
		{"t.art", "fifo", modproto.CodeHostProtocolViolation, "FIFO"},
		{"t.art", "dir", modproto.CodeHostProtocolViolation, "directory"},
		{"t.art", "digest", modproto.CodeHostProtocolViolation, "hashes to"},
		{"t.art", "size", modproto.CodeHostProtocolViolation, "bytes is"},
		{"t.art", "missing", modproto.CodeHostProtocolViolation, "does not exist"},
		{"t.art", "ro", modproto.CodePathOutsideRoot, "read-only"},
		{"t.art", "noroot", modproto.CodePathOutsideRoot, "not supplied"},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			res := f.run(m, c.cap, `{"mode":"`+c.mode+`"}`, nil)
			wantHost(t, res, c.code)
			if res.OK() || len(res.Artifacts) != 0 {
				t.Error("a refused run reports success or artifacts")
			}
			if c.violation != "" {
				found := false
				for _, v := range res.Host.Violations {
					if strings.Contains(v.Error(), c.violation) {
						found = true
					}
				}
				if !found {
					t.Errorf("no violation mentions %q: %v", c.violation, res.Host.Violations)
				}
			}
			if c.code == modproto.CodeHostProtocolViolation && c.mode != "trailing" && res.Envelope == nil {
				t.Error("the decoded envelope was not kept")
			}
		})
	}
}

func TestRunExitCodeNeverDecides(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("exiter", "good")
	m := f.load("exiter")
	res := f.run(m, "t.hostile", `{"mode":"exit3"}`, nil)
	if !res.OK() || res.ExitCode != 3 {
		t.Fatalf("ok=%v exit=%d host=%+v", res.OK(), res.ExitCode, res.Host)
	}
	res = f.run(m, "t.hostile", `{"mode":"crash"}`, nil)
	if res.ExitCode != 2 || !strings.Contains(res.Stderr, "panic: boom") {
		t.Errorf("crash: exit %d stderr %q", res.ExitCode, res.Stderr)
	}
}

func TestRunStderrCappedAndStreamed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("noisy", "good")
	m := f.load("noisy")
	p, err := f.host.Plan(m, "t.hostile", json.RawMessage(`{"mode":"stderr_flood"}`))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	streamed := 0
	res, err := f.host.Run(ctxGuard(t), p, false, func(e Event) {
		mu.Lock()
		streamed += len(e.Stderr)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() {
		t.Fatalf("%+v", res.Host)
	}
	// The head and the tail, the drop counted between them.
	head, tail, ok := strings.Cut(res.Stderr, StderrDropMark)
	if !ok || len(head) != StderrHead || len(tail) > StderrCap-StderrHead+64 || !res.StderrTruncated ||
		!regexp.MustCompile(`^\d+ bytes of stderr not kept\]…`).MatchString(tail) {
		t.Errorf("stderr kept %d bytes (head %d), truncated=%v: …%.80q", len(res.Stderr), len(head), res.StderrTruncated, tail)
	}
	mu.Lock()
	defer mu.Unlock()
	if streamed != StderrHead {
		t.Errorf("streamed %d bytes of stderr, want %d", streamed, StderrHead)
	}
}

func TestRunEffectWarnings(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("sneaky", "good")
	m := f.load("sneaky")
	res := f.run(m, "t.hostile", `{"mode":"effects"}`, nil)
	if !res.OK() {
		t.Fatalf("%+v", res.Host)
	}
	var paths []string
	for _, w := range res.EffectWarnings {
		paths = append(paths, w.Path)
	}
	if !slices.Contains(paths, "execution.network") || !slices.Contains(paths, "execution.provider") {
		t.Errorf("effect warnings %v", res.EffectWarnings)
	}
	if res.Envelope.Execution.ActualCost != nil {
		t.Error("an unknown cost became a number")
	}
}

func TestRunANSIPassesThroughUnchanged(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("ansi", "good")
	m := f.load("ansi")
	if c := m.Descriptor.Capability("t.echo"); c == nil || c.Title != "Echo \x1b[1mbold\x1b[0m" {
		t.Errorf("descriptor title not kept: %+v", c)
	}
	res := f.run(m, "t.hostile", `{"mode":"ansi"}`, nil)
	if !res.OK() {
		t.Fatalf("%+v", res.Host)
	}
	var out struct{ Title string }
	if err := json.Unmarshal(res.Envelope.Result, &out); err != nil || out.Title != ansiTitle {
		t.Errorf("title %q (%v)", out.Title, err)
	}
	res = f.run(m, "t.hostile", `{"mode":"ansi_error"}`, nil)
	if res.Host != nil || res.Envelope.Error == nil || res.Envelope.Error.Message != ansiTitle || res.Code() != "internal" {
		t.Errorf("error envelope %+v host %+v", res.Envelope, res.Host)
	}
}

func TestRunSpawnFailed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("vanish", "good")
	m := f.load("vanish")
	p, err := f.host.Plan(m, "t.echo", json.RawMessage(`{"name":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	// Break the interpreter line after describing.
	if err := os.WriteFile(m.Exe, []byte("#!/nonexistent/interpreter\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := f.host.Run(ctxGuard(t), p, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantHost(t, res, modproto.CodeHostSpawnFailed)
}

// TestRunKillsTheWholeTree: hangs with a child, a setsid'd child, an
// orphaned setsid'd grandchild, or ignoring SIGTERM; every process must be
// gone when Run returns.
func TestRunKillsTheWholeTree(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"hang", "hang_setsid", "hang_orphan", "hang_orphan_noenv", "ignore_term"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.addModule("hang", "good")
			m := f.load("hang")
			// The deadline leaves a loaded machine under -race time to start
			// the module and its double-forked grandchild before it passes.
			res := f.run(m, "t.hostile", `{"mode":"`+mode+`"}`, func(p *Plan) { p.Request.DeadlineMS = 5000 })
			wantHost(t, res, modproto.CodeHostTimeout)
			pids := f.readPids()
			if len(pids) < 2 {
				t.Fatalf("the module recorded only %v", pids)
			}
			assertGone(t, pids)
		})
	}
}

func TestRunCancelKillsTheTree(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("hang", "good")
	m := f.load("hang")
	p, err := f.host.Plan(m, "t.hostile", json.RawMessage(`{"mode":"hang_setsid"}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctxGuard(t))
	done := make(chan *Result, 1)
	go func() {
		res, _ := f.host.Run(ctx, p, true, nil)
		done <- res
	}()
	pidsFile := filepath.Join(f.cfg.Workspace, "pids")
	for {
		if _, err := os.Stat(pidsFile); err == nil {
			break
		}
		select {
		case res := <-done:
			t.Fatalf("the run ended before it was cancelled: %+v", res)
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	res := <-done
	wantHost(t, res, modproto.CodeCancelled)
	assertGone(t, f.readPids())
}

func TestRunSweepsADaemonLeftBehind(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("daemon", "good")
	m := f.load("daemon")
	res := f.run(m, "t.hostile", `{"mode":"exit_daemon"}`, nil)
	if !res.OK() {
		t.Fatalf("%+v", res.Host)
	}
	assertGone(t, f.readPids())
}

// TestRunKillsDoubleForkedDaemon: the module double-forks a daemon into a
// new session with an empty environment and exits ok; only the host's
// subreaper adoption finds it, and it must be gone when Run returns.
func TestRunKillsDoubleForkedDaemon(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("ghost", "good")
	m := f.load("ghost")
	res := f.run(m, "t.hostile", `{"mode":"exit_orphan_noenv"}`, nil)
	if !res.OK() {
		t.Fatalf("%+v", res.Host)
	}
	pids := f.readPids()
	if len(pids) < 1 {
		t.Fatalf("the module recorded no daemon: %v", pids)
	}
	assertGone(t, pids)
}

func TestRunOutputTooLarge(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("spew", "good")
	m := f.load("spew")
	res := f.run(m, "t.hostile", `{"mode":"spew"}`, nil)
	wantHost(t, res, modproto.CodeHostOutputTooLarge)
	if len(res.Stdout) != modproto.DefaultMaxOutputBytes {
		t.Errorf("kept %d bytes of stdout, want the ceiling %d", len(res.Stdout), modproto.DefaultMaxOutputBytes)
	}
}

func TestRunCancelledBeforeStart(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("never", "good")
	m := f.load("never")
	p, err := f.host.Plan(m, "t.echo", json.RawMessage(`{"name":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := f.host.Run(ctx, p, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantHost(t, res, modproto.CodeCancelled)
}

func TestRealFixtureUndeclaredArtifactKind(t *testing.T) {
	t.Parallel()
	d := kitchenDescriptor(t)
	b, err := os.ReadFile(filepath.Join("testdata", "wholerequest", "run-with-artifacts.json"))
	if err != nil {
		t.Fatal(err)
	}
	env, err := modproto.DecodeEnvelope(b)
	if err != nil {
		t.Fatal(err)
	}
	viol, _ := modproto.CheckExecutionAgainstDeclared(d, "kitchen.tools.run", &env.Execution)
	if len(viol) != 2 {
		t.Fatalf("violations %v, want one per artifact", viol)
	}
	for _, v := range viol {
		if !strings.Contains(v.Detail, `"output"`) {
			t.Errorf("violation does not name kind output: %v", v)
		}
	}
}

// TestStderrKeepsHeadAndTail: past StderrCap stderr keeps its first
// StderrHead bytes and its end from a line's start, the bytes between
// counted; under the cap it is kept whole, whatever the writes' sizes.
func TestStderrKeepsHeadAndTail(t *testing.T) {
	var w stderrWriter
	line := strings.Repeat("x", 99) + "\n"
	for range 5000 { // 500 KB in lines
		w.Write([]byte(line))
	}
	w.Write([]byte("Traceback: the end\n"))
	got, cut := w.result()
	head, tail, ok := strings.Cut(got, StderrDropMark)
	if !cut || !ok || head != strings.Repeat(line, StderrHead/100)+line[:StderrHead%100] || !strings.HasSuffix(tail, line+"Traceback: the end\n") {
		t.Fatalf("kept %d bytes, cut %v: head %d bytes, tail …%q", len(got), cut, len(head), tail[max(0, len(tail)-40):])
	}
	n := 0
	fmt.Sscanf(tail, "%d", &n)
	if kept := len(head) + len(tail) - len(fmt.Sprintf("%d bytes of stderr not kept]…", n)); kept+n != 5000*100+19 {
		t.Errorf("kept %d + dropped %d != written %d", kept, n, 5000*100+19)
	}
	var small stderrWriter
	small.Write([]byte(strings.Repeat("a", StderrHead-1)))
	small.Write([]byte(strings.Repeat("b", 1000)))
	if got, cut := small.result(); cut || got != strings.Repeat("a", StderrHead-1)+strings.Repeat("b", 1000) {
		t.Errorf("under the cap: %d bytes, cut %v", len(got), cut)
	}
}
