package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"modbay/modproto"
)

// FileName is the config file inside the home.
const FileName = "config.yaml"

// Config is the host's configuration: paths and policy. The zero value of
// every policy field is the conservative choice.
type Config struct {
	// Home is the absolute modbay home (docs/protocol.md §2).
	Home string `yaml:"-"`
	// Workspace is the absolute path supplied as the "workspace" root (rw);
	// <home>/workspace unless set here or with --workspace (docs/protocol.md §4).
	Workspace string `yaml:"workspace"`
	// Modules lists extra module executables outside the home, by absolute
	// path (docs/protocol.md §2, modbay); --module adds to it.
	Modules []string `yaml:"modules"`
	// Roots maps read root names (other than bundle names) to host paths;
	// a read root not mapped here is not supplied (docs/protocol.md §4).
	Roots map[string]string `yaml:"roots"`
	// Binaries maps subprocess names to absolute paths, consulted before
	// the host's PATH (docs/protocol.md §4).
	Binaries map[string]string `yaml:"binaries"`
	// Policy is what the host allows at most; grants never exceed it.
	Policy Policy `yaml:"policy"`
	// DeadlineMS overrides the invoke deadline in milliseconds (0: the
	// protocol default of 180000).
	DeadlineMS int `yaml:"deadline_ms"`
	// MaxOutputBytes overrides the stdout ceiling in bytes (0: 1 MiB).
	MaxOutputBytes int `yaml:"max_output_bytes"`
	// Sandbox is how much kernel containment module runs demand:
	// SandboxAuto ("" too) contains each run as far as the machine
	// allows and records what was not enforced; SandboxRequire refuses to
	// run a module that cannot be fully contained; SandboxOff runs modules
	// as plain processes.
	Sandbox string `yaml:"sandbox"`
	// DescribeParallel bounds the describes discovery runs at once (0:
	// the default, docs/protocol.md §2; at most MaxDescribeParallel).
	DescribeParallel int `yaml:"describe_parallel"`
	// Limits are the resource limits set on every module process.
	Limits Limits `yaml:"limits"`
	// History bounds the run history under <home>/history.
	History History `yaml:"history"`
	// Artifacts is the artifact store's quota (docs/protocol.md §14).
	Artifacts Artifacts `yaml:"artifacts"`
	// MCPServers maps an id (the module id it is listed under) to an MCP
	// server: stdio or remote. An unusable entry
	// (CheckMCPServer) does not fail the load: its server is listed broken
	// with the reason, like any broken module (docs/protocol.md §2).
	MCPServers map[string]MCPServer `yaml:"mcp_servers"`
	// Skills says where skill folders are found beyond the project's and
	// the home's, and whether their scripts may run (docs/skills.md).
	Skills Skills `yaml:"skills"`
	// MCPServe configures `modbay mcp serve` (docs/gateway.md).
	MCPServe MCPServe `yaml:"mcp_serve"`
	// Theme is the cockpit's palette (config/cockpit.go).
	Theme Theme `yaml:"theme"`
	// Keys rebinds cockpit actions (KeyActions) to other keys.
	Keys map[string]string `yaml:"keys"`
}

// MCPServe is the config's `mcp_serve:` section (docs/gateway.md).
type MCPServe struct {
	// Tools and Exclude are glob patterns (path.Match) over
	// "<module id>/<capability id>" (a pattern without "/" over the
	// module id alone, CheckToolPattern): a tool is served when it
	// matches some Tools pattern (none given: every tool) and no Exclude
	// pattern.
	Tools   []string `yaml:"tools"`
	Exclude []string `yaml:"exclude"`
	// ApproveByElicitation lets a client that supports elicitation
	// answer approval questions (an agent-driven client may answer by
	// itself, so it is off by default).
	ApproveByElicitation bool `yaml:"approve_by_elicitation"`
	// MaxConcurrent bounds the calls one serve process runs at once
	// (0: the gateway's default); a call over it is answered busy.
	MaxConcurrent int `yaml:"max_concurrent"`
	// MaxCostPerSession is a spending ceiling per agent session, in the
	// modules' cost units (execution.actual_cost, else estimated_cost):
	// once a session's known spend reaches it, every further call that
	// may cost needs a person's approval (0: no ceiling).
	MaxCostPerSession float64 `yaml:"max_cost_per_session"`
}

// Skills is the config's `skills:` section.
type Skills struct {
	// Dirs are more folders of skills (or skill folders); relative ones
	// are relative to the home.
	Dirs []string `yaml:"dirs"`
	// Scripts enables running skill scripts (contained); off by default.
	Scripts bool `yaml:"scripts"`
}

