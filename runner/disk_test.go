package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"modbay/contain"
	"modbay/modproto"
)

// diskModule is testdata/hostile/disk built once per test binary ("" and
// the error when it cannot be built).
var diskModule = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "runner-disk-")
	if err != nil {
		return "", err
	}
	exe := filepath.Join(dir, "disk")
	build := exec.Command("go", "build", "-o", exe, "./testdata/hostile/disk")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return "", &exec.Error{Name: "go build: " + string(out), Err: err}
	}
	return exe, nil
})

// addDisk installs the disk module as mode (<modules>/<mode>/<mode>: its
// mode is its name) and loads it.
func (f *fixture) addDisk(mode string) *Module {
	f.t.Helper()
	f.installDisk(mode)
	return f.load(mode)
}

// installDisk installs the disk module as mode.
func (f *fixture) installDisk(mode string) {
	f.t.Helper()
	exe, err := diskModule()
	if err != nil {
		f.t.Fatal(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		f.t.Fatal(err)
	}
	dir := filepath.Join(f.cfg.ModulesDir(), mode)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, mode), b, 0o755); err != nil {
		f.t.Fatal(err)
	}
}

// TestHugeRequestSchemaRefusedBySize: a module whose descriptor carries
// a 2 MiB request schema is refused by the schema's size
// (schema.MaxSchemaBytes) before the schema is decoded, not by the node
// bounds after it; an 11 MB one (10 s to decode) is refused by the
// describe's own bound while it is read.
func TestHugeRequestSchemaRefusedBySize(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for mode, bound := range map[string]string{"huge-schema": "MaxSchemaBytes", "huge-describe": "DescribeMaxOutputBytes"} {
		f.installDisk(mode)
		start := time.Now()
		m := f.load2(mode)
		t.Logf("%s refused in %v", mode, time.Since(start)) // a measure, not a check
		if m.Status != StatusBroken || !strings.Contains(m.Reason, bound) {
			t.Errorf("%s: status %s: %s; want broken naming %s", mode, m.Status, m.Reason, bound)
		}
	}
}

// TestHostileDiskStaging: the disk module's holes cost it nothing and
// would cost the host their size: a hole past the run's byte budget is
// refused before a byte is copied, the store's quota refuses what would
// pass it, and a slow copy stops at the run's deadline, leaving nothing.
func TestHostileDiskStaging(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	res := f.run(f.addDisk("sparse-huge"), "d.run", `{}`, nil)
	wantHost(t, res, modproto.CodeHostProtocolViolation)
	if !strings.Contains(res.Host.Detail, "MaxRunStageBytes") || storeFiles(t, f) != 0 {
		t.Fatalf("huge hole: %s; %d files in the store", res.Host.Detail, storeFiles(t, f))
	}
	f.cfg.Artifacts.MaxBytes = 10 << 20
	res = f.run(f.addDisk("sparse-many"), "d.run", `{}`, nil)
	wantHost(t, res, modproto.CodeHostStoreQuota) // the host's store is full, not the module at fault
	if !strings.Contains(res.Host.Detail, "artifacts.max_bytes") || len(res.Refused) != 5 {
		t.Fatalf("quota of 10 MiB: %d of 8 listings of 3 MiB refused: %s", len(res.Refused), res.Host.Detail)
	}
	// The refusal says what would pass what; the copies kept the hole.
	if want := "quota artifacts.max_bytes (10485760) would be passed: 9437184 bytes staged + this artifact's 3145728 = 12582912"; !strings.Contains(res.Host.Detail, want) {
		t.Errorf("quota refusal %q does not say %q", res.Host.Detail, want)
	}
	if alloc := storeAllocated(t, f); alloc > 64<<10 {
		t.Errorf("a 3 MiB hole staged takes %d bytes on disk, want it sparse", alloc)
	}
	f.cfg.Artifacts.MaxBytes = 0
	res = f.run(f.addDisk("sparse-slow"), "d.run", `{}`, func(p *Plan) { p.Request.DeadlineMS = 300 })
	wantHost(t, res, modproto.CodeHostTimeout)
	if tmps, _ := os.ReadDir(filepath.Join(f.cfg.ArtifactsDir(), "tmp")); len(tmps) != 0 {
		t.Fatalf("a stopped staging left %d temporary files", len(tmps))
	}
}

// installHostile installs testdata/hostile/<name>.sh as module name and
// loads it.
func (f *fixture) installHostile(name string) *Module {
	f.t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "hostile", name+".sh"))
	if err != nil {
		f.t.Fatal(err)
	}
	dir := filepath.Join(f.cfg.ModulesDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), body, 0o755); err != nil {
		f.t.Fatal(err)
	}
	return f.load(name)
}

// storeAllocated is the disk space the store's staged files take
// (allocated blocks, not sizes).
func storeAllocated(t *testing.T, f *fixture) int64 {
	t.Helper()
	var n int64
	filepath.Walk(filepath.Join(f.cfg.ArtifactsDir(), "sha256"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Sys().(*syscall.Stat_t).Blocks * 512
		}
		return nil
	})
	return n
}

