package supervise

import (
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// EnvFD names the environment variable that marks the supervised cockpit:
// its value is the descriptor of the pipe the child says its exit code on.
// The child removes it from its environment at start, so the modules and
// commands it runs never see it.
const EnvFD = "MODBAY_SUPERVISOR_FD"

// childFD is the report pipe's descriptor in the child (os/exec's
// ExtraFiles[0]).
const childFD = 3

var (
	// reportFD is the report pipe's write end in a supervised child, -1
	// elsewhere.
	reportFD = -1
	// exitMu is held by the first Exit for good: a second caller waits
	// for the process to end, so the code said is the code exited with.
	exitMu sync.Mutex
)

func init() { adopt() }

// adopt takes the report pipe EnvFD names, when it is one: the variable is
// removed and the descriptor made close-on-exec, before anything of
// modbay's runs, so no module inherits either (a module that kept the
// pipe open could hold the parent's read). A value that names no pipe (a
// person's stray export) is dropped and the process is not supervised.
func adopt() {
	v, ok := os.LookupEnv(EnvFD)
	if !ok {
		return
	}
	_ = os.Unsetenv(EnvFD)
	fd, err := strconv.Atoi(v)
	if err != nil || fd < childFD {
		return
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return
	}
	unix.CloseOnExec(fd)
	reportFD = fd
}

// Supervised reports whether this process is the cockpit's child under a
// supervising parent (Run), which must not supervise again.
func Supervised() bool { return reportFD >= 0 }

// Exit ends the process with code, saying it first to the supervising
// parent when there is one: every exit of modbay goes through it (main,
// and internal/crash's 70). Concurrent calls end with the first one's
// code.
func Exit(code int) {
	exitMu.Lock() // never unlocked: the process ends below
	if reportFD >= 0 {
		// One write of a few bytes on a pipe is atomic; a parent gone
		// away (EPIPE) changes nothing here.
		_, _ = unix.Write(reportFD, []byte(strconv.Itoa(code)+"\n"))
	}
	os.Exit(code)
}
