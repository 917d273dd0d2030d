package gateway

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/config"
	"modbay/history"
	mcpsrc "modbay/mcp"
	"modbay/render"
	"modbay/runner"
	"modbay/skills"
)

// Defaults of a serve process (docs/gateway.md).
const (
	// DefaultMaxConcurrent bounds the calls one serve process runs at
	// once when mcp_serve.max_concurrent is 0.
	DefaultMaxConcurrent = 8
	// DefaultFollow is how long a call follows a long-running job with
	// progress before it returns the job's handle (docs/protocol.md §12).
	DefaultFollow = 30 * time.Second
	// refreshDebounce gathers a burst of changes to the home (an install
	// writes many files) into one catalogue refresh.
	refreshDebounce = 500 * time.Millisecond
	// maxClientName bounds the client's declared name as recorded.
	maxClientName = 64
)

// Options configure a Server.
type Options struct {
	// Host runs the calls; its config's mcp_serve: section is the
	// default of the fields below.
	Host *runner.Host
	// History records every call; nil records nothing.
	History *history.Store
	// Tools and Exclude are glob patterns over tool names and ids
	// (config mcp_serve.tools / exclude when nil).
	Tools, Exclude []string
	// ApproveByElicitation lets a client that supports elicitation
	// answer approval questions (docs/gateway.md "Approvals").
	ApproveByElicitation bool
	// MaxConcurrent bounds the calls run at once (0: DefaultMaxConcurrent).
	MaxConcurrent int
	// Follow is how long a call follows a job (0: DefaultFollow).
	Follow time.Duration
	// Version is modbay's version, told to clients.
	Version string
	// Discover lists the modules to serve; nil: the current host's
	// Discover.
	Discover func(context.Context) []*runner.Module
	// Reload, if non-nil, builds the host again from config.yaml as it now
	// is; it is called when the file changes (a config that does not load
	// keeps the current host).
	Reload func() (*runner.Host, error)
	// Pins, when non-nil, pins each tool's definition the first time it
	// is served and withholds a changed one until a person accepts it
	// (docs/gateway.md "Tool pinning").
	Pins *Pins
	// Cockpits, when not "", is the folder of the home's cockpits'
	// approval sockets (<home>/serve/cockpits): a call that needs
	// approval asks them first (docs/gateway.md "Approvals in the cockpit").
	Cockpits string
	// ApprovalWait and ApprovalKeep bound a cockpit approval (0:
	// DefaultApprovalWait, DefaultApprovalKeep).
	ApprovalWait, ApprovalKeep time.Duration
	// SkillFolders are the skill folders offered as prompts and resources
	// (docs/gateway.md "Skills"); a skill inside one of
	// SkillWritableRoots may have been written by a module and is still offered,
	// as `modbay skills` lists it.
	SkillFolders       []skills.Folder
	SkillWritableRoots []string
	// Sessions, when not "", is where this process lists its live
	// sessions for the cockpit (<home>/serve/sessions).
	Sessions string
}

// Server is one `modbay mcp serve` process's MCP server.
type Server struct {
	opts Options
	srv  *mcp.Server
	sem  chan struct{}

	hostMu sync.Mutex
	cur    *runner.Host

	// refreshMu serializes Refresh (the watcher's, a call's after an edit).
	refreshMu sync.Mutex
	// watcher, while watching, also watches each served module's own
	// folder (watchModules); nil otherwise (guarded by refreshMu).
	watcher *fsnotify.Watcher
	// servers are the proxied MCP servers' drivers watched for their own
	// tools/list_changed (watchServers), each with its stop (refreshMu).
	servers map[*mcpsrc.Driver]func()
	// soon is the pending refresh a server's list_changed asked for.
	soonMu sync.Mutex
	soon   *time.Timer

	mu    sync.Mutex
	tools map[string]*entry
	// withheld maps a tool name to why it is not served (its definition
	// changed since it was pinned); its calls are refused with that.
	withheld map[string]withheldTool
	// refusals bounds the records of calls refused before planning.
	refusals refusals
	// asks are the questions asked of the cockpits, by call (callKey).
	asks map[string]*ask
	// prompts and resources are the skills offered, by prompt name and URI.
	prompts, resources map[string]offered
	// servedPrompts and servedResources are their definitions as served
	// (JSON), so a refresh adds and removes only what changed (refreshMu).
	servedPrompts, servedResources map[string]string
	// transport is "stdio" or "http", as the sessions are listed; pubMu
	// serializes their publication; pubDue is set while a coalesced
	// publication (sessionsChanged) waits to be written.
	transport string
	pubMu     sync.Mutex
	pubDue    atomic.Bool
	sessions  map[*mcp.ServerSession]*session

	// runs counts calls in flight; base is cancelled when Run ends, which
	// kills each plain run's tree and stops following each job.
	runs   sync.WaitGroup
	base   context.Context
	cancel context.CancelFunc
	// eof ends when standard input closed (Server.Stdio): calls stop
	// following their jobs and answer with the handle.
	eof    context.Context
	eofEnd context.CancelFunc
}

