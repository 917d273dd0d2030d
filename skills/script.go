package skills

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"modbay/contain"
)

// Script limits (docs/skills.md "Resources and scripts").
const (
	// DefaultScriptTimeout is a script's deadline when none is given.
	DefaultScriptTimeout = 60 * time.Second
	// MaxScriptOutput is how much of each of stdout and stderr is kept:
	// the last 256 KiB (a script's conclusion is at its end).
	MaxScriptOutput = 256 << 10
	// ExitTimeout is the exit code of a script stopped at its deadline.
	ExitTimeout = 124
	// ExitCannotStart is the exit code of a script that could not start
	// (no interpreter, not a regular file, containment refused).
	ExitCannotStart = 127
	// scriptWaitDelay is how long the host waits for a script's output
	// pipes after it exited (a background child holding them) before
	// closing them and killing what is left.
	scriptWaitDelay = 500 * time.Millisecond
)

// ErrScriptsDisabled is returned when running scripts is not enabled
// (config `skills: {scripts: true}`): nothing ran.
var ErrScriptsDisabled = errors.New("running skill scripts is off (enable it with `skills: {scripts: true}` in config.yaml)")

// interpreters maps a script's extension to the interpreter that runs it.
var interpreters = map[string]string{".sh": "sh", ".py": "python3"}

// ScriptOptions is how a script runs.
type ScriptOptions struct {
	// Enabled must be true, or RunScript returns ErrScriptsDisabled.
	Enabled bool
	// Timeout is the deadline (DefaultScriptTimeout when zero).
	Timeout time.Duration
	// Network is true when the person approved network access.
	Network bool
	// Mode is the containment demanded (contain.ModeAuto when empty).
	Mode contain.Mode
	// Env adds variables to the script's small environment.
	Env map[string]string
	// LookPath resolves an interpreter's name (exec.LookPath when nil).
	LookPath func(string) (string, error)
}

// ScriptResult is what a script run did (the runtime's run-script output,
// with what containment enforced and notes on the interpreter).
type ScriptResult struct {
	// Location is the script, slash-relative to the skill folder.
	Location string `json:"location"`
	// Interpreter is the real executable that ran the script ("" when
	// none was found).
	Interpreter string `json:"interpreter,omitempty"`
	// ExitCode is the script's, or ExitTimeout, or ExitCannotStart.
	ExitCode int `json:"exitCode"`
	// Stdout and Stderr are the last MaxScriptOutput bytes of each.
	Stdout string `json:"stdout,omitempty"`
	Stderr string `json:"stderr,omitempty"`
	// StdoutTruncated and StderrTruncated say the start was dropped.
	StdoutTruncated bool `json:"stdoutTruncated,omitempty"`
	StderrTruncated bool `json:"stderrTruncated,omitempty"`
	// TimedOut is true when the deadline stopped it.
	TimedOut bool `json:"timedOut,omitempty"`
	// DurationMS is the wall-clock time in milliseconds.
	DurationMS int64 `json:"durationMS"`
	// Enforcement is what containment applied.
	Enforcement contain.Enforcement `json:"enforcement"`
	// Notes say what the person should know (a shim interpreter).
	Notes []string `json:"notes,omitempty"`
}

