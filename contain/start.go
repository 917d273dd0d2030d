//go:build linux

package contain

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"modbay/internal/crash"
)

// Process is a started module process.
type Process struct {
	// Pid is the module's pid as the host sees it.
	Pid int
	// pidNS is true when the module is pid 1 of its own PID namespace.
	pidNS bool
	// writes meters the run's writes (nil: no write bound).
	writes *writeWatch
}

// WriteExceeded is closed when the run passed Limits.WriteBytes or
// WriteFiles while it ran (its tree is then being killed); nil, never
// ready, without a write bound.
func (p *Process) WriteExceeded() <-chan struct{} {
	if p == nil || p.writes == nil {
		return nil
	}
	return p.writes.exceeded
}

// WriteStart is what a later process of the same run counts its writes
// from (Spec.WriteFrom): this one's start, or its own WriteFrom; nil
// without a write bound.
func (p *Process) WriteStart() *WriteStart {
	if p == nil || p.writes == nil {
		return nil
	}
	return p.writes.start()
}

// WriteBound measures the run's writes a last time and returns a
// *WriteBoundError when they passed Limits.WriteBytes or WriteFiles,
// while it ran or by the time it exited; nil otherwise. Call it once the
// module has exited, before its writable paths are cleaned up.
func (p *Process) WriteBound() error {
	if p == nil || p.writes == nil {
		return nil
	}
	return p.writes.finish()
}

// Kill sends SIGKILL to the module and everything it started: in a PID
// namespace, killing its pid 1 kills every process in it (the kernel does
// it; nothing can opt out); otherwise the module's process group.
func (p *Process) Kill() error {
	if p.pidNS {
		return syscall.Kill(p.Pid, syscall.SIGKILL)
	}
	return syscall.Kill(-p.Pid, syscall.SIGKILL)
}

// PIDNamespace reports whether the module is pid 1 of its own PID
// namespace.
func (p *Process) PIDNamespace() bool { return p.pidNS }

// plan is what Start will try, decided from Support before anything runs.
type plan struct {
	flags  uintptr
	pidNS  bool
	netNS  bool
	userNS bool
	// threadNet: the spawning thread enters the network namespace itself
	// (as root, no user namespace): the shared empty one when seccomp
	// refuses every socket, else a fresh one (enterNetNS).
	threadNet bool
}

// forceUserNS makes Start use a user namespace even as root (benchmarks
// compare the cost: without CLONE_VM, Go forks instead of vforking).
var forceUserNS = false

func planFor(spec Spec, sup Support) plan {
	var p plan
	if !sup.Root || forceUserNS {
		if !sup.UserNS {
			return p
		}
		p.userNS = true
		p.flags |= syscall.CLONE_NEWUSER
	}
	if sup.PIDNS {
		p.pidNS = true
		p.flags |= syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS
	}
	if !spec.Network && sup.NetNS {
		p.netNS = true
		if p.userNS {
			p.flags |= syscall.CLONE_NEWNET
		} else {
			p.threadNet = true
		}
	}
	return p
}

// started is what the spawning thread reports once the child is stopped
// at its first instruction (or failed to start).
type started struct {
	enf Enforcement
	err error
	// mountNS is true when the child was started from the thread's own
	// read-only mount namespace (confirmed by observe).
	mountNS bool
}

// Start starts cmd (Path, Args, Env, Dir, Stdin/Stdout/Stderr set; its
// SysProcAttr is replaced) contained by spec and returns once the module
// runs, with what was enforced. In ModeRequire a gap is ErrNotContained
// and nothing ran; in ModeOff cmd starts as a plain process in its own
// process group. The caller waits with cmd.Wait as usual.
func Start(cmd *exec.Cmd, spec Spec) (*Process, Enforcement, error) {
	return StartHooked(cmd, spec, Hooks{})
}

