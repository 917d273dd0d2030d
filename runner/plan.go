package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"modbay/modproto"
)

// rootWorkspace is the root every run gets, rw (docs/protocol.md §4).
const rootWorkspace = "workspace"

// isBundleRootName reports whether a read root name asks for the module's
// own directory (docs/protocol.md §4: "bundle" or ending in "_bundle").
func isBundleRootName(name string) bool {
	return name == "bundle" || strings.HasSuffix(name, "_bundle")
}

// plan builds the plan of one call (Host.Plan); opts.Handoff, when
// non-empty, is copied into fresh read-only roots of the run, and
// opts.SkipValidation leaves every check of the input against the request
// schema out, number findings included (PlanWith).
func (h *Host) plan(m *Module, capID string, input json.RawMessage, opts PlanOptions) (*Plan, error) {
	handoff := opts.Handoff
	if m == nil {
		return nil, errors.New("plan: no module")
	}
	switch {
	case m.Status == StatusDisabled:
		return nil, fmt.Errorf("%w: %s", ErrDisabled, m.ID)
	case m.Status == StatusBroken || m.Descriptor == nil:
		return nil, fmt.Errorf("%w: %s: %s", ErrBroken, m.ID, m.Reason)
	}
	d := m.Descriptor
	c := d.Capability(capID)
	if c == nil {
		return nil, fmt.Errorf("%w: module %s declares no capability %q", ErrUnknownCapability, m.ID, capID)
	}
	if why, ok := m.Refused[capID]; ok {
		return nil, &SchemaError{Schema: c.RequestSchema, Capability: capID, Err: errors.New(why), Unsatisfiable: true}
	}
	if len(input) == 0 {
		input = json.RawMessage(`{}`)
	}
	if why := modproto.JSONProblem(input); why != "" {
		return nil, fmt.Errorf("input for %s: %s", capID, why)
	}
	// Not Unicode text: the value decoded is not the bytes sent, so a
	// secret in it could not be recognised echoed back (docs/protocol.md §4).
	if why := modproto.UnicodeProblem(input); why != "" {
		return nil, &InputError{Schema: c.RequestSchema, Violations: modproto.ValidationErrors{{Path: "", Detail: why}}}
	}
	p := &Plan{Module: m, Capability: *c, Unchecked: opts.SkipValidation && c.RequestSchema != ""}
	req := modproto.Request{
		Protocol:       modproto.ProtocolID,
		Capability:     capID,
		RequestID:      modproto.NewRequestID(),
		Input:          input,
		DeadlineMS:     h.cfg.DeadlineMS,
		MaxOutputBytes: h.cfg.MaxOutputBytes,
	}
	if rl, ok := m.Driver.(ReplyLimiter); ok {
		req.MaxOutputBytes = rl.ReplyLimit(h.cfg.MaxOutputBytes)
	}
	if c.RequestSchema != "" {
		schema := d.RequestSchemas[c.RequestSchema]
		if !opts.SkipValidation {
			if err := validateRequest(opts.Context, c, schema, input); err != nil {
				return nil, err
			}
		}
		if modproto.IsWholeRequestSchema(schema) {
			in, extra, err := modproto.SplitWholeRequest(input)
			if err != nil {
				return nil, fmt.Errorf("whole-request input for %s must be a JSON object: %w", capID, err)
			}
			req.Input, req.Extra, p.WholeRequest = in, extra, true
		}
	}
	if err := checkHandoff(d, handoff); err != nil {
		return nil, err
	}
	roots, missingRoots, err := h.roots(m, handoffRoots(handoff))
	if err != nil {
		return nil, err
	}
	if len(handoff) > 0 {
		hr, placed, dir, err := h.makeHandoff(req.RequestID, handoff)
		if err != nil {
			return nil, err
		}
		maps.Copy(roots, hr)
		p.Handoff, p.handoffDir = placed, dir
	}
	// Roots are resolved and opened now; the run checks they still name
	// these directories and resolves artifacts beneath the handles.
	p.dirs, roots, err = h.openRoots(roots)
	if err == nil {
		err = h.checkStateRoots(m, roots)
	}
	if err != nil {
		removeHandoff(p.handoffDir)
		return nil, fmt.Errorf("plan %s: %w", capID, err)
	}
	req.Roots = roots
	bins, missingBins := h.binaries(d.Permissions.Subprocess)
	req.Binaries = bins
	p.Missing = append(missingRoots, missingBins...)
	req.Grants = h.grants(d, c, bins)
	req.Normalize()
	p.Request = req
	if sr, ok := m.Driver.(ServerRooted); ok {
		p.ServerRoots = map[string]modproto.Root{}
		for i, path := range slices.Sorted(maps.Keys(sr.ServerRoots())) {
			name := "server"
			if i > 0 {
				name = fmt.Sprintf("server%d", i+1)
			}
			p.ServerRoots[name] = modproto.Root{Path: path, Mode: sr.ServerRoots()[path]}
		}
	}
	var hints *ToolHints
	if hd, ok := m.Driver.(HintedDriver); ok && m.EffectsAreHints {
		if th, ok := hd.Hints(capID); ok {
			hints = &th
		}
	}
	p.Destructive = hints != nil && hints.Destructive != nil && *hints.Destructive && c.Effects.ExternalWrites
	if m.EffectsAreHints && c.Effects.Network && c.Effects.Local && len(d.Permissions.Network) == 0 {
		p.NoNetwork = "the tool may reach the network, but its server was started without it (no network: true in its mcp_servers entry in config.yaml): it runs without the network; add network: true to grant it"
	}
	covered, why, record := h.preApproved(m, c)
	if !covered {
		p.Approval = approvalReasons(d, c, req.Grants, m.EffectsAreHints, hints)
		if len(p.Approval) > 0 {
			p.AskedAgain = why
		}
	}
	p.approvedEffects = record
	return p, nil
}

