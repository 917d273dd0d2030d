package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"modbay/config"
	"modbay/internal/crash"
	"modbay/modproto"
	"modbay/schema"
	"modbay/schemalint"
)

// discover lists, describes and claims every candidate, sorted by ID.
func (h *Host) discover(ctx context.Context) []*Module {
	return sortModules(h.discoverOrdered(ctx, nil))
}

// sortModules returns mods sorted by ID, then source identity (Key).
func sortModules(mods []*Module) []*Module {
	sorted := slices.Clone(mods)
	slices.SortStableFunc(sorted, CompareModules)
	return sorted
}

// CompareModules orders modules by ID, then by source identity (Key): the
// order of Discover's list, for a list that inserts modules one by one.
func CompareModules(a, b *Module) int {
	if c := strings.Compare(a.ID, b.ID); c != 0 {
		return c
	}
	return strings.Compare(a.Key, b.Key)
}

// discoverOrdered describes every candidate in parallel (bounded) and
// returns them in claim order: the sources in order (the home's modules
// by name, cfg.Modules, --module paths, the examples, added sources). The first module to claim an id keeps
// it; a later one is broken (docs/protocol.md §2). done is describeAll's.
func (h *Host) discoverOrdered(ctx context.Context, done func(int, *Module)) []*Module {
	cands := h.candidates()
	return claimIDs(cands, h.describeAll(ctx, cands, done))
}

// describeParallel bounds the describes run at once: the config's
// describe_parallel, else DefaultDescribeParallel (docs/protocol.md §2).
func (h *Host) describeParallel() int {
	if h.cfg != nil && h.cfg.DescribeParallel > 0 {
		return h.cfg.DescribeParallel
	}
	return DefaultDescribeParallel
}

// DefaultDescribeParallel is how many describes run at once unless the
// config says otherwise (docs/protocol.md §2). Not a multiple of the CPU
// count: a describe mostly waits on its process (which the kernel
// schedules like any other), so describes that wait need no CPU each,
// and describes that burn CPU take the same total CPU however many run at
// once; the bound only keeps the processes and descriptors alive at one
// time in reason.
const DefaultDescribeParallel = 32

