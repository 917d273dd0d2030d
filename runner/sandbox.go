package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"modbay/contain"
)

// execSpec is one module process to run with the host's guarantees
// (docs/protocol.md §3): scratch cwd, TMPDIR-only environment, process group,
// deadline, stdout ceiling, capped stderr, whole-tree kill.
type execSpec struct {
	exe string
	// args builds argv after the executable; requestPath is the absolute
	// request file ("" when request is nil).
	args func(requestPath string) []string
	// request, when non-nil, is written to a 0600 file in the per-run
	// directory and removed with it.
	request   []byte
	deadline  time.Duration
	maxStdout int64
	onStart   func(pid int)
	onStderr  func(chunk []byte)
	// contain is what the module may touch; execute fills in exe and the
	// per-run directory.
	contain contain.Spec
}

// execResult is what happened to the process; interpreting stdout is the
// caller's business.
type execResult struct {
	stdout          []byte
	overflow        bool
	stderr          string
	stderrTruncated bool
	exitCode        int
	spawnErr        error
	timedOut        bool
	cancelled       bool
	started         time.Time
	duration        time.Duration
	// enforcement is what containment applied, layer by layer.
	enforcement contain.Enforcement
	// argv (after the executable), env and dir are what the process was
	// started with; spawned, firstByte and exited when it started, wrote
	// its first stdout byte and exited (zero when it did not); signal
	// names the signal that ended it ("" for an exit).
	argv                       []string
	env                        []string
	dir                        string
	spawned, firstByte, exited time.Time
	signal                     string
	// writeBound is the write bound the run passed (a
	// *contain.WriteBoundError, or the file size by SIGXFSZ), nil when none.
	writeBound error
	// writeStart is what a later process of the same run counts its
	// writes from (contain.Spec.WriteFrom); nil without a write bound.
	writeStart *contain.WriteStart
}

// execute runs spec and returns once the module and every process it left
// behind are gone and the per-run directory is removed.
func execute(ctx context.Context, spec execSpec) *execResult {
	res := &execResult{exitCode: -1, started: time.Now()}
	defer func() { res.duration = time.Since(res.started) }()
	if ctx.Err() != nil {
		res.cancelled = true
		return res
	}
	runDir, err := runDirs.take()
	if err != nil {
		res.spawnErr = fmt.Errorf("create the per-run directory: %w", err)
		return res
	}
	// Taken back in the background once the run and every process it
	// left are gone (runDirs.release): reused only after a run in a PID
	// namespace, whose every process the kernel has killed by then, so
	// none can still write into the next run's directory.
	reuse := false
	defer func() { runDirs.release(runDir, reuse) }()
	tmp, work := filepath.Join(runDir, "tmp"), filepath.Join(runDir, "work")
	reqPath := ""
	if spec.request != nil {
		reqPath = filepath.Join(runDir, "request.json")
		if err := writeRequestFile(reqPath, spec.request); err != nil {
			res.spawnErr = fmt.Errorf("write the request file: %w", err)
			return res
		}
	}

	stdout := &capWriter{limit: spec.maxStdout, overCh: make(chan struct{})}
	stderr := &stderrWriter{onChunk: spec.onStderr}
	res.argv = spec.args(reqPath)
	cmd := exec.Command(spec.exe, res.argv...)
	cmd.Dir = work
	// Only TMPDIR: no PATH, no HOME, nothing inherited (docs/protocol.md §3).
	cmd.Env = []string{"TMPDIR=" + tmp}
	res.env, res.dir = cmd.Env, work
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	cmd.WaitDelay = PipeDrainGrace
	enableSubreaper()
	cs := spec.contain
	cs.Module, cs.RunDir = spec.exe, runDir
	// contain.StartHooked sets SysProcAttr: its own session (so pgid ==
	// pid for the tree kill), or Setpgid when the sandbox is off. spawnMu
	// is held only across the fork and the pid's record, so the
	// containment set-up and checks of concurrent runs overlap.
	proc, enf, err := contain.StartHooked(cmd, cs, contain.Hooks{Lock: &spawnMu, Started: func(pid int) { liveRoots.Store(pid, struct{}{}) }})
	res.enforcement = enf
	if err != nil {
		if cmd.Process != nil {
			liveRoots.Delete(cmd.Process.Pid)
		}
		res.spawnErr = err
		return res
	}
	res.spawned = time.Now()
	pid := cmd.Process.Pid
	tree := newProcTree(pid, "TMPDIR="+tmp)
	if spec.onStart != nil {
		spec.onStart(pid)
	}

	// exited closes when the module exits, without reaping it: the kill
	// must run while the ppid chain from the module is still intact, and
	// the sweep as soon as it is over (so a grandchild holding stdout
	// cannot keep Wait waiting).
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		waitExitNoReap(pid)
		res.exited = time.Now()
	}()
	supervised := make(chan struct{})
	clean := false       // written by the supervisor before supervised closes
	writeKilled := false // likewise
	go func() {
		defer close(supervised)
		timer := time.NewTimer(spec.deadline)
		defer timer.Stop()
		select {
		case <-exited:
		case <-ctx.Done():
			res.cancelled = true
			tree.terminate()
		case <-timer.C:
			res.timedOut = true
			tree.terminate()
		case <-stdout.overCh:
			tree.terminate()
		case <-proc.WriteExceeded():
			writeKilled = true
			tree.terminate()
		}
		<-exited
		// A module that exited on its own and left no process behind (the
		// subreaper adopted none: leftNoOrphans) needs no /proc scan; any
		// survivor, or a run killed, gets the whole-tree sweep.
		if !res.timedOut && !res.cancelled && !stdout.overflowed() && !writeKilled && leftNoOrphans() {
			clean = true
			return
		}
		tree.sweep()
	}()
	_ = cmd.Wait() // the exit code is recorded, never decisive (docs/protocol.md §3)
	<-supervised
	liveRoots.Delete(pid)
	reuse = proc.PIDNamespace()
	if !clean {
		reapAdopted()
	}
	if cmd.ProcessState != nil {
		res.exitCode = cmd.ProcessState.ExitCode()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.signal = unix.SignalName(ws.Signal())
		}
	}
	res.writeStart = proc.WriteStart()
	res.writeBound = proc.WriteBound()
	if res.writeBound == nil && res.signal == "SIGXFSZ" {
		res.writeBound = fileSizeBound(cs.Limits.FileSize)
	}
	res.stdout, res.overflow = stdout.result()
	res.firstByte = stdout.firstByte()
	res.stderr, res.stderrTruncated = stderr.result()
	return res
}

