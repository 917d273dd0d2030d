package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"modbay/config"
	"modbay/contain"
	"modbay/internal/crash"
	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
	"modbay/schema"
)

// KeyPrefix starts every MCP driver's Key ("mcp:<config id>").
const KeyPrefix = "mcp:"

// Origin is the Module.Origin of MCP servers.
const Origin = "mcp"

// ProtocolVersion is the MCP version modbay asks for. Pinning it skips the
// 2026-07-28 server/discover round trip that most servers answer with an
// error before the SDK falls back to initialize.
const ProtocolVersion = "2025-11-25"

// Bounds on starting a server and its initialize handshake when its
// entry sets no limits.initialize_seconds: a server that has not answered
// by then is broken (and held back, cache.go). A command that fetches its
// package before it starts (FetchesPackage) gets longer.
const (
	InitializeTimeout         = 10 * time.Second
	FetchingInitializeTimeout = 60 * time.Second
)

// maxSSEEvent bounds one server-sent event of an SSE server, in bytes:
// the most one MCP message may hold (config.MCPMaxOutputBytes).
const maxSSEEvent = config.MCPMaxOutputBytes

// initializeTimeout is how long srv has to start and answer initialize:
// its limits.initialize_seconds, else InitializeTimeout, or
// FetchingInitializeTimeout for a command that fetches its package.
func initializeTimeout(srv config.MCPServer) time.Duration {
	switch {
	case srv.Limits.InitializeSeconds > 0:
		return time.Duration(srv.Limits.InitializeSeconds) * time.Second
	case FetchesPackage(srv):
		return FetchingInitializeTimeout
	}
	return InitializeTimeout
}

// FetchesPackage reports whether srv's command fetches the server's
// package before running it: npx, bunx, uvx, or pipx run, uv tool run,
// uv run --with, pnpm dlx, yarn dlx.
func FetchesPackage(srv config.MCPServer) bool {
	first := ""
	if len(srv.Args) > 0 {
		first = srv.Args[0]
	}
	switch filepath.Base(srv.Command) {
	case "npx", "bunx", "uvx":
		return true
	case "pipx":
		return first == "run"
	case "uv":
		return first == "tool" && len(srv.Args) > 1 && srv.Args[1] == "run" || first == "run" && slices.Contains(srv.Args, "--with")
	case "pnpm", "yarn":
		return first == "dlx"
	}
	return false
}

// clientName and clientVersion are what modbay tells servers it is.
const (
	clientName    = "modbay"
	clientVersion = "1"
)

// Driver is a runner.Driver for one MCP server: one session, connected on
// first use (Describe or Invoke), reconnected on the next use after the
// server exits, closed by Close. A stdio server runs contained
// (contain.Start) with only its configured environment. Safe for
// concurrent use.
type Driver struct {
	id  string
	srv config.MCPServer
	// lookup reads the host variables that env and header values name.
	lookup func(string) (string, bool)
	// cacheDir is the home's cache folder holding the server's state
	// file (cache.go); "" keeps none, and the tool list is never cached.
	cacheDir string
	// shared are the host's folders no server's command folder may be
	// granted as its own (runner.OwnDir): the home, its modules folder,
	// the workspace.
	shared  []string
	stateMu sync.Mutex // serializes the state file's read-modify-write
	// home is the modbay home whose auth folder holds the server's OAuth
	// token (oauth.go); "" reads none.
	home string

	connMu sync.Mutex // serializes connecting

	mu       sync.Mutex
	life     runner.Lifecycle
	sess     *session
	spec     contain.Spec // SetContainment's, or the first call's
	haveSpec bool
	inflight []*inflight // calls in flight, in start order
	// outputs are the tools' outputSchemas from the last Describe, by
	// tool name, to check structuredContent against.
	outputs map[string]json.RawMessage
	// listed holds, while list runs, the tools' schemas as the server
	// wrote them, by tool name (keepToolSchemas); nil otherwise.
	listed map[string]toolSchemas
	stderr tail
	// gen counts the server processes started; stderr keeps only the
	// current one's lines.
	gen int
	// logs are the server's last MaxKeptLogs log messages, during calls
	// and between them.
	logs []LogEntry
	// lastEchoes are the secrets of the newest call's input
	// (runner.Call.Echoes), masked in the logs kept (docs/protocol.md §4).
	lastEchoes []schema.Echo
	// stripped maps an elicitation's requested schema without its
	// defaults (compact JSON) to the schema as sent (withoutDefaults).
	stripped map[string]json.RawMessage
	// hints are the tools' annotations as given, by tool name (from the
	// last list, or the state file with the cached list).
	hints map[string]runner.ToolHints
	// interp is the interpreter the command's version manager resolved
	// to when the server last started (nil: none).
	interp *Interpreter
	// logLevel is the level asked for with logging/setLevel ("" is
	// DefaultLogLevel); kept across restarts.
	logLevel string
	// logDue is set while an announcement of log messages between calls
	// is due (announceLog).
	logDue bool
	// catalog is the server's resources and prompts as last listed (or
	// read back with the cached tool list); nil before.
	catalog *Catalog
	// surf is what is kept of the server's resources, prompts and
	// announced changes (surface.go).
	surf surfaceState
	// challenge is the WWW-Authenticate of a remote server's 401 ("" when
	// none came): the server needs OAuth sign-in.
	challenge string
	// rootsChanged is set by SetRoots: the next session sends
	// notifications/roots/list_changed once connected.
	rootsChanged bool

	// rootsMu guards roots, SetRoots's roots and cwd replacing the
	// entry's (nil: the entry's own); srv itself is never written.
	rootsMu sync.Mutex
	roots   *rootsOverride

	// started is what the server said as its last session started
	// (noteSession), under mu; nil before.
	started *ServerSession
	// capturing is set while dial runs: startFrames keeps the session's
	// start (initialize, logging/setLevel, …) for its first call's raw
	// exchange. Both under mu.
	capturing   bool
	startFrames []runner.Frame
}