// describeAll describes cands in parallel, in candidate order. done, when
// set, is called with each candidate's index and module as its describe
// finishes, from the goroutine that ran it.
func (h *Host) describeAll(ctx context.Context, cands []Candidate, done func(int, *Module)) []*Module {
	mods := make([]*Module, len(cands))
	sem := make(chan struct{}, h.describeParallel())
	var wg sync.WaitGroup
	for i, c := range cands {
		wg.Add(1)
		go func() {
			defer crash.Guard()
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
// order: a --module path claims first (the path the person typed wins for
// the command, said in its Shadows and the shadowed module's reason),
// then the first module to claim an id keeps it; a later one is broken
// (docs/protocol.md §2). A module loaded by path without a descriptor claims
// nothing.
func claimIDs(cands []Candidate, mods []*Module) []*Module {
	claimed := map[string]*Module{}
	claim := func(i int, m *Module) {
		byPath := m.Origin == OriginConfig || m.Origin == OriginFlag || m.Origin == OriginExamples
		if m.Descriptor == nil && (cands[i].ID == "" || byPath) {
			return // a path that did not describe claims nothing
		}
		by, dup := claimed[m.ID]
		switch {
		case !dup:
			claimed[m.ID] = m
		case by.Origin == OriginFlag && m.Origin != OriginFlag:
			if by.Shadows == "" {
				by.Shadows = m.Key
				by.Warnings = append(by.Warnings, ShadowNote(by))
			}
			m.Status = StatusBroken
			m.Reason = fmt.Sprintf("id %q is taken by --module %s for this command (the path wins)", m.ID, by.Key)
		default:
			m.Status = StatusBroken
			m.Reason = fmt.Sprintf("id %q already claimed by %s", m.ID, by.Key)
		}
	}
	for i, m := range mods {
		if m.Origin == OriginFlag {
			claim(i, m)
		}
	}
	for i, m := range mods {
		if m.Origin != OriginFlag {
			claim(i, m)
		}
	}
	return mods
}

// ShadowNote is the one line that says a --module path runs instead of
// the module m.Shadows names under the same id; "" when it shadows none.
func ShadowNote(m *Module) string {
	if m == nil || m.Shadows == "" {
		return ""
	}
	return fmt.Sprintf("%s runs as %s for this command, not %s (a --module path wins over the module it shadows)", m.Exe, m.ID, m.Shadows)
}

// isExecutableFile reports whether p is a regular file with an execute bit,
// following a symlink only to a regular file (docs/protocol.md §2).
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
		c := pathCandidate(ref, OriginFlag, "")
		if c.Err != "" && !exists(c.Exe) {
			return nil, fmt.Errorf("%w: %s", ErrNotFound, c.Err)
		}
		return h.describe(ctx, c, true), nil
	}
	// A --module path named ref wins for this command (its id is its
	// executable's name, known without describing it).
	h.mu.Lock()
	flags := slices.Clone(h.flagModules)
	h.mu.Unlock()
	for _, p := range flags {
		if c := pathCandidate(p, OriginFlag, ""); c.ID == ref {
			m := h.describe(ctx, c, true)
			if hc, ok := homeCandidate(h.cfg.ModulesDir(), ref); ok {
				m.Shadows = hc.Exe
				m.Warnings = append(m.Warnings, ShadowNote(m))
			}
			return m, nil
		}
	}
	if c, ok := homeCandidate(h.cfg.ModulesDir(), ref); ok {
		return h.describe(ctx, c, true), nil
	}
	// Only the candidates that may become ref are described: those that
	// claim it and those that claim nothing (an extra's descriptor names
	// its id). A server of another id is never started for this one.
	var cands []Candidate
	for _, c := range h.candidates() {
		if c.ID == "" || c.ID == ref {
			cands = append(cands, c)
		}
	}
	for _, m := range claimIDs(cands, h.describeAll(ctx, cands, nil)) {
		if m.ID == ref {
			return m, nil
		}
	}
	return nil, fmt.Errorf("%w: no module %q in %s or the configured extras", ErrNotFound, ref, h.cfg.ModulesDir())
}

// Redescribe describes m again through its driver, bypassing the describe
// cache (docs/protocol.md §18) and refreshing its entry, and returns a fresh
// Module. Use it after a person fixed a requirement: the cache is keyed on
// the source identity, and a module's own probes can change without it.
func (h *Host) Redescribe(ctx context.Context, m *Module) *Module {
	c := Candidate{Name: m.name, Exe: m.Exe, Dir: m.Dir, Origin: m.Origin, Driver: m.driver(), EffectsAreHints: m.EffectsAreHints}
	if c.Name == "" {
		c.Name = filepath.Base(m.Exe)
	}
	if m.Origin == OriginConfig || m.Origin == OriginFlag || m.Origin == OriginExamples {
		c.ID = filepath.Base(m.Exe) // the host's name for it, as pathCandidate gives
	}
	if m.Origin == OriginHome {
		c.ID = m.ID
		c.Disabled = exists(filepath.Join(m.Dir, disabledMarker)) && m.Dir != h.cfg.ModulesDir()
	} else if fi, err := os.Stat(m.Dir); m.Dir != "" && err == nil && fi.IsDir() && filepath.Base(m.Dir) == filepath.Base(m.Exe) {
		c.Disabled = exists(filepath.Join(m.Dir, disabledMarker))
	}
	return h.describe(ctx, c, false)
}

// Changed reports whether m's files changed since m was described: its
// driver's fingerprint now differs from m.Fingerprint (an edit to the
// executable or to a file of its directory, a launcher's script). It
// stats the executable and lists its directory: call it from a command,
// not a UI's Update.
// False when m carries no fingerprint (nothing to compare).
func (h *Host) Changed(m *Module) bool {
	if m == nil || m.Fingerprint == "" {
		return false
	}
	fp, err := m.driver().Fingerprint()
	return err != nil || fp != m.Fingerprint
}

// describe obtains (or, when useCache, reads from the cache) c's describe
// envelope through its driver and judges it (docs/protocol.md §2, §6, §9). A
// describe that passed is written to the cache either way.
func (h *Host) describe(ctx context.Context, c Candidate, useCache bool) *Module {
	m := &Module{ID: c.ID, Exe: c.Exe, Dir: c.Dir, Origin: c.Origin, Driver: c.Driver, name: c.Name, EffectsAreHints: c.EffectsAreHints}
	if m.ID == "" {
		m.ID = c.Name
	}
	defer func() {
		if c.Disabled {
			if m.Status == StatusBroken {
				m.Warnings = append(m.Warnings, "describe: "+m.Reason)
			}
			m.Status = StatusDisabled
			m.Reason = "disabled: " + filepath.Join(c.Dir, disabledMarker) + " exists"
		}
	}()
	// Nothing a module sends may crash discovery: a panic judging it
	// lists it broken, with the reason.
	defer func() {
		if r := recover(); r != nil {
			m.Status = StatusBroken
			m.Reason = fmt.Sprintf("the host failed judging this module's describe (%v); it is refused", r)
		}
	}()
	if c.Driver == nil {
		setBroken(m, "no driver for this module")
		return m
	}
	m.Key = c.Driver.Key()
	if c.Err != "" {
		setBroken(m, c.Err)
		return m
	}
	if st := c.Driver.Status(); !st.Usable() {
		m.Stderr = st.StderrTail
		setBroken(m, lifecycleReason(st))
		return m
	}
	// The driver fingerprints what it describes only when its describe may
	// be cached: never for the examples, whose launchers live in a
	// per-process directory. A process driver reuses the digest of its
	// previous describe while the executable's stat is unchanged.
	entry, haveEntry := h.readDescribeEntry(m.Key)
	var fp string
	var ident *exeIdentity
	var fpErr error
	if idf, ok := c.Driver.(identityFingerprinter); ok {
		fp, ident, fpErr = idf.fingerprintSince(entry.Identity)
	} else {
		fp, fpErr = c.Driver.Fingerprint()
	}
	cacheable := fpErr == nil && fp != ""
	if cacheable {
		m.Fingerprint = fp
		m.exeStat = ident
	}
	key := describeCacheKey{Source: m.Key, Fingerprint: fp}
	var stdout []byte
	var built *BuiltDescribe
	exitCode := 0
	if useCache && !h.NoCache && cacheable && haveEntry && entry.Key == key {
		stdout, m.Stderr, m.DescribedAt, m.Cached = entry.Stdout, entry.Stderr, entry.DescribedAt, true
	}
	if !m.Cached {
		if cd, ok := c.Driver.(Containable); ok {
			cd.SetContainment(h.containSpec(h.ownDir(c.Exe, c.Dir), nil))
		}
		desc, err := c.Driver.Describe(ctx)
		m.Stderr, m.DescribedAt = desc.Stderr, desc.At
		if err != nil {
			setBroken(m, err.Error())
			return m
		}
		stdout, built = desc.Envelope, desc.Built
		exitCode = desc.ExitCode
	}
	v := entry.Verdict
	fresh := false // v is not the entry's verdict as stored
	if !m.Cached || v == nil || v.BuildID != buildID() || !applyVerdict(m, stdout, v) {
		if !judgeFresh(ctx, m, stdout, built, c.ID, exitCode) {
			return m
		}
		if !checkRequestSchemas(ctx, m) {
			setBroken(m, "discovery cancelled while compiling its request schemas")
			return m
		}
		v, fresh = verdictOf(m), true
	}
	// The bundle check hashes every skill and overlay file; its verdict is
	// cached with the describe when the fingerprint covers those files
	// (bundleCovered), and replayed while it matches.
	covered := cacheable && bundleCovered(c, fp, m.Descriptor)
	if covered && !fresh && v.Bundle != nil {
		m.Warnings = append(m.Warnings, v.Bundle.Warnings...)
	} else {
		before := len(m.Warnings)
		checkBundle(m)
		if covered {
			if !fresh {
				v = cloneVerdict(v)
			}
			v.Bundle, fresh = &bundleVerdict{Warnings: slices.Clone(m.Warnings[before:])}, true
		}
	}
	if !fresh && (ident == nil || entry.Identity == nil || *ident == *entry.Identity) {
		cacheable = false // the entry is as it would be written
	}
	if cacheable {
		// Only a describe that passed is cached (a failure never is), with
		// modbay's verdict on it. A Redescribe refreshes the entry, so the
		// next Discover sees it; a hit whose stat changed updates the
		// identity record, so the next one does not hash again.
		h.writeDescribeCache(describeCacheEntry{Key: key, Stdout: stdout, Stderr: m.Stderr,
			DescribedAt: m.DescribedAt, Identity: ident, Verdict: v})
	}
	m.StateKey = stateKey(m)
	checkRequirements(m, h.resolveBinary)
	return m
}

// stateKey is the host-derived key of m's state directory
// (Module.StateKey, docs/protocol.md §13): a module loaded by path is keyed
// on its resolved executable path, every other on its host-given id; ""
// when the id breaks the grammar.
func stateKey(m *Module) string {
	if !modproto.ValidModuleID(m.ID) {
		return ""
	}
	if m.Origin == OriginConfig || m.Origin == OriginFlag {
		return config.PathStateKey(m.ID, canonical(m.Exe))
	}
	return m.ID
}

// cloneVerdict is a shallow copy of v (the entry read from the cache is
// not changed in place).
func cloneVerdict(v *cachedVerdict) *cachedVerdict {
	c := *v
	return &c
}

// bundleCovered reports whether fp, a process driver's fingerprint of the
// candidate, covers every skill and overlay file d names, so that a cached
// bundle verdict still holds while fp matches: the executable sits in its
// module directory (the listing of path, size and mtime is in fp), the
// listing was not cut at maxDirEntries, and no named path goes through a
// directory the listing skips.
func bundleCovered(c Candidate, fp string, d *modproto.Descriptor) bool {
	if d == nil || !listsModuleDir(c.Dir, c.Exe) {
		return false
	}
	_, files, ok := strings.Cut(fp, " dir files=")
	if !ok {
		return false
	}
	n, _, _ := strings.Cut(files, " ")
	if k, err := strconv.Atoi(n); err != nil || k >= maxDirEntries {
		return false
	}
	skipped := func(rel string) bool {
		parts := strings.Split(rel, "/")
		for _, p := range parts[:len(parts)-1] {
			if strings.HasPrefix(p, ".") || skippedDirs[p] {
				return true
			}
		}
		return false
	}
	for _, o := range d.AgentOverlays {
		if skipped(o.Path) {
			return false
		}
	}
	for _, s := range d.Skills {
		if skipped(s.Path) {
			return false
		}
	}
	return true
}

// verdictOf is m's verdict as judged now, to cache with its describe.
func verdictOf(m *Module) *cachedVerdict {
	return &cachedVerdict{BuildID: buildID(), ID: m.ID, Status: m.Status, Reason: m.Reason,
		Violations: m.Violations, Warnings: slices.Clone(m.Warnings), Refused: m.Refused}
}

// applyVerdict restores a cached verdict reached by this build on the
// same describe: the descriptor is decoded, not judged again (no
// validation, no schema compilation, and none of the decoders' key checks,
// which this build ran on these very bytes before caching them). False
// when stdout does not decode, and the describe is judged afresh.
func applyVerdict(m *Module, stdout []byte, v *cachedVerdict) bool {
	var env struct {
		OK     bool                 `json:"ok"`
		Result *modproto.Descriptor `json:"result"`
	}
	if json.Unmarshal(stdout, &env) != nil || !env.OK || env.Result == nil {
		return false
	}
	d := env.Result
	d.Normalize()
	m.Descriptor, m.ID, m.Status, m.Reason = d, v.ID, v.Status, v.Reason
	m.Violations, m.Warnings, m.Refused = v.Violations, slices.Clone(v.Warnings), v.Refused
	return true
}

// lifecycleReason is the one-line reason a driver that cannot take calls
// gives its module.
func lifecycleReason(st Lifecycle) string {
	if st.Reason == "" {
		return "driver is " + string(st.State)
	}
	return "driver is " + string(st.State) + ": " + st.Reason
}

// checkRequestSchemas compiles every capability's request schema: one
// that does not compile (or names a $ref that resolves to nothing) cannot
// be invoked, and modbay refuses the module, as validate does (one verdict
// everywhere: list, describe, validate, the cockpit). Each failure is a
// warning; the reason counts them and names the first. False when ctx
// ended first: nothing is judged (nor cached).
func checkRequestSchemas(ctx context.Context, m *Module) bool {
	d := m.Descriptor
	if d == nil || m.Status == StatusBroken {
		return true
	}
	if err := RequestSchemasCost(d); err != nil {
		setBroken(m, "request schemas refused before compiling: "+err.Error())
		return true
	}
	// Compiled on every CPU (a 200-tool MCP server is 200 compiles);
	// the verdicts are read back in the capabilities' order.
	type verdict struct{ compileErr, unsat string }
	verdicts := make([]verdict, len(d.Capabilities))
	cancelled := make([]bool, len(d.Capabilities))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(1, len(d.Capabilities))) {
		wg.Add(1)
		crash.Go(func() {
			defer wg.Done()
			for i := range work {
				c := d.Capabilities[i]
				raw, ok := d.RequestSchemas[c.RequestSchema]
				if c.RequestSchema == "" || !ok {
					continue
				}
				_, err := schema.CompileContext(ctx, raw)
				switch {
				case errors.Is(err, schema.ErrCancelled):
					cancelled[i] = true
				case err != nil:
					verdicts[i].compileErr = err.Error()
				default:
					verdicts[i].unsat = unsatisfiable(c.RequestSchema, raw)
				}
			}
		})
	}
	for i := range d.Capabilities {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	if ctx.Err() != nil || slices.Contains(cancelled, true) {
		return false
	}
	var failed []string
	for i, c := range d.Capabilities {
		v := verdicts[i]
		if v.compileErr != "" {
			w := oneLine(fmt.Sprintf("capability %s: request schema %q does not compile, so it cannot be invoked: %s", c.ID, c.RequestSchema, v.compileErr))
			m.Warnings = append(m.Warnings, w)
			failed = append(failed, w)
			continue
		}
		if v.unsat != "" {
			if m.Refused == nil {
				m.Refused = map[string]string{}
			}
			m.Refused[c.ID] = v.unsat
		}
	}
	if len(failed) == 0 {
		return true
	}
	n := "1 request schema error"
	if len(failed) > 1 {
		n = fmt.Sprintf("%d request schema errors", len(failed))
	}
	setBroken(m, n+": "+failed[0])
	return true
}

// unsatisfiable returns why request schema id admits no input
// (schemalint.Unsatisfiable), as "at /pointer: message"; "" when some
// input can satisfy it.
func unsatisfiable(id string, raw json.RawMessage) string {
	f, ok := schemalint.Unsatisfiable(id, raw)
	if !ok {
		return ""
	}
	p := f.Path
	if p == "" {
		p = "(root)"
	}
	return "at " + p + ": " + f.Message
}

// judgeDescribe decodes and validates a describe answer into m; false
// means m is broken. expectID is the id the module must claim ("" for an
// extra, which then takes the descriptor's id). When ctx ends first (a
// 4 MiB describe takes about 0.1 s to judge), m is broken as cancelled
// and nothing more is judged.
func judgeDescribe(ctx context.Context, m *Module, stdout []byte, expectID string, exitCode int) bool {
	cancelled := func() bool {
		setBroken(m, "discovery cancelled while decoding its describe")
		return false
	}
	env, err := modproto.DecodeEnvelopeContext(ctx, stdout)
	if err != nil {
		var de *modproto.DecodeError
		switch {
		case ctx.Err() != nil:
			return cancelled()
		case errors.As(err, &de):
			setBroken(m, "describe: "+decodeCode(de, stdout, exitCode)+": "+explainDecode(de, stdout, m.Stderr, exitCode))
		default:
			setBroken(m, "describe: "+err.Error())
		}
		return false
	}
	// Strict keys: an unknown envelope key is a warning.
	_, envWarns, err := modproto.CheckEnvelopeKeysContext(ctx, stdout)
	if err != nil || ctx.Err() != nil {
		return cancelled()
	}
	if !acceptDescribeEnvelope(m, env, expectID, envWarns) {
		return false
	}
	// Strict keys: unknown keys in effects and permissions, and values of
	// the wrong JSON type, are violations; other unknown keys warnings.
	keyErrs, keyWarns, err := modproto.CheckDescriptorKeysContext(ctx, env.Result)
	if err != nil || ctx.Err() != nil {
		return cancelled()
	}
	d, err := modproto.DecodeDescriptorContext(ctx, env.Result)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return cancelled()
		case len(keyErrs) > 0:
			m.Violations = keyErrs
			setBroken(m, "descriptor breaks its rules (docs/modules.md#the-descriptor): "+summarize(keyErrs))
		default:
			setBroken(m, "describe: "+err.Error())
		}
		return false
	}
	return acceptDescriptor(m, d, env.Module, expectID, keyErrs, keyWarns)
}