// roots computes the roots of a run of m (docs/protocol.md §4): workspace rw always;
// bundle names the module directory ro; every other write name its state
// directory rw (created by openRoots); other read names only where the
// config maps them (ro). Paths are as configured, not yet resolved: the
// plan resolves and opens them (openRoots). A root the host cannot supply
// is absent and named in missing. The read names in handoff are left out:
// the run's handoff supplies them (makeHandoff).
func (h *Host) roots(m *Module, handoff map[string]bool) (map[string]modproto.Root, []string, error) {
	perms := m.Descriptor.Permissions
	roots := map[string]modproto.Root{}
	var missing []string
	ws, err := filepath.Abs(h.cfg.Workspace)
	if err != nil {
		return nil, nil, fmt.Errorf("workspace root: %w", err)
	}
	if why := h.workspaceProblem(ws); why != "" {
		return nil, nil, errors.New(why)
	}
	roots[rootWorkspace] = modproto.Root{Path: ws, Mode: modproto.RootReadWrite}
	for _, name := range perms.FilesystemWrite {
		if name == rootWorkspace || name == "" {
			continue
		}
		// Made and opened beneath the home, without symlinks, by openRoots;
		// StateDir refuses a key or name outside the grammar.
		p, err := h.cfg.StateDir(m.StateKey, name)
		if err != nil {
			return nil, nil, fmt.Errorf("write root %s: %w", name, err)
		}
		roots[name] = modproto.Root{Path: p, Mode: modproto.RootReadWrite}
	}
	for _, name := range perms.FilesystemRead {
		if _, done := roots[name]; done || name == "" || handoff[name] {
			continue // a name both read and written is rw
		}
		switch {
		case isBundleRootName(name) && h.ownDir(m.Exe, m.Dir) == "":
			// A loose executable (a bare one in <home>/modules, one in /tmp)
			// has no bundle directory of its own; its folder holds others'.
			missing = append(missing, fmt.Sprintf("read root %s (a loose executable has no bundle directory: docs/protocol.md §13)", name))
		case isBundleRootName(name):
			roots[name] = modproto.Root{Path: canonical(m.Dir), Mode: modproto.RootReadOnly}
		case h.cfg.Roots[name] != "":
			p := h.cfg.Roots[name]
			if !filepath.IsAbs(p) {
				p = filepath.Join(h.cfg.Home, p)
			}
			if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
				missing = append(missing, fmt.Sprintf("read root %s (configured path %s is not a directory)", name, p))
				continue
			}
			roots[name] = modproto.Root{Path: canonical(p), Mode: modproto.RootReadOnly}
		default:
			missing = append(missing, fmt.Sprintf("read root %s (not mapped in the config's roots)", name))
		}
	}
	return roots, missing, nil
}