// rootsOverride is a stdio server's roots and cwd as SetRoots gave them.
type rootsOverride struct {
	roots map[string]string
	cwd   string
}

// entry is the server's config entry with SetRoots's roots and cwd.
func (d *Driver) entry() config.MCPServer {
	d.rootsMu.Lock()
	defer d.rootsMu.Unlock()
	s := d.srv
	if d.roots != nil {
		s.Roots, s.Cwd = d.roots.roots, d.roots.cwd
	}
	return s
}

// SetRoots gives a stdio server new roots (and cwd): a running server's
// sandbox cannot widen, so its session is closed and the next use starts
// it again with the new roots, then sends notifications/roots/list_changed
// (its roots/list answers the new ones). Roots equal to the current ones
// change nothing.
func (d *Driver) SetRoots(roots map[string]string, cwd string) {
	d.connMu.Lock()
	defer d.connMu.Unlock()
	if cur := d.entry(); maps.Equal(roots, cur.Roots) && cwd == cur.Cwd {
		return
	}
	d.rootsMu.Lock()
	d.roots = &rootsOverride{roots: maps.Clone(roots), cwd: cwd}
	d.rootsMu.Unlock()
	d.mu.Lock()
	d.rootsChanged = true
	s := d.sess
	d.sess = nil
	if d.life.State != runner.LifecycleClosed {
		d.life = runner.Lifecycle{State: runner.LifecycleStarting, Reason: "its roots changed; the next call starts it again with them"}
	}
	d.mu.Unlock()
	if s != nil {
		_ = s.close()
	}
}

var (
	_ runner.Driver       = (*Driver)(nil)
	_ runner.Containable  = (*Driver)(nil)
	_ runner.ReplyLimiter = (*Driver)(nil)
	_ runner.HintedDriver = (*Driver)(nil)
	_ runner.ServerRooted = (*Driver)(nil)
)

// Hints implements runner.HintedDriver: tool's annotations as the server
// last listed them (kept with the cached list), absent ones nil.
func (d *Driver) Hints(tool string) (runner.ToolHints, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	h, ok := d.hints[tool]
	return h, ok
}

// ServerRoots implements runner.ServerRooted: a stdio server's roots,
// needs and cwd (ro unless listed) by path, every folder its entry lets it touch; none
// for a remote one.
func (d *Driver) ServerRoots() map[string]string {
	out := map[string]string{}
	e := d.entry()
	if e.Transport() != "stdio" {
		return out
	}
	maps.Copy(out, e.SandboxRoots())
	if e.Cwd != "" && out[e.Cwd] == "" {
		// An unlisted cwd is readable only, as the sandbox makes it
		// (sandboxRoots).
		out[e.Cwd] = config.RootRO
	}
	return out
}

// givenHints are the annotations each tool gave, by name; readOnly is
// each tool's readOnlyHint as the server wrote it (keepToolSchemas).
func givenHints(tools []*sdk.Tool, readOnly map[string]*bool) map[string]runner.ToolHints {
	out := map[string]runner.ToolHints{}
	for _, t := range tools {
		if t == nil {
			continue
		}
		var h runner.ToolHints
		if a := t.Annotations; a != nil {
			// readOnlyHint is a plain bool in the SDK: the raw bytes tell
			// a given false from none.
			switch {
			case readOnly[t.Name] != nil:
				h.ReadOnly = ptrTo(*readOnly[t.Name])
			case a.ReadOnlyHint:
				h.ReadOnly = ptrTo(true)
			}
			h.Destructive, h.OpenWorld = a.DestructiveHint, a.OpenWorldHint
		}
		out[t.Name] = h
	}
	return out
}

func ptrTo[T any](v T) *T { return &v }

// ReplyLimit implements runner.ReplyLimiter: the entry's
// limits.max_output_bytes, else the config's max_output_bytes (hostMax),
// else config.MCPDefaultMaxOutputBytes (docs/protocol.md §14).
func (d *Driver) ReplyLimit(hostMax int) int {
	switch {
	case d.srv.Limits.MaxOutputBytes > 0:
		return d.srv.Limits.MaxOutputBytes
	case hostMax > 0:
		return hostMax
	}
	return config.MCPDefaultMaxOutputBytes
}

