package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestSweepAbandonedRuns: a run whose host died (its directory's name
// names a process that is gone) has its processes killed and its
// directory removed, as has an older host's run whose owner file does; a
// run whose host lives (newRunDir) is left alone, as is a directory that
// names no owner.
func TestSweepAbandonedRuns(t *testing.T) {
	tmp := t.TempDir()
	// A host that existed once: a finished process's pid, with a start
	// time no live process has.
	gone := exec.Command(testBinary(t), sleeperMarker)
	if err := gone.Start(); err != nil {
		t.Fatal(err)
	}
	_ = gone.Process.Kill()
	_ = gone.Wait()
	dead, err := os.MkdirTemp(tmp, runDirPrefix+strconv.Itoa(gone.Process.Pid)+".1-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dead, "tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	older, err := os.MkdirTemp(tmp, runDirPrefix)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeFileMode(filepath.Join(older, runOwnerFile), []byte(
		strconv.Itoa(gone.Process.Pid)+" 1"), 0o600); err != nil {
		t.Fatal(err)
	}
	foreign, err := os.MkdirTemp(tmp, runDirPrefix)
	if err != nil {
		t.Fatal(err)
	}
	// The orphaned module, carrying the dead run's TMPDIR.
	orphan := exec.Command(testBinary(t), sleeperMarker)
	orphan.Env = []string{"TMPDIR=" + filepath.Join(dead, "tmp")}
	if err := orphan.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = orphan.Wait(); close(exited) }()
	t.Cleanup(func() { _ = orphan.Process.Kill() })

	t.Setenv("TMPDIR", tmp)
	alive, err := newRunDir()
	if err != nil {
		t.Fatal(err)
	}

	// Wait until the orphan's environment is readable, then sweep.
	deadline := time.Now().Add(testGuard)
	for !hasEnvEntry(orphan.Process.Pid, []byte("TMPDIR="+filepath.Join(dead, "tmp"))) {
		if time.Now().After(deadline) {
			t.Fatal("the orphan never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := sweepAbandonedRuns(tmp); n != 2 {
		t.Fatalf("swept %d runs, want 2", n)
	}
	select {
	case <-exited:
	case <-time.After(testGuard):
		t.Fatal("the abandoned run's process is still alive")
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Fatalf("the abandoned run's directory remains: %v", err)
	}
	if _, err := os.Stat(older); !os.IsNotExist(err) {
		t.Fatalf("the older host's abandoned run remains: %v", err)
	}
	for _, d := range []string{alive, foreign} {
		if _, err := os.Stat(d); err != nil {
			t.Fatalf("%s was swept: %v", d, err)
		}
	}
}

// TestRunDirOwner: the owner is read from newRunDir's names only; an older
// host's digits-only name, or anything malformed, records none.
func TestRunDirOwner(t *testing.T) {
	for _, c := range []struct {
		name       string
		pid        int
		start      uint64
		recordsOne bool
	}{
		{"modbay-run-42.1234-567", 42, 1234, true},
		{"modbay-run-1234567", 0, 0, false},
		{"modbay-run-42.x-5", 0, 0, false},
		{"modbay-run-0.5-5", 0, 0, false},
		{"modbay-run-42.5", 0, 0, false},
		{"other-42.5-1", 0, 0, false},
	} {
		pid, start, ok := runDirOwner(c.name)
		if pid != c.pid || start != c.start || ok != c.recordsOne {
			t.Errorf("%s: %d %d %v", c.name, pid, start, ok)
		}
	}
	t.Setenv("TMPDIR", t.TempDir())
	d, err := newRunDir()
	if err != nil {
		t.Fatal(err)
	}
	s, _ := hostStat()
	if pid, start, ok := runDirOwner(filepath.Base(d)); !ok || pid != s.pid || start != s.start || !ownerAlive(d) {
		t.Errorf("%s: %d %d %v", d, pid, start, ok)
	}
	if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("%s: %v %v", d, fi.Mode(), err)
	}
}

// TestReadProcFile: a /proc file read with plain system calls is the
// whole file, past the first buffer too; a missing one is not-exist.
func TestReadProcFile(t *testing.T) {
	for _, p := range []string{"/proc/self/status", "/proc/self/maps"} {
		b, err := readProcFile(p)
		want, err2 := os.ReadFile(p)
		if err != nil || err2 != nil || len(b) == 0 || string(b[:5]) != string(want[:5]) {
			t.Errorf("%s: %d bytes (%v), want like %d bytes (%v)", p, len(b), err, len(want), err2)
		}
	}
	if b, err := readProcFile("/proc/self/status"); err != nil || len(b) <= 512 {
		t.Errorf("status: %d bytes, %v: want past the first 512", len(b), err)
	}
	if _, err := readProcFile("/proc/self/task/0/children"); !os.IsNotExist(err) {
		t.Errorf("missing: %v", err)
	}
}