// MaxDescribeParallel is the largest describe_parallel: each describe is
// a process of its own, with its descriptors and memory.
const MaxDescribeParallel = 256

// Sandbox values.
const (
	SandboxAuto    = "auto"
	SandboxRequire = "require"
	SandboxOff     = "off"
)

// Limits are per-process resource limits for modules (setrlimit); zero
// keeps the host's default for that limit.
type Limits struct {
	// OpenFiles is the descriptor limit (RLIMIT_NOFILE; default 1024).
	OpenFiles uint64 `yaml:"open_files"`
	// AddressSpaceMB is the address-space limit in MiB (RLIMIT_AS).
	AddressSpaceMB uint64 `yaml:"address_space_mb"`
	// CPUSeconds is the CPU-time limit in seconds (RLIMIT_CPU).
	CPUSeconds uint64 `yaml:"cpu_seconds"`
	// Processes is RLIMIT_NPROC: counted per user, not binding for root.
	Processes uint64 `yaml:"processes"`
	// FileSizeMB is the size one file may reach, in MiB (RLIMIT_FSIZE;
	// default 1024).
	FileSizeMB uint64 `yaml:"file_size_mb"`
	// WriteMB and WriteFiles bound what one run adds to its rw roots and
	// run directory, in MiB and in files (defaults 4096 and 100 000).
	WriteMB    uint64 `yaml:"write_mb"`
	WriteFiles uint64 `yaml:"write_files"`
}

// Policy is the host's ceiling on grants (docs/protocol.md §4: grants are what the
// module declared and policy allows and the person approved).
type Policy struct {
	// DenyNetwork withholds every network grant.
	DenyNetwork bool `yaml:"deny_network"`
	// DenyPaidProviders withholds every paid-provider grant.
	DenyPaidProviders bool `yaml:"deny_paid_providers"`
	// Credentials lists credential names the host may grant; none by
	// default.
	Credentials []string `yaml:"credentials"`
	// Publish allows a publish grant; false by default.
	Publish bool `yaml:"publish"`
	// PreApproved lists calls that need no approval dialog (docs/protocol.md §11).
	PreApproved []PreApproval `yaml:"pre_approved"`
}

// PreApproval pre-approves a module's capability (docs/protocol.md §11); an
// empty Capability means every capability of the module. It names the
// module as the host knows it, never by what a module says of itself:
// Module, an installed module (<home>/modules/<id>), a built-in example or
// an MCP server by id, never a module loaded by path; or Path, a module
// loaded by path, by its executable's absolute path; or Digest, an
// executable by its bytes ("sha256:<hex>"), alone or with Path. Exactly one
// of Module and Path/Digest is set (Load checks).
type PreApproval struct {
	Module     string `yaml:"module"`
	Path       string `yaml:"path"`
	Digest     string `yaml:"digest"`
	Capability string `yaml:"capability"`
}

// CoversCapability reports whether a covers capability.
func (a PreApproval) CoversCapability(capability string) bool {
	return a.Capability == "" || a.Capability == capability
}

// check says what makes a unusable, nil when it is usable.
func (a PreApproval) check() error {
	switch {
	case a.Module == "" && a.Path == "" && a.Digest == "":
		return errors.New("names no module: give module, path or digest")
	case a.Module != "" && (a.Path != "" || a.Digest != ""):
		return fmt.Errorf("module %q with path or digest: module names an installed module, path and digest one loaded by path; keep one", a.Module)
	case a.Module != "" && !modproto.ValidModuleID(a.Module):
		return fmt.Errorf("module %q breaks the id grammar: %s", a.Module, modproto.ModuleIDRule)
	case a.Path != "" && !filepath.IsAbs(a.Path):
		return fmt.Errorf("path %q is not absolute", a.Path)
	case a.Digest != "" && !modproto.ValidDigest(a.Digest):
		return fmt.Errorf("digest %q is not sha256: and 64 lowercase hex", a.Digest)
	}
	return nil
}

// ResolveHome returns the absolute home directory: flag when non-empty, else
// $MODBAY_HOME, else $FACET_STUDIO_HOME, else $XDG_DATA_HOME/modbay, else
// ~/.local/share/modbay (docs/protocol.md §2).
func ResolveHome(flag string) (string, error) {
	for _, v := range []string{flag, os.Getenv("MODBAY_HOME"), os.Getenv("FACET_STUDIO_HOME")} {
		if v != "" {
			return filepath.Abs(v)
		}
	}
	return DefaultHome()
}