// NewDriver returns the driver of server id, not yet connected (its
// status is starting until the first use). lookup resolves ${NAME} in
// env and header values (config.HostLookup in production).
func NewDriver(id string, srv config.MCPServer, lookup func(string) (string, bool)) *Driver {
	if lookup == nil {
		lookup = config.HostLookup
	}
	return &Driver{id: id, srv: srv, lookup: lookup, life: runner.Lifecycle{State: runner.LifecycleStarting}}
}

// inflight is one call in flight: its Call, context and progress token.
type inflight struct {
	call  *runner.Call
	ctx   context.Context
	token string
	// cancelSent is closed once notifications/cancelled for this call
	// was written, so the exchange holds it before the call returns.
	cancelSent chan struct{}
	cancelOnce sync.Once
	// rpcID is the JSON-RPC id of the call's tools/call request and result
	// its result as the server sent it (nil until it arrives); both under
	// Driver.mu (noteCall, noteResult).
	rpcID  any
	result json.RawMessage
}

// session is one connected MCP session and, for stdio, its process.
type session struct {
	cs   *sdk.ClientSession
	proc *process // nil for a remote server
	// done is closed when the session ended (the server exited, the
	// connection broke, or Close).
	done chan struct{}
}

// Key is KeyPrefix and the config id.
func (d *Driver) Key() string { return KeyPrefix + d.id }

// Launch says how the server is reached, for describe and the cockpit's
// detail pane where a process module shows its executable: a stdio
// server's command and arguments as configured (${NAME} references
// unexpanded, each shell-quoted), or a remote server's URL without its
// user information, query and fragment (where credentials hide). The
// caller sanitizes it before the terminal.
func (d *Driver) Launch() string {
	if d.srv.Transport() == "http" {
		u, err := url.Parse(d.srv.URL)
		if err != nil {
			return "(an unparsable URL)"
		}
		u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
		if d.srv.SSE() {
			return u.String() + " (HTTP+SSE)"
		}
		return u.String()
	}
	if d.srv.Command == "" {
		return ""
	}
	words := []string{runner.ShellQuote(d.srv.Command)}
	for _, a := range d.srv.Args {
		words = append(words, runner.ShellQuote(a))
	}
	d.mu.Lock()
	in := d.interp
	d.mu.Unlock()
	if in != nil {
		words = append(words, "("+in.Manager+" runs "+in.Path+"; granted read and execute of "+strings.Join(in.Trees, ", ")+", nothing else of the home)")
	}
	return strings.Join(words, " ")
}

// SetContainment implements runner.Containable: the describe policy gives
// the sandbox mode, limits and the host's own binary; the server's roots,
// working directory and network come from its config entry, fixed when it
// starts.
func (d *Driver) SetContainment(spec contain.Spec) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.spec, d.haveSpec = spec, true
}

// Status is the session's lifecycle: starting until connected (and again
// after the server exited: the next use restarts it), ready, broken with
// the connect error and the server's stderr tail, or closed.
func (d *Driver) Status() runner.Lifecycle {
	d.mu.Lock()
	defer d.mu.Unlock()
	l := d.life
	if l.State == runner.LifecycleBroken {
		l.StderrTail = d.stderr.String()
	}
	return l
}

// Close ends the session and stops the server's process (stdin closed,
// then the whole tree killed after StopGrace). It is idempotent.
func (d *Driver) Close() error { return d.CloseWithin(0) }

// CloseWithin is Close giving the server only grace (0: StopGrace) to
// exit once its stdin is closed: a command that has printed its answer
// does not wait out a slow server's shutdown.
func (d *Driver) CloseWithin(grace time.Duration) error {
	d.connMu.Lock()
	defer d.connMu.Unlock()
	d.mu.Lock()
	s := d.sess
	d.sess = nil
	d.life = runner.Lifecycle{State: runner.LifecycleClosed}
	d.mu.Unlock()
	if s != nil {
		if s.proc != nil && grace > 0 {
			s.proc.shorten(grace)
		}
		return s.close()
	}
	return nil
}

// ended reports whether the session is over or its process exited.
func (s *session) ended() bool {
	select {
	case <-s.done:
		return true
	default:
	}
	if s.proc == nil {
		return false
	}
	select {
	case <-s.proc.exited:
		return true
	default:
		return false
	}
}

// close ends the session and its process.
func (s *session) close() error {
	err := s.cs.Close()
	if s.proc != nil {
		s.proc.stop()
	}
	<-s.done
	return err
}

