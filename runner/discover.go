package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"modbay/modproto"
)

// Module origins (Module.Origin).
const (
	OriginHome   = "home"
	OriginConfig = "config"
	OriginFlag   = "flag"
	// OriginExamples marks the built-in example modules (never cached).
	OriginExamples = "examples"
)

// disabledMarker is the file that disables a module dir (WIRE.md §2).
const disabledMarker = ".disabled"

// candidate is an executable that may be a module, before describing it.
type candidate struct {
	// id is the id the module must claim (the directory id or a bare
	// executable's name); "" for extras, whose descriptor decides.
	id       string
	exe      string
	dir      string
	origin   string
	disabled bool
	// err, when set, makes the candidate broken without running it.
	err string
}

// discover lists, describes and claims every candidate, sorted by ID.
func (h *Host) discover(ctx context.Context) []*Module {
	return sortModules(h.discoverOrdered(ctx, nil))
}

// sortModules returns mods sorted by ID, then executable.
func sortModules(mods []*Module) []*Module {
	sorted := slices.Clone(mods)
	slices.SortStableFunc(sorted, func(a, b *Module) int {
		if c := strings.Compare(a.ID, b.ID); c != 0 {
			return c
		}
		return strings.Compare(a.Exe, b.Exe)
	})
	return sorted
}

// discoverOrdered describes every candidate in parallel (bounded) and
// returns them in claim order: the home's modules by name, then
// cfg.Modules, then --module paths. The first module to claim an id keeps
// it; a later one is broken (WIRE.md §2). done is describeAll's.
func (h *Host) discoverOrdered(ctx context.Context, done func(int, *Module)) []*Module {
	cands := h.candidates()
	return claimIDs(cands, h.describeAll(ctx, cands, done))
}

// describeParallel bounds the describes run at once: the CPU count, but at
// least minDescribeParallel, since a describe mostly waits on its process
// and one that hangs (up to DescribeTimeout) must not hold back the rest.
func describeParallel() int { return max(runtime.NumCPU(), minDescribeParallel) }

// minDescribeParallel is the fewest describes run at once (see
// describeParallel).
const minDescribeParallel = 4

// describeAll describes cands in parallel, in candidate order. done, when
// set, is called with each candidate's index and module as its describe
// finishes, from the goroutine that ran it.
func (h *Host) describeAll(ctx context.Context, cands []candidate, done func(int, *Module)) []*Module {
	mods := make([]*Module, len(cands))
	sem := make(chan struct{}, describeParallel())
	var wg sync.WaitGroup
	for i, c := range cands {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			mods[i] = h.describe(ctx, c, true)
			if done != nil {
				done(i, mods[i])
			}
		}()
	}
	wg.Wait()
	return mods
}

// claimIDs applies the id claims to mods, described from cands in claim
// order: the first module to claim an id keeps it; a later one is broken
// (WIRE.md §2). An extra without a descriptor claims nothing.
func claimIDs(cands []candidate, mods []*Module) []*Module {
	claimed := map[string]string{}
	for i, m := range mods {
		if cands[i].origin != OriginHome && m.Descriptor == nil {
			continue // nothing was claimed: the descriptor decides an extra's id
		}
		if by, dup := claimed[m.ID]; dup {
			m.Status = StatusBroken
			m.Reason = fmt.Sprintf("id %q already claimed by %s", m.ID, by)
			continue
		}
		claimed[m.ID] = m.Exe
	}
	return mods
}

// candidates lists the home's modules (sorted by name), then the
// configured extras, then the --module paths, each executable once.
func (h *Host) candidates() []candidate {
	var out []candidate
	seen := map[string]bool{}
	add := func(c candidate) {
		if seen[c.exe] {
			return
		}
		seen[c.exe] = true
		out = append(out, c)
	}
	dir := h.cfg.ModulesDir()
	entries, _ := os.ReadDir(dir) // a missing modules dir holds no modules
	for _, e := range entries {
		if c, ok := homeCandidate(dir, e.Name()); ok {
			add(c)
		}
	}
	for _, p := range h.cfg.Modules {
		add(extraCandidate(p, OriginConfig, h.cfg.Home))
	}
	h.mu.Lock()
	flags := slices.Clone(h.flagModules)
	exampleDirs := slices.Clone(h.exampleModules)
	h.mu.Unlock()
	for _, p := range flags {
		add(extraCandidate(p, OriginFlag, ""))
	}
	for _, p := range exampleDirs {
		add(extraCandidate(p, OriginExamples, ""))
	}
	return out
}