// StartHooked is Start, calling the hooks around the fork. When it fails
// after the child existed (a gap in ModeRequire, a child that died before
// its first instruction), cmd.Process is set and the child is gone.
func StartHooked(cmd *exec.Cmd, spec Spec, hooks Hooks) (*Process, Enforcement, error) {
	if spec.Mode == ModeOff {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := hooks.start(cmd); err != nil {
			return nil, Enforcement{}, err
		}
		return &Process{Pid: cmd.Process.Pid}, off("sandbox: off"), nil
	}
	sup := Probe()
	pl := planFor(spec, sup)
	since := time.Now()
	// Descriptors the host inherited (exec 7<secret) are not close-on-exec;
	// Go's own all are. Marking every one above 2 is one syscall and
	// harmless to the host.
	descriptors := DescriptorsClosed
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		descriptors = notEnforced("close_range: " + err.Error())
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setsid:     true, // no controlling terminal: no /dev/tty, no TIOCSTI
		Pdeathsig:  syscall.SIGKILL,
		Cloneflags: pl.flags,
		Ptrace:     true, // stop at execve until checked and limited
	}
	report := make(chan started, 1)
	release := make(chan bool, 1)
	go spawn(cmd, spec, hooks, sup, pl, report, release)
	r := <-report
	if r.err != nil {
		return nil, r.enf, r.err
	}
	enf := r.enf
	enf.Descriptors = descriptors
	pid := cmd.Process.Pid
	observe(pid, pl, r.mountNS, &enf)
	cgroupDir := ""
	if spec.Limits.Processes > 0 && sup.PidsCgroup {
		dir, err := newPidsGroup(pid, spec.Limits.Processes)
		if err == nil {
			cgroupDir = dir
		} else if sup.Root {
			enf.Limits = "; pids cgroup not applied: " + err.Error()
		}
	}
	enf.Limits = applyLimits(pid, spec.Limits, sup.Root, cgroupDir != "") + enf.Limits
	var ww *writeWatch
	if l := spec.Limits; l.WriteBytes > 0 || l.WriteFiles > 0 {
		if ww = newWriteWatch(spec.writablePaths(), l.WriteBytes, l.WriteFiles, since, spec.WriteFrom, pid, !pl.pidNS); ww != nil {
			enf.Limits += ", " + writesText(l)
		} else {
			enf.Limits += "; writes per run not applied: no writable path could be measured"
		}
	}
	if cgroupDir != "" {
		go func() {
			waitExit(pid)
			removePidsGroup(cgroupDir)
		}()
	}
	enf.Gaps = gaps(enf)
	if spec.Mode == ModeRequire && !enf.Complete() {
		if ww != nil {
			ww.stopPolling()
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
		release <- false
		_ = cmd.Wait()
		return nil, enf, fmt.Errorf("%w: %s", ErrNotContained, strings.Join(enf.Gaps, "; "))
	}
	release <- true
	<-report
	if ww != nil {
		crash.Go(ww.run)
		go func() {
			waitExit(pid)
			ww.stopPolling()
		}()
	}
	return &Process{Pid: pid, pidNS: pl.pidNS, writes: ww}, enf, nil
}

// spawn runs on its own locked OS thread: it restricts the thread, starts
// cmd from it, reports, detaches the stopped child when released (and
// reports again) and stays parked until the child exits.
func spawn(cmd *exec.Cmd, spec Spec, hooks Hooks, sup Support, pl plan, report chan<- started, release <-chan bool) {
	onDisposableThread(func() { restrictAndStart(cmd, spec, hooks, sup, pl, report, release) })
}

// onDisposableThread runs f on a locked OS thread other than the main one
// and never unlocks it, so the runtime discards the thread (with whatever
// f did to it: namespaces, Landlock, seccomp) when f returns. The main
// thread, which the runtime would keep, is never the one used: landed
// there, f starts over on another thread, and this one stays locked to
// this goroutine until the new goroutine holds its own, so it cannot land
// here. Call it from a goroutine of its own.
func onDisposableThread(f func()) {
	runtime.LockOSThread()
	if unix.Gettid() == os.Getpid() {
		moved := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(moved)
			f()
		}()
		<-moved
		runtime.UnlockOSThread()
		return
	}
	f()
}