// New builds a Server from opts, falling back to the config's mcp_serve:.
func New(opts Options) *Server {
	cfg := opts.Host.Config().MCPServe
	if opts.Tools == nil {
		opts.Tools = cfg.Tools
	}
	if opts.Exclude == nil {
		opts.Exclude = cfg.Exclude
	}
	opts.ApproveByElicitation = opts.ApproveByElicitation || cfg.ApproveByElicitation
	if opts.MaxConcurrent == 0 {
		opts.MaxConcurrent = cfg.MaxConcurrent
	}
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = DefaultMaxConcurrent
	}
	if opts.Follow <= 0 {
		opts.Follow = DefaultFollow
	}
	if opts.ApprovalWait <= 0 {
		opts.ApprovalWait = DefaultApprovalWait
	}
	if opts.ApprovalKeep <= 0 {
		opts.ApprovalKeep = DefaultApprovalKeep
	}
	s := &Server{opts: opts, sem: make(chan struct{}, opts.MaxConcurrent), tools: map[string]*entry{}, asks: map[string]*ask{},
		sessions: map[*mcp.ServerSession]*session{}, cur: opts.Host}
	if s.opts.Discover == nil {
		s.opts.Discover = func(ctx context.Context) []*runner.Module { return s.host().Discover(ctx) }
	}
	s.base, s.cancel = context.WithCancel(context.Background())
	s.eof, s.eofEnd = context.WithCancel(context.Background())
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "modbay", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: "modbay runs each tool's module contained, asks before effects that need approval, and records every call in its history.",
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}, Resources: &mcp.ResourceCapabilities{ListChanged: true},
			Logging: &mcp.LoggingCapabilities{},
			Prompts: &mcp.PromptCapabilities{ListChanged: true}},
	})
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{Name: "artifact", URITemplate: "modbay://runs/{run}/{artifact}",
		Description: "An artifact of a call this session made (verified and staged by modbay)."}, s.readResource)
	s.srv.AddReceivingMiddleware(s.refuseWithheld)
	s.addJobTools()
	return s
}

// host is the host calls run on: Options.Host, or the last Reload's.
func (s *Server) host() *runner.Host {
	s.hostMu.Lock()
	defer s.hostMu.Unlock()
	return s.cur
}

// reload replaces the host with Options.Reload's, when it gives one.
func (s *Server) reload() {
	if s.opts.Reload == nil {
		return
	}
	h, err := s.opts.Reload()
	if err != nil || h == nil {
		return // the current host stays; modbay list says what is wrong
	}
	s.hostMu.Lock()
	s.cur = h
	s.hostMu.Unlock()
}

// MCP is the underlying SDK server (tests connect to it in memory).
func (s *Server) MCP() *mcp.Server { return s.srv }

// Refresh discovers the modules again and replaces the served tools:
// removed and changed tools go, new ones come; the SDK tells connected
// clients the list changed.
func (s *Server) Refresh(ctx context.Context) {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	mods := s.opts.Discover(ctx)
	s.watchModules(mods)
	s.watchServers(mods)
	s.refreshSkills(mods)
	next := catalogue(mods, s.opts.Tools, s.opts.Exclude)
	withheld := s.pin(next)
	s.publishCatalogue(next, withheld)
	s.mu.Lock()
	s.withheld = withheld
	var gone []string
	for name, old := range s.tools {
		if n, ok := next[name]; !ok || !sameTool(old, n) {
			gone = append(gone, name)
		}
	}
	var added []*entry
	for name, n := range next {
		if old, ok := s.tools[name]; !ok || !sameTool(old, n) {
			added = append(added, n)
		}
	}
	s.tools = next
	s.mu.Unlock()
	if len(gone) > 0 {
		s.srv.RemoveTools(gone...)
	}
	for _, e := range added {
		s.srv.AddTool(e.tool, s.handler(e.tool.Name))
	}
}

// sameTool reports whether two entries would be served alike.
func sameTool(a, b *entry) bool {
	if a.module.Fingerprint != b.module.Fingerprint || a.module.Key != b.module.Key {
		return false
	}
	x, _ := jsonOf(a.tool)
	y, _ := jsonOf(b.tool)
	return x == y
}