// connect returns the live session, connecting first when there is none.
// A failure makes the driver broken with the reason.
func (d *Driver) connect(ctx context.Context) (*session, error) {
	d.connMu.Lock()
	defer d.connMu.Unlock()
	d.mu.Lock()
	s, life := d.sess, d.life
	d.mu.Unlock()
	switch {
	case life.State == runner.LifecycleClosed:
		return nil, errors.New("the server's driver is closed")
	case life.State == runner.LifecycleBroken:
		return nil, errors.New(life.Reason)
	case s != nil && !s.ended():
		return s, nil
	case s != nil:
		// The server exited and watch has yet to notice: let it, then
		// start the server again.
		<-s.done
	}
	if why := d.heldBack(time.Now()); why != "" {
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.life.State != runner.LifecycleClosed {
			d.life = runner.Lifecycle{State: runner.LifecycleBroken, Reason: why}
		}
		return nil, errors.New(why)
	}
	s, err := d.dial(ctx)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.life.State == runner.LifecycleClosed {
		if s != nil {
			crash.Go(func() { _ = s.close() })
		}
		return nil, errors.New("the server's driver is closed")
	}
	if err != nil {
		reason := oneLine("connect: " + err.Error())
		if d.challenge != "" {
			// Needs sign-in, not broken: the next use asks again.
			return nil, errors.New(reason)
		}
		d.life = runner.Lifecycle{State: runner.LifecycleBroken, Reason: reason}
		if ctx.Err() == nil {
			// A failure of the server's, not a caller that gave up.
			d.noteConnect(reason, time.Now())
		}
		return nil, errors.New(d.life.Reason)
	}
	d.noteConnect("", time.Now())
	d.sess, d.life = s, runner.Lifecycle{State: runner.LifecycleReady}
	crash.Go(func() { d.watch(s) })
	if ir := s.cs.InitializeResult(); ir != nil {
		if ir.ServerInfo != nil {
			d.noteVersion(ir.ServerInfo.Version)
		}
		stderr := ""
		if s.proc != nil {
			stderr = d.stderr.String()
		}
		d.noteSession(serverSession(ir, stderr))
	}
	return s, nil
}

// watch waits for s to end; a session that ended without Close leaves
// the driver starting, so the next use restarts the server.
func (d *Driver) watch(s *session) {
	_ = s.cs.Wait()
	if s.proc != nil {
		s.proc.stop()
	}
	close(s.done)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.sess == s {
		d.sess = nil
		if d.life.State == runner.LifecycleReady {
			d.life = runner.Lifecycle{State: runner.LifecycleStarting, Reason: "the server's session ended; the next call starts it again"}
		}
	}
}

// dial starts (stdio) or reaches (http) the server and runs the MCP
// handshake, within initializeTimeout.
func (d *Driver) dial(ctx context.Context) (*session, error) {
	d.mu.Lock()
	d.capturing, d.startFrames = true, nil
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.capturing = false
		d.mu.Unlock()
	}()
	limit := initializeTimeout(d.srv)
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	s := &session{done: make(chan struct{})}
	var t sdk.Transport
	switch d.srv.Transport() {
	case "stdio":
		d.mu.Lock()
		spec, have := d.spec, d.haveSpec
		d.mu.Unlock()
		if !have {
			spec = contain.Spec{Limits: contain.DefaultLimits}
		}
		d.mu.Lock()
		d.gen++
		gen := d.gen
		d.stderr.Reset()
		d.mu.Unlock()
		p, err := startProcess(d.id, d.entry(), spec, d.shared, d.lookup, func(b []byte) { d.onStderr(gen, b) })
		if err != nil {
			return nil, err
		}
		s.proc = p
		t = p.transport()
		d.mu.Lock()
		d.interp = p.interp
		d.mu.Unlock()
	case "http":
		url, missing := config.ExpandVars(d.srv.URL, d.lookup)
		if len(missing) > 0 {
			return nil, fmt.Errorf("url names unset host variables: %v", missing)
		}
		url, err := expand(url, d.lookup)
		if err != nil {
			return nil, fmt.Errorf("url: %w", err)
		}
		hdr := http.Header{}
		for k, v := range d.srv.Headers {
			ev, missing := config.ExpandVars(v, d.lookup)
			if len(missing) > 0 {
				return nil, fmt.Errorf("header %s names unset host variables: %v", k, missing)
			}
			ev, err := expand(ev, d.lookup)
			if err != nil {
				return nil, fmt.Errorf("header %s: %w", k, err)
			}
			hdr.Set(k, ev)
		}
		ht := headerTransport{h: hdr, d: d}
		if d.home != "" {
			ht.tokens = storedSource(d.home, d.id, d.srv.URL)
		}
		hc := &http.Client{Transport: ht}
		if d.srv.SSE() {
			// The older HTTP+SSE transport: one long GET of events, each
			// bounded as a frame is.
			t = sessionScoped{&sdk.SSEClientTransport{Endpoint: url, HTTPClient: hc, MaxEventSize: maxSSEEvent}}
		} else {
			t = &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc, DisableStandaloneSSE: true}
		}
	default:
		return nil, config.CheckMCPServer(d.id, d.srv)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: clientName, Version: clientVersion}, &sdk.ClientOptions{
		// Roots are the entry's own (clientRoots), fixed for the process's
		// life; elicitation takes forms and URLs; sampling is answered by
		// a person (sample), never a model.
		Capabilities: &sdk.ClientCapabilities{RootsV2: &sdk.RootCapabilities{ListChanged: true},
			Elicitation: &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}, URL: &sdk.URLElicitationCapabilities{}}},
		// Progress and log messages are taken on the reader
		// (recordingConn), in order with the answers.
		ElicitationHandler:   d.elicit,
		CreateMessageHandler: d.sample,
	})
	client.AddRoots(d.clientRoots()...)
	cs, err := client.Connect(ctx, &recordingTransport{inner: t, d: d}, &sdk.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		timedOut := errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil
		if timedOut {
			err = fmt.Errorf("the server did not answer initialize within %s (set with limits.initialize_seconds in its mcp_servers entry)", limit)
		}
		if s.proc != nil {
			// A server that timed out exits once its stdin closes: that
			// exit explains nothing.
			if status := s.proc.exitedEarly(); status != "" && !timedOut {
				err = startFailure(status, d.stderr.String())
				if hint := confinementHint(d.id, d.srv, d.stderr.String()); hint != "" {
					err = fmt.Errorf("%w; %s", err, hint)
				}
			}
			s.proc.stop()
		}
		return nil, err
	}
	s.cs = cs
	d.mu.Lock()
	changed := d.rootsChanged
	d.rootsChanged = false
	d.mu.Unlock()
	if changed {
		// Restarted for new roots: tell the server its roots changed
		// (AddRoots of the same roots notifies every session).
		client.AddRoots(d.clientRoots()...)
	}
	// Log messages are sent only once a level is set; a server without
	// the logging capability is not asked.
	if ir := cs.InitializeResult(); ir != nil && ir.Capabilities != nil && ir.Capabilities.Logging != nil {
		d.loadLogLevel()
		_ = cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: sdk.LoggingLevel(d.LogLevel())})
	}
	return s, nil
}

