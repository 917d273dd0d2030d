package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"modbay/modproto"
)

// asModbayEnv, set to "1", makes the test binary run as modbay (TestMain).
const asModbayEnv = "MODBAY_CLI_TEST_AS_MODBAY"

// hangupBound is how long a hung-up invoke may take to end: generous, far
// under the 10-minute deadline the run is given, so only the hangup
// watch can end it in time.
const hangupBound = 30 * time.Second

// sleeperModule writes a module whose invoke records its shell's pid and a
// child's in pidFile, then waits on the child (10 minutes).
func sleeperModule(t *testing.T, pidFile string) string {
	t.Helper()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep executable")
	}
	return scriptModule(t, modproto.Descriptor{Module: "sleeper", Name: "Sleeper", Version: "1", ProtocolVersions: []string{modproto.ProtocolID},
		Capabilities: []modproto.Capability{{ID: "sleeper.wait", Title: "Wait", Summary: "Waits", Effects: localEffects}}},
		fmt.Sprintf("%s 600 & echo $! > %s; echo $$ >> %s; wait", sleep, pidFile, pidFile))
}

// startInvoke starts the test binary as `modbay invoke sleeper` with stdout
// going to stdout, and returns it with its stderr and the module's two
// pids once both are running.
func startInvoke(t *testing.T, stdout *os.File) (*exec.Cmd, *bytes.Buffer, []int) {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "pids")
	exe := sleeperModule(t, pidFile)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The module reports its pids through a file outside its grants, so
	// the run is uncontained (sandbox: off): this test is about the
	// hangup watch; contain/ tests that a contained tree dies with its run.
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("sandbox: off\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "--home", home, "--module", exe, "invoke", "sleeper", "sleeper.wait", "--deadline", "10m")
	cmd.Env = append(os.Environ(), asModbayEnv+"=1")
	cmd.Stdout = stdout
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(pidFile)
		if f := strings.Fields(string(b)); len(f) == 2 {
			var pids []int
			for _, s := range f {
				n, err := strconv.Atoi(s)
				if err != nil {
					t.Fatalf("pid file %q", b)
				}
				pids = append(pids, n)
			}
			return cmd, &errb, pids
		}
		if time.Since(start) > hangupBound {
			t.Fatalf("the module never started; stderr %s", errb.String())
		}
	}
}

// waitExit waits for cmd within hangupBound and returns its exit code.
func waitExit(t *testing.T, cmd *exec.Cmd, errb *bytes.Buffer) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode()
	case <-time.After(hangupBound):
		cmd.Process.Kill()
		<-done
		// Not fatal: the caller still kills the module's survivors.
		t.Errorf("modbay invoke kept running %s after its connection closed; stderr %s", hangupBound, errb.String())
		return -1
	}
}

// alive reports whether pid is a process that has not died (a zombie
// waiting to be reaped counts as dead).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// assertTreeDead fails for each pid still alive.
func assertTreeDead(t *testing.T, pids []int) {
	t.Helper()
	for _, pid := range pids {
		if alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("module process %d survived the hangup", pid)
		}
	}
}

// TestInvokeStopsWhenStdoutHangsUp: `modbay invoke` with stdout a pipe
// whose reader goes away (an SSH connection that dropped) cancels the run
// and kills the module's whole tree at once, not at the deadline.
func TestInvokeStopsWhenStdoutHangsUp(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd, errb, pids := startInvoke(t, pw)
	pw.Close()
	pr.Close() // the reader goes: the write end reports POLLERR
	code := waitExit(t, cmd, errb)
	if code != ExitHostVerdict || !strings.Contains(errb.String(), "the connection closed (stdout): the run was cancelled and its process tree killed") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
	assertTreeDead(t, pids)
}

// TestInvokeStopsOnSIGHUP: a hangup signal does the same while stdout is
// still open.
func TestInvokeStopsOnSIGHUP(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	cmd, errb, pids := startInvoke(t, pw)
	pw.Close()
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	code := waitExit(t, cmd, errb)
	if code != ExitHostVerdict || !strings.Contains(errb.String(), "(SIGHUP)") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
	assertTreeDead(t, pids)
}