// RunScript runs the regular file loc (slash-relative) of the skill
// folder dir with args: `.sh` through sh, `.py` through python3, each
// resolved to its real executable. It runs contained (contain.Start): the
// skill folder readable and executable, never writable; a fresh scratch
// directory (its cwd, HOME and TMPDIR) read-write and removed after; the
// network only when opts.Network; a deadline; each stream capped to its
// last MaxScriptOutput bytes; the whole process tree killed at the end.
// A script that cannot start is ExitCannotStart with the reason in
// Stderr; the error is for refusals before anything ran (scripts off, a
// location outside the folder).
func RunScript(ctx context.Context, dir, loc string, args []string, opts ScriptOptions) (ScriptResult, error) {
	if !opts.Enabled {
		return ScriptResult{}, ErrScriptsDisabled
	}
	rel, err := confine(loc)
	if err != nil {
		return ScriptResult{}, err
	}
	res := ScriptResult{Location: rel, ExitCode: ExitCannotStart}
	cannot := func(format string, a ...any) (ScriptResult, error) {
		res.Stderr = fmt.Sprintf(format, a...)
		return res, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return cannot("skill folder %s: %v", dir, err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return cannot("skill folder %s: %v", abs, err)
	}
	fi, err := root.Lstat(rel)
	root.Close()
	if err != nil {
		if strings.Contains(err.Error(), "path escapes") {
			return ScriptResult{}, fmt.Errorf("script %q: %w", loc, ErrOutsideSkill)
		}
		return cannot("script %s: %v", rel, err)
	}
	if !fi.Mode().IsRegular() {
		return cannot("script %s is not a regular file", rel)
	}
	name, ok := interpreters[path.Ext(rel)]
	if !ok {
		return cannot("script %s: no interpreter for %q (only .sh through sh and .py through python3)", rel, path.Ext(rel))
	}
	interp, note, err := resolveInterpreter(name, opts.LookPath)
	if err != nil {
		return cannot("interpreter %s: %v", name, err)
	}
	res.Interpreter = interp
	if note != "" {
		res.Notes = append(res.Notes, note)
	}
	scratch, err := os.MkdirTemp("", "modbay-skill-")
	if err != nil {
		return cannot("scratch directory: %v", err)
	}
	defer os.RemoveAll(scratch)

	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultScriptTimeout
	}
	script := filepath.Join(abs, filepath.FromSlash(rel))
	cmd := exec.Command(interp, append([]string{script}, args...)...)
	cmd.Dir = scratch
	cmd.Env = scriptEnv(scratch, abs, opts.Env)
	stdout, stderr := &tailBuffer{limit: MaxScriptOutput}, &tailBuffer{limit: MaxScriptOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = scriptWaitDelay
	spec := contain.Spec{
		Module: script, ModuleDir: abs, WriteRoots: []string{scratch}, RunDir: scratch,
		Network: opts.Network, Binaries: []string{interp}, Limits: contain.DefaultLimits, Mode: opts.Mode,
	}
	if spec.Mode == "" {
		spec.Mode = contain.ModeAuto
	}
	start := time.Now()
	proc, enf, err := contain.Start(cmd, spec)
	res.Enforcement = enf
	if err != nil {
		return cannot("start %s: %v", rel, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var werr error
	select {
	case werr = <-done:
	case <-timer.C:
		res.TimedOut = true
		_ = proc.Kill()
		werr = <-done
	case <-ctx.Done():
		_ = proc.Kill()
		werr = <-done
	}
	_ = proc.Kill() // what the script left behind
	res.DurationMS = time.Since(start).Milliseconds()
	res.Stdout, res.StdoutTruncated = stdout.result()
	res.Stderr, res.StderrTruncated = stderr.result()
	switch {
	case res.TimedOut:
		res.ExitCode = ExitTimeout
	case cmd.ProcessState != nil && cmd.ProcessState.ExitCode() >= 0:
		res.ExitCode = cmd.ProcessState.ExitCode()
	default:
		res.ExitCode = 1 // killed by a signal
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		if werr != nil && res.Stderr == "" {
			res.Stderr = werr.Error()
		}
	}
	return res, nil
}

// resolveInterpreter finds name on PATH and follows symlinks to the real
// executable. A file that starts with "#!" is a shim (pyenv, asdf): it
// needs the person's environment, which a contained script does not get;
// note says so.
func resolveInterpreter(name string, look func(string) (string, error)) (exe, note string, err error) {
	if look == nil {
		look = exec.LookPath
	}
	p, err := look(name)
	if err != nil {
		return "", "", err
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", "", err
	}
	if real, err = filepath.Abs(real); err != nil {
		return "", "", err
	}
	f, err := os.Open(real)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	head := make([]byte, 2)
	if n, _ := io.ReadFull(f, head); n == 2 && bytes.Equal(head, []byte("#!")) {
		note = fmt.Sprintf("the interpreter %s is a shim (a script starting with #!): it may need your shell's environment, which a contained script does not get", real)
	}
	return real, note, nil
}

// scriptEnv is a script's environment: a system PATH, HOME and TMPDIR in
// the scratch directory, SKILL_DIR, LANG, and extra (sorted), nothing
// inherited.
func scriptEnv(scratch, skillDir string, extra map[string]string) []string {
	env := []string{
		"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + scratch, "TMPDIR=" + scratch,
		"SKILL_DIR=" + skillDir, "LANG=C.UTF-8",
	}
	var keys []string
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+extra[k])
	}
	return env
}

// tailBuffer keeps the last limit bytes written to it.
type tailBuffer struct {
	mu        sync.Mutex
	limit     int
	buf       []byte
	truncated bool
}

// Write keeps the tail; it never fails, so the script never sees EPIPE.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) >= t.limit {
		t.buf = append(t.buf[:0], p[len(p)-t.limit:]...)
		t.truncated = true
		return n, nil
	}
	if over := len(t.buf) + len(p) - t.limit; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.truncated = true
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// result is the kept text and whether its start was dropped.
func (t *tailBuffer) result() (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf), t.truncated
}