// hostFolders are the home's folders that hold what the host keeps for
// itself (docs/protocol.md §13): no workspace may lie in one.
var hostFolders = []string{"state", "requests", "inputs", "cache", "history", "handoff", "artifacts", "modules", "examples", "tmp", "jobs"}

// workspaceProblem says why ws, as resolved, cannot be the workspace every
// run gets read-write (docs/protocol.md §13), "" when it can: a workspace
// that is or holds the home would let any module, unasked, rewrite the
// host's config (sandbox: off), modules, history and approvals; one inside
// a host folder (modules, history…) would let it rewrite that.
func (h *Host) workspaceProblem(ws string) string {
	realWS, realHome := canonical(ws), canonical(h.cfg.Home)
	if within(realWS, realHome) {
		return fmt.Sprintf("the workspace %s holds the modbay home %s: every module could rewrite the home's config.yaml, modules and approvals (docs/protocol.md §13); choose a workspace outside the home, or the home's own workspace/", ws, h.cfg.Home)
	}
	if within(realHome, realWS) {
		rel, _ := filepath.Rel(realHome, realWS)
		first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		if slices.Contains(hostFolders, first) {
			return fmt.Sprintf("the workspace %s is inside the home's %s/, which the host keeps for itself (docs/protocol.md §13); choose a workspace outside it", ws, first)
		}
	}
	return ""
}

// checkStateRoots refuses a run whose state roots, as resolved, are not
// where docs/protocol.md §13 puts them: each write root but workspace at
// <home>/state/<state key>/<name>, the home's symlinks resolved. The
// grammar keeps them there; this says so before anything runs, so no
// record of a run calls its containment complete over a root elsewhere.
func (h *Host) checkStateRoots(m *Module, roots map[string]modproto.Root) error {
	base := filepath.Join(canonical(h.cfg.Home), "state", m.StateKey)
	for _, name := range m.Descriptor.Permissions.FilesystemWrite {
		r, ok := roots[name]
		if name == rootWorkspace || !ok || r.Mode != modproto.RootReadWrite {
			continue
		}
		if want := filepath.Join(base, name); r.Path != want {
			return fmt.Errorf("write root %s resolved to %s, not %s (docs/protocol.md §13); refused", name, r.Path, want)
		}
	}
	return nil
}

