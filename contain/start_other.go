//go:build !linux

package contain

import (
	"fmt"
	"os/exec"
	"runtime"
	"syscall"
)

// Process is a started module process.
type Process struct {
	// Pid is the module's pid.
	Pid int
}

// Kill sends SIGKILL to the module's process group.
func (p *Process) Kill() error { return syscall.Kill(-p.Pid, syscall.SIGKILL) }

// PIDNamespace is always false off Linux.
func (p *Process) PIDNamespace() bool { return false }

// Support is what this machine offers containment: nothing off Linux.
type Support struct {
	Root bool `json:"root"`
}

// Probe reports that containment is Linux-only.
func Probe() Support { return Support{Root: isRoot()} }

// UseProbeCache does nothing off Linux: there is nothing to probe.
func UseProbeCache(path, config string) {}

// Lines is the support for `modbay doctor`.
func (s Support) Lines() []string {
	return []string{"containment: not available on " + runtime.GOOS + " (Linux only)"}
}

// Start starts cmd in its own process group; nothing else is enforced off
// Linux, and ModeRequire refuses.
func Start(cmd *exec.Cmd, spec Spec) (*Process, Enforcement, error) {
	return StartHooked(cmd, spec, Hooks{})
}

// StartHooked is Start, calling the hooks around the fork.
func StartHooked(cmd *exec.Cmd, spec Spec, hooks Hooks) (*Process, Enforcement, error) {
	enf := off("not Linux")
	if spec.Mode == ModeRequire {
		return nil, enf, fmt.Errorf("%w: not Linux", ErrNotContained)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := hooks.start(cmd); err != nil {
		return nil, enf, err
	}
	enf.Contained = false
	return &Process{Pid: cmd.Process.Pid}, enf, nil
}

// WriteExceeded is nil off Linux: no write bound is watched.
func (p *Process) WriteExceeded() <-chan struct{} { return nil }

// WriteBound is nil off Linux: no write bound is watched.
func (p *Process) WriteBound() error { return nil }

// WriteStart is a run's write count's start; none on this system.
type WriteStart struct{}

// WriteStart is nil: nothing is counted on this system.
func (p *Process) WriteStart() *WriteStart { return nil }
