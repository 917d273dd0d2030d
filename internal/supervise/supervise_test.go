package supervise

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// childEnv names what the test binary does when run as a supervised child
// (TestMain): one of the cases of childMain.
const childEnv = "SUPERVISE_TEST_CHILD"

// enterCockpit is what a child writes once it has "taken the terminal":
// the alternate screen and a hidden cursor, after raw mode.
const enterCockpit = "\x1b[?1049h\x1b[?25l"

func TestMain(m *testing.M) {
	if what := os.Getenv(childEnv); what != "" {
		childMain(what)
		return
	}
	os.Exit(m.Run())
}

// childMain is the test binary as the supervised cockpit: it takes the
// terminal on its standard input (raw mode, the alternate screen) and
// then ends the way what names.
func childMain(what string) {
	switch what {
	case "hidden":
		// The pipe and its variable stay out of everything the child runs.
		flags, err := unix.FcntlInt(uintptr(reportFD), unix.F_GETFD, 0)
		if !Supervised() || os.Getenv(EnvFD) != "" || err != nil || flags&unix.FD_CLOEXEC == 0 {
			fmt.Fprintf(os.Stderr, "supervised %v, %s=%q, flags %d %v\n", Supervised(), EnvFD, os.Getenv(EnvFD), flags, err)
			Exit(9)
		}
		Exit(0)
	case "signals":
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
		fmt.Println("ready")
		select {
		case s := <-sigs:
			switch s {
			case syscall.SIGTERM:
				Exit(3)
			case syscall.SIGHUP:
				Exit(4)
			}
			Exit(5)
		case <-time.After(time.Minute): // a parent that passes nothing on
			Exit(6)
		}
	case "exit0":
		Exit(0)
	}
	takeTerminal()
	switch what {
	case "usage":
		fmt.Fprintln(os.Stderr, "modbay: unknown flag: --nope")
		Exit(2)
	case "kill":
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	case "abort":
		_ = syscall.Kill(os.Getpid(), syscall.SIGABRT)
	case "stack":
		// A real fatal error of the Go runtime: no recover, exit 2.
		debug.SetMaxStack(1 << 20)
		recurse(0)
	case "oom":
		// The address space capped just above what is in use: the next
		// big allocation is the runtime's "out of memory" fatal error.
		var vm int
		b, _ := os.ReadFile("/proc/self/status")
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "VmSize:"); ok {
				vm, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			}
		}
		limit := uint64(vm+64<<10) << 10
		_ = unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: limit, Max: limit})
		sink = make([]byte, 1<<30)
	}
	time.Sleep(time.Minute) // never reached: each case ends the process
	os.Exit(99)
}

var sink []byte

func recurse(n int) int {
	var pad [256]byte
	pad[n%256] = byte(n)
	return recurse(n+1) + int(pad[0])
}

// takeTerminal puts standard input in raw mode and the output in the
// alternate screen, as Bubble Tea does.
func takeTerminal() {
	t, err := unix.IoctlGetTermios(0, unix.TCGETS)
	if err == nil {
		t.Lflag &^= unix.ICANON | unix.ECHO | unix.ISIG | unix.IEXTEN
		t.Iflag &^= unix.ICRNL | unix.IXON
		t.Oflag &^= unix.OPOST
		_ = unix.IoctlSetTermios(0, unix.TCSETS, t)
	}
	os.Stdout.WriteString(enterCockpit)
}

// pty is a pseudo-terminal whose master side is read into out.
type pty struct {
	master, slave *os.File
	mu            sync.Mutex
	out           bytes.Buffer
}

func openPTY(t *testing.T) *pty {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := &pty{master: m, slave: s}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := m.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { s.Close(); m.Close() })
	return p
}

// drain returns all the terminal was sent until now: a mark written to
// the slave last comes out last.
func (p *pty) drain(t *testing.T) string {
	t.Helper()
	const mark = "--end of output--"
	if _, err := p.slave.WriteString(mark); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		p.mu.Lock()
		s := p.out.String()
		p.mu.Unlock()
		if before, _, ok := strings.Cut(s, mark); ok {
			return before
		}
	}
	t.Fatal("the terminal's output never arrived")
	return ""
}

// self is the test binary as a supervised child doing what.
func self(t *testing.T, what string, stdin, stdout, stderr *os.File) child {
	t.Helper()
	return child{path: os.Args[0], args: []string{os.Args[0], "-test.run=^$"}, env: append(os.Environ(), childEnv+"="+what),
		stdin: stdin, stdout: stdout, stderr: stderr}
}

