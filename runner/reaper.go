package runner

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"modbay/contain"
)

// The host makes itself a child subreaper (Linux PR_SET_CHILD_SUBREAPER):
// a process a module double-forks away from its tree, with a new session
// and a scrubbed environment, is then reparented to the host instead of to
// init, so the host still finds it and kills it with the run (docs/protocol.md §3:
// the whole process tree dies). Without this, such a process escapes every
// other test (process group, ppid chain, TMPDIR marker).
var (
	subreaperOnce sync.Once
	subreaperOn   bool
	hostPgrp      = syscall.Getpgrp()

	// spawnMu is held for writing around starting a module and recording
	// its pid in liveRoots, and for reading while adopted processes are
	// collected, so a module that just started is never taken for an
	// orphan.
	spawnMu sync.RWMutex
	// liveRoots holds the pids of module processes the host started and
	// has not reaped yet (pid -> struct{}).
	liveRoots sync.Map
)

// enableSubreaper turns the host into a child subreaper once; on failure
// (not Linux, or refused) orphan adoption is simply not used.
func enableSubreaper() {
	subreaperOnce.Do(func() {
		subreaperOn = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil
	})
}

// isAdoptedOrphan reports whether s is a process the kernel reparented to
// the host that the host did not start: it is the host's child, not a live
// module root, and not in the host's own process group (where, for
// instance, an editor the cockpit runs in the foreground lives). Call with
// spawnMu held for reading.
func isAdoptedOrphan(s procStat) bool {
	if !subreaperOn || s.ppid != hostPID || s.pgrp == hostPgrp {
		return false
	}
	_, root := liveRoots.Load(s.pid)
	return !root
}

// reapAdopted collects the exit status of adopted orphans that have died,
// so they do not linger as zombies of a long-running cockpit. Without the
// subreaper there are none, and /proc is not scanned.
func reapAdopted() {
	if !subreaperOn {
		return
	}
	spawnMu.RLock()
	defer spawnMu.RUnlock()
	for _, s := range listProcs() {
		if s.exited() && isAdoptedOrphan(s) {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(s.pid, &ws, syscall.WNOHANG, nil)
		}
	}
}

// hostPID is the host's own pid.
var hostPID = os.Getpid()

// readProcFile reads a small /proc file with plain system calls: os.ReadFile
// registers each file with the runtime's poller first (a fcntl pair and a
// refused epoll_ctl), which leftNoOrphans paid for every thread of the
// host after every run. Errors are the system call's (ENOENT for a thread
// gone).
func readProcFile(path string) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	b := make([]byte, 0, 512)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := unix.Read(fd, b[len(b):cap(b)])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return b, nil
		}
		b = b[:len(b)+n]
	}
}

// leftNoOrphans reports, without scanning /proc, that no module left a
// process behind: the host, as child subreaper, has no child but live
// module roots and processes of its own group. Call it once a module has
// exited: the kernel reparented its surviving descendants to the host when
// it did, so any of them shows up here (as does a zombie not yet reaped).
// Each thread's /proc/self/task/<tid>/children is read; false when the
// subreaper is off or those files cannot be read, so the caller sweeps.
func leftNoOrphans() bool {
	if !subreaperOn {
		return false
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return false
	}
	spawnMu.RLock()
	defer spawnMu.RUnlock()
	for _, t := range tasks {
		b, err := readProcFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			if os.IsNotExist(err) && !exists("/proc/self/task/"+t.Name()) {
				continue // the thread ended meanwhile; its children moved
			}
			return false
		}
		for _, f := range strings.Fields(string(b)) {
			pid, err := strconv.Atoi(f)
			if err != nil {
				return false
			}
			if _, root := liveRoots.Load(pid); root {
				continue
			}
			if s, ok := readProcStat(pid); ok && s.pgrp == hostPgrp {
				continue
			}
			return false
		}
	}
	return true
}

// StartServer starts cmd contained as contain.StartHooked does and records
// it as a live root of the host, so no run's sweep takes it for an adopted
// orphan and kills it (a stdio MCP server lives across runs). Call
// ServerExited with its pid once it has been waited for.
func StartServer(cmd *exec.Cmd, spec contain.Spec) (*contain.Process, contain.Enforcement, error) {
	enableSubreaper()
	proc, enf, err := contain.StartHooked(cmd, spec, contain.Hooks{Lock: &spawnMu, Started: func(pid int) { liveRoots.Store(pid, struct{}{}) }})
	if err != nil && cmd.Process != nil {
		liveRoots.Delete(cmd.Process.Pid)
	}
	return proc, enf, err
}

// ServerExited forgets a process StartServer started, once it was waited for.
func ServerExited(pid int) { liveRoots.Delete(pid) }
