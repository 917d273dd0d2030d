//go:build linux

package contain

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Support is what this machine offers containment, found once per process
// by Probe. Each Why explains an unavailable mechanism in one line.
type Support struct {
	// Root is true when the host runs as root: capabilities must be
	// dropped, and namespaces need no user namespace.
	Root bool `json:"root"`
	// LandlockABI is the kernel's Landlock ABI (0: none, LandlockWhy).
	LandlockABI int    `json:"landlock_abi"`
	LandlockWhy string `json:"landlock_why,omitempty"`
	// UserNS, PIDNS, NetNS: whether a child can be cloned into a new
	// user, PID (with IPC and UTS), network namespace from here.
	UserNS    bool   `json:"user_ns"`
	UserNSWhy string `json:"user_ns_why,omitempty"`
	PIDNS     bool   `json:"pid_ns"`
	PIDNSWhy  string `json:"pid_ns_why,omitempty"`
	NetNS     bool   `json:"net_ns"`
	NetNSWhy  string `json:"net_ns_why,omitempty"`
	// MountNS is whether the spawning thread can make a run's read-only
	// mount namespace (root only: see readOnlyMounts).
	MountNS    bool   `json:"mount_ns"`
	MountNSWhy string `json:"mount_ns_why,omitempty"`
	// PidsCgroup is whether a run's own pids cgroup can be made (the
	// processes limit binds root only through it).
	PidsCgroup    bool   `json:"pids_cgroup"`
	PidsCgroupWhy string `json:"pids_cgroup_why,omitempty"`
	// Seccomp is whether a seccomp filter can be installed.
	Seccomp    bool   `json:"seccomp"`
	SeccompWhy string `json:"seccomp_why,omitempty"`
}

// probeExe is the program namespace probes clone into: tiny, everywhere.
var probeExe = []string{"/usr/bin/true", "/bin/true"}

var (
	probeOnce sync.Once
	probed    Support
)

// Probe reports what this machine supports for containment and why
// something is missing (for `modbay doctor`). The first call clones a few
// short-lived /bin/true children into new namespaces (about a millisecond
// each), unless UseProbeCache holds this boot's answer; later calls
// return the same answer.
func Probe() Support {
	probeOnce.Do(func() { probed = probeWithCache() })
	return probed
}

func probe() Support {
	s := Support{Root: isRoot()}
	abi, err := landlockABI()
	s.LandlockABI = abi
	if err != nil {
		s.LandlockWhy = err.Error()
	}
	if _, ok := seccompProgram(false, false); !ok {
		s.SeccompWhy = "no filter for this architecture"
	} else if _, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err != nil {
		s.SeccompWhy = "kernel without seccomp: " + err.Error()
	} else {
		s.Seccomp = true
	}
	if err := probePidsCgroup(); err != nil {
		s.PidsCgroupWhy = err.Error()
	} else {
		s.PidsCgroup = true
	}
	if err := probeMountNS(); err != nil {
		s.MountNSWhy = err.Error()
	} else {
		s.MountNS = true
	}
	// Without root, every other namespace needs a user namespace made in
	// the same clone.
	var base uintptr
	if err := tryClone(syscall.CLONE_NEWUSER); err != nil {
		s.UserNSWhy = err.Error()
	} else {
		s.UserNS = true
	}
	if !s.Root {
		if !s.UserNS {
			s.PIDNSWhy = "needs a user namespace when not root"
			s.NetNSWhy = s.PIDNSWhy
			return s
		}
		base = syscall.CLONE_NEWUSER
	}
	if err := tryClone(base | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS); err != nil {
		s.PIDNSWhy = err.Error()
	} else {
		s.PIDNS = true
	}
	if err := tryClone(base | syscall.CLONE_NEWNET); err != nil {
		s.NetNSWhy = err.Error()
	} else {
		s.NetNS = true
	}
	return s
}

// tryClone starts /bin/true in new namespaces of flags and waits for it.
func tryClone(flags uintptr) error {
	exe := ""
	for _, p := range probeExe {
		if _, err := os.Stat(p); err == nil {
			exe = p
			break
		}
	}
	if exe == "" {
		return fmt.Errorf("cannot probe: none of %s exists", strings.Join(probeExe, ", "))
	}
	pid, err := syscall.ForkExec(exe, []string{exe}, &syscall.ProcAttr{Sys: &syscall.SysProcAttr{Cloneflags: flags}})
	if err != nil {
		return fmt.Errorf("clone refused: %w", err)
	}
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			break
		}
	}
	return nil
}

// Lines is the support as one line per mechanism, for `modbay doctor`.
func (s Support) Lines() []string {
	yes := func(ok bool, what, why string) string {
		if ok {
			return what + ": available"
		}
		return what + ": not available (" + why + ")"
	}
	ll := "landlock: not available (" + s.LandlockWhy + ")"
	if s.LandlockABI > 0 {
		ll = fmt.Sprintf("landlock: ABI %d", s.LandlockABI)
		switch {
		case s.LandlockABI < 4:
			ll += " (no TCP rules, no signal scoping)"
		case s.LandlockABI < 6:
			ll += " (no signal or abstract-socket scoping)"
		}
	}
	who := "host user: not root (capabilities: none to drop)"
	if s.Root {
		who = "host user: root (capabilities are dropped for every module)"
	}
	return []string{
		who,
		ll,
		yes(s.UserNS, "user namespace", s.UserNSWhy),
		yes(s.PIDNS, "pid namespace", s.PIDNSWhy),
		yes(s.NetNS, "network namespace", s.NetNSWhy),
		yes(s.MountNS, "mount namespace (read-only outside a run's rw roots)", s.MountNSWhy),
		yes(s.Seccomp, "seccomp", s.SeccompWhy),
		pidsLine(s),
	}
}

// pidsLine is the doctor line for the processes limit.
func pidsLine(s Support) string {
	if s.PidsCgroup {
		return "pids cgroup: available (limits.processes binds every run, root included)"
	}
	if s.Root {
		return "pids cgroup: not available (" + s.PidsCgroupWhy + "): limits.processes does not bind root"
	}
	return "pids cgroup: not available (" + s.PidsCgroupWhy + "): limits.processes is RLIMIT_NPROC, counted over all of this user's processes"
}
