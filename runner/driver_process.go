package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"modbay/contain"
	"modbay/modproto"
)

// ProcessDriver is the Driver of a local executable speaking
// xibodev.module/v1 over argv, a request file and stdout: one process per
// describe or invoke, run with the host's guarantees (docs/protocol.md §3) by
// execute, the one place modbay starts a module process. It has no
// session: it is ready from the start until closed.
type ProcessDriver struct {
	// Exe is the absolute path of the executable; it is the driver's Key.
	Exe string
	// Dir is the module's bundle directory; when the executable lives in
	// its own module directory (<dir>/<name>/<name>), the files beside it
	// are part of the fingerprint (docs/protocol.md §18). "" for none.
	Dir string
	// Uncached keeps describes out of the describe cache (Fingerprint
	// returns ""): the built-in examples, whose launchers live in a
	// directory private to one process, are never hashed nor cached.
	Uncached bool

	mu       sync.Mutex
	closed   bool
	describe contain.Spec // containment of describes (SetContainment)
}

var _ Containable = (*ProcessDriver)(nil)

// SetContainment implements Containable: spec contains every describe.
func (d *ProcessDriver) SetContainment(spec contain.Spec) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.describe = spec
}

var _ Driver = (*ProcessDriver)(nil)

// Key is the absolute path of the executable.
func (d *ProcessDriver) Key() string { return d.Exe }

// Fingerprint is the executable's sha256 (hashing it whole) and, for an
// executable in its own module directory, the listing of the files beside
// it (docs/protocol.md §18); "" when Uncached.
func (d *ProcessDriver) Fingerprint() (string, error) {
	fp, _, err := d.fingerprintSince(nil)
	return fp, err
}

// identityFingerprinter is a driver whose fingerprint carries the
// stat-keyed identity record of its executable, kept with its describe
// (docs/protocol.md §18).
type identityFingerprinter interface {
	// fingerprintSince is Fingerprint and the identity record to keep for
	// next time; prev, the record kept last time, is not needed, since the
	// fingerprint is the stat itself.
	fingerprintSince(prev *exeIdentity) (string, *exeIdentity, error)
}

// fingerprintSince implements identityFingerprinter: the executable's
// device, inode, size, mtime and ctime (exeIdentity.fingerprint), and for
// a home's module its directory's listing. The executable is never read:
// the stat is what already decided when its sha256 was computed again,
// and computing it on first sight cost a cold discovery a read of every
// executable (20 ms of CPU for a 20 MB one).
func (d *ProcessDriver) fingerprintSince(*exeIdentity) (string, *exeIdentity, error) {
	if d.Uncached {
		return "", nil, nil
	}
	fi, err := os.Stat(d.Exe)
	if err != nil {
		return "", nil, err
	}
	id := statIdentity(fi)
	fp := id.fingerprint()
	if listsModuleDir(d.Dir, d.Exe) {
		fp += " dir " + dirListingDigest(d.Dir, d.Exe)
	}
	return fp, &id, nil
}

// listsModuleDir reports whether a process driver's fingerprint of exe
// includes the listing of its module directory dir: exe is
// <dir>/<basename of dir>, the layout of a home's module.
func listsModuleDir(dir, exe string) bool {
	return dir != "" && filepath.Dir(exe) == dir && filepath.Base(dir) == filepath.Base(exe)
}

// Describe runs `<exe> module describe --json` within DescribeTimeout and
// DescribeMaxOutputBytes and returns its stdout; the error names what went
// wrong in the words a broken module's Reason uses.
func (d *ProcessDriver) Describe(ctx context.Context) (Description, error) {
	d.mu.Lock()
	cs := d.describe
	d.mu.Unlock()
	r := execute(ctx, execSpec{
		contain:   cs,
		exe:       d.Exe,
		args:      func(string) []string { return []string{"module", modproto.OperationDescribe, "--json"} },
		deadline:  DescribeTimeout,
		maxStdout: DescribeMaxOutputBytes,
	})
	desc := Description{Stderr: r.stderr, At: time.Now(), Enforcement: r.enforcement, ExitCode: r.exitCode}
	switch {
	case r.spawnErr != nil:
		return desc, errors.New("describe: cannot start: " + r.spawnErr.Error())
	case r.writeBound != nil:
		return desc, errors.New("describe: " + r.writeBound.Error())
	case r.overflow:
		return desc, fmt.Errorf("describe: stdout exceeded %d bytes (runner.DescribeMaxOutputBytes)", DescribeMaxOutputBytes)
	case r.timedOut:
		return desc, fmt.Errorf("describe: no answer within %s (the process tree was killed)", DescribeTimeout)
	case r.cancelled:
		return desc, errors.New("describe: cancelled")
	}
	desc.Envelope = r.stdout
	return desc, nil
}