// acceptDescribeEnvelope is the envelope half of judging a describe
// answer, the same for decoded bytes (judgeDescribe) and a driver's built
// answer (judgeBuilt): the envelope's rules (docs/protocol.md §6), its key
// warnings (keyWarns, nil when none were scanned), its own warnings, and
// ok. false means m is broken.
func acceptDescribeEnvelope(m *Module, env *modproto.Envelope, expectID string, keyWarns modproto.ValidationErrors) bool {
	v := modproto.ValidateEnvelope(env, modproto.OperationDescribe, "", "")
	if expectID != "" && env.Module != "" && env.Module != expectID {
		v = append(v, modproto.ValidationError{Path: "module", Detail: fmt.Sprintf("is %q but %s", modproto.ClipID(env.Module), idRule(m, expectID))})
	}
	if len(v) > 0 {
		m.Violations = v
		setBroken(m, "describe: the envelope breaks its rules (docs/modules.md#the-envelope): "+summarize(v))
		return false
	}
	for _, w := range keyWarns {
		m.Warnings = append(m.Warnings, "envelope: "+w.Error())
	}
	env.Normalize()
	for _, w := range env.Warnings {
		m.Warnings = append(m.Warnings, "describe warning: "+w)
	}
	if !env.OK {
		setBroken(m, fmt.Sprintf("describe failed: %s: %s", env.Error.Code, env.Error.Message))
		return false
	}
	return true
}