// lookup is the entry served under name.
func (s *Server) lookup(name string) *entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools[name]
}

// Run serves t until the client goes (stdin closes) or ctx ends; then
// every run it started is killed, or left as a followed job, and
// recorded, before Run returns. watch, when true, refreshes the tools
// when the home's modules or config.yaml change.
func (s *Server) Run(ctx context.Context, t mcp.Transport, watch bool) error {
	s.transport = "stdio"
	s.Refresh(ctx)
	if watch {
		stop := s.watch(ctx)
		defer stop()
	}
	// ctx ending (SIGTERM) stops every call at once: the SDK waits for the
	// calls in flight before Run returns.
	stop := context.AfterFunc(ctx, s.cancel)
	defer stop()
	err := s.srv.Run(ctx, t)
	s.Shutdown()
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}

// Shutdown cancels every call in flight and waits until each is recorded.
func (s *Server) Shutdown() {
	s.cancel()
	s.refreshMu.Lock()
	for _, stop := range s.servers {
		stop()
	}
	s.servers = nil
	s.refreshMu.Unlock()
	s.soonMu.Lock()
	if s.soon != nil {
		s.soon.Stop()
	}
	s.soonMu.Unlock()
	s.runs.Wait()
	s.flushRefusals()
	s.publishSessions() // removes this process's file
	s.unpublishCatalogue()
}

// watch refreshes the catalogue, debounced, when <home>/modules, a
// module's own folder (watchModules) or config.yaml changes (the host is built
// again from a changed config.yaml, Options.Reload); the returned function
// stops watching. A home that cannot be watched is served as listed.
func (s *Server) watch(ctx context.Context) func() {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return func() {}
	}
	cfg := s.host().Config()
	configFile := filepath.Join(cfg.Home, config.FileName)
	_ = w.Add(cfg.Home)
	_ = w.Add(cfg.ModulesDir())
	if s.opts.Pins != nil { // an accepted pin serves its tool again
		_ = os.MkdirAll(s.opts.Pins.dir, 0o700)
		_ = w.Add(s.opts.Pins.dir)
	}
	s.refreshMu.Lock()
	s.watcher = w
	var mods []*runner.Module
	s.mu.Lock()
	for _, e := range s.tools {
		mods = append(mods, e.module)
	}
	s.mu.Unlock()
	s.watchModules(mods)
	s.refreshMu.Unlock()
	done := make(chan struct{})
	go func() {
		var timer <-chan time.Time
		reload := false
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if filepath.Dir(ev.Name) == cfg.ModulesDir() && ev.Op&fsnotify.Create != 0 {
					_ = w.Add(ev.Name) // a new module's directory: watch its files too
				}
				reload = reload || ev.Name == configFile
				timer = time.After(refreshDebounce)
			case <-w.Errors:
			case <-timer:
				timer = nil
				if reload {
					reload = false
					s.reload()
				}
				s.Refresh(ctx)
			}
		}
	}()
	return func() {
		close(done)
		s.refreshMu.Lock()
		s.watcher = nil
		s.refreshMu.Unlock()
		w.Close()
	}
}

// watchServers watches each proxied MCP server's driver: the server's own
// notifications/tools/list_changed refreshes the catalogue (debounced),
// and the client gets the gateway's list_changed when a tool it serves
// came, went or changed. The caller holds refreshMu.
func (s *Server) watchServers(mods []*runner.Module) {
	for _, m := range mods {
		d, ok := m.Driver.(*mcpsrc.Driver)
		if !ok || s.servers[d] != nil {
			continue
		}
		if s.servers == nil {
			s.servers = map[*mcpsrc.Driver]func(){}
		}
		s.servers[d] = d.Watch(func(c runner.Change) {
			if c.Kind == runner.ChangeTools {
				s.refreshSoon()
			}
		})
	}
}

// refreshSoon refreshes the catalogue refreshDebounce after the last
// call, unless serve has ended.
func (s *Server) refreshSoon() {
	s.soonMu.Lock()
	defer s.soonMu.Unlock()
	if s.base.Err() != nil {
		return
	}
	if s.soon != nil {
		s.soon.Stop()
	}
	s.soon = time.AfterFunc(refreshDebounce, func() {
		if s.base.Err() == nil {
			s.Refresh(s.base)
		}
	})
}

