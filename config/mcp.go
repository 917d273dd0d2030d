package config

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"modbay/modproto"
)

// MCPServer is one entry of config.yaml's mcp_servers: a stdio
// server the host starts ({command, args, env, cwd}) or a remote one it
// reaches over streamable HTTP ({url, headers}); exactly one of Command
// and URL is set. String values may name the host's variables as
// ${NAME} or ${NAME:-default}, expanded when the server starts
// (ExpandVars), never on import.
type MCPServer struct {
	// Command is the executable of a stdio server: an absolute path, or a
	// name looked up on the host's PATH when the server starts.
	Command string `yaml:"command,omitempty"`
	// Args are the command's arguments.
	Args []string `yaml:"args,omitempty"`
	// Env is the server's whole environment: nothing else of the host's
	// environment reaches it (the host adds only TMPDIR, a per-session
	// directory). Values may name host variables (${GITHUB_TOKEN}).
	Env map[string]string `yaml:"env,omitempty"`
	// Cwd is the server's working directory (default: a per-session
	// scratch directory). It is read-only to the server unless Roots
	// lists it (with its mode), as `describe` shows.
	Cwd string `yaml:"cwd,omitempty"`
	// URL is a remote server's streamable HTTP endpoint, or its SSE
	// endpoint when Type is "sse".
	URL string `yaml:"url,omitempty"`
	// Type is how a remote server is reached: "" or "http" (streamable
	// HTTP), "sse" (the older HTTP+SSE transport); "stdio" or "" for a
	// command.
	Type string `yaml:"type,omitempty"`
	// Headers are sent with every request to URL (an Authorization
	// header, say); values may name host variables.
	Headers map[string]string `yaml:"headers,omitempty"`
	// Network grants a stdio server the network for its whole life: a
	// server is one process across calls, so its grants are fixed when it
	// starts. An npx server needs it just to start (npm fetches the
	// package), and PATH, HOME and an npm cache directory in Env.
	Network bool `yaml:"network,omitempty"`
	// Roots maps host directories the stdio server may touch to their
	// mode, RootRO, RootRW or RootRWX; nothing else of the host's files
	// but the system trees is reachable when the sandbox applies.
	Roots map[string]string `yaml:"roots,omitempty"`
	// Needs maps host directories the server needs only to start (an npm
	// cache, an installed package's node_modules) to their mode, as Roots:
	// in its sandbox, never announced to it as MCP roots, so a server that
	// takes its roots as allowed folders does not take these.
	Needs map[string]string `yaml:"needs,omitempty"`
	// Limits bound the server: its reply size, and a stdio server's
	// process limits (docs/containment.md).
	Limits MCPLimits `yaml:"limits,omitempty"`
	// LogLevel is the level the server is asked to log at
	// (logging/setLevel): one of MCPLogLevels, "" for info.
	LogLevel string `yaml:"log_level,omitempty"`
}

// MCPLogLevels are MCP's log levels (RFC 5424's), least severe first.
var MCPLogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// MCPLimits are an MCP server entry's `limits:`.
type MCPLimits struct {
	// MaxOutputBytes bounds one tool call's reply, its content blocks
	// included, in bytes (0: the config's max_output_bytes when set,
	// else MCPDefaultMaxOutputBytes); at most MCPMaxOutputBytes.
	MaxOutputBytes int `yaml:"max_output_bytes,omitempty"`
	// InitializeSeconds bounds starting the server and its answer to
	// initialize, in seconds (0: 10, or 60 for a command that fetches its
	// package first, as npx and uvx do); at most MCPMaxInitializeSeconds.
	InitializeSeconds int `yaml:"initialize_seconds,omitempty"`
	// Process are a stdio server's process limits, the config's own
	// `limits:` keys written inline (they replace the config's for this
	// server when any is set).
	Process Limits `yaml:",inline"`
}

// MCP reply bounds (docs/protocol.md §14).
const (
	// MCPDefaultMaxOutputBytes is an MCP server's reply ceiling when
	// neither its entry nor the config sets one: 8 MiB, so an ordinary
	// media file (a 900 KB image is 1.2 MB of base64) fits.
	MCPDefaultMaxOutputBytes = 8 << 20
	// MCPMaxOutputBytes is the most an entry may set: the MCP SDK reads
	// one JSON-RPC frame of at most 16 MiB.
	MCPMaxOutputBytes = 16 << 20
	// MCPMaxInitializeSeconds is the longest limits.initialize_seconds.
	MCPMaxInitializeSeconds = 600
)

// Root modes of an MCP server's roots.
const (
	// RootRO is readable (and its directories listable).
	RootRO = "ro"
	// RootRW is readable and writable, never executable.
	RootRW = "rw"
	// RootRWX is readable, writable and executable: an npm cache an npx
	// server installs its package into and runs it from.
	RootRWX = "rwx"
)

// Transport is "stdio" for a Command, "http" for a URL, "" when the entry
// names neither or both (CheckMCPServer says why).
func (s MCPServer) Transport() string {
	switch {
	case s.Command != "" && s.URL == "":
		return "stdio"
	case s.URL != "" && s.Command == "":
		return "http"
	}
	return ""
}

// SSE reports whether a remote server is reached over the older HTTP+SSE
// transport (type: sse) rather than streamable HTTP.
func (s MCPServer) SSE() bool { return s.Type == "sse" && s.URL != "" }

