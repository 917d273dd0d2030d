package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLoadMCPServers(t *testing.T) {
	home := t.TempDir()
	yml := `mcp_servers:
  github:
    command: npx
    args: ["-y", "@modelcontextprotocol/server-github"]
    env:
      GITHUB_TOKEN: ${GITHUB_TOKEN}
    network: true
    limits:
      max_output_bytes: 4194304
      open_files: 256
      initialize_seconds: 120
  remote:
    url: https://mcp.example.com/mcp
    headers:
      Authorization: Bearer ${API_KEY}
`
	if err := os.WriteFile(filepath.Join(home, FileName), []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(home)
	if err != nil {
		t.Fatal(err)
	}
	gh, rm := c.MCPServers["github"], c.MCPServers["remote"]
	if gh.Transport() != "stdio" || !slices.Equal(gh.Args, []string{"-y", "@modelcontextprotocol/server-github"}) || gh.Env["GITHUB_TOKEN"] != "${GITHUB_TOKEN}" || !gh.Network ||
		gh.Limits.MaxOutputBytes != 4<<20 || gh.Limits.Process.OpenFiles != 256 || gh.Limits.InitializeSeconds != 120 {
		t.Errorf("github = %+v", gh)
	}
	if rm.Transport() != "http" || rm.Headers["Authorization"] != "Bearer ${API_KEY}" {
		t.Errorf("remote = %+v", rm)
	}
	for id, s := range c.MCPServers {
		if err := CheckMCPServer(id, s); err != nil {
			t.Error(err)
		}
	}
}

func TestLoadMCPServersUnknownKey(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, FileName), []byte("mcp_servers:\n  x:\n    comand: y\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(home); err == nil {
		t.Fatal("a misspelt key in an mcp_servers entry loaded")
	}
}

func TestCheckMCPServer(t *testing.T) {
	for _, tc := range []struct {
		id   string
		s    MCPServer
		want string
	}{
		{"ok", MCPServer{Command: "x"}, ""},
		{"ok", MCPServer{URL: "https://h/mcp"}, ""},
		{"", MCPServer{Command: "x"}, "id"},
		{"a/b", MCPServer{Command: "x"}, "id"},
		{"x", MCPServer{}, "needs command"},
		{"x", MCPServer{Command: "a", URL: "https://h"}, "both"},
		{"x", MCPServer{URL: "ftp://h"}, "not http"},
		{"x", MCPServer{URL: "https://h", Env: map[string]string{"A": "b"}}, "stdio servers"},
		{"x", MCPServer{Command: "a", Headers: map[string]string{"A": "b"}}, "remote"},
		{"x", MCPServer{Command: "a", Cwd: "rel"}, "absolute"},
		{"x", MCPServer{Command: "a", Roots: map[string]string{"/d": "rx"}}, "mode"},
		{"x", MCPServer{Command: "a", Roots: map[string]string{"/d": RootRWX, "/e": RootRO, "/f": RootRW}}, ""},
		{"x", MCPServer{Command: "a", Roots: map[string]string{"d": "ro"}}, "absolute"},
		{"x", MCPServer{Command: "a", Limits: MCPLimits{InitializeSeconds: 601}}, "initialize_seconds"},
		{"x", MCPServer{Command: "a", Limits: MCPLimits{InitializeSeconds: -1}}, "initialize_seconds"},
		{"x", MCPServer{URL: "https://h/mcp", Limits: MCPLimits{InitializeSeconds: 600}}, ""},
	} {
		err := CheckMCPServer(tc.id, tc.s)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q %+v: %v", tc.id, tc.s, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q %+v: error %v, want it to mention %q", tc.id, tc.s, err, tc.want)
		}
	}
}

func TestExpandVars(t *testing.T) {
	env := map[string]string{"TOKEN": "t0k", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for _, tc := range []struct{ in, want, missing string }{
		{"${TOKEN}", "t0k", ""},
		{"Bearer ${TOKEN}!", "Bearer t0k!", ""},
		{"${UNSET}", "${UNSET}", "UNSET"},
		{"${UNSET:-dflt}", "dflt", ""},
		{"${EMPTY:-dflt}", "dflt", ""},
		{"${EMPTY}", "", ""},
		{"$TOKEN ${input:key} $(id)", "$TOKEN ${input:key} $(id)", ""},
	} {
		got, missing := ExpandVars(tc.in, lookup)
		if got != tc.want || strings.Join(missing, ",") != tc.missing {
			t.Errorf("ExpandVars(%q) = %q, %v; want %q, %q", tc.in, got, missing, tc.want, tc.missing)
		}
	}
}