// TestStageKeepsHoles: a sparse file and a file of zeros are staged
// sparse, with the digest of their logical bytes; data between holes is
// copied exactly.
func TestStageKeepsHoles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	src := filepath.Join(t.TempDir(), "sparse")
	w, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	data := []byte(strings.Repeat("data", 1500)) // 6000 bytes: not block-aligned
	for _, off := range []int64{0, 5 << 20, 9<<20 + 17} {
		if _, err := w.WriteAt(data, off); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Truncate(32 << 20); err != nil { // a trailing hole
		t.Fatal(err)
	}
	w.Close()
	want, size, err := digestFile(src)
	if err != nil {
		t.Fatal(err)
	}
	r, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	dest, n, err := f.host.stage(nil, r, want)
	if err != nil || n != size {
		t.Fatalf("stage: %v (%d of %d bytes)", err, n, size)
	}
	got, gotSize, err := digestFile(dest)
	if err != nil || got != want || gotSize != size {
		t.Fatalf("staged copy %s, %d bytes, want %s, %d bytes (%v)", got, gotSize, want, size, err)
	}
	fi, _ := os.Stat(dest)
	if alloc := fi.Sys().(*syscall.Stat_t).Blocks * 512; alloc > 1<<20 {
		t.Errorf("32 MiB with 18 KB of data staged as %d bytes on disk, want the holes kept", alloc)
	}
}

// digestFile is the sha256 digest and the size of the file at p.
func digestFile(p string) (string, int64, error) {
	r, err := os.Open(p)
	if err != nil {
		return "", 0, err
	}
	defer r.Close()
	return modproto.DigestReader(r)
}

// TestHostileDiskWrites: a contained module cannot fill the disk through
// its workspace: one file stops at limits.file_size_mb, and many smaller
// files at limits.write_mb, killed while it runs or judged once it
// exited, or holding files it unlinked; the enforcement record lists both.
func TestHostileDiskWrites(t *testing.T) {
	// Not parallel: the write bound's trigger is the filesystem's growth
	// (statfs), and files other tests delete meanwhile can hide a run's
	// growth from it (docs/containment.md "Writes").
	f := containedFixture(t)
	f.cfg.Limits.FileSizeMB, f.cfg.Limits.WriteMB = 2, 4

	res := f.run(f.installHostile("bigfile"), "b.run", `{}`, nil)
	if fi, err := os.Stat(filepath.Join(f.cfg.Workspace, "big.bin")); err != nil || fi.Size() > 2<<20 {
		t.Fatalf("the file passed limits.file_size_mb (2 MiB): %v", err)
	}
	if l := res.Enforcement.Limits; !strings.Contains(l, "file size 2 MiB") || !strings.Contains(l, "writes 4 MiB and 100000 files per run") {
		t.Errorf("limits as recorded: %s", l)
	}
	os.Remove(filepath.Join(f.cfg.Workspace, "big.bin"))

	for _, mode := range []string{"fill", "fill-exit"} {
		res := f.run(f.addDisk(mode), "d.run", `{}`, nil)
		wantHost(t, res, modproto.CodeHostWriteBound)
		killed := strings.HasSuffix(res.Host.Detail, "the process tree was killed")
		if !strings.Contains(res.Host.Detail, "past limits.write_mb (4 MiB)") || killed != (mode == "fill") {
			t.Errorf("%s: %s", mode, res.Host.Detail)
		}
		ents, _ := os.ReadDir(f.cfg.Workspace)
		for _, e := range ents {
			os.Remove(filepath.Join(f.cfg.Workspace, e.Name()))
		}
	}

	// 16 MiB unlinked and held open, then 8 MiB seen: what it holds is its
	// own, so it cannot raise the trigger past the seen files.
	res = f.run(f.addDisk("slack"), "d.run", `{}`, nil)
	wantHost(t, res, modproto.CodeHostWriteBound)
	if !strings.HasSuffix(res.Host.Detail, "the process tree was killed") {
		t.Errorf("slack: %s", res.Host.Detail)
	}
}

// TestKilledBySIGXFSZIsTheBound: a process killed by SIGXFSZ (its file
// reached limits.file_size_mb; without a PID namespace the kernel kills
// the module itself) is the file-size bound's verdict, not a crash.
func TestKilledBySIGXFSZIsTheBound(t *testing.T) {
	t.Parallel()
	r := execute(ctxGuard(t), execSpec{
		exe:      "/bin/sh",
		args:     func(string) []string { return []string{"-c", "kill -XFSZ $$"} },
		deadline: 10 * time.Second, maxStdout: 1 << 10,
		contain: contain.Spec{Mode: contain.ModeOff, Limits: contain.Limits{FileSize: 3 << 20}},
	})
	if r.signal != "SIGXFSZ" || r.writeBound == nil || !strings.Contains(r.writeBound.Error(), "limits.file_size_mb (3 MiB) and SIGXFSZ killed it") {
		t.Fatalf("signal %q, verdict %v", r.signal, r.writeBound)
	}
}

// TestJobPollsShareTheWriteBound: a job is one run: its start and polls
// share one write budget, so polls that each stay under write_mb but
// together pass it are stopped (each poll had a fresh budget: 15 MiB
// against 4).
func TestJobPollsShareTheWriteBound(t *testing.T) {
	// Not parallel: the trigger is the filesystem's growth (statfs).
	f := containedFixture(t)
	f.cfg.Limits.WriteMB = 4
	f.host.PollInterval, f.host.PollMaxInterval = time.Millisecond, time.Millisecond
	res := f.run(f.installHostile("jobwrites"), "j.start", `{}`, nil)
	wantHost(t, res, modproto.CodeHostWriteBound)
	if !strings.Contains(res.Host.Detail, "past limits.write_mb (4 MiB)") {
		t.Errorf("verdict: %s", res.Host.Detail)
	}
	b, _ := os.ReadFile(filepath.Join(f.cfg.Workspace, "polls"))
	// 3 MiB + 3 MiB pass 4 MiB at the first poll; files other tests
	// delete meanwhile may hide some growth from the trigger a poll
	// longer (docs/containment.md "Writes"), never to the job's end.
	if n := strings.TrimSpace(string(b)); n != "1" && n != "2" && n != "3" {
		t.Errorf("the job was stopped after %q polls, want it stopped before its fourth", n)
	}
}
