package mcp

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"modbay/config"
)

// Import formats (Imported.Format).
const (
	// FormatMCPServers is a top-level "mcpServers" map: Claude Desktop's
	// claude_desktop_config.json, Claude Code's .mcp.json, Cursor's
	// mcp.json.
	FormatMCPServers = "mcpServers"
	// FormatClaudeCode is Claude Code's ~/.claude.json: "mcpServers" at the
	// top (user scope) and under "projects"."<dir>" (local scope).
	FormatClaudeCode = "claude.json"
	// FormatVSCode is VS Code's .vscode/mcp.json: "servers" and "inputs".
	FormatVSCode = "vscode"
	// FormatCodex is Codex's ~/.codex/config.toml: [mcp_servers.<name>]
	// tables.
	FormatCodex = "codex"
)

// Imported is one server found in a client's configuration file.
type Imported struct {
	// ID is the id it gets in mcp_servers: the file's name for it, with
	// characters an id may not hold replaced by '-'.
	ID string
	// Name is the name the file gives it.
	Name string
	// Server is the entry as it will be written; ${VAR} and ${input:id}
	// references are kept as written (expanded when the server starts).
	Server config.MCPServer
	// Notes say what did not carry over (an envFile, an SSE transport, an
	// input to provide).
	Notes []string
}

// Found is what ParseClientConfig read from one file.
type Found struct {
	// Format is one of the Format constants.
	Format string
	// Servers are the servers, sorted by ID.
	Servers []Imported
	// Inputs are VS Code's prompted inputs by id, with their description;
	// their values are never read from the file (it holds none).
	Inputs map[string]string
}

// clientServer is one server entry in any of the formats.
type clientServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	EnvFile string            `json:"envFile"`
	Cwd     string            `json:"cwd"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// idUnsafe matches what an mcp_servers id may not hold.
var idUnsafe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9._-]+`) })

// ParseClientConfig reads a client's MCP configuration (Claude Desktop,
// Claude Code .mcp.json or ~/.claude.json, VS Code .vscode/mcp.json,
// Cursor mcp.json) or Codex's config.toml, telling the format by its keys;
// comments and trailing commas (JSONC, as VS Code writes) are accepted. Nothing is run and
// nothing expanded (Found.Place maps what belongs to this machine). An entry's transport is its "type" or, absent, what
// it has: command (stdio) or url (http).
func ParseClientConfig(data []byte) (*Found, error) {
	var top struct {
		MCPServers map[string]clientServer `json:"mcpServers"`
		Servers    map[string]clientServer `json:"servers"`
		Inputs     []struct {
			ID          string `json:"id"`
			Description string `json:"description"`
		} `json:"inputs"`
		Projects map[string]struct {
			MCPServers map[string]clientServer `json:"mcpServers"`
		} `json:"projects"`
	}
	if err := json.Unmarshal(stripJSONC(data), &top); err != nil {
		if f, ok := parseCodex(data); ok {
			return f, nil
		}
		return nil, fmt.Errorf("not a JSON MCP configuration (nor Codex's TOML): %w", err)
	}
	f := &Found{Inputs: map[string]string{}}
	all := map[string]clientServer{}
	switch {
	case top.Servers != nil:
		f.Format = FormatVSCode
		all = top.Servers
		for _, in := range top.Inputs {
			f.Inputs[in.ID] = in.Description
		}
	case top.Projects != nil:
		f.Format = FormatClaudeCode
		maps.Copy(all, top.MCPServers)
		for _, dir := range slices.Sorted(maps.Keys(top.Projects)) {
			for name, s := range top.Projects[dir].MCPServers {
				if _, dup := all[name]; !dup {
					all[name] = s
				}
			}
		}
	case top.MCPServers != nil:
		f.Format = FormatMCPServers
		all = top.MCPServers
	default:
		return nil, fmt.Errorf("no MCP servers: the file has neither mcpServers nor servers")
	}
	for _, name := range slices.Sorted(maps.Keys(all)) {
		f.Servers = append(f.Servers, importOne(name, all[name], f.Inputs))
	}
	return f, nil
}

