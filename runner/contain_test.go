package runner

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"modbay/config"
	"modbay/contain"
	"modbay/modproto"
)

// The runner's tests check the host-side sweeps with pids their fakes
// record, so they run uncontained unless a test sets config's sandbox
// (the tests in this file do).
func init() { defaultSandbox = contain.ModeOff }

// containedFixture is a fixture whose config asks for containment.
func containedFixture(t *testing.T) *fixture {
	t.Helper()
	sup := contain.Probe()
	if !sup.PIDNS || sup.LandlockABI < 6 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI floor not met: %v", sup.Lines())
		}
		t.Skipf("containment mechanisms missing: %s", strings.Join(sup.Lines(), "; "))
	}
	f := newFixture(t)
	f.cfg.Sandbox = config.SandboxAuto
	return f
}

func TestContainedRunRecordsEnforcement(t *testing.T) {
	t.Parallel()
	f := containedFixture(t)
	f.addModule("echo", "good")
	m := f.load("echo")
	res := f.run(m, "t.echo", `{"name":"ada","count":2}`, nil)
	if !res.OK() {
		t.Fatalf("contained echo failed: %s %+v\nstderr: %s", res.Code(), res.Host, res.Stderr)
	}
	e := res.Enforcement
	if !e.Complete() || e.Processes != contain.ProcessesPIDNamespace || !strings.HasPrefix(e.Network, contain.NetworkNamespace) ||
		!strings.HasPrefix(e.Filesystem, "landlock ABI") {
		t.Fatalf("enforcement as applied:\n%s\ngaps: %v", e, e.Gaps)
	}
}

func TestContainedArtifactInWorkspace(t *testing.T) {
	t.Parallel()
	f := containedFixture(t)
	f.addModule("art", "good")
	m := f.load("art")
	res := f.run(m, "t.art", `{"mode":"ok"}`, nil)
	if !res.OK() || len(res.Artifacts) != 1 {
		t.Fatalf("a contained module must still write its rw root: %s %+v\nstderr: %s", res.Code(), res.Host, res.Stderr)
	}
}

// TestContainedDeadlineKillsTheTree: a hung module is killed at its
// deadline, and with it everything in its PID namespace.
func TestContainedDeadlineKillsTheTree(t *testing.T) {
	t.Parallel()
	f := containedFixture(t)
	f.addModule("hang", "good")
	m := f.load("hang")
	p, err := f.host.Plan(m, "t.hostile", []byte(`{"mode":"hang_setsid"}`))
	if err != nil {
		t.Fatal(err)
	}
	p.Request.DeadlineMS = 800
	var pid int
	res, err := f.host.Run(ctxGuard(t), p, true, func(e Event) {
		if e.PID != 0 {
			pid = e.PID
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	wantHost(t, res, modproto.CodeHostTimeout)
	if res.Enforcement.Processes != contain.ProcessesPIDNamespace {
		t.Fatalf("processes: %s", res.Enforcement.Processes)
	}
	time.Sleep(50 * time.Millisecond)
	if s, ok := readProcStat(pid); ok && !s.exited() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("module %d survived its deadline", pid)
	}
}

// BenchmarkInvokeEchoContained is BenchmarkInvokeEcho contained (sandbox:
// auto): the difference is what containment costs per run (budget:
// at most 5 ms).
func BenchmarkInvokeEchoContained(b *testing.B) {
	f := newFixture(b)
	f.cfg.Sandbox = config.SandboxAuto
	f.addModule("bench", "good")
	m := f.load("bench")
	ctx := ctxGuard(b)
	in := []byte(`{"name":"bench"}`)
	b.ResetTimer()
	for b.Loop() {
		p, err := f.host.Plan(m, "t.echo", in)
		if err != nil {
			b.Fatal(err)
		}
		res, err := f.host.Run(ctx, p, true, nil)
		if err != nil || !res.OK() {
			b.Fatalf("%v %+v", err, res.Host)
		}
	}
}
