package mcp

import (
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/config"
	"modbay/contain"
	"modbay/internal/crash"
	"modbay/modproto"
	"modbay/runner"
)

// StopGrace is how long a stdio server has to exit once its stdin is
// closed (the MCP stdio shutdown) before its whole tree is killed.
const StopGrace = 2 * time.Second

// process is a stdio server's contained process and its pipes.
type process struct {
	cmd    *exec.Cmd
	proc   *contain.Process
	enf    contain.Enforcement
	stdin  *os.File // the host's end of the server's stdin
	stdout *os.File // the host's end of the server's stdout
	dir    string   // the per-session directory, removed by stop
	exited chan struct{}
	// interp is the interpreter a version manager's shim resolved to
	// (nil when the command is no manager's).
	interp *Interpreter
	// state is the process's exit state, set before exited is closed.
	state *os.ProcessState
	once  sync.Once
	// grace, when set (nanoseconds, shorten), replaces StopGrace.
	grace atomic.Int64
	// lines watches the stdout the transport reads, for a message past
	// the SDK's bound (lineWatch).
	lines lineWatch
}

// lineWatch is a reader of newline-delimited messages that notes one
// longer than max bytes (config.MCPMaxOutputBytes, what the MCP SDK reads
// of one message before it drops the session), or nesting deeper than
// sdkMaxDepth (where the SDK drops the session too), so the call's
// verdict names that bound rather than the server's exit that follows.
type lineWatch struct {
	r   io.ReadCloser
	max int64
	// run is the bytes since the last newline, depth the open brackets
	// outside strings there, str and esc the string state; read by the
	// transport's goroutine only.
	run        int64
	depth      int
	str, esc   bool
	over, deep atomic.Bool
}

func (w *lineWatch) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	for _, c := range p[:n] {
		if c == '\n' { // never raw inside a JSON string
			w.run, w.depth, w.str, w.esc = 0, 0, false, false
			continue
		}
		if w.run++; w.run >= w.max { // the SDK reads max bytes of a message, then fails
			w.over.Store(true)
		}
		switch {
		case w.esc:
			w.esc = false
		case w.str:
			w.esc, w.str = c == '\\', c != '"'
		case c == '"':
			w.str = true
		case c == '{' || c == '[':
			if w.depth++; w.depth > sdkMaxDepth {
				w.deep.Store(true)
			}
		case c == '}' || c == ']':
			w.depth--
		}
	}
	return n, err
}

func (w *lineWatch) Close() error { return w.r.Close() }

// tooLong is the verdict of a call whose reply passed what one MCP
// message may be, nil when none did.
func (p *process) tooLong() *runner.HostError {
	if !p.lines.over.Swap(false) { // the call that read it only
		return nil
	}
	return &runner.HostError{Code: modproto.CodeHostOutputTooLarge, Detail: fmt.Sprintf(
		"the server's reply passed %d bytes (16 MiB), the most one MCP message may be (config.MCPMaxOutputBytes, docs/protocol.md §14; limits.max_output_bytes cannot raise it): large results belong in resources or files", config.MCPMaxOutputBytes)}
}

// sdkMaxDepth is the nesting past which the MCP SDK refuses a message
// and drops the session (a result nesting past modproto.MaxKeyDepth but
// under it reaches modbay's own decoder, which refuses it).
const sdkMaxDepth = 1000

// tooDeep is the verdict of a call whose reply nested past sdkMaxDepth,
// nil when none did.
func (p *process) tooDeep() *runner.HostError {
	if !p.lines.deep.Swap(false) {
		return nil
	}
	return &runner.HostError{Code: modproto.CodeHostProtocolViolation, Detail: fmt.Sprintf(
		"the server's reply nests deeper than %d levels, which the MCP SDK refuses, ending the session (modbay reads at most %d: modproto.MaxKeyDepth, docs/protocol.md §14)", sdkMaxDepth, modproto.MaxKeyDepth)}
}

// shorten makes a later stop give the server only grace (not StopGrace)
// to exit before its tree is killed.
func (p *process) shorten(grace time.Duration) { p.grace.Store(int64(grace)) }

// startExitWait is how long a failed handshake waits for the server's
// process to exit, so the failure names its exit status rather than the
// pipe's EOF.
const startExitWait = time.Second