// watchModules adds each module's own folder (<id>/<id>: an installed
// module's, a path-loaded one's) to the watcher, so an edit in place of
// its executable or of a file beside it refreshes the catalogue; a loose
// executable's folder (shared with others) is not watched: its edit is
// seen at its next call (refuseWithheld). The caller holds refreshMu.
func (s *Server) watchModules(mods []*runner.Module) {
	if s.watcher == nil {
		return
	}
	for _, m := range mods {
		if m.Exe != "" && m.Dir != "" && filepath.Dir(m.Exe) == m.Dir && filepath.Base(m.Dir) == filepath.Base(m.Exe) {
			_ = s.watcher.Add(m.Dir) // adding a watched folder again is a no-op
		}
	}
}

// session is what one client's session holds: its name, its approvals
// and the artifacts its calls returned.
type session struct {
	client    string
	since     time.Time
	approvals runner.SessionApprovals
	mu        sync.Mutex
	// artifacts maps "modbay://runs/<run>/<artifact>" to the artifact.
	artifacts map[string]runner.VerifiedArtifact
	// pending maps a multi-round-trip approval's request state to the
	// call it asked about (docs/gateway.md "Approvals").
	pending map[string]string
	// jobs are the runs of this session that returned a job handle: the
	// ones the modbay_job_* tools may follow.
	jobs map[string]bool
	// spent is the known cost of this session's calls (guarded by mu);
	// lastCost the last known cost of each capability called (costKey).
	spent    float64
	lastCost map[string]float64
	// calls counts its tool calls, running those in flight and notRun
	// those answered with nothing run: refused, or not approved (mu).
	calls, running, notRun int
}

// maxLastCosts bounds the capabilities whose last cost a session keeps.
const maxLastCosts = 256

// costKey names a capability in session.lastCost.
func costKey(e *entry) string { return e.module.Key + "\x00" + e.cap.ID }

// spend adds res's known cost (actual, else estimated) to the session's,
// and keeps it as the last cost of e's capability.
func (st *session) spend(e *entry, res *runner.Result) {
	if res == nil || res.Envelope == nil {
		return
	}
	x := res.Envelope.Execution
	c := x.ActualCost
	if c == nil {
		c = x.EstimatedCost
	}
	if c == nil || *c < 0 {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.spent += *c
	if st.lastCost == nil || len(st.lastCost) >= maxLastCosts {
		st.lastCost = map[string]float64{}
	}
	st.lastCost[costKey(e)] = *c
}

// overCeiling is why a call of e needs a person's approval for want of
// budget — the call may cost (a provider, or a cost unknown before
// running) and this session's known spend reached
// mcp_serve.max_cost_per_session, or would cross it if the call costs
// what the same capability's last call in this session cost — or "".
func (s *Server) overCeiling(st *session, e *entry) string {
	ceiling := s.host().Config().MCPServe.MaxCostPerSession
	if ceiling <= 0 {
		return ""
	}
	if fx := e.cap.Effects; fx.Provider == "" && fx.CostKnown {
		return "" // local, with its cost reported: nothing to spend
	}
	st.mu.Lock()
	spent := st.spent
	last, known := st.lastCost[costKey(e)]
	st.mu.Unlock()
	switch {
	case spent >= ceiling:
		return fmt.Sprintf("this agent session reached its spending ceiling (mcp_serve.max_cost_per_session: %g)", ceiling)
	case known && spent+last > ceiling:
		return fmt.Sprintf("this call would cross this agent session's spending ceiling (mcp_serve.max_cost_per_session: %g): %g spent, and its last call in this session cost %g", ceiling, spent, last)
	}
	return ""
}

// sessionOf is ss's session state, made on first use.
func (s *Server) sessionOf(ss *mcp.ServerSession) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.sessions[ss]
	if st == nil {
		st = &session{artifacts: map[string]runner.VerifiedArtifact{}, pending: map[string]string{}, jobs: map[string]bool{}, since: time.Now()}
		st.client = "unknown client"
		if ip := ss.InitializeParams(); ip != nil && ip.ClientInfo != nil && ip.ClientInfo.Name != "" {
			st.client = clientName(ip.ClientInfo.Name)
		}
		s.sessions[ss] = st
		go func() { // the session's state goes with it
			_ = ss.Wait()
			s.mu.Lock()
			delete(s.sessions, ss)
			s.mu.Unlock()
			s.publishSessions()
		}()
		defer func() { go s.publishSessions() }()
	}
	return st
}

// clientName is a client's declared name as recorded: one sanitized line
// of at most maxClientName bytes.
func clientName(n string) string {
	n = render.SanitizeLine(n)
	if len(n) > maxClientName {
		n = n[:maxClientName]
	}
	for len(n) > 0 && !validUTF8(n) {
		n = n[:len(n)-1]
	}
	return n
}