// restrictAndStart is spawn on a locked thread other than the main one.
func restrictAndStart(cmd *exec.Cmd, spec Spec, hooks Hooks, sup Support, pl plan, report chan<- started, release <-chan bool) {
	enf := Enforcement{Contained: true, Terminal: TerminalOwnSession, Processes: ProcessesGroup}
	// Mounts first: a Landlock domain forbids mount changes.
	mountErr := errors.New(sup.MountNSWhy)
	if sup.MountNS {
		entered, err := readOnlyMounts(spec.writablePaths())
		if err != nil && entered {
			// Half made, the namespace could hold an rw root read-only:
			// refuse the run rather than start it wrong.
			report <- started{enf: enf, err: fmt.Errorf("mount namespace: %w", err)}
			return
		}
		mountErr = err
	}
	nnp := setNoNewPrivs()
	capsErr := error(nil)
	if sup.Root {
		capsErr = dropCapsForExec()
	}
	enf.Capabilities = CapabilitiesDropped
	if capsErr != nil {
		enf.Capabilities = "kept (" + capsErr.Error() + ")"
	}

	var ll landlockResult
	llErr := errors.New(sup.LandlockWhy)
	switch {
	case nnp != nil:
		llErr = fmt.Errorf("no_new_privs: %w", nnp)
	case sup.LandlockABI >= MinLandlockABI:
		ll, llErr = restrictThread(sup.LandlockABI, spec.rules(), !spec.Network)
	}
	if llErr != nil {
		enf.Filesystem = notEnforced(llErr.Error())
	} else {
		enf.Filesystem = fmt.Sprintf("landlock ABI %d", ll.abi)
	}
	switch {
	case mountErr == nil:
		enf.Filesystem += FilesystemMountNS // confirmed by observe
	case sup.Root:
		// As root, Landlock alone leaves every root-owned file's mode,
		// owner and times open: a gap.
		enf.Filesystem += "; mount namespace " + notEnforced(mountErr.Error())
	}
	if llErr == nil && spec.ExecNarrow {
		enf.Filesystem += FilesystemExecNarrow
	}

	var signals []string
	if llErr == nil && ll.scoped {
		signals = append(signals, "landlock scope")
	}
	if pl.pidNS {
		signals = append(signals, "pid namespace") // confirmed by observe
	}
	enf.Signals = strings.Join(signals, " + ")

	enf.UnixSockets = UnixSocketsRefused
	switch {
	case nnp != nil:
		enf.UnixSockets = notEnforced("no_new_privs: " + nnp.Error())
	case !sup.Seccomp:
		enf.UnixSockets = notEnforced(sup.SeccompWhy)
	default:
		if err := installSeccomp(!spec.Network, spec.ExecNarrow); err != nil {
			enf.UnixSockets = notEnforced("seccomp: " + err.Error())
		}
	}
	seccompOn := enf.UnixSockets == UnixSocketsRefused
	enf.Metadata = metadataText(mountErr == nil, seccompOn, enf.UnixSockets)
	netNS := NetworkNamespace
	if pl.threadNet && enterNetNS(seccompOn) {
		netNS = NetworkNamespaceShared
	}

	switch {
	case spec.Network:
		enf.Network = NetworkGranted
	case pl.netNS && seccompOn:
		enf.Network = netNS + " + " + NetworkNoSockets // namespace confirmed by observe
	case pl.netNS:
		enf.Network = NetworkNamespace
	case seccompOn:
		enf.Network = NetworkNoSockets
	case llErr == nil && ll.tcp:
		enf.Network = NetworkLandlockTCP
	default:
		why := sup.NetNSWhy
		if why == "" {
			why = "no network namespace"
		}
		enf.Network = notEnforced(why + "; no seccomp")
	}

	if err := hooks.start(cmd); err != nil {
		report <- started{enf: enf, err: err}
		return
	}
	pid := cmd.Process.Pid
	if !waitStopped(pid) {
		report <- started{enf: enf, err: errors.New("the module died before its first instruction")}
		return
	}
	report <- started{enf: enf, mountNS: mountErr == nil}
	if <-release {
		// Until detached, any wait on the child would report its ptrace
		// stop: Start returns only after this.
		_ = syscall.PtraceDetach(pid)
		report <- started{}
	}
	waitExit(pid)
}

// waitStopped waits for pid's stop at execve (PTRACE_TRACEME), without
// consuming anything else; false when it exited instead.
func waitStopped(pid int) bool {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WSTOPPED|unix.WEXITED|unix.WNOWAIT, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && info.Code == cldTrapped
	}
}

// waitExit blocks until pid has exited (or was reaped by cmd.Wait),
// without consuming its status.
func waitExit(pid int) {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return
		}
	}
}