// sessionScoped connects its transport with a context that outlives
// the connect (the SSE transport's event stream is the GET Connect
// starts, and ends with its context): ctx bounds only the connect, the
// stream ends when the connection closes.
type sessionScoped struct{ inner sdk.Transport }

// Connect implements sdk.Transport.
func (t sessionScoped) Connect(ctx context.Context) (sdk.Connection, error) {
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	c, err := t.inner.Connect(lctx)
	if !stop() {
		// ctx ended while connecting.
		cancel()
		if err == nil {
			c.Close()
		}
		return nil, ctx.Err()
	}
	if err != nil {
		cancel()
		return nil, err
	}
	return &cancelOnClose{Connection: c, cancel: cancel}, nil
}

// cancelOnClose ends its context when the connection closes.
type cancelOnClose struct {
	sdk.Connection
	cancel context.CancelFunc
}

// Close implements sdk.Connection.
func (c *cancelOnClose) Close() error {
	defer c.cancel()
	return c.Connection.Close()
}

// headerTransport adds the configured headers to every request and
// notes an authorization challenge (401 with WWW-Authenticate) on d.
type headerTransport struct {
	h http.Header
	d *Driver
	// tokens, when set, is the server's stored OAuth token (modbay mcp
	// login), sent as the bearer token and refreshed as it expires.
	tokens oauth2.TokenSource
}

// RoundTrip implements http.RoundTripper.
func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header[k] = slices.Clone(v)
	}
	if t.tokens != nil {
		tok, err := t.tokens.Token()
		if err != nil {
			return nil, err
		}
		tok.SetAuthHeader(r)
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		t.d.mu.Lock()
		t.d.challenge = resp.Header.Get("WWW-Authenticate")
		if t.d.challenge == "" {
			t.d.challenge = "(no WWW-Authenticate header)"
		}
		t.d.mu.Unlock()
	}
	return resp, err
}

// maxChallenge bounds the WWW-Authenticate value quoted in a reason.
const maxChallenge = 300

// oauthEnvelope is the describe envelope of a remote server that
// answered 401: no tools, and one unmet requirement saying it needs OAuth
// sign-in (listed as needs setup; modbay does not sign in itself) or a
// token in headers.
func oauthEnvelope(id, challenge string) *modproto.Envelope {
	c := oneLine(render.SanitizeLine(challenge))
	if r := []rune(c); len(r) > maxChallenge {
		c = string(r[:maxChallenge]) + "…"
	}
	no := false
	d := &modproto.Descriptor{Module: id, Name: id, Version: "unknown", ProtocolVersions: []string{modproto.ProtocolID},
		RequestSchemas: map[string]json.RawMessage{}, ResultSchemas: map[string]json.RawMessage{}, ArtifactSchemas: artifactSchemas,
		Requirements: []modproto.Requirement{{Kind: "config", Name: "OAuth sign-in", Available: &no,
			Detail: "the server answered 401 and asks for OAuth (WWW-Authenticate: " + c + "); sign in with modbay mcp login " + id + ", or put a token in the entry's headers (Authorization: Bearer ${TOKEN})"}}}
	d.Normalize()
	res, _ := json.Marshal(d)
	return &modproto.Envelope{Protocol: modproto.ProtocolID, Module: id, Operation: modproto.OperationDescribe,
		OK: true, Result: res, Warnings: []string{}, Execution: modproto.Execution{Network: true, Artifacts: []modproto.Artifact{}}}
}

// Describe connects when needed, lists every tool (all pages) and answers
// with the server as a module descriptor in an ok describe envelope
// (descriptorOf). The error is the connect or list failure.
func (d *Driver) Describe(ctx context.Context) (runner.Description, error) {
	desc := runner.Description{At: time.Now()}
	s, err := d.connect(ctx)
	if err != nil {
		d.mu.Lock()
		challenge := d.challenge
		d.mu.Unlock()
		if challenge != "" {
			desc.Envelope, err = json.Marshal(oauthEnvelope(d.id, challenge))
			return desc, err
		}
		desc.Stderr = d.stderr.String()
		return desc, err
	}
	if s.proc != nil {
		desc.Enforcement = s.proc.enf
	}
	env, built, err := d.list(ctx, s)
	if err != nil {
		desc.Stderr = d.stderr.String()
		return desc, err
	}
	// The host judges the descriptor as built here (runner.BuiltDescribe)
	// rather than decoding its encoding again.
	desc.Built = &runner.BuiltDescribe{Envelope: env, Descriptor: built}
	cat := d.listCatalog(ctx, s)
	d.mu.Lock()
	d.catalog = cat
	d.mu.Unlock()
	d.keepCatalog(cat)
	desc.Envelope, err = json.Marshal(env)
	desc.Stderr = d.stderr.String()
	return desc, err
}

