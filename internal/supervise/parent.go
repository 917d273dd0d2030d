package supervise

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// ExitCrash is the code of a cockpit that died without saying its own:
// modbay's crash code (cli.ExitCrash, internal/crash's ExitCode, sysexits
// EX_SOFTWARE; docs/protocol.md §15).
const ExitCrash = 70

// maxReport bounds what the parent reads of the child's report: a code of
// at most three digits and its newline.
const maxReport = 16

// child is what run starts: the program, its whole argv, its environment
// (without EnvFD) and its standard streams.
type child struct {
	path                  string
	args                  []string
	env                   []string
	stdin, stdout, stderr *os.File
}

// parenting is true while this process waits on a supervised child.
var parenting atomic.Bool

// Parenting reports whether this process is a supervising parent now: a
// signal is the child's to act on, and the parent waits for it.
func Parenting() bool { return parenting.Load() }

// Run opens the cockpit in a child, this binary (os.Executable) with args
// (without the program name) and the process's environment and standard
// streams, and waits for it. The terminal modes of standard input and
// output are saved before the child starts. A child that said its code
// (Exit) has the parent exit with that code: the returned one. A child
// that ended without saying it has the saved modes restored, the modes
// Bubble Tea may have set reset (resetSequences), one line on stderr
// naming how it ended, and ExitCrash returned. Meanwhile SIGINT and
// SIGQUIT (the terminal's, which reach the child too) leave the parent
// be, SIGTERM and SIGHUP are passed to the child, and SIGTSTP stops both
// as it stops the process group. The error is the child's not starting
// (no executable to re-execute, exec failed): nothing was done, and the
// caller opens the cockpit itself.
func Run(args []string) (int, error) {
	parenting.Store(true)
	defer parenting.Store(false)
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	return run(child{path: exe, args: append([]string{os.Args[0]}, args...), env: os.Environ(),
		stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr})
}

// run is Run on c.
func run(c child) (int, error) {
	saved := saveModes(c.stdin, c.stdout)
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return 0, fmt.Errorf("supervise: report pipe: %w", err)
	}
	r, w := p[0], os.NewFile(uintptr(p[1]), "supervise report")
	defer unix.Close(r)
	cmd := &exec.Cmd{Path: c.path, Args: c.args, Env: append(slices.Clip(c.env), EnvFD+"="+strconv.Itoa(childFD)),
		Stdin: c.stdin, Stdout: c.stdout, Stderr: c.stderr, ExtraFiles: []*os.File{w}}
	// Caught before the child exists: a SIGINT or SIGQUIT from the
	// terminal while it starts must not end the parent.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	err := cmd.Start()
	w.Close() // the child's copy is the only writer left
	if err != nil {
		return 0, fmt.Errorf("supervise: starting the cockpit: %w", err)
	}
	// What the parent's start allocated goes back: it only waits now.
	debug.FreeOSMemory()
	done, forwarded := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(forwarded)
		forward(cmd.Process, sigs, done)
	}()
	_ = cmd.Wait() // a non-zero exit is read from ProcessState below
	close(done)
	<-forwarded
	if code, ok := readReport(r); ok {
		return code, nil
	}
	restore(saved, c.stdout)
	fmt.Fprintf(c.stderr, "modbay: the cockpit died (%s); the terminal was restored\n", howEnded(cmd.ProcessState))
	return ExitCrash, nil
}

// forward passes SIGTERM and SIGHUP on to the child until done; SIGINT
// and SIGQUIT are dropped (the child got them from the terminal itself).
func forward(p *os.Process, sigs <-chan os.Signal, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case s := <-sigs:
			if s == syscall.SIGTERM || s == syscall.SIGHUP {
				_ = p.Signal(s)
			}
		}
	}
}

// readReport reads the code the child said, once it has ended: what it
// wrote is in the pipe by then, so the read never waits (a module that
// somehow kept the pipe open cannot hold the parent). ok is false when
// nothing, or no code in 0–255, was said.
func readReport(r int) (code int, ok bool) {
	if unix.SetNonblock(r, true) != nil {
		return 0, false
	}
	var buf [maxReport]byte
	n, err := unix.Read(r, buf[:])
	if err != nil || n <= 0 {
		return 0, false
	}
	line, found := strings.CutSuffix(string(buf[:n]), "\n")
	if !found {
		return 0, false
	}
	code, err = strconv.Atoi(line)
	if err != nil || code < 0 || code > 255 {
		return 0, false
	}
	return code, true
}

// savedMode is one terminal's modes as the parent found them.
type savedMode struct {
	f *os.File
	t *unix.Termios
}

// saveModes saves the termios of each of files that is a terminal.
func saveModes(files ...*os.File) []savedMode {
	var out []savedMode
	for _, f := range files {
		if t, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS); err == nil {
			out = append(out, savedMode{f, t})
		}
	}
	return out
}

// restore puts back the saved modes, dropping input not yet read (keys
// and reports meant for the cockpit must not reach the shell), and, when
// out is one of the saved terminals, writes resetSequences to it.
func restore(saved []savedMode, out *os.File) {
	for _, s := range saved {
		_ = unix.IoctlSetTermios(int(s.f.Fd()), unix.TCSETSF, s.t)
	}
	if slices.ContainsFunc(saved, func(s savedMode) bool { return s.f == out }) {
		_, _ = io.WriteString(out, resetSequences)
	}
}

// howEnded says how a child that said no code ended: "signal: killed"
// (Go's wording of the wait status), "fatal runtime error, exit 2" (Go's
// fatal errors, out of memory and unrecovered panics all exit 2), or
// "exit N".
func howEnded(ps *os.ProcessState) string {
	if ps == nil {
		return "its end unknown"
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ps.String()
	}
	if ps.ExitCode() == 2 {
		return "fatal runtime error, exit 2"
	}
	return fmt.Sprintf("exit %d", ps.ExitCode())
}
