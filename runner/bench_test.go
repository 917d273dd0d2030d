package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"modbay/modproto"
)

// The runner's costs, measured against a real subprocess module (the test
// binary re-executed). Results and the command are in bench/runner.txt.

// BenchmarkDescribeCold: one describe of a module, cache bypassed: spawn,
// read, decode, validate envelope and descriptor, check the bundle.
func BenchmarkDescribeCold(b *testing.B) {
	f := newFixture(b)
	f.addModule("bench", "good")
	m := f.load("bench")
	ctx := ctxGuard(b)
	b.ResetTimer()
	for b.Loop() {
		if got := f.host.Redescribe(ctx, m); got.Descriptor == nil {
			b.Fatal(got.Reason)
		}
	}
}

// BenchmarkDiscoverCached: discovery of a home whose module's describe is
// cached (the identity check reads the executable's stat, nothing is
// spawned).
func BenchmarkDiscoverCached(b *testing.B) {
	f := newFixture(b)
	f.addModule("bench", "good")
	ctx := ctxGuard(b)
	f.host.Discover(ctx) // fill the cache
	b.ResetTimer()
	for b.Loop() {
		mods := f.host.Discover(ctx)
		if len(mods) != 1 || !mods[0].Cached {
			b.Fatalf("not served from the cache: %+v", mods)
		}
	}
}

// BenchmarkInvokeEcho: plan (schema validation included) and run one
// invoke end to end: request file, sandboxed spawn, envelope checks,
// process-tree sweep.
func BenchmarkInvokeEcho(b *testing.B) {
	f := newFixture(b)
	f.addModule("bench", "good")
	m := f.load("bench")
	ctx := ctxGuard(b)
	in := json.RawMessage(`{"name":"bench"}`)
	reportHostCPU(b)
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

// BenchmarkInvokeEchoDirect is the baseline of BenchmarkInvokeEcho: the
// same module executable run directly with the same request file, argv,
// TMPDIR-only environment and scratch working directory, its stdout read
// whole. BenchmarkInvokeEcho minus this is the host's overhead per invoke
// (plan, request file, spawn bookkeeping, envelope and artifact checks,
// the sweep), start-up and containment excluded (≤ 5 ms).
func BenchmarkInvokeEchoDirect(b *testing.B) {
	f := newFixture(b)
	f.addModule("bench", "good")
	m := f.load("bench")
	p, err := f.host.Plan(m, "t.echo", json.RawMessage(`{"name":"bench"}`))
	if err != nil {
		b.Fatal(err)
	}
	req, err := json.Marshal(p.Request)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	reqPath := filepath.Join(dir, "request.json")
	if err := os.WriteFile(reqPath, req, 0o600); err != nil {
		b.Fatal(err)
	}
	reportHostCPU(b)
	b.ResetTimer()
	for b.Loop() {
		cmd := exec.Command(m.Exe, "module", modproto.OperationInvoke, "t.echo", "--input", reqPath)
		cmd.Env, cmd.Dir = []string{"TMPDIR=" + dir}, dir
		out, err := cmd.Output()
		if err != nil || !bytes.Contains(out, []byte(`"ok":true`)) {
			b.Fatalf("%v: %s", err, out)
		}
	}
}

// BenchmarkValidateInput: validating a value against a compiled (cached)
// request schema, as Plan does and as the form does on every keystroke.
func BenchmarkValidateInput(b *testing.B) {
	d := kitchenDescriptor(b)
	c := &modproto.Capability{ID: "kitchen.plate", RequestSchema: "plate_photo"}
	raw := d.RequestSchemas[c.RequestSchema]
	in := json.RawMessage(`{"width":1280,"height":720,"fps":30}`)
	var ie *InputError
	if err := validateRequest(nil, c, raw, in); err != nil && !errors.As(err, &ie) {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if err := validateRequest(nil, c, raw, in); err != nil && !errors.As(err, &ie) {
			b.Fatal(err)
		}
	}
}

// largeExeSize is the size of a "real" module executable in the discovery
// benchmarks: Go and Rust modules are 10–40 MB.
const largeExeSize = 20 << 20

// addLargeModules installs n modules whose launchers are padded to
// largeExeSize as sparse files (the padding is a hole after the exec line,
// never read by the shell), so the suite needs little disk.
func (f *fixture) addLargeModules(n int) {
	f.t.Helper()
	for i := range n {
		id := fmt.Sprintf("big%02d", i)
		f.addModule(id, "good")
		if err := os.Truncate(filepath.Join(f.cfg.ModulesDir(), id, id), largeExeSize); err != nil {
			f.t.Fatal(err)
		}
	}
}

// BenchmarkDiscoverCachedLarge: warm discovery of 10 modules of 20 MB
// each, every describe cached: the identity check is all that is left
// (docs/protocol.md §18: no hashing when the executable's stat is unchanged).
func BenchmarkDiscoverCachedLarge(b *testing.B) {
	f := newFixture(b)
	f.addLargeModules(10)
	ctx := ctxGuard(b)
	f.host.Discover(ctx) // fill the cache
	b.ResetTimer()
	for b.Loop() {
		mods := f.host.Discover(ctx)
		if len(mods) != 10 || !mods[0].Cached || !mods[9].Cached {
			b.Fatalf("not served from the cache: %+v", mods[0])
		}
	}
}

// BenchmarkDiscoverCold: discovery of 16 small modules with an empty
// describe cache: every describe spawns its module (parallelism and the
// per-discovery /proc scan show here).
func BenchmarkDiscoverCold(b *testing.B) {
	f := newFixture(b)
	for i := range 16 {
		f.addModule(fmt.Sprintf("m%02d", i), "good")
	}
	ctx := ctxGuard(b)
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		if err := os.RemoveAll(f.cfg.CacheDir()); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		mods := f.host.Discover(ctx)
		if len(mods) != 16 || mods[0].Cached || mods[0].Status != StatusReady {
			b.Fatalf("want 16 fresh ready modules: %+v", mods[0])
		}
	}
}

// reportHostCPU reports, when b ends, the CPU time (user + system) the
// benchmark's own process spent per operation, children excluded, as
// "host-cpu-ms/op": on a loaded machine the wall time of a run is mostly
// the module's and the scheduler's, while this is what the host itself
// costs. Call it after setup.
func reportHostCPU(b *testing.B) {
	var start syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &start) != nil {
		return
	}
	b.Cleanup(func() {
		var end syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &end) != nil || b.N == 0 {
			return
		}
		used := time.Duration(end.Utime.Nano() + end.Stime.Nano() - start.Utime.Nano() - start.Stime.Nano())
		b.ReportMetric(float64(used)/float64(time.Millisecond)/float64(b.N), "host-cpu-ms/op")
	})
}

// BenchmarkDiscoverWarm200: warm discovery of 200 modules, every describe
// cached (≤ 50 ms for 200 modules, start-up excluded here): the
// candidates' walk, each module's identity and bundle check, the cache
// entries read and decoded, the claim order.
func BenchmarkDiscoverWarm200(b *testing.B) {
	f := newFixture(b)
	for i := range 200 {
		f.addModule(fmt.Sprintf("w%03d", i), "good")
	}
	ctx := ctxGuard(b)
	f.host.Discover(ctx) // fill the cache
	b.ResetTimer()
	for b.Loop() {
		mods := f.host.Discover(ctx)
		if len(mods) != 200 || !mods[0].Cached || !mods[199].Cached {
			b.Fatalf("not served from the cache: %+v", mods[0])
		}
	}
}