// exitedEarly is the exit status of a server that ended before its
// handshake finished ("exit status 1", "signal: killed"), waiting up to
// startExitWait for it; "" when it is still running.
func (p *process) exitedEarly() string {
	select {
	case <-p.exited:
	case <-time.After(startExitWait):
		return ""
	}
	if p.state == nil {
		return "an unknown status"
	}
	return p.state.String()
}

// writeBound is the *contain.WriteBoundError of an exited server that
// passed the per-run write bound (limits.write_mb, write_files), killed
// for it or not; nil for any other end. It waits for the watch's check in
// progress, which kills the server before it closes WriteExceeded.
func (p *process) writeBound() error { return p.proc.WriteBound() }

// transport is the MCP stdio transport over the process's pipes.
func (p *process) transport() sdk.Transport {
	p.lines.r, p.lines.max = p.stdout, config.MCPMaxOutputBytes
	return &sdk.IOTransport{Reader: &p.lines, Writer: p.stdin, MaxLineLength: config.MCPMaxOutputBytes}
}

// stop closes the server's stdin, waits StopGrace (or shorten's grace)
// for it to exit, kills
// its whole tree (its PID namespace or process group) and removes the
// session directory. It is idempotent and returns once the process was
// reaped.
func (p *process) stop() {
	p.once.Do(func() {
		_ = p.stdin.Close()
		grace := StopGrace
		if g := time.Duration(p.grace.Load()); g > 0 {
			grace = g
		}
		select {
		case <-p.exited:
		case <-time.After(grace):
		}
		// What the server started dies with it, whether it exited or not.
		_ = p.proc.Kill()
		<-p.exited
		_ = p.stdout.Close()
		_ = os.RemoveAll(p.dir)
	})
}

// startProcess starts server id's command contained by base (the host's
// sandbox mode, limits and binaries) plus what its entry states: the
// command itself, its cwd and roots, the network when granted; its
// folder only when it is its own, not one of shared (runner.OwnDir). Its
// environment is its configured env with ${NAME} expanded from lookup,
// plus TMPDIR (a per-session directory): nothing else of the host's.
// Stderr goes to onStderr.
func startProcess(id string, srv config.MCPServer, base contain.Spec, shared []string, lookup func(string) (string, bool), onStderr func([]byte)) (*process, error) {
	path, err := resolveCommand(srv.Command, srv.Env, lookup)
	if err != nil {
		return nil, err
	}
	var args []string
	for _, a := range srv.Args {
		ea, err := expand(a, lookup)
		if err != nil {
			return nil, fmt.Errorf("args: %w", err)
		}
		args = append(args, ea)
	}
	env := map[string]string{}
	for k, v := range srv.Env {
		ev, err := expand(v, lookup)
		if err != nil {
			return nil, fmt.Errorf("env %s: %w", k, err)
		}
		env[k] = ev
	}
	dir, err := os.MkdirTemp("", "modbay-mcp-"+id+"-")
	if err != nil {
		return nil, fmt.Errorf("create the session directory: %w", err)
	}
	fail := func(err error) (*process, error) {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	tmp, work := filepath.Join(dir, "tmp"), filepath.Join(dir, "work")
	for _, d := range []string{tmp, work} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return fail(err)
		}
	}
	env["TMPDIR"] = tmp
	interp, shimmed := serverInterpreter(path, srv, env, lookup)
	if shimmed {
		path = interp.Path
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = work
	if srv.Cwd != "" {
		cmd.Dir = srv.Cwd
	}
	for _, k := range slices.Sorted(maps.Keys(env)) {
		cmd.Env = append(cmd.Env, k+"="+env[k])
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return fail(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return fail(err)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	cmd.Stderr = stderrFunc(onStderr)
	cmd.WaitDelay = StopGrace
	spec := base
	// The command's folder is readable only when it is a folder of its
	// own, named after it; a command in a shared folder gets itself.
	spec.Module, spec.ModuleDir, spec.RunDir = path, runner.OwnDir(path, filepath.Dir(path), shared...), dir
	spec.Binaries = append(slices.Clone(base.Binaries), path)
	if shimmed {
		// The interpreter's own install trees, read and execute, and
		// nothing else of the home.
		spec.Binaries = append(spec.Binaries, interp.Trees...)
	}
	spec.Network = srv.Network
	if l := srv.Limits.Process; l != (config.Limits{}) {
		spec.Limits = runner.ContainLimits(l)
	}
	// An MCP server declares no subprocess permission to bind (npx, uvx
	// and node servers start other programs): the system trees stay
	// executable.
	spec.ExecNarrow = false
	var bins []string
	spec.ReadRoots, spec.WriteRoots, bins = sandboxRoots(srv)
	spec.Binaries = append(spec.Binaries, bins...)
	proc, enf, err := runner.StartServer(cmd, spec)
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return fail(fmt.Errorf("start %s: %w", path, err))
	}
	p := &process{cmd: cmd, proc: proc, enf: enf, stdin: inW, stdout: outR, dir: dir, exited: make(chan struct{})}
	if shimmed {
		p.interp = &interp
	}
	crash.Go(func() {
		_ = cmd.Wait()
		runner.ServerExited(cmd.Process.Pid)
		p.state = cmd.ProcessState
		close(p.exited)
	})
	return p, nil
}

// serverInterpreter resolves path through a version manager
// (resolveInterpreter) with the server's HOME, cwd and variables (env,
// then the host's).
func serverInterpreter(path string, srv config.MCPServer, env map[string]string, lookup func(string) (string, bool)) (Interpreter, bool) {
	get := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		v, _ := lookup(k)
		return v
	}
	home := get("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	dir := srv.Cwd
	if dir == "" {
		dir, _ = os.Getwd()
	}
	return resolveInterpreter(path, home, dir, get)
}

// resolveCommand is the absolute path of a server's command: itself when
// absolute, else looked up in the PATH its env sets, else in the host's
// PATH (the host resolves binaries, docs/protocol.md §4).
func resolveCommand(command string, env map[string]string, lookup func(string) (string, bool)) (string, error) {
	if filepath.IsAbs(command) {
		return command, nil
	}
	if p, ok := env["PATH"]; ok {
		ep, _ := config.ExpandVars(p, lookup)
		for _, d := range filepath.SplitList(ep) {
			c := filepath.Join(d, command)
			if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 && filepath.IsAbs(c) {
				return c, nil
			}
		}
	}
	p, err := exec.LookPath(command)
	if err != nil {
		return "", fmt.Errorf("command %q: not found in the server's PATH nor the host's", command)
	}
	return filepath.Abs(p)
}

// stderrFunc is an io.Writer handing each chunk to a function.
type stderrFunc func([]byte)

// Write implements io.Writer.
func (f stderrFunc) Write(b []byte) (int, error) {
	f(b)
	return len(b), nil
}

// tail keeps the last runner.StderrCap bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
	// written counts the bytes written since the last Reset, resets the
	// Resets: a tailMark's position.
	written int64
	resets  int
}

