package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"modbay/modproto"
)

// Source yields module candidates for discovery (docs/protocol.md §2): the home's
// modules directory, the configured extras, the --module paths, the
// built-in examples, and later the configured MCP servers. Discovery
// iterates the host's sources in order and describes what they yield; the
// first candidate to claim an id keeps it.
type Source interface {
	// Origin names the source for Module.Origin (OriginHome, OriginConfig,
	// OriginFlag, OriginExamples, ...).
	Origin() string
	// Candidates lists the source's candidates in claim order. It may read
	// the filesystem or the config; it runs nothing and never fails: a
	// candidate that cannot be used carries its reason in Err.
	Candidates() []Candidate
}

// Candidate is one module a Source yields, before it is described.
type Candidate struct {
	// ID is the id the module must claim, decided by the host
	// (docs/protocol.md §13): the directory's name under <home>/modules (or
	// a bare executable's name there), a path-loaded executable's base
	// name, an MCP server's config id. "" lets the descriptor decide (a
	// source of test modules only).
	ID string
	// Name is the id shown until the descriptor decides, when ID is ""
	// (an executable's base name).
	Name string
	// Exe is the absolute path of the executable of a process module, ""
	// for other drivers; it is shown, never used as identity.
	Exe string
	// Dir is the module's bundle directory (skills/, agents/, README).
	Dir string
	// Origin is the yielding source's Origin.
	Origin string
	// Disabled is true when the module is disabled (docs/protocol.md §2:
	// <dir>/.disabled exists): described, listed, never invoked.
	Disabled bool
	// Err, when set, makes the candidate broken without describing it.
	Err string
	// Driver speaks to the module; its Key is the candidate's identity
	// (each key is described once per discovery). Never nil.
	Driver Driver
	// EffectsAreHints marks a module whose declared effects are derived
	// from hints rather than declared by the module (an MCP server's tool
	// annotations): see Module.EffectsAreHints.
	EffectsAreHints bool
}

// Module origins (Module.Origin).
const (
	// OriginHome marks modules found in <home>/modules.
	OriginHome = "home"
	// OriginConfig marks the config file's extra module paths.
	OriginConfig = "config"
	// OriginFlag marks --module paths.
	OriginFlag = "flag"
	// OriginExamples marks the built-in example modules (never cached).
	OriginExamples = "examples"
)

// disabledMarker is the file that disables a module dir (docs/protocol.md §2).
const disabledMarker = ".disabled"

// homeSource yields the modules of one <home>/modules directory, by name.
type homeSource struct{ dir string }

// Origin is OriginHome.
func (s homeSource) Origin() string { return OriginHome }

// Candidates lists each directory holding <name>/<name> and each bare
// executable in the modules directory, sorted by name; a missing
// directory holds no modules.
func (s homeSource) Candidates() []Candidate {
	entries, _ := os.ReadDir(s.dir)
	var out []Candidate
	for _, e := range entries {
		if c, ok := homeCandidate(s.dir, e.Name()); ok {
			out = append(out, c)
		}
	}
	return out
}

// pathSource yields module paths given one by one: the config's extras
// (relative to the home), --module paths, the example directories.
type pathSource struct {
	origin string
	// base resolves relative paths ("" for the working directory).
	base  string
	paths []string
	// describe, when set, answers each candidate's describe in this
	// process (Host.DescribeExample), given the module's id.
	describe func(id string) []byte
}

// Origin is the source's origin.
func (s pathSource) Origin() string { return s.origin }

// Candidates makes a candidate of each path, in order.
func (s pathSource) Candidates() []Candidate {
	out := make([]Candidate, 0, len(s.paths))
	for _, p := range s.paths {
		c := pathCandidate(p, s.origin, s.base)
		if pd, ok := c.Driver.(*ProcessDriver); ok && s.describe != nil && c.Err == "" {
			id, describe := c.Name, s.describe
			c.Driver = &selfDescribedDriver{ProcessDriver: pd, describe: func() []byte { return describe(id) }}
		}
		out = append(out, c)
	}
	return out
}

// AddSource adds a module source after the built-in ones (the home, the
// config's extras, --module paths, the examples); Discover describes its
// candidates in the order added.
func (h *Host) AddSource(s Source) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.extraSources = append(h.extraSources, s)
}

// sources lists the host's sources in claim order.
func (h *Host) sources() []Source {
	h.mu.Lock()
	flags := slices.Clone(h.flagModules)
	examples := slices.Clone(h.exampleModules)
	extra := slices.Clone(h.extraSources)
	describeExample := h.DescribeExample
	h.mu.Unlock()
	return append([]Source{
		homeSource{dir: h.cfg.ModulesDir()},
		pathSource{origin: OriginConfig, base: h.cfg.Home, paths: h.cfg.Modules},
		pathSource{origin: OriginFlag, paths: flags},
		pathSource{origin: OriginExamples, paths: examples, describe: describeExample},
	}, extra...)
}