// acceptDescriptor is the descriptor half: d becomes m's descriptor, with
// its key warnings and shape warnings; its rules (ValidateDescriptor plus
// keyErrs) and its module id (expectID, or for an extra the envelope's
// envModule, whose id m then takes) decide ready or broken.
func acceptDescriptor(m *Module, d *modproto.Descriptor, envModule, expectID string, keyErrs, keyWarns modproto.ValidationErrors) bool {
	m.Descriptor = d
	for _, w := range append(keyWarns, modproto.CheckDescriptorShape(d)...) {
		m.Warnings = append(m.Warnings, "descriptor: "+w.Error())
	}
	v := append(modproto.ValidateDescriptor(d), keyErrs...)
	switch {
	case expectID != "" && d.Module != expectID:
		v = append(v, modproto.ValidationError{Path: "module", Detail: fmt.Sprintf("is %q but %s", modproto.ClipID(d.Module), idRule(m, expectID))})
	case expectID == "" && d.Module != envModule:
		v = append(v, modproto.ValidationError{Path: "module", Detail: fmt.Sprintf("is %q but the envelope's module is %q", d.Module, envModule)})
	}
	if expectID == "" && strings.TrimSpace(d.Module) != "" {
		m.ID = d.Module
	}
	if len(v) > 0 {
		m.Violations = v
		setBroken(m, "descriptor breaks its rules (docs/modules.md#the-descriptor): "+summarize(v))
		return false
	}
	m.Status = StatusReady
	return true
}