// DefaultHome is the home a command finds with neither --home nor
// $MODBAY_HOME: $XDG_DATA_HOME/modbay, else ~/.local/share/modbay. A
// line modbay prints to be pasted names any other home with --home.
func DefaultHome() (string, error) {
	if x := os.Getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "modbay"), nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home: set MODBAY_HOME or pass --home: %w", err)
	}
	return filepath.Join(h, ".local", "share", "modbay"), nil
}

// Load reads <home>/config.yaml when present (a missing file is the empty
// config) and fills in the derived paths. home must be absolute.
func Load(home string) (*Config, error) {
	c := &Config{}
	b, err := os.ReadFile(filepath.Join(home, FileName))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		// Unknown keys are errors: a misspelt "polcy:" must not silently
		// drop a security policy.
		if err := decodeYAML(b, c); err != nil {
			return nil, fileError(filepath.Join(home, FileName), err)
		}
	}
	switch c.Sandbox {
	case "", SandboxAuto, SandboxRequire, SandboxOff:
	default:
		return nil, &FileError{Path: filepath.Join(home, FileName), Line: keyLine(b, "sandbox"),
			Msg: fmt.Sprintf("sandbox: %q is not one of auto, require, off", c.Sandbox)}
	}
	for i, a := range c.Policy.PreApproved {
		if err := a.check(); err != nil {
			return nil, &FileError{Path: filepath.Join(home, FileName), Line: keyLine(b, "policy"),
				Msg: fmt.Sprintf("policy.pre_approved[%d]: %v", i, err)}
		}
	}
	if c.DescribeParallel < 0 || c.DescribeParallel > MaxDescribeParallel {
		return nil, &FileError{Path: filepath.Join(home, FileName), Line: keyLine(b, "describe_parallel"),
			Msg: fmt.Sprintf("describe_parallel: %d is not between 1 and %d (or 0: the default)", c.DescribeParallel, MaxDescribeParallel)}
	}
	if err := c.MCPServe.check(); err != nil {
		return nil, &FileError{Path: filepath.Join(home, FileName), Line: keyLine(b, "mcp_serve"), Msg: "mcp_serve: " + err.Error()}
	}
	if err := c.Theme.check(); err != nil {
		return nil, sectionError(home, b, "theme", err)
	}
	if err := checkKeys(c.Keys); err != nil {
		return nil, sectionError(home, b, "keys", err)
	}
	c.Home = home
	if c.Workspace == "" {
		c.Workspace = filepath.Join(home, "workspace")
	} else if !filepath.IsAbs(c.Workspace) {
		c.Workspace = filepath.Join(home, c.Workspace)
	}
	c.Workspace = filepath.Clean(c.Workspace)
	for i, d := range c.Skills.Dirs {
		if !filepath.IsAbs(d) {
			c.Skills.Dirs[i] = filepath.Join(home, d)
		}
	}
	return c, nil
}

// FileError is why config.yaml could not be loaded, at a place in it:
// Error() is "<path>:<line>:<column>: <message>" (line and column 1-based;
// an unknown one is left out), followed on the next lines by the offending
// lines of the file when the parser quoted them. Load returns it (as
// error) for every problem in the file's contents; an unreadable file is
// the plain I/O error.
type FileError struct {
	// Path is the absolute path of config.yaml.
	Path string
	// Line and Column locate the problem (0: unknown).
	Line, Column int
	// Msg is the problem, one line.
	Msg string
	// Source is the parser's excerpt of the file around the problem, ""
	// when there is none.
	Source string
}

// Error implements error.
func (e *FileError) Error() string {
	s := e.Where() + ": " + e.Msg
	if e.Source != "" {
		s += "\n" + e.Source
	}
	return s
}

// Where is "<path>:<line>:<column>", as far as they are known.
func (e *FileError) Where() string {
	s := e.Path
	if e.Line > 0 {
		s += fmt.Sprintf(":%d", e.Line)
		if e.Column > 0 {
			s += fmt.Sprintf(":%d", e.Column)
		}
	}
	return s
}

// Short is the error on one line, without the excerpt: what a status line
// shows.
func (e *FileError) Short() string { return e.Where() + ": " + e.Msg }

// fileError turns a YAML decoding error of the file at path into a
// *FileError with the parser's position and excerpt when it gave them.
func fileError(path string, err error) *FileError {
	fe := &FileError{Path: path, Msg: err.Error()}
	var ye yaml.Error
	if errors.As(err, &ye) {
		fe.Msg = ye.GetMessage()
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			fe.Line, fe.Column = tk.Position.Line, tk.Position.Column
		}
		// FormatError with the source is "[l:c] msg\n<excerpt>".
		if _, src, ok := strings.Cut(ye.FormatError(false, true), "\n"); ok {
			fe.Source = strings.TrimRight(src, "\n ")
		}
	}
	return fe
}

