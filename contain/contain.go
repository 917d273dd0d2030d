package contain

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// Mode says how much containment a run demands (config `sandbox:`).
type Mode string

// Modes.
const (
	// ModeAuto contains every run as far as the machine allows and records
	// what was not enforced. The zero Mode means ModeAuto.
	ModeAuto Mode = "auto"
	// ModeRequire refuses to start a module that cannot be fully
	// contained (ErrNotContained); nothing runs.
	ModeRequire Mode = "require"
	// ModeOff starts the module as a plain process in its own process
	// group, as before containment; for comparing, never a default.
	ModeOff Mode = "off"
)

// ParseMode returns the Mode for a config value ("" is ModeAuto).
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", ModeAuto:
		return ModeAuto, nil
	case ModeRequire, ModeOff:
		return Mode(s), nil
	}
	return "", fmt.Errorf("sandbox: %q is not one of auto, require, off", s)
}

// ErrNotContained is returned (wrapped, with the gaps) by Start in
// ModeRequire when some layer cannot be enforced; the module was not run.
var ErrNotContained = errors.New("sandbox: require: the module cannot be fully contained")

// Limits are resource limits set on the module before it runs (setrlimit
// semantics: soft and hard both set). Zero leaves a limit as inherited.
type Limits struct {
	// OpenFiles is RLIMIT_NOFILE, in descriptors.
	OpenFiles uint64 `json:"open_files,omitempty"`
	// AddressSpace is RLIMIT_AS, in bytes.
	AddressSpace uint64 `json:"address_space,omitempty"`
	// CPUSeconds is RLIMIT_CPU, in seconds of CPU time (SIGXCPU, then
	// SIGKILL at the hard limit).
	CPUSeconds uint64 `json:"cpu_seconds,omitempty"`
	// Processes bounds the processes (threads included) the module and
	// everything it starts may hold at once: a pids cgroup of the run's
	// own where one can be made (it binds root), else RLIMIT_NPROC,
	// counted per user by the kernel, which does not bind root (reported
	// so).
	Processes uint64 `json:"processes,omitempty"`
	// FileSize is RLIMIT_FSIZE, in bytes: no file the module or anything
	// it starts writes grows past it (the write fails with EFBIG after
	// SIGXFSZ, which kills a process that does not catch it).
	FileSize uint64 `json:"file_size,omitempty"`
	// WriteBytes and WriteFiles bound what one run adds to its rw roots
	// and run directory, in allocated bytes and in files (inodes), all
	// files together: the host polls (writes.go) and kills the tree past
	// them (Process.WriteBound says so).
	WriteBytes uint64 `json:"write_bytes,omitempty"`
	WriteFiles uint64 `json:"write_files,omitempty"`
}

// DefaultLimits are the limits when config sets none: descriptors and
// writes (1 GiB a file; 4 GiB and 100 000 files a run, the staging
// budget's bytes). The deadline bounds time; address space and processes
// are left to config because a right value depends on the module (a JIT
// reserves gigabytes of address space it never touches) and RLIMIT_NPROC
// counts every process of the user, not the module's.
var DefaultLimits = Limits{OpenFiles: 1024, FileSize: 1 << 30, WriteBytes: 4 << 30, WriteFiles: 100_000}

// Spec is what one module process may touch. Paths are absolute; a path
// that does not exist is left out of the rules (and so stays denied).
type Spec struct {
	// Module is the executable; ModuleDir its bundle directory, a folder
	// of its own. Both are readable and executable. A loose executable
	// (in a folder it shares) has no ModuleDir: it gets the file itself,
	// never its neighbours (docs/protocol.md §13).
	Module, ModuleDir string
	// ReadRoots are readable (the request's ro roots).
	ReadRoots []string
	// WriteRoots are readable and writable, never executable (the
	// request's rw roots).
	WriteRoots []string
	// RunDir is the per-run directory holding the module's cwd, TMPDIR and
	// request file: readable and writable.
	RunDir string
	// Network is true when the call was granted the network: no network
	// namespace, TCP not denied, and /etc/resolv.conf, /etc/hosts and
	// /etc/ssl readable.
	Network bool
	// Binaries are the resolved absolute paths of the declared
	// subprocesses: readable and executable.
	Binaries []string
	// ExecNarrow limits execution (Landlock EXECUTE) to Module, ModuleDir,
	// Binaries, and what executing them needs: their interpreter chains
	// (shebangs followed, `#!/usr/bin/env NAME` resolved) and the dynamic
	// loaders their ELF files name. The system trees stay readable but no
	// other program in them can be started. The runner sets it for an
	// invoke granted no subprocess (permissions.subprocess binding);
	// unset, the system trees stay executable.
	ExecNarrow bool
	// Limits are set before the module's first instruction.
	Limits Limits
	// WriteFrom, when set, counts the write bound (Limits.WriteBytes,
	// WriteFiles) from an earlier process of the same run (a job's first
	// call, Process.WriteStart) instead of this one's start: a job's polls
	// share one budget.
	WriteFrom *WriteStart
	// Mode is ModeAuto when empty.
	Mode Mode
}

// Hooks are the caller's, around the moment a module process comes to
// exist (StartHooked).
type Hooks struct {
	// Lock, when set, is held from just before the fork until Started
	// has returned, and no longer: a caller that tells the children it
	// started from others (orphans adopted as subreaper) holds it while
	// it looks, and so never sees a child started but not yet recorded,
	// while the set-up before the fork and the checks after it run
	// concurrently with other starts.
	Lock sync.Locker
	// Started, when set, is told the child's pid as soon as it exists
	// (stopped before its first instruction, when contained).
	Started func(pid int)
}

// start starts cmd within the hooks.
func (h Hooks) start(cmd *exec.Cmd) error {
	if h.Lock != nil {
		h.Lock.Lock()
		defer h.Lock.Unlock()
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	if h.Started != nil {
		h.Started(cmd.Process.Pid)
	}
	return nil
}

// limitsText is the Limits as applied, for Enforcement.Limits.
func limitsText(l Limits, root, cgroup bool) string {
	var parts []string
	if l.OpenFiles > 0 {
		parts = append(parts, fmt.Sprintf("open files %d", l.OpenFiles))
	}
	if l.AddressSpace > 0 {
		parts = append(parts, fmt.Sprintf("address space %d MiB", l.AddressSpace>>20))
	}
	if l.CPUSeconds > 0 {
		parts = append(parts, fmt.Sprintf("cpu %d s", l.CPUSeconds))
	}
	if l.Processes > 0 {
		p := fmt.Sprintf("processes %d", l.Processes)
		switch {
		case cgroup:
			p += " (pids cgroup)"
		case root:
			p += " (does not bind root)"
		}
		parts = append(parts, p)
	}
	if l.FileSize > 0 {
		parts = append(parts, "file size "+mib(int64(min(l.FileSize, 1<<62))))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// writesText is the write bound of l as applied.
func writesText(l Limits) string {
	var parts []string
	if l.WriteBytes > 0 {
		parts = append(parts, mib(int64(min(l.WriteBytes, 1<<62))))
	}
	if l.WriteFiles > 0 {
		parts = append(parts, fmt.Sprintf("%d files", l.WriteFiles))
	}
	return "writes " + strings.Join(parts, " and ") + " per run (rw roots and run directory, polled)"
}

// isRoot reports whether the host runs as root (effective uid 0).
func isRoot() bool { return os.Geteuid() == 0 }