// Invoke runs `<exe> module invoke <capability> --input <request file>`
// with the request's deadline and stdout ceiling. Events: the pid once
// started, then each stderr chunk. Frames (recordProcess): argv, env,
// working directory, the request, stdout and stderr as kept, the exit and
// the phases' ends. A process never elicits.
func (d *ProcessDriver) Invoke(ctx context.Context, call *Call) *Reply {
	req := call.Request
	args := func(rp string) []string {
		return []string{"module", modproto.OperationInvoke, req.Capability, "--input", rp}
	}
	spec := execSpec{
		exe:       d.Exe,
		args:      args,
		request:   call.Encoded,
		deadline:  time.Duration(req.DeadlineMS) * time.Millisecond,
		maxStdout: int64(req.MaxOutputBytes),
		contain:   call.Contain,
	}
	if call.Listening() {
		spec.onStart = func(pid int) { call.Emit(Event{PID: pid}) }
		spec.onStderr = func(b []byte) { call.Emit(Event{Stderr: b}) }
	}
	r := execute(ctx, spec)
	if call.Recording() {
		recordProcess(call, r, call.Encoded)
	}
	rep := &Reply{
		Envelope:        r.stdout,
		Stderr:          r.stderr,
		StderrTruncated: r.stderrTruncated,
		ExitCode:        r.exitCode,
		Signal:          r.signal,
		Started:         r.started,
		Duration:        r.duration,
		Enforcement:     r.enforcement,
		WriteStart:      r.writeStart,
	}
	fail := func(code, detail string) *Reply {
		rep.Failure = &HostError{Code: code, Detail: detail}
		return rep
	}
	switch {
	case r.spawnErr != nil:
		return fail(modproto.CodeHostSpawnFailed, "cannot start "+d.Exe+": "+r.spawnErr.Error())
	case r.writeBound != nil:
		return fail(modproto.CodeHostWriteBound, r.writeBound.Error())
	case r.overflow:
		return fail(modproto.CodeHostOutputTooLarge, fmt.Sprintf("stdout exceeded max_output_bytes (%d; set with max_output_bytes in config.yaml; large results belong in artifacts, docs/protocol.md §3); the process tree was killed", req.MaxOutputBytes))
	case r.timedOut:
		return fail(modproto.CodeHostTimeout, fmt.Sprintf("no answer within deadline_ms (%d); the process tree was killed", req.DeadlineMS))
	case r.cancelled:
		return fail(modproto.CodeCancelled, "cancelled; the process tree was killed")
	}
	return rep
}

// Status is LifecycleReady until Close, then LifecycleClosed.
func (d *ProcessDriver) Status() Lifecycle {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return Lifecycle{State: LifecycleClosed}
	}
	return Lifecycle{State: LifecycleReady}
}

// Close marks the driver closed; every process it started has already
// ended with its call (docs/protocol.md §3).
func (d *ProcessDriver) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	return nil
}

// recordProcess hands the raw exchange of one finished process to the
// call's recorder, each frame stamped with when it happened: what was sent
// (argv after the executable, the environment, the working directory, the
// request file's bytes as written) at the start, the phases' ends (spawn,
// first_byte, exit) as they passed, then what came back (stdout and
// stderr as kept) and the exit (ExitFrame as JSON) at the exit.
func recordProcess(call *Call, r *execResult, request []byte) {
	js := func(v any) []byte { b, _ := json.Marshal(v); return b }
	end := r.exited
	if end.IsZero() {
		end = r.started.Add(r.duration)
	}
	call.Record(Frame{Direction: FrameSent, Kind: FramePhase, Data: []byte(PhaseStart), At: r.started})
	if r.argv != nil {
		call.Record(Frame{Direction: FrameSent, Kind: FrameArgv, Data: js(r.argv), At: r.started})
		call.Record(Frame{Direction: FrameSent, Kind: FrameEnv, Data: js(r.env), At: r.started})
		call.Record(Frame{Direction: FrameSent, Kind: FrameDir, Data: []byte(r.dir), At: r.started})
	}
	if request != nil {
		call.Record(Frame{Direction: FrameSent, Kind: FrameRequest, Data: request, At: r.started})
	}
	for _, p := range []struct {
		name string
		at   time.Time
	}{{PhaseSpawn, r.spawned}, {PhaseFirstByte, r.firstByte}, {PhaseExit, r.exited}} {
		if !p.at.IsZero() {
			call.Record(Frame{Direction: FrameReceived, Kind: FramePhase, Data: []byte(p.name), At: p.at})
		}
	}
	call.Record(Frame{Direction: FrameReceived, Kind: FrameStdout, Data: r.stdout, At: end})
	call.Record(Frame{Direction: FrameReceived, Kind: FrameStderr, Data: []byte(r.stderr), At: end})
	x := ExitFrame{Code: r.exitCode, Signal: r.signal, TimedOut: r.timedOut, Cancelled: r.cancelled, OutputTooLarge: r.overflow}
	if r.writeBound != nil {
		x.WriteBound = r.writeBound.Error()
	}
	if r.spawnErr != nil {
		x.SpawnError = r.spawnErr.Error()
	}
	call.Record(Frame{Direction: FrameReceived, Kind: FrameExit, Data: js(x), At: end})
}

// selfDescribedDriver is a ProcessDriver whose describe is answered in
// this process (Host.DescribeExample) instead of by starting the
// executable; invokes, the fingerprint and the lifecycle are the process
// driver's.
type selfDescribedDriver struct {
	*ProcessDriver
	describe func() []byte
}

// Describe returns the envelope the describe function gives, bounded as a
// process's stdout would be; it starts no process (Enforcement is zero).
func (d *selfDescribedDriver) Describe(ctx context.Context) (Description, error) {
	desc := Description{At: time.Now()}
	if ctx.Err() != nil {
		return desc, errors.New("describe: cancelled")
	}
	out := d.describe()
	if len(out) > DescribeMaxOutputBytes {
		return desc, fmt.Errorf("describe: stdout exceeded %d bytes (runner.DescribeMaxOutputBytes)", DescribeMaxOutputBytes)
	}
	desc.Envelope = out
	return desc, nil
}
