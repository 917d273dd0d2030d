//go:build linux

package contain

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ttyHostEnv, set, makes the test binary a host with a terminal
// (TestTTYHost): its value is the Mode, and the attack binary's path is in
// ttyAttackEnv.
const (
	ttyHostEnv   = "CONTAIN_TTY_HOST"
	ttyAttackEnv = "CONTAIN_TTY_ATTACK"
)

// openPTY returns a new pseudo-terminal's master and slave.
func openPTY(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	unlock := 0
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); errno != 0 {
		t.Fatal(errno)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}

// TestHostileTTY: a module started by a host that runs in a terminal opens
// /dev/tty and injects a keystroke with TIOCSTI. The host is this test
// binary again, in a new session whose controlling terminal is a pty.
func TestHostileTTY(t *testing.T) {
	requireFloor(t)
	m, s := openPTY(t)
	defer m.Close()
	defer s.Close()
	go func() { _, _ = bytes.NewBuffer(nil).ReadFrom(m) }() // keep the pty drained
	for _, mode := range []Mode{ModeOff, ModeAuto} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestTTYHost$")
		cmd.Env = append(os.Environ(), ttyHostEnv+"="+string(mode), ttyAttackEnv+"="+attackExe)
		cmd.Stdin = s
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s host: %v\n%s", mode, err, out.String())
		}
		_, res, ok := strings.Cut(out.String(), "RESULT: ")
		if !ok {
			t.Fatalf("%s host said nothing:\n%s", mode, out.String())
		}
		res, _, _ = strings.Cut(res, "\n")
		switch {
		case mode == ModeOff && res != "ATTACK OK":
			t.Fatalf("uncontained, the module should reach the host's terminal: %s", res)
		case mode != ModeOff && !strings.HasPrefix(res, "blocked:"):
			t.Fatalf("contained, the module reached the host's terminal: %s", res)
		}
		t.Logf("%s: %s", mode, res)
	}
}

// TestTTYHost is the host TestHostileTTY runs; it does nothing otherwise.
func TestTTYHost(t *testing.T) {
	mode := Mode(os.Getenv(ttyHostEnv))
	if mode == "" {
		t.Skip("only run by TestHostileTTY")
	}
	dir := t.TempDir()
	attack := os.Getenv(ttyAttackEnv)
	cmd := exec.Command(attack, "tty")
	cmd.Env = []string{"TMPDIR=" + dir}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if _, _, err := Start(cmd, Spec{Module: attack, ModuleDir: dirOf(attack), RunDir: dir, Mode: mode}); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	fmt.Println("RESULT: " + strings.TrimSpace(out.String()))
}

func dirOf(p string) string {
	i := strings.LastIndexByte(p, '/')
	return p[:max(i, 1)]
}