// list lists every tool of s (all pages, at most MaxTools+1) and makes
// the describe envelope and its descriptor; it keeps the tools'
// outputSchemas for Invoke.
func (d *Driver) list(ctx context.Context, s *session) (*modproto.Envelope, *modproto.Descriptor, error) {
	d.surf.mu.Lock()
	d.surf.taskTools = nil
	d.surf.mu.Unlock()
	d.mu.Lock()
	d.listed = map[string]toolSchemas{}
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.listed = nil
		d.mu.Unlock()
	}()
	var tools []*sdk.Tool
	for t, err := range s.cs.Tools(ctx, nil) {
		if err != nil {
			return nil, nil, fmt.Errorf("tools/list: %w", err)
		}
		tools = append(tools, t)
		if len(tools) > MaxTools {
			break
		}
	}
	// The schemas as written, in the server's property order.
	d.mu.Lock()
	readOnly := map[string]*bool{}
	for _, t := range tools {
		if raw, ok := d.listed[t.Name]; ok {
			readOnly[t.Name] = raw.readOnly
			if len(raw.in) > 0 {
				t.InputSchema = raw.in
			}
			if len(raw.out) > 0 {
				t.OutputSchema = raw.out
			}
		}
	}
	d.mu.Unlock()
	var impl *sdk.Implementation
	if ir := s.cs.InitializeResult(); ir != nil {
		impl = ir.ServerInfo
	}
	tools, needTasks := d.withoutTaskTools(tools)
	env, desc, outputs := describeEnvelope(d.id, impl, tools, d.srv.Transport(), d.srv.Network, d.srv.URL)
	env.Warnings = append(env.Warnings, needTasks...)
	d.addSurface(ctx, s, desc, env)
	hints := givenHints(tools, readOnly)
	d.mu.Lock()
	d.outputs, d.hints = outputs, hints
	d.mu.Unlock()
	d.keepHints(hints)
	return env, desc, nil
}

// Invoke calls the tool named by the request's capability with its input
// as arguments, within its deadline, with the request id as progress
// token; progress, log messages and stderr become the call's events,
// elicitations go to call.Elicit and every JSON-RPC frame to call.Record.
// The result becomes an envelope and content blocks (replyOf).
func (d *Driver) Invoke(ctx context.Context, call *runner.Call) *runner.Reply {
	started := time.Now()
	rep := &runner.Reply{ExitCode: -1, Started: started}
	defer func() { rep.Duration = time.Since(started); rep.Stderr = d.stderr.String() }()
	d.mu.Lock()
	if !d.haveSpec {
		// A module described from the cache: the call's spec carries the
		// host's sandbox mode and limits.
		d.spec, d.haveSpec = call.Contain, true
	}
	d.mu.Unlock()
	cctx := ctx
	if ms := call.Request.DeadlineMS; ms > 0 {
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeout(ctx, time.Duration(ms)*time.Millisecond)
		defer cancel()
	}
	// A crash is explained by the stderr written since the call began
	// (a process started for it counts whole), never an earlier call's.
	mark := d.stderr.Mark()
	s, err := d.connect(cctx)
	if err != nil {
		rep.Failure = ctxFailure(ctx, cctx, call.Request.DeadlineMS, &runner.HostError{Code: modproto.CodeHostSpawnFailed, Detail: err.Error()})
		return rep
	}
	if s.proc != nil {
		rep.Enforcement = s.proc.enf
	}
	// A module described from the cache has not listed its tools in this
	// process: list them once, for the outputSchemas structuredContent is
	// checked against.
	d.mu.Lock()
	listed := d.outputs != nil
	d.mu.Unlock()
	if !listed {
		if _, _, err := d.list(cctx, s); err != nil {
			rep.Failure = ctxFailure(ctx, cctx, call.Request.DeadlineMS, d.sessionFailure(cctx, s, err, mark))
			return rep
		}
	}
	f := &inflight{call: call, ctx: cctx, token: call.Request.RequestID, cancelSent: make(chan struct{})}
	d.mu.Lock()
	d.inflight = append(d.inflight, f)
	d.lastEchoes = call.Echoes() // logs between calls are masked with the last call's secrets
	// The first call of a session shows how it started.
	start := d.startFrames
	d.startFrames = nil
	d.mu.Unlock()
	for _, fr := range start {
		call.Record(fr)
	}
	defer func() {
		d.mu.Lock()
		d.inflight = slices.DeleteFunc(d.inflight, func(x *inflight) bool { return x == f })
		d.mu.Unlock()
	}()
	sent := func() json.RawMessage {
		d.mu.Lock()
		defer d.mu.Unlock()
		return f.result
	}
	if env, blocks, ok, err := d.surfaceCall(cctx, s, call.Request, sent); ok {
		if err != nil {
			rep.Failure = ctxFailure(ctx, cctx, call.Request.DeadlineMS, d.sessionFailure(cctx, s, err, mark))
			return rep
		}
		rep.Envelope, rep.Blocks = env, blocks
		return rep
	}
	params := &sdk.CallToolParams{Name: call.Request.Capability, Arguments: json.RawMessage(call.Request.Input)}
	params.SetProgressToken(f.token)
	// The result is read as the server sent it (noteResult), not as the
	// SDK decoded it: one block the SDK cannot decode (URL-safe base64)
	// fails its whole result, and its types drop fields and add others.
	_, err = s.cs.CallTool(cctx, params)
	if d.urlsFirst(cctx, f, err) {
		// The person opened the URLs the server required: once more.
		_, err = s.cs.CallTool(cctx, params)
	}
	d.mu.Lock()
	raw := f.result
	d.mu.Unlock()
	if raw == nil {
		if err == nil {
			err = errors.New("no result was recorded for the call")
		}
		if cctx.Err() != nil {
			// The SDK sends notifications/cancelled in the background:
			// wait a moment for it, so the raw exchange holds it.
			select {
			case <-f.cancelSent:
			case <-time.After(cancelRecordWait):
			}
		}
		rep.Failure = ctxFailure(ctx, cctx, call.Request.DeadlineMS, d.sessionFailure(cctx, s, err, mark))
		return rep
	}
	rep.Envelope, rep.Blocks, rep.Beside, rep.Failure = replyOf(d.id, call.Request, raw, d.outputSchema(call.Request.Capability))
	return rep
}