// idRule is the rule a descriptor's module id must keep for m, whose host
// id is expectID (docs/protocol.md §13), as the second half of a refusal.
func idRule(m *Module, expectID string) string {
	switch m.Origin {
	case OriginConfig, OriginFlag:
		return fmt.Sprintf("a module loaded by path must declare the id its executable is named, %q (docs/protocol.md §13)", expectID)
	case OriginHome, OriginExamples:
		return fmt.Sprintf("an installed module must declare the name of its directory, %q (docs/protocol.md §13)", expectID)
	}
	return fmt.Sprintf("the module was discovered as %q", expectID)
}

// checkBundle verifies every overlay and skill file against its digest
// (docs/protocol.md §9); a missing, escaping or drifted file is a warning, and its
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

// checkRequirements judges each requirement into m.Requirements and
// the status (docs/protocol.md §9): a requirement of kind binary naming a binary
// the descriptor declares in permissions.subprocess follows the host's
// resolution (resolve: config binaries, then PATH), whatever the module's
// own probe said; any other follows the module's probe, and one that
// omits available was not probed (a warning, never "missing"). Any
// missing requirement makes a ready module "needs setup", its reason
// saying what to do.
func checkRequirements(m *Module, resolve func(string) (string, string, string)) {
	d := m.Descriptor
	if d == nil {
		return
	}
	declared := map[string]bool{}
	for _, name := range d.Permissions.Subprocess {
		declared[name] = true
	}
	var missing []string
	m.Requirements = make([]RequirementState, 0, len(d.Requirements))
	for _, r := range d.Requirements {
		rs := RequirementState{Requirement: r}
		switch {
		case r.Kind == RequirementKindBinary && declared[r.Name]:
			if p, via, problem := resolve(r.Name); p != "" {
				rs.State, rs.By = RequirementMet, p+" ("+via+")"
			} else {
				rs.State, rs.Problem = RequirementMissing, problem
			}
		case r.Available == nil:
			rs.State = RequirementNotProbed
			m.Warnings = append(m.Warnings, fmt.Sprintf("requirement %s was not probed by the module", r.Name))
		case *r.Available:
			rs.State = RequirementMet
		default:
			rs.State = RequirementMissing
		}
		m.Requirements = append(m.Requirements, rs)
		if rs.State == RequirementMissing {
			s := r.Name
			if r.Kind != "" {
				s += " (" + r.Kind + ")"
			}
			if r.Detail != "" {
				s += ": " + r.Detail
			} else if rs.Problem != "" {
				s += ": " + rs.Problem
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
// after symlinks) and matches its declared digest (docs/protocol.md §9). Otherwise
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
	// What is read of it later is at most modproto.MaxBundleFileBytes; a larger
	// file is refused by its size, never hashed (a sparse 20 GiB one took
	// discovery 77 s), and one growing while read stops at the bound.
	tooBig := func(n int64) error {
		return fmt.Errorf("file %s is %d bytes, over the %d MiB a skill or overlay may be (docs/protocol.md §14)",
			rel, n, modproto.MaxBundleFileBytes>>20)
	}
	if fi, err := f.Stat(); err == nil && fi.Size() > modproto.MaxBundleFileBytes {
		return "", tooBig(fi.Size())
	}
	got, n, err := modproto.DigestReader(io.LimitReader(f, modproto.MaxBundleFileBytes+1))
	if err != nil {
		return "", fmt.Errorf("file %s: %v", rel, err)
	}
	if n > modproto.MaxBundleFileBytes {
		return "", tooBig(n)
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
