package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"modbay/config"
	"modbay/internal/testcorpus"
	"modbay/modproto"
)

// testGuard is the generous overall bound on any one test's runs.
const testGuard = 60 * time.Second

// fixture is a temporary modbay home with its host.
type fixture struct {
	t    testing.TB
	home string
	cfg  *config.Config
	host *Host
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	home := t.TempDir()
	cfg, err := config.Load(home)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHost(cfg)
	h.PollInterval, h.PollMaxInterval = 10*time.Millisecond, 40*time.Millisecond
	return &fixture{t: t, home: home, cfg: cfg, host: h}
}

func ctxGuard(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testGuard)
	t.Cleanup(cancel)
	return ctx
}

func testBinary(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// auxDir is where a fake module records its describes.
func (f *fixture) auxDir(id string) string { return filepath.Join(f.home, "aux", id) }

// writeLauncher writes an executable script at path that runs the fake
// module behaviour as id.
func (f *fixture) writeLauncher(path, behaviour, id string) {
	f.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		f.t.Fatal(err)
	}
	script := fmt.Sprintf("#!/bin/sh\nexec '%s' %s %s %s '%s' \"$@\"\n", testBinary(f.t), fakeMarker, behaviour, id, f.auxDir(id))
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		f.t.Fatal(err)
	}
}

// addModule installs <home>/modules/<id>/<id> as a launcher with a valid
// bundle (skill and overlay matching their digests), and returns its dir.
func (f *fixture) addModule(id, behaviour string) string {
	f.t.Helper()
	dir := filepath.Join(f.cfg.ModulesDir(), id)
	f.writeLauncher(filepath.Join(dir, id), behaviour, id)
	f.writeBundle(dir, behaviour)
	return dir
}

// addLinkedModule installs <home>/modules/<id>/<id> as a symlink to the
// test binary (no shell in between), behaviour in a bundle file.
func (f *fixture) addLinkedModule(id, behaviour string) string {
	f.t.Helper()
	dir := filepath.Join(f.cfg.ModulesDir(), id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Symlink(testBinary(f.t), filepath.Join(dir, id)); err != nil {
		f.t.Fatal(err)
	}
	f.writeBundle(dir, behaviour)
	return dir
}

func (f *fixture) writeBundle(dir, behaviour string) {
	f.t.Helper()
	for p, c := range map[string]string{
		"behaviour":          behaviour + "\n",
		"skills/s1/SKILL.md": skillContent,
		"agents/o1.md":       skillContent,
	} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			f.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
}

// load describes module id and fails the test unless it is usable.
func (f *fixture) load(id string) *Module {
	f.t.Helper()
	m, err := f.host.Load(ctxGuard(f.t), id)
	if err != nil {
		f.t.Fatal(err)
	}
	if m.Status != StatusReady && m.Status != StatusNeedsSetup {
		f.t.Fatalf("module %s: status %s: %s\nviolations: %v\nstderr: %s", id, m.Status, m.Reason, m.Violations, m.Stderr)
	}
	return m
}

// run plans and runs capID of m with input, approved.
func (f *fixture) run(m *Module, capID string, input string, tweak func(*Plan)) *Result {
	f.t.Helper()
	p, err := f.host.Plan(m, capID, json.RawMessage(input))
	if err != nil {
		f.t.Fatal(err)
	}
	if tweak != nil {
		tweak(p)
	}
	res, err := f.host.Run(ctxGuard(f.t), p, true, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return res
}

// describeCount is how many times module id ran describe.
func (f *fixture) describeCount(id string) int {
	b, _ := os.ReadFile(filepath.Join(f.auxDir(id), "describe.count"))
	return len(b)
}

// readPids reads the pids a hostile fake recorded in the workspace.
func (f *fixture) readPids() []int {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.cfg.Workspace, "pids"))
	if err != nil {
		f.t.Fatalf("the module recorded no pids: %v", err)
	}
	var pids []int
	for _, s := range strings.Fields(string(b)) {
		p, err := strconv.Atoi(s)
		if err != nil {
			f.t.Fatal(err)
		}
		pids = append(pids, p)
	}
	return pids
}

// assertGone fails for every pid still running (a zombie is dead).
func assertGone(t *testing.T, pids []int) {
	t.Helper()
	for _, p := range pids {
		if s, ok := readProcStat(p); ok && s.state != 'Z' && s.state != 'X' {
			t.Errorf("process %d is still alive (state %c)", p, s.state)
			// A failing test must not leave its survivors behind.
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	}
}

// wantHost asserts a host verdict with code.
func wantHost(t *testing.T, res *Result, code string) {
	t.Helper()
	if res.Host == nil {
		t.Fatalf("want host verdict %s, got ok=%v code=%q envelope=%+v\nstderr: %s", code, res.OK(), res.Code(), res.Envelope, res.Stderr)
	}
	if res.Host.Code != code {
		t.Fatalf("want host verdict %s, got %s: %s (%v)\nstderr: %s", code, res.Host.Code, res.Host.Detail, res.Host.Violations, res.Stderr)
	}
	if res.Code() != code {
		t.Fatalf("Code() = %q, want %q", res.Code(), code)
	}
}

// kitchenDescriptor loads testdata/wholerequest/describe.json, our own
// descriptor of a module ("kitchen") whose run capability takes the whole
// request (docs/protocol.md §4): a tool beside input, network, external writes,
// three paid providers, unknown cost, a project_root read and written, a
// whole-request poll capability, "required": null, draft-07 and 2020-12
// schemas with local $refs.
func kitchenDescriptor(t testing.TB) *modproto.Descriptor {
	t.Helper()
	return decodeDescriptor(t, filepath.Join("testdata", "wholerequest", "describe.json"))
}

// corpusFacetDescriptor loads the real facet descriptor of the shared
// corpus; without the corpus it skips t (fails it under CI).
func corpusFacetDescriptor(t testing.TB) *modproto.Descriptor {
	t.Helper()
	return decodeDescriptor(t, testcorpus.Dir(t, "modules", "facet", "fixtures", "module", "describe.json"))
}

// decodeDescriptor decodes the describe envelope at path.
func decodeDescriptor(t testing.TB, path string) *modproto.Descriptor {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal("fixture:", err)
	}
	env, err := modproto.DecodeEnvelope(b)
	if err != nil {
		t.Fatal(err)
	}
	d, err := modproto.DecodeDescriptor(env.Result)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// stateDir is the state root of the installed module key's root.
func (f *fixture) stateDir(key, root string) string {
	f.t.Helper()
	p, err := f.cfg.StateDir(key, root)
	if err != nil {
		f.t.Fatal(err)
	}
	return p
}
