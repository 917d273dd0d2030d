// Command attack is a hostile module for contain's tests: each subcommand
// tries one escape and prints "ATTACK OK" (exit 0) when it worked, or
// "blocked: <why>" (exit 1). README.md in the parent directory lists the
// cases and their expected verdicts.
package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 2 {
		fail(fmt.Errorf("usage: attack <case> [args]"))
	}
	arg := func(i int) string {
		if len(os.Args) <= i {
			fail(fmt.Errorf("%s: missing argument %d", os.Args[1], i))
		}
		return os.Args[i]
	}
	switch os.Args[1] {
	case "linger": // the survivor: sleeps with the token in its argv
		time.Sleep(60 * time.Second)
	case "survive":
		// A grandchild joins the host's process group (or, refused, a
		// session of its own) and execs with an empty environment.
		pgid, _ := strconv.Atoi(arg(2))
		self, _ := os.Executable()
		attr := &syscall.ProcAttr{Env: []string{}, Sys: &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}}
		if _, err := syscall.ForkExec(self, []string{self, "linger", arg(3)}, attr); err != nil {
			attr.Sys = &syscall.SysProcAttr{Setsid: true}
			if _, err := syscall.ForkExec(self, []string{self, "linger", arg(3)}, attr); err != nil {
				fail(err)
			}
		}
		ok() // the verdict is whether the survivor outlives the kill
	case "tty":
		f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
		if err != nil {
			fail(err)
		}
		c := byte('y')
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TIOCSTI, uintptr(unsafe.Pointer(&c))); errno != 0 {
			fail(errno)
		}
		ok()
	case "read":
		b, err := os.ReadFile(arg(2))
		if err != nil {
			fail(err)
		}
		if len(os.Args) > 3 && !bytes.Contains(b, []byte(arg(3))) {
			fail(fmt.Errorf("read, but %q is not in it", arg(3)))
		}
		ok()
	case "setuid": // make a file outside the grants setuid (root: a way to root for every user)
		_ = os.Chmod(arg(2), 0o755)
		if err := syscall.Chmod(arg(2), 0o4755); err != nil {
			fail(err)
		}
		fi, err := os.Stat(arg(2))
		if err != nil {
			fail(err)
		}
		if fi.Mode()&os.ModeSetuid == 0 {
			fail(fmt.Errorf("chmod returned, but the setuid bit is not set"))
		}
		ok()
	case "chmod": // change the mode of a file outside the grants (Landlock does not cover it)
		if err := os.Chmod(arg(2), 0o666); err != nil {
			fail(err)
		}
		if fi, err := os.Stat(arg(2)); err != nil || fi.Mode().Perm() != 0o666 {
			fail(fmt.Errorf("chmod returned, but the mode is not 0666"))
		}
		ok()
	case "chown": // give a file outside the grants away (as root: to nobody)
		if err := os.Lchown(arg(2), 65534, 65534); err != nil {
			fail(err)
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(arg(2), &st); err != nil || st.Uid != 65534 {
			fail(fmt.Errorf("chown returned, but the owner is not 65534"))
		}
		ok()
	case "utime": // backdate a file outside the grants
		old := time.Unix(86400, 0)
		if err := os.Chtimes(arg(2), old, old); err != nil {
			fail(err)
		}
		if fi, err := os.Stat(arg(2)); err != nil || !fi.ModTime().Equal(old) {
			fail(fmt.Errorf("utime returned, but the time is not set"))
		}
		ok()
	case "procs": // start N lingering copies of itself at once (a fork bomb, bounded)
		n, _ := strconv.Atoi(arg(2))
		self, _ := os.Executable()
		for i := 0; i < n; i++ {
			if _, err := syscall.ForkExec(self, []string{self, "linger", arg(3)}, &syscall.ProcAttr{}); err != nil {
				fail(fmt.Errorf("process %d: %w", i+1, err))
			}
		}
		ok()
	case "bigfile": // write one file of N MiB (Go ignores SIGXFSZ: the write itself fails)
		n, _ := strconv.Atoi(arg(3))
		if err := writeMiB(arg(2), n); err != nil {
			fail(err)
		}
		ok()
	case "fallocate": // reserve N MiB with FALLOC_FL_KEEP_SIZE: the size stays 0
		f, err := os.OpenFile(arg(2), os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			fail(err)
		}
		n, _ := strconv.Atoi(arg(3))
		if err := unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_KEEP_SIZE, 0, int64(n)<<20); err != nil {
			fail(err)
		}
		ok()
	case "fill": // write N files of 1 MiB each in a directory, then linger
		n, _ := strconv.Atoi(arg(3))
		for i := range n {
			if err := writeMiB(fmt.Sprintf("%s/fill%d", arg(2), i), 1); err != nil {
				fail(err)
			}
		}
		fmt.Println("ATTACK OK")
		if len(os.Args) > 4 && arg(4) == "linger" {
			time.Sleep(60 * time.Second)
		}
		os.Exit(0)
	case "slack": // N files of 3 MiB unlinked and held open 2 s, then M of 3 MiB seen
		n, _ := strconv.Atoi(arg(3))
		m, _ := strconv.Atoi(arg(4))
		var held []*os.File
		for i := range n {
			p := fmt.Sprintf("%s/held%d", arg(2), i)
			if err := writeMiB(p, 3); err != nil {
				fail(err)
			}
			f, err := os.Open(p)
			if err != nil {
				fail(err)
			}
			os.Remove(p)
			held = append(held, f)
		}
		time.Sleep(2 * time.Second)
		for _, f := range held {
			f.Close()
		}
		for i := range m {
			if err := writeMiB(fmt.Sprintf("%s/seen%d", arg(2), i), 3); err != nil {
				fail(err)
			}
			time.Sleep(100 * time.Millisecond)
		}
		ok()
	case "ok": // what the memfd case runs: the attack worked if it prints
		ok()
	case "memfd":
		// A program copied into an anonymous memory file and executed
		// through its descriptor: Landlock's execute rule sees no path.
		self, err := os.Executable()
		if err != nil {
			fail(err)
		}
		b, err := os.ReadFile(self)
		if err != nil {
			fail(err)
		}
		fd, err := unix.MemfdCreate("x", 0)
		if err != nil {
			fail(err)
		}
		if _, err := unix.Write(fd, b); err != nil {
			fail(err)
		}
		argv, _ := syscall.SlicePtrFromStrings([]string{"attack", "ok"})
		envv, _ := syscall.SlicePtrFromStrings(os.Environ())
		empty, _ := unix.BytePtrFromString("")
		_, _, errno := unix.Syscall6(unix.SYS_EXECVEAT, uintptr(fd), uintptr(unsafe.Pointer(empty)),
			uintptr(unsafe.Pointer(&argv[0])), uintptr(unsafe.Pointer(&envv[0])), unix.AT_EMPTY_PATH, 0)
		fail(errno)
	case "exec": // start a shell, though no subprocess was granted
		if err := exec.Command(arg(2), "-c", "exit 0").Run(); err != nil {
			fail(err)
		}
		ok()
	case "write":
		f, err := os.OpenFile(arg(2), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			fail(err)
		}
		if _, err := f.WriteString("pwned\n"); err != nil {
			fail(err)
		}
		ok()
	case "tcp":
		c, err := net.DialTimeout("tcp", arg(2), 2*time.Second)
		if err != nil {
			fail(err)
		}
		c.Close()
		ok()
	case "mptcp": // Multipath TCP, which Landlock's TCP rules do not cover
		d := net.Dialer{Timeout: 2 * time.Second}
		d.SetMultipathTCP(true)
		c, err := d.Dial("tcp", arg(2))
		if err != nil {
			fail(err)
		}
		c.Close()
		ok()
	case "udp": // round trip: the test's listener echoes
		c, err := net.Dial("udp", arg(2))
		if err != nil {
			fail(err)
		}
		if _, err := c.Write([]byte("ping")); err != nil {
			fail(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := c.Read(make([]byte, 16)); err != nil {
			fail(err)
		}
		ok()
	case "unix":
		c, err := net.Dial("unix", arg(2))
		if err != nil {
			fail(err)
		}
		c.Close()
		ok()
	case "signal": // SIGUSR1 stands in for SIGSTOP: the test host notices it
		pid, _ := strconv.Atoi(arg(2))
		if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
			fail(err)
		}
		ok()
	case "keyring": // add a key to the uid's user keyring, then read it back
		name := []byte("contain-test\x00")
		typ := []byte("user\x00")
		payload := []byte(arg(2))
		const keySpecUserKeyring = ^uintptr(3) // KEY_SPEC_USER_KEYRING (-4)
		id, _, errno := syscall.Syscall6(syscall.SYS_ADD_KEY, uintptr(unsafe.Pointer(&typ[0])), uintptr(unsafe.Pointer(&name[0])),
			uintptr(unsafe.Pointer(&payload[0])), uintptr(len(payload)), keySpecUserKeyring, 0)
		if errno != 0 {
			fail(errno)
		}
		const keyctlRevoke = 3 // leave nothing planted
		_, _, _ = syscall.Syscall(syscall.SYS_KEYCTL, keyctlRevoke, id, 0)
		ok()
	case "fd":
		n, _ := strconv.Atoi(arg(2))
		b := make([]byte, 64)
		k, err := syscall.Pread(n, b, 0)
		if err != nil {
			fail(err)
		}
		if !bytes.Contains(b[:k], []byte(arg(3))) {
			fail(fmt.Errorf("fd %d does not hold the secret", n))
		}
		ok()
	default:
		fail(fmt.Errorf("unknown case %q", os.Args[1]))
	}
}

// writeMiB writes n MiB of data (not a hole: it takes disk) to path.
func writeMiB(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for range n {
		if _, err := f.Write(chunk); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

func ok() {
	fmt.Println("ATTACK OK")
	os.Exit(0)
}

func fail(err error) {
	fmt.Println("blocked:", err)
	os.Exit(1)
}
