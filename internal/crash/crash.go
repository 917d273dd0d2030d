package crash

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync/atomic"

	"modbay/internal/supervise"
)

// ExitCode is modbay's own crash (cli.ExitCrash, sysexits EX_SOFTWARE).
const ExitCode = 70

var (
	release atomic.Pointer[func()]
	// stderr and exit are where a crash is told and how it ends, saying
	// its code to a supervising parent (tests replace them).
	stderr io.Writer = os.Stderr
	exit             = supervise.Exit
)

// OnCrash sets what gives the terminal back before a crash is told (nil:
// nothing); the cockpit sets it while it owns the terminal.
func OnCrash(f func()) {
	if f == nil {
		release.Store(nil)
		return
	}
	release.Store(&f)
}

// Go runs f on a new goroutine under Guard.
func Go(f func()) {
	go func() {
		defer Guard()
		f()
	}()
}

// Guard, deferred at the top of a goroutine, turns a panic into the crash
// the package doc describes.
func Guard() {
	if r := recover(); r != nil {
		Crash(r, debug.Stack())
	}
}

// Crash gives the terminal back, tells r and stack on stderr and exits
// ExitCode.
func Crash(r any, stack []byte) {
	if f := release.Load(); f != nil {
		(*f)()
	}
	fmt.Fprintf(stderr, "modbay: internal error: %s\n%s", printable(fmt.Sprint(r)), stack)
	exit(ExitCode)
}

// printable drops control characters but newline and tab: a panic value
// can quote a module's bytes.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, s)
}