// homeCandidate checks <modules>/<name>: a directory holding an executable
// <name>/<name>, or a bare executable. Dot-names are skipped.
func homeCandidate(modulesDir, name string) (candidate, bool) {
	if name == "" || strings.HasPrefix(name, ".") {
		return candidate{}, false
	}
	p := filepath.Join(modulesDir, name)
	fi, err := os.Stat(p)
	if err != nil {
		return candidate{}, false
	}
	if fi.IsDir() {
		exe := filepath.Join(p, name)
		if !isExecutableFile(exe) {
			return candidate{}, false
		}
		return candidate{id: name, exe: exe, dir: p, origin: OriginHome, disabled: exists(filepath.Join(p, disabledMarker))}, true
	}
	if isExecutableFile(p) {
		return candidate{id: name, exe: p, dir: modulesDir, origin: OriginHome}, true
	}
	return candidate{}, false
}

// extraCandidate makes a candidate of a configured or --module path: an
// executable, or a module directory holding <dir>/<basename>. Relative
// paths are resolved against base (the home for config entries) or the
// working directory.
func extraCandidate(path, origin, base string) candidate {
	p := path
	if !filepath.IsAbs(p) && base != "" {
		p = filepath.Join(base, p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return candidate{exe: path, dir: filepath.Dir(path), origin: origin, err: err.Error()}
	}
	c := candidate{exe: abs, dir: filepath.Dir(abs), origin: origin}
	fi, err := os.Stat(abs)
	if err != nil {
		c.err = fmt.Sprintf("module path %s: %v", abs, err)
		return c
	}
	if fi.IsDir() {
		c.dir = abs
		c.exe = filepath.Join(abs, filepath.Base(abs))
		c.disabled = exists(filepath.Join(abs, disabledMarker))
	}
	if !isExecutableFile(c.exe) {
		c.err = fmt.Sprintf("module path %s is not an executable regular file", c.exe)
	}
	return c
}

// isExecutableFile reports whether p is a regular file with an execute bit,
// following a symlink only to a regular file (WIRE.md §2).
func isExecutableFile(p string) bool {
	fi, err := os.Stat(p) // follows symlinks: the target must be regular
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// load finds one module by id or path.
func (h *Host) load(ctx context.Context, ref string) (*Module, error) {
	if ref == "" {
		return nil, fmt.Errorf("%w: empty module reference", ErrNotFound)
	}
	if strings.ContainsRune(ref, filepath.Separator) {
		c := extraCandidate(ref, OriginFlag, "")
		if c.err != "" && !exists(c.exe) {
			return nil, fmt.Errorf("%w: %s", ErrNotFound, c.err)
		}
		return h.describe(ctx, c, true), nil
	}
	if c, ok := homeCandidate(h.cfg.ModulesDir(), ref); ok {
		return h.describe(ctx, c, true), nil
	}
	for _, m := range h.discoverOrdered(ctx, nil) {
		if m.ID == ref {
			return m, nil
		}
	}
	return nil, fmt.Errorf("%w: no module %q in %s or the configured extras", ErrNotFound, ref, h.cfg.ModulesDir())
}

// Redescribe describes m's executable again, bypassing the describe cache
// (WIRE.md §2 modbay) and refreshing its entry, and returns a fresh Module. Use it after a person
// fixed a requirement: the cache is keyed on the executable, and a
// module's own probes can change without it.
func (h *Host) Redescribe(ctx context.Context, m *Module) *Module {
	c := candidate{exe: m.Exe, dir: m.Dir, origin: m.Origin}
	if m.Origin == OriginHome {
		c.id = m.ID
		c.disabled = exists(filepath.Join(m.Dir, disabledMarker)) && m.Dir != h.cfg.ModulesDir()
	} else if fi, err := os.Stat(m.Dir); err == nil && fi.IsDir() && filepath.Base(m.Dir) == filepath.Base(m.Exe) {
		c.disabled = exists(filepath.Join(m.Dir, disabledMarker))
	}
	return h.describe(ctx, c, false)
}

// errNotCacheable stands for the identity of an executable whose describe
// is never cached (the examples).
var errNotCacheable = errors.New("describe not cached")

// describe runs (or, when useCache, reads from the cache) `module describe
// --json` for c and judges the answer (WIRE.md §2, §6, §9). A describe that
// passed is written to the cache either way.
func (h *Host) describe(ctx context.Context, c candidate, useCache bool) *Module {
	m := &Module{ID: c.id, Exe: c.exe, Dir: c.dir, Origin: c.origin}
	if m.ID == "" {
		m.ID = filepath.Base(c.exe)
	}
	defer func() {
		if c.disabled {
			if m.Status == StatusBroken {
				m.Warnings = append(m.Warnings, "describe: "+m.Reason)
			}
			m.Status = StatusDisabled
			m.Reason = "disabled: " + filepath.Join(c.dir, disabledMarker) + " exists"
		}
	}()
	if c.err != "" {
		setBroken(m, c.err)
		return m
	}
	// The executable is hashed only when its describe may be cached: never
	// for the examples, whose launchers live in a per-process directory.
	var key describeCacheKey
	keyErr := errNotCacheable
	if c.origin != OriginExamples {
		key, keyErr = exeIdentity(c.exe)
	}
	var stdout []byte
	if useCache && keyErr == nil {
		if e, ok := h.readDescribeCache(key); ok {
			stdout, m.Stderr, m.DescribedAt, m.Cached = e.Stdout, e.Stderr, e.DescribedAt, true
		}
	}
	if !m.Cached {
		r := execute(ctx, execSpec{
			exe:       c.exe,
			args:      func(string) []string { return []string{"module", modproto.OperationDescribe, "--json"} },
			deadline:  DescribeTimeout,
			maxStdout: DescribeMaxOutputBytes,
			contain:   h.containSpec(c.dir, nil),
		})
		m.Stderr, m.DescribedAt = r.stderr, time.Now()
		switch {
		case r.spawnErr != nil:
			setBroken(m, "describe: cannot start: "+r.spawnErr.Error())
			return m
		case r.overflow:
			setBroken(m, fmt.Sprintf("describe: stdout exceeded %d bytes", DescribeMaxOutputBytes))
			return m
		case r.timedOut:
			setBroken(m, fmt.Sprintf("describe: no answer within %s (the process tree was killed)", DescribeTimeout))
			return m
		case r.cancelled:
			setBroken(m, "describe: cancelled")
			return m
		}
		stdout = r.stdout
	}
	if !judgeDescribe(m, stdout, c.id) {
		return m
	}
	if !m.Cached && keyErr == nil {
		// Only a describe that passed is cached; a failure never is. A
		// Redescribe refreshes the entry, so the next Discover sees it.
		h.writeDescribeCache(key, stdout, m.Stderr, m.DescribedAt)
	}
	checkBundle(m)
	checkRequirements(m)
	checkRequestSchemas(m)
	return m
}

// checkRequestSchemas warns about each capability whose request schema
// does not compile: that capability cannot be invoked (Plan returns a
// *SchemaError), though the module's other capabilities can.
func checkRequestSchemas(m *Module) {
	d := m.Descriptor
	if d == nil {
		return
	}
	for _, c := range d.Capabilities {
		raw, ok := d.RequestSchemas[c.RequestSchema]
		if c.RequestSchema == "" || !ok {
			continue
		}
		if _, err := compileSchema(raw); err != nil {
			m.Warnings = append(m.Warnings, oneLine(fmt.Sprintf("capability %s: request schema %q does not compile, so it cannot be invoked: %v", c.ID, c.RequestSchema, err)))
		}
	}
}

// judgeDescribe decodes and validates a describe answer into m; false
// means m is broken. expectID is the id the module must claim ("" for an
// extra, which then takes the descriptor's id).
func judgeDescribe(m *Module, stdout []byte, expectID string) bool {
	env, err := modproto.DecodeEnvelope(stdout)
	if err != nil {
		setBroken(m, "describe: "+err.Error())
		return false
	}
	if v := modproto.ValidateEnvelope(env, modproto.OperationDescribe, "", expectID); len(v) > 0 {
		m.Violations = v
		setBroken(m, "describe: the envelope breaks WIRE.md §6: "+summarize(v))
		return false
	}
	env.Normalize()
	for _, w := range env.Warnings {
		m.Warnings = append(m.Warnings, "describe warning: "+w)
	}
	if !env.OK {
		setBroken(m, fmt.Sprintf("describe failed: %s: %s", env.Error.Code, env.Error.Message))
		return false
	}
	d, err := modproto.DecodeDescriptor(env.Result)
	if err != nil {
		setBroken(m, "describe: "+err.Error())
		return false
	}
	m.Descriptor = d
	v := modproto.ValidateDescriptor(d)
	switch {
	case expectID != "" && d.Module != expectID:
		v = append(v, modproto.ValidationError{Path: "module", Detail: fmt.Sprintf("is %q but the module was discovered as %q", d.Module, expectID)})
	case expectID == "" && d.Module != env.Module:
		v = append(v, modproto.ValidationError{Path: "module", Detail: fmt.Sprintf("is %q but the envelope's module is %q", d.Module, env.Module)})
	}
	if expectID == "" && strings.TrimSpace(d.Module) != "" {
		m.ID = d.Module
	}
	if len(v) > 0 {
		m.Violations = v
		setBroken(m, "descriptor breaks WIRE.md §9: "+summarize(v))
		return false
	}
	m.Status = StatusReady
	return true
}

// checkBundle verifies every overlay and skill file against its digest
// (WIRE.md §9); a missing, escaping or drifted file is a warning, and its
// content is refused (SkillPath and OverlayPath fail for it).
func checkBundle(m *Module) {
	for _, o := range m.Descriptor.AgentOverlays {
		if _, err := confinedBundleFile(m.Dir, o.Path, o.Digest); err != nil {
			m.Warnings = append(m.Warnings, fmt.Sprintf("overlay %s: %v; content refused", o.ID, err))
		}
	}
	for _, s := range m.Descriptor.Skills {
		if _, err := confinedBundleFile(m.Dir, s.Path, s.Digest); err != nil {
			m.Warnings = append(m.Warnings, fmt.Sprintf("skill %s: %v; content refused", s.ID, err))
		}
	}
}

// checkRequirements turns requirements into a status (WIRE.md §9): any
// available: false is "needs setup" with its detail; an omitted available
// was not probed and is only a warning.
func checkRequirements(m *Module) {
	var missing []string
	for _, r := range m.Descriptor.Requirements {
		switch {
		case r.Available == nil:
			m.Warnings = append(m.Warnings, fmt.Sprintf("requirement %s was not probed by the module", r.Name))
		case !*r.Available:
			s := r.Name
			if r.Kind != "" {
				s += " (" + r.Kind + ")"
			}
			if r.Detail != "" {
				s += ": " + r.Detail
			}
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 && m.Status == StatusReady {
		m.Status = StatusNeedsSetup
		// The status already says "needs setup"; the reason says what to do.
		m.Reason = oneLine(strings.Join(missing, "; "))
	}
}

// SkillPath returns the absolute, confined path of skill id's file in m's
// bundle, only when the file is inside the module directory (lexically and
// after symlinks) and matches its declared digest (WIRE.md §9). Otherwise
// the error wraps ErrContentRefused; an undeclared id is a plain error.
func (h *Host) SkillPath(m *Module, id string) (string, error) {
	if m == nil || m.Descriptor == nil {
		return "", fmt.Errorf("skill %s: module has no descriptor", id)
	}
	for _, s := range m.Descriptor.Skills {
		if s.ID == id {
			p, err := confinedBundleFile(m.Dir, s.Path, s.Digest)
			if err != nil {
				return "", fmt.Errorf("skill %s: %w: %v", id, ErrContentRefused, err)
			}
			return p, nil
		}
	}
	return "", fmt.Errorf("skill %s: not declared by module %s", id, m.ID)
}

// OverlayPath is SkillPath for an agent overlay.
func (h *Host) OverlayPath(m *Module, id string) (string, error) {
	if m == nil || m.Descriptor == nil {
		return "", fmt.Errorf("overlay %s: module has no descriptor", id)
	}
	for _, o := range m.Descriptor.AgentOverlays {
		if o.ID == id {
			p, err := confinedBundleFile(m.Dir, o.Path, o.Digest)
			if err != nil {
				return "", fmt.Errorf("overlay %s: %w: %v", id, ErrContentRefused, err)
			}
			return p, nil
		}
	}
	return "", fmt.Errorf("overlay %s: not declared by module %s", id, m.ID)
}

// confinedBundleFile resolves rel inside dir, lexically and after
// symlinks, opens it as a regular file without following a final symlink
// or blocking, and checks its digest. It returns the resolved path.
func confinedBundleFile(dir, rel, digest string) (string, error) {
	if !modproto.IsRelativePath(rel) {
		return "", fmt.Errorf("path %q is not relative to the module directory", rel)
	}
	full := filepath.Join(dir, filepath.FromSlash(rel))
	if !within(dir, full) {
		return "", fmt.Errorf("path %q escapes the module directory", rel)
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("module directory: %v", err)
	}
	realFull, err := filepath.EvalSymlinks(full)
	if err != nil {
		return "", fmt.Errorf("file %s is missing", rel)
	}
	if !within(realDir, realFull) {
		return "", fmt.Errorf("path %q resolves outside the module directory", rel)
	}
	f, err := openRegular(realFull)
	if err != nil {
		return "", fmt.Errorf("file %s: %v", rel, err)
	}
	defer f.Close()
	got, _, err := modproto.DigestReader(f)
	if err != nil {
		return "", fmt.Errorf("file %s: %v", rel, err)
	}
	if got != digest {
		return "", fmt.Errorf("file digest %s does not match declared %s", got, digest)
	}
	return realFull, nil
}

// within reports whether p is root or inside it, lexically (both must be
// absolute).
func within(root, p string) bool {
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(p))
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel))
}

func setBroken(m *Module, reason string) {
	m.Status = StatusBroken
	m.Reason = oneLine(reason)
}

// summarize renders violations for a one-line Reason: the first, and how
// many more (all of them are in Module.Violations).
func summarize(v modproto.ValidationErrors) string {
	if len(v) == 0 {
		return ""
	}
	s := v[0].Error()
	if len(v) > 1 {
		s += fmt.Sprintf(" (and %d more)", len(v)-1)
	}
	return s
}

// oneLine folds line breaks into spaces; module text is otherwise kept as
// sent (the UI sanitizes it for display).
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}