// observe checks in /proc what the stopped child really got and corrects
// enf: capabilities (none permitted, effective or ambient), the PID
// namespace (two pids in NSpid), the network and (with mountNS) mount
// namespaces (not the host's).
func observe(pid int, pl plan, mountNS bool, enf *Enforcement) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		enf.Capabilities = "kept (cannot check: " + err.Error() + ")"
		return
	}
	field := func(name string) string {
		for line := range bytes.SplitSeq(b, []byte{'\n'}) {
			if v, ok := bytes.CutPrefix(line, []byte(name+":")); ok {
				return strings.TrimSpace(string(v))
			}
		}
		return ""
	}
	if enf.Capabilities == CapabilitiesDropped {
		for _, f := range []string{"CapPrm", "CapEff", "CapAmb"} {
			if v := field(f); strings.Trim(v, "0") != "" {
				enf.Capabilities = fmt.Sprintf("kept (%s %s after exec)", f, v)
			}
		}
	}
	if pl.pidNS {
		if len(strings.Fields(field("NSpid"))) >= 2 {
			enf.Processes = ProcessesPIDNamespace
		} else {
			enf.Processes = ProcessesGroup
			enf.Signals = strings.TrimSuffix(strings.TrimSuffix(enf.Signals, "pid namespace"), " + ")
		}
	}
	if mountNS && !ownNamespace(pid, "mnt") {
		enf.Filesystem = strings.Replace(enf.Filesystem, FilesystemMountNS, "; mount namespace "+notEnforced("the child is in the host's"), 1)
		enf.Metadata = metadataText(false, enf.UnixSockets == UnixSocketsRefused, enf.UnixSockets)
	}
	if pl.netNS {
		if !ownNamespace(pid, "net") {
			if strings.HasSuffix(enf.Network, NetworkNoSockets) {
				enf.Network = NetworkNoSockets
			} else {
				enf.Network = notEnforced("the network namespace did not take")
			}
		}
	}
	if enf.Signals == "" {
		enf.Signals = notEnforced("no landlock scope (ABI < 6) and no pid namespace")
	}
}

// ownNamespace reports whether pid's namespace of kind ("net", "mnt") is
// not the host's (the main thread's: /proc/self is the thread group).
func ownNamespace(pid int, kind string) bool {
	self, err1 := os.Readlink("/proc/self/ns/" + kind)
	child, err2 := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/" + kind)
	return err1 == nil && err2 == nil && self != child
}

// applyLimits sets l on pid (soft = hard) and says what was applied.
func applyLimits(pid int, l Limits, root, cgroup bool) string {
	set := []struct {
		res int
		v   uint64
		ptr *uint64
	}{
		{unix.RLIMIT_NOFILE, l.OpenFiles, &l.OpenFiles},
		{unix.RLIMIT_AS, l.AddressSpace, &l.AddressSpace},
		{unix.RLIMIT_CPU, l.CPUSeconds, &l.CPUSeconds},
		{unix.RLIMIT_NPROC, l.Processes, &l.Processes},
		{unix.RLIMIT_FSIZE, l.FileSize, &l.FileSize},
	}
	var failed []string
	for _, s := range set {
		if s.v == 0 {
			continue
		}
		rl := unix.Rlimit{Cur: s.v, Max: s.v}
		if err := unix.Prlimit(pid, s.res, &rl, nil); err != nil {
			failed = append(failed, fmt.Sprintf("rlimit %d: %v", s.res, err))
			*s.ptr = 0
		}
	}
	txt := limitsText(l, root, cgroup)
	if len(failed) > 0 {
		txt += "; not applied: " + strings.Join(failed, ", ")
	}
	return txt
}

// gaps lists the layers of e that are not enforced. A network grant is not
// a gap: it is what the person approved.
func gaps(e Enforcement) []string {
	var g []string
	if e.Processes != ProcessesPIDNamespace {
		g = append(g, "processes: "+e.Processes+" (no pid namespace)")
	}
	for _, l := range e.layers() {
		name, v := l[0], l[1]
		if strings.Contains(v, "not enforced") || strings.HasPrefix(v, "kept") ||
			(name == "network" && v == NetworkLandlockTCP) || strings.Contains(v, "not applied") {
			g = append(g, name+": "+v)
		}
	}
	return g
}

// cldTrapped is si_code CLD_TRAPPED: a traced child stopped.
const cldTrapped = 4