// canonical is p absolute, clean and with symlinks resolved when it exists.
func canonical(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

// binaries resolves each declared subprocess name (docs/protocol.md §4) with
// resolveBinary. Unresolved names are absent and listed in missing.
func (h *Host) binaries(names []string) (map[string]string, []string) {
	out := map[string]string{}
	var missing []string
	for _, name := range names {
		if name == "" {
			continue
		}
		if p, _, problem := h.resolveBinary(name); p != "" {
			out[name] = p
		} else {
			missing = append(missing, fmt.Sprintf("binary %s (%s)", name, problem))
		}
	}
	return out, missing
}

// Where resolveBinary found a binary (shown after its path).
const (
	BinaryViaConfig = "config binaries"
	BinaryViaPATH   = "PATH"
)

// resolveBinary resolves one declared subprocess name (docs/protocol.md §4, §9):
// the config's binaries map first, then the host's PATH, to the absolute
// path of an executable file. It returns the path and where it was found
// (BinaryViaConfig or BinaryViaPATH), or "" and why not.
func (h *Host) resolveBinary(name string) (path, via, problem string) {
	if p := h.cfg.Binaries[name]; p != "" {
		if filepath.IsAbs(p) && isExecutableFile(p) {
			return filepath.Clean(p), BinaryViaConfig, ""
		}
		return "", "", fmt.Sprintf("configured path %s is not an absolute executable", p)
	}
	if strings.ContainsAny(name, `/\`) {
		return "", "", "a declared name, not a path, is looked up on PATH"
	}
	p, err := exec.LookPath(name)
	if err == nil {
		p, err = filepath.Abs(p)
	}
	if err != nil {
		return "", "", "not in the config's binaries nor on PATH"
	}
	return p, BinaryViaPATH, ""
}

// grants computes what a run of c gets if approved: declared ∩ policy
// (docs/protocol.md §4). Network hosts only when c declares network; paid providers
// only when c's provider is one of them or "varies"; credentials as the
// policy lists them; publish when the policy allows it; subprocess names
// that resolved.
func (h *Host) grants(d *modproto.Descriptor, c *modproto.Capability, bins map[string]string) modproto.Grants {
	pol := h.cfg.Policy
	perms := d.Permissions
	g := modproto.Grants{}
	if c.Effects.Network && !pol.DenyNetwork {
		g.Network = slices.Clone(perms.Network)
	}
	if !pol.DenyPaidProviders {
		for _, p := range perms.PaidProviders {
			if c.Effects.Provider == p || c.Effects.Provider == "varies" {
				g.PaidProviders = append(g.PaidProviders, p)
			}
		}
	}
	for _, cr := range perms.Credentials {
		if slices.Contains(pol.Credentials, cr) {
			g.Credentials = append(g.Credentials, cr)
		}
	}
	g.Publish = perms.Publish && pol.Publish
	for _, name := range perms.Subprocess {
		if _, ok := bins[name]; ok && !slices.Contains(g.Subprocess, name) {
			g.Subprocess = append(g.Subprocess, name)
		}
	}
	g.Normalize()
	return g
}

// approvalReasons lists why a call of c needs a person's approval
// (docs/protocol.md §11), one human reason each; empty means none. hints is
// Module.EffectsAreHints: the effects come from an MCP server's tool
// annotations, so an unknown cost alone does not ask (docs/protocol.md §11, MCP
// tools) and each reason names the hint it rests on and says it is the
// server's.
func approvalReasons(d *modproto.Descriptor, c *modproto.Capability, g modproto.Grants, hints bool, given *ToolHints) []string {
	var r []string
	e := c.Effects
	if given == nil {
		given = &ToolHints{}
	}
	// A hint the server gave is told apart from MCP's default for one
	// it left out.
	said := func(name string, v *bool, def string) string {
		if v == nil {
			return "no " + name + " given: MCP's default is " + def
		}
		return fmt.Sprintf("the server's %s: %v", name, *v)
	}
	const notGuarantees = "; annotations are the server's hints, not guarantees"
	switch {
	case e.Network && hints && e.Local && len(d.Permissions.Network) == 0:
		// A stdio server started without the network cannot reach it:
		// nothing to approve (Plan.NoNetwork says how to grant it).
	case e.Network && hints:
		r = append(r, "may reach the network ("+said("openWorldHint", given.OpenWorld, "open world")+notGuarantees+")")
	case e.Network:
		r = append(r, "reaches the network")
	}
	switch {
	case e.ExternalWrites && hints && given.Destructive != nil && *given.Destructive:
		r = append(r, "may delete or overwrite data (the server's destructiveHint: true; "+said("readOnlyHint", given.ReadOnly, "not read-only")+notGuarantees+")")
	case e.ExternalWrites && hints && given.Destructive != nil:
		r = append(r, "may write outside, adding only (the server's destructiveHint: false; "+said("readOnlyHint", given.ReadOnly, "not read-only")+notGuarantees+")")
	case e.ExternalWrites && hints:
		r = append(r, "may write outside ("+said("readOnlyHint", given.ReadOnly, "not read-only")+"; no destructiveHint given: MCP's default is destructive"+notGuarantees+")")
	case e.ExternalWrites:
		r = append(r, "writes outside (external_writes)")
	}
	if e.Provider != "" && slices.Contains(d.Permissions.PaidProviders, e.Provider) {
		r = append(r, "uses paid provider "+e.Provider)
	} else if len(g.PaidProviders) > 0 {
		r = append(r, "may use paid providers "+strings.Join(g.PaidProviders, ", "))
	}
	if !e.CostKnown && !hints {
		r = append(r, "cost unknown before running")
	}
	if len(g.Credentials) > 0 {
		r = append(r, "would be granted credentials "+strings.Join(g.Credentials, ", "))
	}
	if d.Permissions.Publish {
		r = append(r, "may publish")
	}
	return r
}