// outputSchema is tool's outputSchema as the last Describe listed it, nil
// when it has none (or the tool was not listed).
func (d *Driver) outputSchema(tool string) json.RawMessage {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.outputs[tool]
}

// cancelRecordWait bounds how long a cancelled or timed-out call waits
// for the SDK to write its notifications/cancelled.
const cancelRecordWait = 200 * time.Millisecond

// ctxFailure is the verdict of a call that ended with ctx (the caller's)
// or cctx (with the deadline of deadlineMS, 0 for none) done: cancelled
// or timed out; otherwise f.
func ctxFailure(ctx, cctx context.Context, deadlineMS int, f *runner.HostError) *runner.HostError {
	switch {
	case ctx.Err() != nil:
		return &runner.HostError{Code: modproto.CodeCancelled, Detail: "the call was cancelled (notifications/cancelled sent to the server)"}
	case cctx.Err() != nil:
		return &runner.HostError{Code: modproto.CodeHostTimeout, Detail: deadlineDetail(deadlineMS)}
	}
	return f
}

// deadlineDetail says which limit a timed-out call passed and where it is
// set.
func deadlineDetail(ms int) string {
	return fmt.Sprintf("the call passed its deadline of %s (set with invoke --deadline, or deadline_ms in config.yaml); notifications/cancelled sent to the server",
		time.Duration(ms)*time.Millisecond)
}

// sessionFailure is the verdict of a request on s that failed with err: a
// JSON-RPC error as callFailure says; when the server's process exited
// meanwhile, CodeSessionFailed with its exit status and the stderr lines
// that explain it, of those written since mark (the call's start).
func (d *Driver) sessionFailure(ctx context.Context, s *session, err error, mark tailMark) *runner.HostError {
	if ctx.Err() != nil {
		// Cancelled or past its deadline (ctxFailure says which): waiting
		// for an exit would overrun it.
		return callFailure(err)
	}
	if s.proc != nil {
		if tl := cmpOr(s.proc.tooLong(), s.proc.tooDeep()); tl != nil {
			// The SDK dropped the session: end the server now, so the
			// next call starts it again rather than meet the dead one.
			_ = s.close()
			return tl
		}
		if status := s.proc.exitedEarly(); status != "" {
			if wb := s.proc.writeBound(); wb != nil {
				// Killed by the host for its writes: the bound, named, as a
				// module's run (docs/protocol.md §14).
				return &runner.HostError{Code: modproto.CodeHostWriteBound, Detail: wb.Error()}
			}
			return &runner.HostError{Code: CodeSessionFailed, Detail: exitFailure("before answering the call", status, d.stderr.Since(mark)).Error()}
		}
	}
	return callFailure(err)
}

// onStderr keeps the stderr tail of server process gen (a chunk of an
// earlier process is dropped) and reports each chunk to the calls in
// flight.
func (d *Driver) onStderr(gen int, chunk []byte) {
	d.mu.Lock()
	current := gen == d.gen
	d.mu.Unlock()
	if !current {
		return
	}
	d.stderr.Write(chunk)
	for _, f := range d.calls() {
		if f.call.Listening() {
			f.call.Emit(runner.Event{Stderr: slices.Clone(chunk)})
		}
	}
}

// calls is a copy of the calls in flight.
func (d *Driver) calls() []*inflight {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.inflight)
}

