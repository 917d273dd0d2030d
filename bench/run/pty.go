package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/sys/unix"
)

// ptyProc is a program running on the slave side of a pseudo-terminal of
// a fixed size, with everything it writes captured from the master side
// (what a terminal emulator, or an SSH link, would carry).
type ptyProc struct {
	cmd    *exec.Cmd
	master *os.File
	start  time.Time

	mu    sync.Mutex
	out   []byte
	first time.Time // the first chunk
	last  time.Time // the latest chunk
	// chunks are when each chunk arrived and the output's length after it.
	chunks  []chunkAt
	changed chan struct{}
	done    chan struct{}
}

// chunkAt is one read from the terminal: when, and len(out) after it.
type chunkAt struct {
	at  time.Time
	end int
}

// firstAfter is when the first byte past the first n arrived (zero when
// none has).
func (p *ptyProc) firstAfter(n int) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.chunks {
		if c.end > n {
			return c.at
		}
	}
	return time.Time{}
}

// startPTY starts name with args and env on a new cols×rows
// pseudo-terminal (its controlling terminal, in a session of its own).
func startPTY(name string, args, env []string, dir string, cols, rows int) (*ptyProc, error) {
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	var n int
	var ioErr error
	ctl := func(fd uintptr) {
		if ioErr = unix.IoctlSetPointerInt(int(fd), unix.TIOCSPTLCK, 0); ioErr != nil {
			return
		}
		if n, ioErr = unix.IoctlGetInt(int(fd), unix.TIOCGPTN); ioErr != nil {
			return
		}
		ioErr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Row: uint16(rows), Col: uint16(cols)})
	}
	// Control, not Fd: Fd would put the master in blocking mode.
	if rc, err := master.SyscallConn(); err != nil {
		master.Close()
		return nil, err
	} else if err := rc.Control(ctl); err != nil || ioErr != nil {
		master.Close()
		return nil, fmt.Errorf("pty: %v %v", err, ioErr)
	}
	slave, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, err
	}
	defer slave.Close()
	cmd := exec.Command(name, args...)
	cmd.Env, cmd.Dir = env, dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	p := &ptyProc{cmd: cmd, master: master, changed: make(chan struct{}, 1), done: make(chan struct{})}
	p.start = time.Now()
	if err := cmd.Start(); err != nil {
		master.Close()
		return nil, err
	}
	go p.read()
	return p, nil
}

// read captures the master side and answers the queries a terminal
// answers (background color, primary device attributes), so the program
// sees a terminal and not a silent line.
func (p *ptyProc) read() {
	defer close(p.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := p.master.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			if bytes.Contains(chunk, []byte("\x1b]11;?")) {
				p.master.Write([]byte("\x1b]11;rgb:0000/0000/0000\x1b\\"))
			}
			if bytes.Contains(chunk, []byte("\x1b[c")) || bytes.Contains(chunk, []byte("\x1b[0c")) {
				p.master.Write([]byte("\x1b[?62;22c"))
			}
			p.mu.Lock()
			p.out = append(p.out, chunk...)
			p.last = time.Now()
			p.chunks = append(p.chunks, chunkAt{p.last, len(p.out)})
			if p.first.IsZero() {
				p.first = p.last
			}
			p.mu.Unlock()
			select {
			case p.changed <- struct{}{}:
			default:
			}
		}
		if err != nil {
			return
		}
	}
}

// waitText waits until the output, stripped of escape sequences, contains
// text, and returns the time from the start of the program until the
// chunk that completed it arrived.
func (p *ptyProc) waitText(text string, timeout time.Duration) (time.Duration, error) {
	deadline := time.After(timeout)
	for {
		p.mu.Lock()
		found, at := bytes.Contains([]byte(ansi.Strip(string(p.out))), []byte(text)), p.last
		p.mu.Unlock()
		if found {
			return at.Sub(p.start), nil
		}
		select {
		case <-p.changed:
		case <-p.done:
			p.mu.Lock()
			found := bytes.Contains([]byte(ansi.Strip(string(p.out))), []byte(text))
			p.mu.Unlock()
			if found {
				return p.last.Sub(p.start), nil
			}
			return 0, fmt.Errorf("%s ended before showing %q", p.cmd.Path, text)
		case <-deadline:
			return 0, fmt.Errorf("%s did not show %q within %s", p.cmd.Path, text, timeout)
		}
	}
}

// firstOutput is the time from the start until the first byte arrived.
func (p *ptyProc) firstOutput() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.first.IsZero() {
		return 0
	}
	return p.first.Sub(p.start)
}

// waitIdle waits until nothing arrived for quiet (at most max).
func (p *ptyProc) waitIdle(quiet, max time.Duration) {
	end := time.Now().Add(max)
	for time.Now().Before(end) {
		p.mu.Lock()
		last := p.last
		p.mu.Unlock()
		if time.Since(last) >= quiet {
			return
		}
		time.Sleep(quiet / 4)
	}
}

// waitOutput waits until more than n bytes have arrived (at most max),
// then until nothing more arrives for quiet (at most max again): the
// whole answer to one keystroke.
func (p *ptyProc) waitOutput(n int, quiet, max time.Duration) {
	end := time.Now().Add(max)
	for p.total() <= n && time.Now().Before(end) {
		select {
		case <-p.changed:
		case <-p.done:
			return
		case <-time.After(time.Until(end)):
		}
	}
	p.waitIdle(quiet, max)
}

// total is how many bytes the program has written so far.
func (p *ptyProc) total() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.out)
}

// send types s on the terminal.
func (p *ptyProc) send(s string) { p.master.Write([]byte(s)) }

// stop asks the program to quit with quit (if any), then ends its session
// with SIGKILL if it has not exited within a second, and releases the
// terminal.
func (p *ptyProc) stop(quit string) {
	exited := make(chan struct{})
	go func() { p.cmd.Wait(); close(exited) }()
	if quit != "" {
		p.send(quit)
	}
	select {
	case <-exited:
	case <-time.After(time.Second):
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}
	p.master.Close()
}
