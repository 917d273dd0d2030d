package runner

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"modbay/contain"
	"modbay/modproto"
)

// TestSweepSparesServers: a long-lived process the host starts with
// StartServer while a module runs (a stdio MCP server) is the host's own,
// not an orphan the module left: the sweep that ends the run
// (docs/protocol.md §3) kills the module's tree and leaves the server alive.
func TestSweepSparesServers(t *testing.T) {
	f := newFixture(t)
	f.addModule("hang", "good")
	m := f.load("hang")
	p, err := f.host.Plan(m, "t.hostile", json.RawMessage(`{"mode":"hang"}`))
	if err != nil {
		t.Fatal(err)
	}
	p.Request.DeadlineMS = 5000
	done := make(chan *Result, 1)
	go func() {
		res, _ := f.host.Run(context.Background(), p, true, nil)
		done <- res
	}()
	// Start the server once the module is running, as a cockpit does when
	// a person opens an MCP server during a run.
	for {
		if _, err := os.Stat(filepath.Join(f.cfg.Workspace, "pids")); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	dir := t.TempDir()
	cmd := exec.Command("/bin/sleep", "30")
	cmd.Dir = dir
	_, _, err = StartServer(cmd, contain.Spec{Mode: contain.ModeAuto, RunDir: dir, Module: "/bin/sleep", Binaries: []string{"/bin", "/usr/bin", "/lib", "/usr/lib", "/lib64"}})
	if err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); ServerExited(cmd.Process.Pid); close(exited) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
	wantHost(t, <-done, modproto.CodeHostTimeout)
	select {
	case <-exited:
		t.Fatalf("the run's sweep killed the server: %v", cmd.ProcessState)
	case <-time.After(300 * time.Millisecond):
	}
	if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the server is gone: %v", err)
	}
}
