package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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
	return f.load(mode)
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
	wantHost(t, res, modproto.CodeHostProtocolViolation)
	if !strings.Contains(res.Host.Detail, "artifacts.max_bytes") || len(res.Refused) != 5 {
		t.Fatalf("quota of 10 MiB: %d of 8 listings of 3 MiB refused: %s", len(res.Refused), res.Host.Detail)
	}
	f.cfg.Artifacts.MaxBytes = 0
	res = f.run(f.addDisk("sparse-slow"), "d.run", `{}`, func(p *Plan) { p.Request.DeadlineMS = 300 })
	wantHost(t, res, modproto.CodeHostTimeout)
	if tmps, _ := os.ReadDir(filepath.Join(f.cfg.ArtifactsDir(), "tmp")); len(tmps) != 0 {
		t.Fatalf("a stopped staging left %d temporary files", len(tmps))
	}
}

// TestHostileDiskWrites: a contained module cannot fill the disk through
// its workspace: one file stops at limits.file_size_mb, and many smaller
// files at limits.write_mb, killed while it runs or judged once it
// exited; the enforcement record lists both.
func TestHostileDiskWrites(t *testing.T) {
	t.Parallel()
	f := containedFixture(t)
	f.cfg.Limits.FileSizeMB, f.cfg.Limits.WriteMB = 2, 4

	dir := filepath.Join(f.cfg.ModulesDir(), "bigfile")
	body, err := os.ReadFile(filepath.Join("testdata", "hostile", "bigfile.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bigfile"), body, 0o755); err != nil {
		t.Fatal(err)
	}
	res := f.run(f.load("bigfile"), "b.run", `{}`, nil)
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