// atError is a problem of the value at a path below a section
// ("colors.danger", "pager"), so the file error can point at the value.
type atError struct {
	at  []string
	msg string
}

func (e *atError) Error() string { return e.msg }

// sectionError is err of section's value as a FileError at the offending
// value's line and column (the section's line when they cannot be found).
func sectionError(home string, b []byte, section string, err error) *FileError {
	fe := &FileError{Path: filepath.Join(home, FileName), Line: keyLine(b, section), Msg: section + ": " + err.Error()}
	if ae, ok := err.(*atError); ok {
		if l, c := valuePos(b, append([]string{section}, ae.at...)); l > 0 {
			fe.Line, fe.Column = l, c
		}
	}
	return fe
}

// valuePos is the 1-based line and column of the value at path (mapping
// keys from the top) in b, 0, 0 when it is not found.
func valuePos(b []byte, path []string) (line, col int) {
	defer func() {
		if recover() != nil { // the parser panics on some malformed input
			line, col = 0, 0
		}
	}()
	f, err := parser.ParseBytes(b, 0)
	if err != nil || len(f.Docs) == 0 {
		return 0, 0
	}
	n := f.Docs[0].Body
	for _, k := range path {
		m, ok := n.(*ast.MappingNode)
		if !ok {
			return 0, 0
		}
		var next ast.Node
		for _, v := range m.Values {
			if v.Key != nil && v.Key.String() == k {
				next = v.Value
			}
		}
		if next == nil {
			return 0, 0
		}
		n = next
	}
	if t := n.GetToken(); t != nil && t.Position != nil {
		return t.Position.Line, t.Position.Column
	}
	return 0, 0
}

// keyLine is the 1-based line of b where top-level key starts, 0 when
// none does.
func keyLine(b []byte, key string) int {
	for i, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, key+":") {
			return i + 1
		}
	}
	return 0
}

// ModulesDir is <home>/modules, where modules are discovered (docs/protocol.md §2).
func (c *Config) ModulesDir() string { return filepath.Join(c.Home, "modules") }

// ArtifactsDir is <home>/artifacts, the content-addressed artifact store
// (docs/protocol.md §8).
func (c *Config) ArtifactsDir() string { return filepath.Join(c.Home, "artifacts") }

// CacheDir is <home>/cache, where describe results are cached (docs/protocol.md §18).
func (c *Config) CacheDir() string { return filepath.Join(c.Home, "cache") }

// decodeYAML decodes b into c strictly (unknown keys are errors). The YAML
// library panics on some malformed inputs (found by FuzzLoad, e.g. a tag on
// a list value); such a panic is turned into an error, so a broken config
// file is reported instead of crashing modbay.
func decodeYAML(b []byte, c *Config) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the YAML parser failed on this file: %v", r)
		}
	}()
	return yaml.UnmarshalWithOptions(b, c, yaml.DisallowUnknownField())
}

// CheckToolPattern reports why p cannot select served tools: an empty or
// malformed glob (path.Match), or one with more than one "/" (a pattern
// is MODULE or MODULE/CAPABILITY, docs/gateway.md "Choosing the tools").
func CheckToolPattern(p string) error {
	if _, err := path.Match(p, ""); err != nil || p == "" {
		return fmt.Errorf("%q is not a glob pattern", p)
	}
	if strings.Count(p, "/") > 1 {
		return fmt.Errorf("%q has more than one \"/\" (a pattern is MODULE or MODULE/CAPABILITY)", p)
	}
	return nil
}

// check reports the first value of the mcp_serve: section that cannot be
// used: a malformed pattern or a negative bound.
func (m MCPServe) check() error {
	for _, list := range []struct {
		key      string
		patterns []string
	}{{"tools", m.Tools}, {"exclude", m.Exclude}} {
		for _, p := range list.patterns {
			if err := CheckToolPattern(p); err != nil {
				return fmt.Errorf("%s: %w", list.key, err)
			}
		}
	}
	if m.MaxConcurrent < 0 {
		return fmt.Errorf("max_concurrent: %d is negative", m.MaxConcurrent)
	}
	if m.MaxCostPerSession < 0 || m.MaxCostPerSession != m.MaxCostPerSession {
		return fmt.Errorf("max_cost_per_session: %v is not a cost (0 or more)", m.MaxCostPerSession)
	}
	return nil
}