func tempFile(t *testing.T) *os.File {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func contents(t *testing.T, f *os.File) string {
	t.Helper()
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCockpitDeaths: a child that takes the terminal and then dies without
// saying its code (SIGKILL, Go's SIGABRT, a stack overflow, out of
// memory) has the terminal's modes put back (canonical, echo), the modes
// it set reset, one line on stderr saying how it ended, and the parent
// exits 70. One that said 2 (a usage error) has the parent exit 2 with
// nothing touched: no line, no reset, the terminal as the child left it.
func TestCockpitDeaths(t *testing.T) {
	for _, tc := range []struct {
		// says is what the child's own stderr shows of its end.
		what, how, says string
		code            int
	}{
		{"usage", "", "unknown flag", 2},
		{"kill", "signal: killed", "", ExitCrash},
		{"abort", "fatal runtime error, exit 2", "SIGABRT: abort", ExitCrash},
		{"stack", "fatal runtime error, exit 2", "fatal error: stack overflow", ExitCrash},
		{"oom", "fatal runtime error, exit 2", "out of memory", ExitCrash},
	} {
		t.Run(tc.what, func(t *testing.T) {
			p := openPTY(t)
			stderr := tempFile(t)
			code, err := run(self(t, tc.what, p.slave, p.slave, stderr))
			if err != nil {
				t.Fatal(err)
			}
			out, told := p.drain(t), contents(t, stderr)
			if !strings.Contains(out, enterCockpit) {
				t.Fatalf("the child never took the terminal: %q; stderr %s", out, told)
			}
			modes, err := unix.IoctlGetTermios(int(p.slave.Fd()), unix.TCGETS)
			if err != nil {
				t.Fatal(err)
			}
			cooked := modes.Lflag&unix.ICANON != 0 && modes.Lflag&unix.ECHO != 0
			line := "modbay: the cockpit died (" + tc.how + "); the terminal was restored\n"
			if tc.how == "" {
				if code != 2 || cooked || strings.Contains(out, resetSequences) || strings.Contains(told, "the cockpit died") {
					t.Fatalf("exit %d, cooked %v, output %q, stderr %q: want 2 and nothing touched", code, cooked, out, told)
				}
				if !strings.Contains(told, tc.says) {
					t.Fatalf("stderr %q lost the child's words", told)
				}
				return
			}
			if !strings.Contains(told, tc.says) {
				t.Errorf("the child did not end as meant: its stderr lacks %q:\n%.2000s", tc.says, told)
			}
			if code != ExitCrash {
				t.Fatalf("exit %d, want %d; stderr %s", code, ExitCrash, told)
			}
			if !cooked {
				t.Errorf("the terminal stayed raw: lflag %#x", modes.Lflag)
			}
			if !strings.HasSuffix(out, enterCockpit+resetSequences) {
				t.Errorf("the terminal was not reset after the child: %q", out)
			}
			if !strings.HasSuffix(told, line) || strings.Count(told, "the cockpit died") != 1 {
				t.Errorf("stderr does not end with %q:\n%s", line, told)
			}
		})
	}
}

// TestChildHidesThePipe: the supervised child knows it is one, and
// neither the report pipe nor its variable reach what it runs
// (close-on-exec, unset).
func TestChildHidesThePipe(t *testing.T) {
	stderr := tempFile(t)
	code, err := run(self(t, "hidden", os.Stdin, tempFile(t), stderr))
	if err != nil || code != 0 {
		t.Fatalf("exit %d (%v): %s", code, err, contents(t, stderr))
	}
}

// TestSignalsReachTheChild: the parent passes SIGTERM and SIGHUP on to
// the child, and a SIGINT sent to it alone neither ends it nor reaches
// the child (the terminal sends the child its own).
func TestSignalsReachTheChild(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 3}, {syscall.SIGHUP, 4}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			stderr := tempFile(t)
			codes := make(chan int, 1)
			go func() {
				code, err := run(self(t, "signals", os.Stdin, w, stderr))
				if err != nil {
					t.Error(err)
				}
				codes <- code
			}()
			if line, err := bufio.NewReader(r).ReadString('\n'); line != "ready\n" {
				t.Fatalf("the child said %q (%v): %s", line, err, contents(t, stderr))
			}
			w.Close()
			for _, s := range []syscall.Signal{syscall.SIGINT, syscall.SIGQUIT, tc.sig} {
				if err := syscall.Kill(os.Getpid(), s); err != nil {
					t.Fatal(err)
				}
			}
			if code := <-codes; code != tc.code {
				t.Fatalf("exit %d, want %d (the child got %v): %s", code, tc.code, tc.sig, contents(t, stderr))
			}
		})
	}
}

// TestStartFailureRunsNothing: a child that cannot start is an error the
// caller answers by opening the cockpit itself; nothing was said or reset.
func TestStartFailureRunsNothing(t *testing.T) {
	stderr := tempFile(t)
	c := self(t, "exit0", os.Stdin, tempFile(t), stderr)
	c.path = "/nonexistent/modbay"
	if _, err := run(c); err == nil {
		t.Fatal("no error for a child that cannot start")
	}
	if s := contents(t, stderr); s != "" {
		t.Fatalf("said %q", s)
	}
}

// TestAdoptOnlyAPipe: EnvFD naming a descriptor that is not a pipe (a
// stray export naming stdout) does not make the process a child.
func TestAdoptOnlyAPipe(t *testing.T) {
	was := reportFD
	t.Cleanup(func() { reportFD = was })
	f := tempFile(t)
	t.Setenv(EnvFD, strconv.Itoa(int(f.Fd())))
	reportFD = -1
	adopt()
	if Supervised() || os.Getenv(EnvFD) != "" {
		t.Fatalf("a regular file adopted as the report pipe (fd %d), or the variable kept", reportFD)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	t.Setenv(EnvFD, strconv.Itoa(int(w.Fd())))
	adopt()
	if reportFD != int(w.Fd()) {
		t.Fatalf("the pipe was not adopted: %d", reportFD)
	}
}

// BenchmarkOpen is what the supervising parent adds to starting the
// cockpit: supervised runs the test binary as a child that exits at
// once under run, direct runs the same child alone.
func BenchmarkOpen(b *testing.B) {
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devnull.Close()
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"=exit0")
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("supervised", func(b *testing.B) {
		for b.Loop() {
			c := child{path: os.Args[0], args: []string{os.Args[0], "-test.run=^$"}, env: append(os.Environ(), childEnv+"=exit0"),
				stdin: devnull, stdout: devnull, stderr: devnull}
			if code, err := run(c); err != nil || code != 0 {
				b.Fatal(code, err)
			}
		}
	})
}