// CheckMCPServer reports what makes the entry id unusable, nil when it is
// usable: a bad id, neither or both of command and url, stdio-only keys on
// a remote server, a relative cwd or root, a root mode other than ro/rw/rwx.
func CheckMCPServer(id string, s MCPServer) error {
	if !modproto.ValidModuleID(id) {
		return fmt.Errorf("mcp_servers: id %q breaks the id grammar: %s", id, modproto.ModuleIDRule)
	}
	switch s.Transport() {
	case "":
		if s.Command == "" {
			return fmt.Errorf("mcp_servers.%s: needs command (a stdio server) or url (a remote one)", id)
		}
		return fmt.Errorf("mcp_servers.%s: has both command and url; keep one", id)
	case "http":
		if len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != "" || len(s.Roots) > 0 || len(s.Needs) > 0 {
			return fmt.Errorf("mcp_servers.%s: args, env, cwd, roots and needs are for stdio servers, not a url", id)
		}
		if !strings.HasPrefix(s.URL, "https://") && !strings.HasPrefix(s.URL, "http://") {
			return fmt.Errorf("mcp_servers.%s: url %q is not http(s)", id, s.URL)
		}
	case "stdio":
		if len(s.Headers) > 0 {
			return fmt.Errorf("mcp_servers.%s: headers are for remote servers (url)", id)
		}
		if s.Cwd != "" && !strings.HasPrefix(s.Cwd, "/") {
			return fmt.Errorf("mcp_servers.%s: cwd %q must be absolute", id, s.Cwd)
		}
	}
	switch {
	case s.Type != "" && s.Type != "stdio" && s.Type != "http" && s.Type != "sse":
		return fmt.Errorf("mcp_servers.%s: type %q is not stdio, http or sse", id, s.Type)
	case s.Type == "stdio" && s.Command == "", (s.Type == "http" || s.Type == "sse") && s.URL == "":
		return fmt.Errorf("mcp_servers.%s: type %s does not match the entry (command for stdio, url for http and sse)", id, s.Type)
	}
	if n := s.Limits.MaxOutputBytes; n < 0 || n > MCPMaxOutputBytes {
		return fmt.Errorf("mcp_servers.%s: limits.max_output_bytes %d is not between 0 and %d (the most one MCP message may hold)", id, n, MCPMaxOutputBytes)
	}
	if n := s.Limits.InitializeSeconds; n < 0 || n > MCPMaxInitializeSeconds {
		return fmt.Errorf("mcp_servers.%s: limits.initialize_seconds %d is not between 0 and %d", id, n, MCPMaxInitializeSeconds)
	}
	if s.LogLevel != "" && !slices.Contains(MCPLogLevels, s.LogLevel) {
		return fmt.Errorf("mcp_servers.%s: log_level %q is not one of %s", id, s.LogLevel, strings.Join(MCPLogLevels, ", "))
	}
	for _, kind := range []struct {
		name  string
		roots map[string]string
	}{{"root", s.Roots}, {"need", s.Needs}} {
		for _, p := range slices.Sorted(mapKeys(kind.roots)) {
			if !strings.HasPrefix(p, "/") {
				return fmt.Errorf("mcp_servers.%s: %s %q must be absolute", id, kind.name, p)
			}
			if m := kind.roots[p]; m != RootRO && m != RootRW && m != RootRWX {
				return fmt.Errorf("mcp_servers.%s: %s %s: mode %q is not ro, rw or rwx", id, kind.name, p, m)
			}
		}
	}
	return nil
}

// AdvertisedRoots are the roots a stdio server is told of (MCP
// roots/list): its Roots, less those that are start-up needs written
// before Needs existed, an rwx root that is its npm_config_cache or a
// root named node_modules (StartupRoot); Needs never are. By path.
func (s MCPServer) AdvertisedRoots() map[string]string {
	out := map[string]string{}
	for p, m := range s.Roots {
		if !s.StartupRoot(p) {
			out[p] = m
		}
	}
	return out
}

// StartupRoot reports whether root p of Roots is recognisably one the
// server needs only to start, as import wrote it before Needs existed:
// its npm cache (rwx, the Env's npm_config_cache) or a node_modules folder.
func (s MCPServer) StartupRoot(p string) bool {
	if _, ok := s.Roots[p]; !ok {
		return false
	}
	if s.Roots[p] == RootRWX && s.Env["npm_config_cache"] == p {
		return true
	}
	return filepath.Base(p) == "node_modules"
}

// SandboxRoots are every host directory the server's sandbox holds, by
// path: its Roots and its Needs (a path in both takes the Roots' mode).
func (s MCPServer) SandboxRoots() map[string]string {
	out := map[string]string{}
	for p, m := range s.Needs {
		out[p] = m
	}
	for p, m := range s.Roots {
		out[p] = m
	}
	return out
}

// mapKeys yields m's keys.
func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// varPattern matches ${NAME} and ${NAME:-default} (Claude Code's syntax,
// which the other formats' plain ${NAME} is a case of).
var varPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)
})

// ExpandVars replaces each ${NAME} in s with lookup(NAME), and each
// ${NAME:-default} with it or, when unset or empty, default. An unset
// ${NAME} without a default stays literal, as Claude Code leaves it, so a
// missing secret shows as what it is instead of an empty string; missing
// lists those names. Nothing else is expanded (no $NAME, no command
// substitution; ${input:id} is not a variable).
func ExpandVars(s string, lookup func(string) (string, bool)) (out string, missing []string) {
	out = varPattern().ReplaceAllStringFunc(s, func(m string) string {
		sub := varPattern().FindStringSubmatch(m)
		v, ok := lookup(sub[1])
		switch {
		case ok && (v != "" || sub[2] == ""):
			return v
		case sub[2] != "":
			return sub[3]
		}
		missing = append(missing, sub[1])
		return m
	})
	return out, missing
}

// HostLookup is os.LookupEnv: the host's environment, the only source
// ExpandVars reads when a server starts.
func HostLookup(name string) (string, bool) { return os.LookupEnv(name) }
