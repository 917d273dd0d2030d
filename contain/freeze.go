//go:build linux

package contain

import (
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// A confirming walk is not atomic: a run could close the unlinked files
// it holds just before they are read and write as much where the walk has
// passed. So the run is stopped for the measurement (SIGSTOP through a
// pidfd of each of its processes, found until no new one appears, each
// checked to be the process found, not a reused pid) and continued after;
// only a measurement of a run seen stopped whole may credit growth to
// another writer.

const (
	// freezeRounds bounds the enumerations looking for processes started
	// while the others were being stopped.
	freezeRounds = 8
	// freezeWait bounds the wait for every thread to reach its stop (one
	// in a system call stops when it returns).
	freezeWait = 500 * time.Millisecond
)

// frozen is the processes one freeze stopped, to continue.
type frozen struct{ fds []int }

// freeze stops the run of the module pid (group: no PID namespace); whole
// is true when every process of it was seen stopped. thaw must follow
// either way.
func freeze(pid int, group bool) (f frozen, whole bool) {
	seen := map[int]bool{}
	var stopped []int
	stable := false
	for range freezeRounds {
		procs, ok := runProcStarts(pid, group)
		if !ok {
			return f, false
		}
		fresh := false
		for _, p := range procs {
			if seen[p.pid] {
				continue
			}
			seen[p.pid], fresh = true, true
			state, _, _, _, ok := procStat(p.pid)
			if !ok || state == 'Z' || state == 'X' {
				continue
			}
			fd, err := unix.PidfdOpen(p.pid, 0)
			if err != nil {
				continue // gone
			}
			// The pidfd names one process for good: check it is the one
			// listed, not a new process that reused the pid.
			if _, _, _, start, ok := procStat(p.pid); !ok || start != p.start {
				unix.Close(fd)
				continue
			}
			if state == 'T' || state == 't' {
				// Stopped by the run itself: left as it is.
				unix.Close(fd)
				continue
			}
			if unix.PidfdSendSignal(fd, unix.SIGSTOP, nil, 0) != nil {
				unix.Close(fd)
				continue
			}
			f.fds = append(f.fds, fd)
			stopped = append(stopped, p.pid)
		}
		if !fresh {
			stable = true
			break
		}
	}
	if !stable {
		return f, false
	}
	deadline := time.Now().Add(freezeWait)
	for _, p := range stopped {
		for !allStopped(p) {
			if time.Now().After(deadline) {
				return f, false
			}
			time.Sleep(time.Millisecond)
		}
	}
	return f, true
}

// allStopped is true when every thread of pid is stopped or gone.
func allStopped(pid int) bool {
	base := "/proc/" + strconv.Itoa(pid) + "/task/"
	tasks, err := readNames(base)
	if err != nil {
		return true // gone
	}
	for _, t := range tasks {
		b, err := os.ReadFile(base + t + "/stat")
		if err != nil {
			continue
		}
		st := statState(b)
		if st != 'T' && st != 't' && st != 'Z' && st != 'X' && st != 0 {
			return false
		}
	}
	return true
}

// statState is the state letter of a /proc stat line (0: unreadable).
func statState(b []byte) byte {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == ')' {
			if i+2 < len(b) {
				return b[i+2]
			}
			return 0
		}
	}
	return 0
}

// thaw continues what freeze stopped, children before their parents (a
// parent continued first could see its child stopped: a shell reports it).
func (f frozen) thaw() {
	for i := len(f.fds) - 1; i >= 0; i-- {
		_ = unix.PidfdSendSignal(f.fds[i], unix.SIGCONT, nil, 0)
		unix.Close(f.fds[i])
	}
}
