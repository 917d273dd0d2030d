package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"modbay/config"
)

// TestDeclaredBinaryFollowsTheHost: a binary requirement whose name the
// descriptor declares in permissions.subprocess follows the host's
// resolution (config binaries, then PATH), whatever the module's probe
// said, and says which path satisfied it (docs/protocol.md §9). An omitted
// available is "not probed", never missing.
func TestDeclaredBinaryFollowsTheHost(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("mapped", "mapped_binary")
	ctx := ctxGuard(t)

	m, _ := f.host.Load(ctx, "mapped")
	if m.Status != StatusNeedsSetup || !strings.Contains(m.Reason, "mapped (binary)") || !strings.Contains(m.Reason, "nosuchbinary-modbay-xyz (binary)") {
		t.Fatalf("unmapped: %s — %s", m.Status, m.Reason)
	}
	states := map[string]RequirementState{}
	for _, r := range m.Requirements {
		states[r.Name] = r
	}
	if r := states["nosuchbinary-modbay-xyz"]; r.State != RequirementMissing || !strings.Contains(r.Problem, "nor on PATH") {
		t.Errorf("a binary the module probed available but the host cannot resolve: %+v", r)
	}
	if r := states["profile"]; r.State != RequirementNotProbed {
		t.Errorf("unprobed requirement: %+v", r)
	}

	f.cfg.Binaries = map[string]string{"mapped": "/bin/true", "nosuchbinary-modbay-xyz": "/bin/true"}
	m, _ = f.host.Load(ctx, "mapped") // served from the cache: the resolution is per discovery
	if !m.Cached || m.Status != StatusReady || m.Reason != "" {
		t.Fatalf("mapped: cached %v, %s — %s", m.Cached, m.Status, m.Reason)
	}
	for _, r := range m.Requirements {
		if r.Kind == "binary" && (r.State != RequirementMet || r.By != "/bin/true (config binaries)") {
			t.Errorf("mapped requirement %s: %+v", r.Name, r)
		}
	}
	// The same resolution feeds the request.
	p, err := f.host.Plan(m, "t.art", nil)
	if err != nil || p.Request.Binaries["mapped"] != "/bin/true" {
		t.Fatalf("plan: %v %v", err, p.Request.Binaries)
	}
}

// TestSchemaVerdictIsTheModuleStatus: a request schema that does not
// compile refuses the module at discovery (validate's verdict, one
// verdict everywhere), and the verdict is cached with the describe.
func TestSchemaVerdictIsTheModuleStatus(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("badschema", "bad_schema")
	ctx := ctxGuard(t)
	for i, want := range []bool{false, true} {
		mods := f.host.Discover(ctx)
		if len(mods) != 1 {
			t.Fatalf("%d modules", len(mods))
		}
		m := mods[0]
		if m.Cached != want || m.Status != StatusBroken || !strings.HasPrefix(m.Reason, "1 request schema error: capability t.job") || m.Descriptor == nil {
			t.Fatalf("discovery %d: cached %v, %s — %s", i, m.Cached, m.Status, m.Reason)
		}
	}
	if _, err := f.host.Plan(f.load2("badschema"), "t.echo", json.RawMessage(`{"name":"x"}`)); err == nil {
		t.Fatal("a refused module planned a call")
	}
}

// load2 loads id whatever its status.
func (f *fixture) load2(id string) *Module {
	f.t.Helper()
	m, err := f.host.Load(ctxGuard(f.t), id)
	if err != nil {
		f.t.Fatal(err)
	}
	return m
}

// TestCachedVerdictIsKeyedOnTheBuild: a warm discovery reads modbay's
// verdict from the cache without judging again, and only a verdict
// reached by this build (docs/protocol.md §18).
func TestCachedVerdictIsKeyedOnTheBuild(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("v", "good")
	ctx := ctxGuard(t)
	f.host.Discover(ctx)
	exe := filepath.Join(f.cfg.ModulesDir(), "v", "v")
	e, ok := f.host.readDescribeEntry(exe)
	if !ok || e.Verdict == nil || e.Verdict.BuildID != buildID() || e.Verdict.Status != StatusReady {
		t.Fatalf("entry: %+v", e.Verdict)
	}
	// A verdict this build wrote is trusted as is: proof that nothing was
	// judged again.
	e.Verdict.Reason = "from the cache"
	f.host.writeDescribeCache(e)
	if m := f.host.Discover(ctx)[0]; !m.Cached || m.Reason != "from the cache" {
		t.Fatalf("same build: %s %q", m.Status, m.Reason)
	}
	// Another build's verdict is judged again (and rewritten).
	e.Verdict.BuildID = "go:another-build"
	f.host.writeDescribeCache(e)
	if m := f.host.Discover(ctx)[0]; !m.Cached || m.Reason != "" || m.Status != StatusReady {
		t.Fatalf("other build: %s %q", m.Status, m.Reason)
	}
	if e, _ := f.host.readDescribeEntry(exe); e.Verdict.BuildID != buildID() {
		t.Errorf("verdict not rewritten: %s", e.Verdict.BuildID)
	}
	if f.describeCount("v") != 1 {
		t.Errorf("describes %d, want 1", f.describeCount("v"))
	}
}

