package cli

import (
	"io"
	"os"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"

	"modbay/internal/supervise"
)

// ioStreams is where a command reads and writes and what it knows of the
// terminal around it (after cli/cli pkg/iostreams). Every command takes its
// streams from here, never from os directly, so tests can stand in a
// terminal, an environment or a pipe.
type ioStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// IsTerminal reports whether a stream (In, Out or ErrOut) is a
	// terminal.
	IsTerminal func(stream any) bool
	// CanOpenTTY reports whether the process has a controlling terminal
	// to read keys from (/dev/tty), which the cockpit uses when standard
	// input is not a terminal.
	CanOpenTTY func() bool
	// Getenv reads one environment variable; Environ lists them all
	// ("KEY=value"), for color profile detection.
	Getenv  func(string) string
	Environ func() []string
	// Supervise opens the cockpit in a supervised child and returns the
	// code to exit with; ran is false when it did not (nil, a test's
	// streams, this process a child already, no child started), and the
	// cockpit opens in this process.
	Supervise func() (code int, ran bool)
}

// systemStreams are the streams of the running process: standard input,
// stdout and stderr as given, and the real terminal and environment.
func systemStreams(stdout, stderr io.Writer) *ioStreams {
	s := &ioStreams{
		In: os.Stdin, Out: stdout, ErrOut: stderr,
		IsTerminal: isTerminal,
		CanOpenTTY: canOpenTTY,
		Getenv:     os.Getenv,
		Environ:    os.Environ,
	}
	if stdout == io.Writer(os.Stdout) && stderr == io.Writer(os.Stderr) {
		s.Supervise = superviseCockpit
	}
	return s
}

// superviseCockpit opens the cockpit in a child of this process that
// says its exit code, when standard input and output are terminals and
// this process is not that child already: a cockpit that dies any way
// then leaves the terminal restored and the parent exits ExitCrash
// (internal/supervise, docs/protocol.md §15). The child is this binary
// with the same arguments (os.Args). ran is false when no child started
// (no executable to re-execute, exec failed).
func superviseCockpit() (code int, ran bool) {
	if supervise.Supervised() || !isTerminal(os.Stdin) || !isTerminal(os.Stdout) {
		return 0, false
	}
	code, err := supervise.Run(os.Args[1:])
	return code, err == nil
}

// superviseTerminal hands the terminal to a supervised child when it can
// (Supervise): ran is true when the child ran, this process having only
// waited, and err then carries the child's exit code (nil for ExitOK).
func (s *ioStreams) superviseTerminal() (ran bool, err error) {
	if s.Supervise == nil {
		return false, nil
	}
	code, ran := s.Supervise()
	if !ran || code == ExitOK {
		return ran, nil
	}
	return true, silentExit(code)
}

// isTerminal reports whether stream is an *os.File open on a terminal.
func isTerminal(stream any) bool {
	f, ok := stream.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// canOpenTTY reports whether /dev/tty (the controlling terminal) opens.
// Over `ssh host modbay` (no pty) there is none.
func canOpenTTY() bool {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// noColor reports whether colors are off: --no-color or NO_COLOR set to
// anything (https://no-color.org).
func (s *ioStreams) noColor(flag bool) bool { return flag || s.Getenv("NO_COLOR") != "" }

// cockpitColors are the cockpit's colour profile, read from the
// environment as modbay render reads it (terminalProfile), and whether it
// draws without colour: --no-color, NO_COLOR, or a terminal with none
// (vt100), where bold and reverse remain.
func (s *ioStreams) cockpitColors(flag bool) (colorprofile.Profile, bool) {
	p := terminalProfile(s.Environ())
	if s.noColor(flag) {
		p = min(p, colorprofile.ASCII)
	}
	return p, p <= colorprofile.ASCII
}