// importOne converts one entry.
func importOne(name string, s clientServer, inputs map[string]string) Imported {
	id := strings.Trim(idUnsafe().ReplaceAllString(name, "-"), "-.")
	if len(id) > 64 {
		id = id[:64]
	}
	im := Imported{ID: id, Name: name}
	srv := config.MCPServer{Command: s.Command, Args: s.Args, Env: s.Env, Cwd: s.Cwd, URL: s.URL, Headers: s.Headers}
	switch s.Type {
	case "sse":
		srv.Type = "sse"
	case "", "stdio", "http", "streamable-http":
	default:
		im.Notes = append(im.Notes, fmt.Sprintf("unknown type %q", s.Type))
	}
	if s.EnvFile != "" {
		im.Notes = append(im.Notes, "envFile "+s.EnvFile+" is not read: copy the variables it needs into env")
	}
	if srv.Command != "" && !strings.HasPrefix(srv.Command, "/") && srv.Env["PATH"] == "" {
		note := "the server gets no PATH, HOME or other host variable unless env names it"
		if base := filepath.Base(srv.Command); base == "npx" || base == "npm" || base == "node" {
			note += " (npx needs PATH, HOME, an npm cache directory and network: true)"
		}
		im.Notes = append(im.Notes, note)
	}
	refs := map[string]bool{}
	for _, v := range append(append(slices.Collect(maps.Values(s.Env)), slices.Collect(maps.Values(s.Headers))...), s.Args...) {
		for _, m := range inputRef().FindAllStringSubmatch(v, -1) {
			refs[m[1]] = true
		}
	}
	for _, r := range slices.Sorted(maps.Keys(refs)) {
		im.Notes = append(im.Notes, fmt.Sprintf("uses the prompted input ${input:%s} (%s): modbay reads it from %s when the server starts and never writes it down", r, inputs[r], InputEnv(r)))
	}
	im.Server = srv
	return im
}

// inputRef matches VS Code's ${input:id}.
var inputRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{input:([^}]+)\}`) })

// codexServer is one [mcp_servers.<name>] table of Codex's config.toml.
type codexServer struct {
	Command           string            `toml:"command"`
	Args              []string          `toml:"args"`
	Env               map[string]string `toml:"env"`
	Cwd               string            `toml:"cwd"`
	URL               string            `toml:"url"`
	HTTPHeaders       map[string]string `toml:"http_headers"`
	BearerTokenEnvVar string            `toml:"bearer_token_env_var"`
	Enabled           *bool             `toml:"enabled"`
}

// parseCodex reads Codex's config.toml (github.com/BurntSushi/toml): its
// mcp_servers tables as servers, bearer_token_env_var as an Authorization
// header naming the variable (expanded when the server starts); false
// when data is not TOML or has no mcp_servers.
func parseCodex(data []byte) (*Found, bool) {
	var top struct {
		MCPServers map[string]codexServer `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(string(data), &top); err != nil || top.MCPServers == nil {
		return nil, false
	}
	f := &Found{Format: FormatCodex, Inputs: map[string]string{}}
	for _, name := range slices.Sorted(maps.Keys(top.MCPServers)) {
		c := top.MCPServers[name]
		cs := clientServer{Command: c.Command, Args: c.Args, Env: c.Env, Cwd: c.Cwd, URL: c.URL, Headers: c.HTTPHeaders}
		if c.BearerTokenEnvVar != "" {
			cs.Headers = maps.Clone(cs.Headers)
			if cs.Headers == nil {
				cs.Headers = map[string]string{}
			}
			cs.Headers["Authorization"] = "Bearer ${" + c.BearerTokenEnvVar + "}"
		}
		im := importOne(name, cs, f.Inputs)
		if c.Enabled != nil && !*c.Enabled {
			im.Notes = append(im.Notes, "disabled in Codex (enabled = false)")
		}
		f.Servers = append(f.Servers, im)
	}
	return f, true
}