// fileSizeBound is the verdict on a module killed by SIGXFSZ: a file it
// wrote reached Limits.FileSize (RLIMIT_FSIZE).
func fileSizeBound(max uint64) error {
	return fmt.Errorf("a file it wrote reached limits.file_size_mb (%d MiB) and SIGXFSZ killed it", max>>20)
}

// waitExitNoReap blocks until pid has exited (or was already reaped)
// without consuming its exit status, which cmd.Wait collects.
func waitExitNoReap(pid int) {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return
		}
	}
}

// writeFileMode writes b to a new file with exactly mode perm, whatever the
// umask.
// writeRequestFile writes the request file of a run: into the emptied
// request file a reused run directory keeps (reusable checked it: a
// plain file of ours, one link, no attribute), else a new one (mode
// 0600).
func writeRequestFile(path string, b []byte) error {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_TRUNC|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return writeFileMode(path, b, 0o600)
	}
	f := os.NewFile(uintptr(fd), path)
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeFileMode(path string, b []byte, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// RemoveTree removes dir even when a module took the write bits off
// directories inside it (a run's scratch or temporary roots); errors are
// ignored: what cannot be removed stays.
func RemoveTree(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	_ = os.RemoveAll(dir)
}

// capWriter keeps stdout up to limit bytes; past it, it records the
// overflow, closes overCh once and discards the rest (still accepting it,
// so the copy goroutine keeps draining until the kill lands).
type capWriter struct {
	mu     sync.Mutex
	limit  int64
	buf    []byte
	over   bool
	overCh chan struct{}
	// first is when the first byte arrived (zero: none yet); read after
	// the process is gone.
	first time.Time
}

func (w *capWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.first.IsZero() && len(p) > 0 {
		w.first = time.Now()
	}
	if w.over {
		return len(p), nil
	}
	room := w.limit - int64(len(w.buf))
	if int64(len(p)) <= room {
		w.buf = append(w.buf, p...)
		return len(p), nil
	}
	if room > 0 {
		w.buf = append(w.buf, p[:room]...)
	}
	w.over = true
	close(w.overCh)
	return len(p), nil
}

// overflowed reports whether the limit was passed.
func (w *capWriter) overflowed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.over
}

// firstByte is when the first byte arrived, zero when none did.
func (w *capWriter) firstByte() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.first
}

func (w *capWriter) result() ([]byte, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf, w.over
}

// stderrWriter keeps a run's stderr: its first StderrHead bytes, streamed
// chunk by chunk to onChunk, and its last StderrCap-StderrHead (where a
// traceback is); what lies between is discarded, counted, and marks it
// truncated.
type stderrWriter struct {
	mu        sync.Mutex
	buf       bytes.Buffer // the head
	tail      []byte       // the last bytes after the head, at most stderrTailKept
	dropped   int64        // bytes between head and tail not kept
	truncated bool
	onChunk   func([]byte)
}

// stderrTailKept is how much of stderr's end is kept past its head.
const stderrTailKept = StderrCap - StderrHead

func (w *stderrWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	keep := min(len(p), StderrHead-w.buf.Len())
	var chunk []byte
	if keep > 0 {
		w.buf.Write(p[:keep])
		chunk = bytes.Clone(p[:keep])
	}
	if rest := p[keep:]; len(rest) > 0 {
		if len(rest) >= stderrTailKept {
			w.dropped += int64(len(w.tail) + len(rest) - stderrTailKept)
			w.tail = append(w.tail[:0], rest[len(rest)-stderrTailKept:]...)
		} else {
			if over := len(w.tail) + len(rest) - stderrTailKept; over > 0 {
				w.dropped += int64(over)
				w.tail = append(w.tail[:0], w.tail[over:]...)
			}
			w.tail = append(w.tail, rest...)
		}
	}
	w.mu.Unlock()
	if chunk != nil && w.onChunk != nil {
		w.onChunk(chunk)
	}
	return len(p), nil
}

// StderrDropMark begins the host's mark between a kept stderr's head and
// tail: "…[modbay: 12345 bytes of stderr not kept]…". Its "…" touch the
// cut on both sides, so masking drops what a cut leaves of a secret
// (schema.MaskCutEchoes).
const StderrDropMark = "…[modbay: "

func (w *stderrWriter) result() (string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dropped == 0 {
		return w.buf.String() + string(w.tail), false
	}
	tail := w.tail
	// The tail starts at a line when one begins near its start.
	if i := bytes.IndexByte(tail[:min(len(tail), 4<<10)], '\n'); i >= 0 {
		w.dropped += int64(i + 1)
		tail = tail[i+1:]
	}
	return fmt.Sprintf("%s%s%d bytes of stderr not kept]…%s", w.buf.Bytes(), StderrDropMark, w.dropped, tail), true
}