// candidates lists every source's candidates in claim order, each source
// identity (Driver.Key) once.
func (h *Host) candidates() []Candidate {
	var out []Candidate
	seen := map[string]bool{}
	for _, s := range h.sources() {
		for _, c := range s.Candidates() {
			k := c.Driver.Key()
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

// processCandidate is a candidate driven by a ProcessDriver for exe; the
// examples' describes are never cached.
func processCandidate(exe, dir, origin string) Candidate {
	return Candidate{Exe: exe, Dir: dir, Origin: origin, Name: filepath.Base(exe),
		Driver: &ProcessDriver{Exe: exe, Dir: dir, Uncached: origin == OriginExamples}}
}

// homeCandidate checks <modules>/<name>: a directory holding an executable
// <name>/<name>, or a bare executable. Dot-names are skipped; a name
// outside the id grammar is listed broken with the rule, never described:
// it never becomes an id or a state directory (docs/protocol.md §13).
func homeCandidate(modulesDir, name string) (Candidate, bool) {
	c, ok := homeCandidateNamed(modulesDir, name)
	if ok && c.Err == "" {
		if err := modproto.CheckModuleID(name); err != nil {
			c.Err = "installed as " + err.Error()
		}
	}
	return c, ok
}

// homeCandidateNamed is homeCandidate before the id grammar's check.
func homeCandidateNamed(modulesDir, name string) (Candidate, bool) {
	if name == "" || strings.HasPrefix(name, ".") {
		return Candidate{}, false
	}
	p := filepath.Join(modulesDir, name)
	fi, err := os.Stat(p)
	if err != nil {
		return Candidate{}, false
	}
	if fi.IsDir() {
		exe := filepath.Join(p, name)
		efi, err := os.Stat(exe)
		if err != nil || !efi.Mode().IsRegular() {
			return Candidate{}, false
		}
		c := processCandidate(exe, p, OriginHome)
		c.ID, c.Disabled = name, exists(filepath.Join(p, disabledMarker))
		if efi.Mode().Perm()&0o111 == 0 {
			// The module's place, without the bit: listed broken with the
			// fix, never silently skipped.
			c.Err = notExecutableReason(exe)
		}
		return c, true
	}
	if isExecutableFile(p) {
		c := processCandidate(p, modulesDir, OriginHome)
		c.ID = name
		return c, true
	}
	return Candidate{}, false
}

// notExecutableReason is the reason a module executable without an
// execute bit is broken, with the fix.
func notExecutableReason(exe string) string {
	return fmt.Sprintf("not executable: %s has no execute bit (fix: chmod +x %s)", exe, ShellQuote(exe))
}

// pathCandidate makes a candidate of a configured or --module path: an
// executable, or a module directory holding <dir>/<basename>. Relative
// paths are resolved against base (the home for config entries) or the
// working directory.
func pathCandidate(path, origin, base string) Candidate {
	p := path
	if !filepath.IsAbs(p) && base != "" {
		p = filepath.Join(base, p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		c := processCandidate(path, filepath.Dir(path), origin)
		c.Err = err.Error()
		return c
	}
	exe, dir, disabled := abs, filepath.Dir(abs), false
	fi, err := os.Stat(abs)
	if err != nil {
		c := processCandidate(exe, dir, origin)
		c.Err = fmt.Sprintf("module path %s: %v", abs, err)
		return c
	}
	if fi.IsDir() {
		dir = abs
		exe = filepath.Join(abs, filepath.Base(abs))
		disabled = exists(filepath.Join(abs, disabledMarker))
	}
	c := processCandidate(exe, dir, origin)
	c.Disabled = disabled
	// The host names a path-loaded module: its executable's base name
	// (docs/protocol.md §13), which the descriptor must declare.
	c.ID = filepath.Base(exe)
	if err := modproto.CheckModuleID(c.ID); err != nil {
		c.Err = fmt.Sprintf("module path %s: its executable's name is its id, and %v", exe, err)
		return c
	}
	if efi, err := os.Stat(exe); err == nil && efi.Mode().IsRegular() && efi.Mode().Perm()&0o111 == 0 {
		c.Err = notExecutableReason(exe)
	} else if !isExecutableFile(exe) {
		c.Err = fmt.Sprintf("module path %s is not an executable regular file", exe)
	}
	return c
}
