package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestSweepAbandonedRuns: a run whose host died (its owner file names a
// process that is gone) has its processes killed and its directory
// removed; a run whose host lives is left alone.
func TestSweepAbandonedRuns(t *testing.T) {
	tmp := t.TempDir()
	dead, err := os.MkdirTemp(tmp, "modbay-run-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dead, "tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	// A host that existed once: a finished process's pid, with a start
	// time no live process has.
	gone := exec.Command(testBinary(t), sleeperMarker)
	if err := gone.Start(); err != nil {
		t.Fatal(err)
	}
	_ = gone.Process.Kill()
	_ = gone.Wait()
	if err := writeFileMode(filepath.Join(dead, runOwnerFile), []byte(
		strconv.Itoa(gone.Process.Pid)+" 1"), 0o600); err != nil {
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

	alive, err := os.MkdirTemp(tmp, "modbay-run-")
	if err != nil {
		t.Fatal(err)
	}
	if err := recordRunOwner(alive); err != nil {
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
	if n := sweepAbandonedRuns(tmp); n != 1 {
		t.Fatalf("swept %d runs, want 1", n)
	}
	select {
	case <-exited:
	case <-time.After(testGuard):
		t.Fatal("the abandoned run's process is still alive")
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Fatalf("the abandoned run's directory remains: %v", err)
	}
	if _, err := os.Stat(alive); err != nil {
		t.Fatalf("a live host's run was swept: %v", err)
	}
}
