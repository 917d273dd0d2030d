package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestProcTreeFollowsThePpidChain: a setsid'd grandchild without the run's
// TMPDIR is found through its living parent and killed with it.
func TestProcTreeFollowsThePpidChain(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	cmd := exec.Command(testBinary(t), parentMarker, pidFile)
	cmd.Env = []string{"TMPDIR=/nonexistent/unused"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Started like a module, so other tests' runs never take it for an
	// orphan adopted by the host's subreaper.
	spawnMu.Lock()
	if err := cmd.Start(); err != nil {
		spawnMu.Unlock()
		t.Fatal(err)
	}
	liveRoots.Store(cmd.Process.Pid, struct{}{})
	spawnMu.Unlock()
	defer liveRoots.Delete(cmd.Process.Pid)
	waited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(waited) }()
	var child int
	deadline := time.Now().Add(testGuard)
	for child == 0 {
		if b, err := os.ReadFile(pidFile); err == nil {
			child, _ = strconv.Atoi(string(b))
		} else if time.Now().After(deadline) {
			t.Fatal("the parent never recorded its child")
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	tree := newProcTree(cmd.Process.Pid, "TMPDIR=/a/marker/nobody/has")
	tree.terminate()
	<-waited
	assertGone(t, []int{cmd.Process.Pid, child})
	if s, ok := readProcStat(child); ok && s.state != 'Z' {
		syscall.Kill(child, syscall.SIGKILL) // do not leak it when the test fails
	}
}

func TestReadProcStat(t *testing.T) {
	t.Parallel()
	s, ok := readProcStat(os.Getpid())
	if !ok || s.pid != os.Getpid() || s.ppid != os.Getppid() || s.start == 0 || s.state == 0 {
		t.Fatalf("stat of self: %+v %v", s, ok)
	}
	if _, ok := readProcStat(-1); ok {
		t.Error("stat of an impossible pid")
	}
}