// tailMark is a position in a tail's stream (Mark, Since).
type tailMark struct {
	written int64
	resets  int
}

// Write keeps b's end within the cap.
func (t *tail) Write(b []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.written += int64(len(b))
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - runner.StderrCap; over > 0 {
		t.buf = slices.Clone(t.buf[over:])
	}
}

// Reset forgets what was kept: a new process's tail starts empty.
func (t *tail) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = nil
	t.written = 0
	t.resets++
}

// Mark is the tail's position now.
func (t *tail) Mark() tailMark {
	t.mu.Lock()
	defer t.mu.Unlock()
	return tailMark{t.written, t.resets}
}

// Since is what was written after m and is still kept: all that is kept
// when a new process (Reset) started since m.
func (t *tail) Since(m tailMark) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if m.resets != t.resets {
		return string(t.buf)
	}
	n := t.written - m.written
	if n >= int64(len(t.buf)) {
		return string(t.buf)
	}
	return string(t.buf[int64(len(t.buf))-n:])
}

// String is the tail kept.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// sandboxRoots are the host directories a stdio server's entry lets it
// read, write, and run binaries from: its roots and needs by mode, and
// its cwd, read-only unless the roots list it (config.MCPServer.Cwd).
func sandboxRoots(srv config.MCPServer) (read, write, bins []string) {
	all := srv.SandboxRoots()
	for _, r := range slices.Sorted(maps.Keys(all)) {
		switch all[r] {
		case config.RootRW:
			write = append(write, r)
		case config.RootRWX:
			// Readable and executable as a binary's tree, and writable:
			// an npm cache an npx server runs its package from.
			write = append(write, r)
			bins = append(bins, r)
		default:
			read = append(read, r)
		}
	}
	if _, listed := all[srv.Cwd]; srv.Cwd != "" && !listed {
		read = append(read, srv.Cwd)
	}
	return read, write, bins
}