// TestIdentityWithoutReading: an unchanged stat reuses the recorded
// digest without opening the file; any stat field that moved (here the
// ctime, by a chmod that leaves the bytes alone) makes it hash again.
func TestIdentityWithoutReading(t *testing.T) {
	t.Parallel()
	exe := filepath.Join(t.TempDir(), "m")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	first, err := identify(exe, nil)
	if err != nil || !strings.HasPrefix(first.SHA256, "sha256:") || first.Ino == 0 || first.CtimeNS == 0 {
		t.Fatalf("identify: %+v %v", first, err)
	}
	planted := first
	planted.SHA256 = "sha256:planted"
	if got, _ := identify(exe, &planted); got.SHA256 != "sha256:planted" {
		t.Fatalf("same stat hashed again: %s", got.SHA256)
	}
	time.Sleep(10 * time.Millisecond) // a coarse ctime clock must tick
	if err := os.Chmod(exe, 0o700); err != nil {
		t.Fatal(err)
	}
	got, _ := identify(exe, &planted)
	if got.SHA256 != first.SHA256 || got.CtimeNS == planted.CtimeNS {
		t.Fatalf("after chmod: %+v (was %+v)", got, planted)
	}
}

// TestEditsBesideTheLauncher: the cache key covers the module directory's
// files, so an edit beside a launcher is seen (a script it runs); package
// caches and dot-directories are not listed (docs/protocol.md §18).
func TestEditsBesideTheLauncher(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := f.addModule("launcher", "good")
	ctx := ctxGuard(t)
	f.host.Discover(ctx)
	for _, p := range []string{"node_modules/x/index.js", ".git/HEAD", "__pycache__/m.pyc", "venv/bin/python"} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if m := f.host.Discover(ctx)[0]; !m.Cached {
		t.Fatal("a skipped directory's files changed the key")
	}
	if err := os.WriteFile(filepath.Join(dir, "main.py"), []byte("print('v2')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if m := f.host.Discover(ctx)[0]; m.Cached || f.describeCount("launcher") != 2 {
		t.Fatalf("an edit beside the launcher was not seen: cached %v", m.Cached)
	}
}

// TestNotExecutableIsListedWithTheFix: modules/<id>/<id> without an
// execute bit is broken with the chmod fix; a stray file stays ignored.
func TestNotExecutableIsListedWithTheFix(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := f.addModule("noexec", "good")
	exe := filepath.Join(dir, "noexec")
	if err := os.Chmod(exe, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.cfg.ModulesDir(), "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	mods := f.host.Discover(ctxGuard(t))
	if len(mods) != 1 {
		t.Fatalf("%d modules listed", len(mods))
	}
	if m := mods[0]; m.ID != "noexec" || m.Status != StatusBroken || !strings.HasPrefix(m.Reason, "not executable") || !strings.Contains(m.Reason, "chmod +x "+exe) {
		t.Fatalf("%s %s — %s", m.ID, m.Status, m.Reason)
	}
	if m, err := f.host.Load(ctxGuard(t), "noexec"); err != nil || m.Status != StatusBroken {
		t.Fatalf("load: %v %v", err, m)
	}
}

// TestDescribeParallelBound: the config's describe_parallel, else the
// default, however many CPUs (docs/protocol.md §2).
func TestDescribeParallelBound(t *testing.T) {
	if got := NewHost(&config.Config{}).describeParallel(); got != DefaultDescribeParallel {
		t.Fatalf("default describeParallel = %d, want %d", got, DefaultDescribeParallel)
	}
	if got := NewHost(&config.Config{DescribeParallel: 3}).describeParallel(); got != 3 {
		t.Fatalf("describe_parallel: 3 gives %d", got)
	}
}

// TestBuildIDIsStable: the build id is the Go build id of this binary.
func TestBuildIDIsStable(t *testing.T) {
	id := buildID()
	if !strings.HasPrefix(id, "go:") || len(id) < 10 || buildID() != id {
		t.Fatalf("buildID = %q", id)
	}
}

// TestDescribeLeavesNothingBehind: a describe that exits leaving daemons
// (one in a new session, one double-forked with an empty environment) is
// swept like a run: the quick check that skips the /proc scans sees them.
func TestDescribeLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("ghost", "describe_daemon")
	if m := f.host.Discover(ctxGuard(t))[0]; m.Status != StatusReady {
		t.Fatalf("%s — %s", m.Status, m.Reason)
	}
	b, err := os.ReadFile(filepath.Join(f.auxDir("ghost"), "pids"))
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, s := range strings.Fields(string(b)) {
		p, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, p)
	}
	if len(pids) != 2 {
		t.Fatalf("the describe recorded %d daemons", len(pids))
	}
	assertGone(t, pids)
}