// latest is the call started last, nil when none is in flight: a
// server's request to the person (elicitation) or log line carries no
// call of its own, so it goes to the newest.
func (d *Driver) latest() *inflight {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.inflight) == 0 {
		return nil
	}
	return d.inflight[len(d.inflight)-1]
}

// maxStartStderr bounds the stderr a start or exit failure quotes, in
// runes.
const maxStartStderr = 300

// startFailure is the error of a stdio server that exited before
// answering initialize (exitFailure); a hint when it wrote nothing (an
// npx server without PATH, HOME, a cache or the network ends so;
// docs/mcp.md).
func startFailure(status, stderr string) error {
	return exitFailure("before answering initialize", status, stderr)
}

// hostTrees are the system trees a server's sandbox reads as they are
// (docs/containment.md): a refusal there is not a roots: entry to add.
var hostTrees = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/proc", "/sys", "/dev"}

// confinementHint names the config.yaml line to change when a stdio
// server's stderr says a path outside its sandbox was refused (EACCES,
// EPERM, EROFS: runner.RefusedOutside of its roots: and needs:): "likely
// refused by containment: P is outside mcp_servers.ID's roots: and
// needs: — add "DIR": rw under needs: (…) or roots: (…)". DIR is P when
// it is a directory, else its parent. "" when nothing fits. Paths are the
// server's text: sanitized here.
func confinementHint(id string, srv config.MCPServer, stderr string) string {
	dirs := append(slices.Collect(maps.Keys(srv.SandboxRoots())), hostTrees...)
	if filepath.IsAbs(srv.Command) {
		dirs = append(dirs, srv.Command) // a shell names its script first: "/x/server: 6: cannot create …"
	}
	paths := runner.RefusedOutside(stderr, dirs)
	if len(paths) == 0 {
		return ""
	}
	dir := paths[0]
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		dir = filepath.Dir(dir)
	}
	for i := range paths {
		paths[i] = render.SanitizeLine(paths[i])
	}
	verb := "is"
	if len(paths) > 1 {
		verb = "are"
	}
	return fmt.Sprintf("likely refused by containment: %s %s outside mcp_servers.%s's roots: and needs: in config.yaml; add %q: rw under its needs: (used only to start, never announced) or roots: (announced to the server as an MCP root)",
		strings.Join(paths, ", "), verb, render.SanitizeLine(id), render.SanitizeLine(dir))
}

// exitFailure says a stdio server exited (status) when, quoting the
// stderr lines that explain it (explainingLines), sanitized and bounded.
func exitFailure(when, status, stderr string) error {
	why := explainingLines(stderr)
	if r := []rune(why); len(r) > maxStartStderr {
		why = string(r[:maxStartStderr]) + "…"
	}
	if why == "" {
		return fmt.Errorf("the server exited (%s) %s, writing nothing to stderr: check its command, env (PATH, HOME) and network", status, when)
	}
	return fmt.Errorf("the server exited (%s) %s: %s", status, when, why)
}

// lastIndexFunc is the index of the last of s that f holds for, -1 when none.
func lastIndexFunc(s []string, f func(string) bool) int {
	for i := len(s) - 1; i >= 0; i-- {
		if f(s[i]) {
			return i
		}
	}
	return -1
}

// errorPrefixes start a stderr line that states an error, in lower case
// ("Error: no database", "ModuleNotFoundError: …", "panic: …").
var errorPrefixes = []string{"error", "panic:", "fatal", "uncaught", "exception"}

// errorWords mark a line that may state one when no line starts so.
var errorWords = []string{"error", "panic", "fatal", "exception", "cannot", "not found", "denied", "failed"}

// explainingLines picks from a crashed server's stderr the lines that
// explain it, joined with " · ": the last line stating the error (a node
// stack's "Error: …", Python's closing "…Error: …", Go's "panic: …"),
// then the last line when it differs (runtimes end with a version banner
// such as "Node.js v20.20.2" or a frame that says nothing alone).
// Sanitized, one line each.
func explainingLines(stderr string) string {
	var lines []string
	for _, l := range strings.Split(stderr, "\n") {
		if l = oneLine(render.SanitizeLine(l)); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	last := lines[len(lines)-1]
	states := func(l string) bool {
		low := strings.ToLower(l)
		word, _, ok := strings.Cut(low, ":")
		return ok && !strings.Contains(word, " ") && slices.ContainsFunc(errorPrefixes, func(p string) bool {
			return strings.HasPrefix(word, strings.TrimSuffix(p, ":")) || strings.HasSuffix(word, "error") || strings.HasSuffix(word, "exception")
		})
	}
	// The last such line, the nearest the exit (Python names the
	// exception last; a node or Go crash states it once).
	first := ""
	if i := lastIndexFunc(lines, states); i >= 0 {
		first = lines[i]
	} else if i := lastIndexFunc(lines, func(l string) bool {
		low := strings.ToLower(l)
		return slices.ContainsFunc(errorWords, func(w string) bool { return strings.Contains(low, w) })
	}); i >= 0 {
		first = lines[i]
	}
	switch {
	case first == "" || first == last:
		return last
	default:
		return first + " · " + last
	}
}

// cmpOr is the first of a, b that is not nil.
func cmpOr(a, b *runner.HostError) *runner.HostError {
	if a != nil {
		return a
	}
	return b
}
