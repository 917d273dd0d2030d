package mcp

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"modbay/config"
)

func TestParseClientConfig(t *testing.T) {
	for _, tc := range []struct {
		file, format string
		ids          []string
		check        func(t *testing.T, f *Found)
	}{
		{"claude_desktop_config.json", FormatMCPServers, []string{"filesystem", "github"}, func(t *testing.T, f *Found) {
			gh := f.Servers[1].Server
			if gh.Command != "docker" || gh.Env["GITHUB_PERSONAL_ACCESS_TOKEN"] != "${GITHUB_TOKEN}" || gh.Transport() != "stdio" {
				t.Errorf("github = %+v (variables must stay unexpanded)", gh)
			}
		}},
		{"dot-mcp.json", FormatMCPServers, []string{"local-tool", "sentry"}, func(t *testing.T, f *Found) {
			if s := f.Servers[1].Server; s.Transport() != "http" || s.Headers["Authorization"] != "Bearer ${SENTRY_TOKEN:-}" {
				t.Errorf("sentry = %+v", s)
			}
			if f.Servers[0].Name != "local tool" {
				t.Errorf("name %q", f.Servers[0].Name)
			}
		}},
		{"vscode-mcp.json", FormatVSCode, []string{"Perplexity", "old"}, func(t *testing.T, f *Found) {
			notes := strings.Join(f.Servers[0].Notes, "\n")
			if f.Inputs["perplexity-key"] != "Perplexity API Key" || !strings.Contains(notes, "${input:perplexity-key} (Perplexity API Key)") || !strings.Contains(notes, "envFile") {
				t.Errorf("inputs %v, notes %q", f.Inputs, notes)
			}
			if s := f.Servers[1].Server; !s.SSE() || len(f.Servers[1].Notes) != 0 {
				t.Errorf("the sse entry %+v, notes %q, want type sse and no note", s, f.Servers[1].Notes)
			}
		}},
		{"cursor-mcp.json", FormatMCPServers, []string{"playwright", "remote"}, func(t *testing.T, f *Found) {
			if f.Servers[1].Server.Transport() != "http" {
				t.Errorf("remote = %+v", f.Servers[1].Server)
			}
		}},
		{"claude.json", FormatClaudeCode, []string{"proj-tool", "user-tool"}, nil},
	} {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "import", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			f, err := ParseClientConfig(b)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, s := range f.Servers {
				ids = append(ids, s.ID)
				if err := config.CheckMCPServer(s.ID, s.Server); err != nil {
					t.Errorf("imported %s is unusable: %v", s.ID, err)
				}
			}
			if f.Format != tc.format || !slices.Equal(ids, tc.ids) {
				t.Errorf("format %s ids %v, want %s %v", f.Format, ids, tc.format, tc.ids)
			}
			if tc.check != nil {
				tc.check(t, f)
			}
		})
	}
	if _, err := ParseClientConfig([]byte(`{"other":1}`)); err == nil {
		t.Error("a file without servers parsed")
	}
}

func TestMergeServers(t *testing.T) {
	b, _ := os.ReadFile(filepath.Join("testdata", "import", "cursor-mcp.json"))
	f, err := ParseClientConfig(b)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	orig := "# my policy\npolicy:\n  deny_network: true\nmcp_servers:\n  remote:\n    url: https://mine.example/mcp\n"
	have := map[string]config.MCPServer{"remote": {URL: "https://mine.example/mcp"}}
	// Without a yes, an existing id is left out, never overwritten.
	out, skipped, replaced, err := MergeServers([]byte(orig), have, f.Servers, nil)
	if err != nil || !slices.Equal(skipped, []string{"remote"}) || len(replaced) != 0 {
		t.Fatalf("existing id: %v, skipped %v, replaced %v", err, skipped, replaced)
	}
	if !strings.HasPrefix(string(out), "# my policy\npolicy:\n  deny_network: true\nmcp_servers:\n") {
		t.Errorf("the existing text changed:\n%s", out)
	}
	if err := os.WriteFile(filepath.Join(home, config.FileName), out, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(home)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Policy.DenyNetwork || c.MCPServers["remote"].URL != "https://mine.example/mcp" ||
		c.MCPServers["playwright"].Command != "npx" || !slices.Equal(c.MCPServers["playwright"].Args, []string{"@playwright/mcp@latest"}) {
		t.Errorf("merged config %+v", c)
	}
	// No mcp_servers yet: a block at the end.
	out, _, _, err = MergeServers([]byte("sandbox: auto"), nil, f.Servers, nil)
	if err != nil || !strings.HasPrefix(string(out), "sandbox: auto\nmcp_servers:\n  playwright:\n") {
		t.Errorf("appended: %v\n%s", err, out)
	}
	if _, _, _, err := MergeServers([]byte("mcp_servers: {}\n"), nil, f.Servers, nil); err == nil {
		t.Error("a one-line mcp_servers was merged into")
	}

	// Asked and answered yes: the entry is replaced, its comment and the
	// entries around it kept.
	orig = "mcp_servers:\n  alpha:\n    command: /bin/a\n  # the old remote\n  remote:\n    url: https://mine.example/mcp\n    headers:\n      X: y\n\n  zeta:\n    command: /bin/z\npolicy:\n  deny_network: true\n"
	have = map[string]config.MCPServer{"alpha": {Command: "/bin/a"}, "remote": {URL: "https://mine.example/mcp", Headers: map[string]string{"X": "y"}}, "zeta": {Command: "/bin/z"}}
	var asked []string
	out, skipped, replaced, err = MergeServers([]byte(orig), have, f.Servers, func(id string) bool { asked = append(asked, id); return true })
	if err != nil || len(skipped) != 0 || !slices.Equal(replaced, []string{"remote"}) || !slices.Equal(asked, []string{"remote"}) {
		t.Fatalf("replace: %v, skipped %v, replaced %v, asked %v", err, skipped, replaced, asked)
	}
	if err := os.WriteFile(filepath.Join(home, config.FileName), out, 0o600); err != nil {
		t.Fatal(err)
	}
	if c, err = config.Load(home); err != nil {
		t.Fatal(err)
	}
	if c.MCPServers["remote"].URL != "https://example.com/mcp" || len(c.MCPServers["remote"].Headers) != 0 ||
		c.MCPServers["alpha"].Command != "/bin/a" || c.MCPServers["zeta"].Command != "/bin/z" || !c.Policy.DenyNetwork || len(c.MCPServers) != 4 {
		t.Errorf("replaced config:\n%s", out)
	}
	if !strings.Contains(string(out), "# the old remote") {
		t.Errorf("a comment was lost:\n%s", out)
	}
}

func TestReferenceSecrets(t *testing.T) {
	im := Imported{ID: "gh", Server: config.MCPServer{Command: "gh-mcp",
		Env: map[string]string{"GITHUB_TOKEN": "ghp_abcdefghijklmnop1234", "API_KEY": "not-in-host-env-0000", "LOG_LEVEL": "debug",
			"REF": "${ALREADY}", "OPAQUE": "AbCdEf0123456789XyZw99"}}}
	remote := Imported{ID: "r", Server: config.MCPServer{URL: "https://h/mcp",
		Headers: map[string]string{"Authorization": "Bearer ghp_abcdefghijklmnop1234", "X-Plain": "hello"}}}
	environ := []string{"HOME=/root", "GH_TOKEN=ghp_abcdefghijklmnop1234", "OTHER=debug"}
	ReferenceSecrets(&im, environ)
	ReferenceSecrets(&remote, environ)
	env := im.Server.Env
	if env["GITHUB_TOKEN"] != "${GH_TOKEN}" || env["API_KEY"] != "not-in-host-env-0000" || env["LOG_LEVEL"] != "debug" ||
		env["REF"] != "${ALREADY}" || env["OPAQUE"] != "AbCdEf0123456789XyZw99" {
		t.Errorf("env %v", env)
	}
	notes := strings.Join(im.Notes, "\n")
	for _, want := range []string{"env GITHUB_TOKEN: written as ${GH_TOKEN}", "env API_KEY looks like a secret", "env OPAQUE looks like a secret"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if strings.Contains(notes, "LOG_LEVEL") || strings.Contains(notes, "ghp_") {
		t.Errorf("notes name a plain value or quote a secret:\n%s", notes)
	}
	if h := remote.Server.Headers; h["Authorization"] != "Bearer ${GH_TOKEN}" || h["X-Plain"] != "hello" {
		t.Errorf("headers %v", h)
	}
}

// TestImportPlaceNodeModules: a script of a package npm installed (under
// node_modules, its dependencies hoisted beside it) gets the node_modules
// folder as its root, not its package's folder alone, which cannot start.
func TestImportPlaceNodeModules(t *testing.T) {
	nm := filepath.Join(t.TempDir(), "node_modules")
	pkg := filepath.Join(nm, "@scope", "server")
	if err := os.MkdirAll(filepath.Join(pkg, "dist"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(pkg, "dist", "index.js")
	for _, f := range []string{filepath.Join(pkg, "package.json"), script} {
		if err := os.WriteFile(f, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := ParseClientConfig([]byte(`{"mcpServers": {"s": {"command": "node", "args": ["` + script + `", "stdio"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	f.Place(filepath.Join(t.TempDir(), "claude_desktop_config.json"))
	if s := f.Servers[0].Server; len(s.Roots) != 0 || len(s.Needs) != 1 || s.Needs[nm] != config.RootRO {
		t.Errorf("roots %v needs %v, want no root and the need %s ro", s.Roots, s.Needs, nm)
	}
}

// TestImportPlace: VS Code's JSONC is read; ${workspaceFolder} becomes
// the folder holding .vscode; arguments naming folders and scripts become
// roots; a URL holding credentials is flagged.
func TestImportPlace(t *testing.T) {
	proj := t.TempDir()
	data := filepath.Join(proj, "data")
	pkg := filepath.Join(proj, "srv")
	for _, d := range []string{data, filepath.Join(pkg, "dist"), filepath.Join(proj, ".vscode")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(pkg, "package.json"), filepath.Join(pkg, "dist", "index.js")} {
		if err := os.WriteFile(f, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	jsonc := `{
  // the servers of this workspace
  "servers": {
    "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "` + data + `", "${workspaceFolder}"]},
    "tool": {"command": "/usr/bin/node", "args": ["` + filepath.Join(pkg, "dist", "index.js") + `"],}, /* trailing comma */
    "remote": {"type": "http", "url": "https://ann:hunter2@mcp.example.com/mcp?key=abc123&x=1"},
  },
}`
	f, err := ParseClientConfig([]byte(jsonc))
	if err != nil {
		t.Fatalf("JSONC refused: %v", err)
	}
	f.Place(filepath.Join(proj, ".vscode", "mcp.json"))
	by := map[string]Imported{}
	for _, s := range f.Servers {
		by[s.ID] = s
	}
	fs := by["fs"].Server
	if fs.Args[3] != proj || fs.Roots[data] != config.RootRW || fs.Roots[proj] != config.RootRW {
		t.Errorf("fs: args %q roots %v", fs.Args, fs.Roots)
	}
	if !strings.Contains(strings.Join(by["fs"].Notes, "\n"), "${workspaceFolder} written as "+proj) {
		t.Errorf("fs notes %q", by["fs"].Notes)
	}
	if s := by["tool"].Server; len(s.Roots) != 0 || len(s.Needs) != 1 || s.Needs[pkg] != config.RootRO {
		t.Errorf("tool roots %v needs %v, want its package folder a ro need, not a root", s.Roots, s.Needs)
	}
	notes := strings.Join(by["remote"].Notes, "\n")
	if !strings.Contains(notes, "user and password") || !strings.Contains(notes, "key=…") || strings.Contains(notes, "hunter2") {
		t.Errorf("remote notes %q", notes)
	}
}

// TestStartNeeds: each launcher's start-up needs, with folders under the
// home (testdata/interp/home for python -m's site-packages); a plain
// interpreter and docker have none; Place notes them and the install-once
// recipe; GrantStart adds them without replacing what the entry sets.
func TestStartNeeds(t *testing.T) {
	home := interpFixture(t, "home")
	for _, tc := range []struct {
		srv      config.MCPServer
		launcher string
		network  bool
		needs    map[string]string
		recipe   string
	}{
		{config.MCPServer{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-memory"}}, "npx", true,
			map[string]string{home + "/.npm": "rwx"}, "npm install --prefix ~/mcp/ID @modelcontextprotocol/server-memory"},
		{config.MCPServer{Command: "uvx", Args: []string{"--python", "3.12", "mcp-server-fetch"}}, "uvx", true,
			map[string]string{home + "/.cache/uv": "rwx", home + "/.local/share/uv": "rwx"}, "uv tool install mcp-server-fetch"},
		{config.MCPServer{Command: "uvx", Args: []string{"--from", "git+https://h/x", "serve"}}, "uvx", true,
			map[string]string{home + "/.cache/uv": "rwx", home + "/.local/share/uv": "rwx"}, "uv tool install git+https://h/x"},
		{config.MCPServer{Command: "/usr/bin/uv", Args: []string{"tool", "run", "mcp-server-time"}}, "uv tool run", true,
			map[string]string{home + "/.cache/uv": "rwx", home + "/.local/share/uv": "rwx"}, "uv tool install mcp-server-time"},
		{config.MCPServer{Command: "pipx", Args: []string{"run", "--spec", "mcp-server-time==1.0", "mcp-server-time"}}, "pipx run", true,
			map[string]string{home + "/.local/share/pipx": "rwx", home + "/.cache/pip": "rw"}, "pipx install mcp-server-time==1.0"},
		{config.MCPServer{Command: "python3", Args: []string{"-m", "mcp_server_git", "--repository", "/r"}}, "python -m", false,
			map[string]string{home + "/.local/lib/python3.12": "ro"}, ""},
	} {
		n, ok := StartNeedsOf(tc.srv, home)
		if !ok || n.Launcher != tc.launcher || n.Network != tc.network || !maps.Equal(n.Needs, tc.needs) || !strings.HasPrefix(n.Recipe, tc.recipe) || (tc.recipe == "") != (n.Recipe == "") {
			t.Errorf("%s %q: %+v %v, want %s network=%v needs %v recipe %q", tc.srv.Command, tc.srv.Args, n, ok, tc.launcher, tc.network, tc.needs, tc.recipe)
		}
	}
	for _, srv := range []config.MCPServer{
		{Command: "node", Args: []string{"/srv/index.js"}},
		{Command: "python3", Args: []string{"-m", "not_installed"}},
		{Command: "python3", Args: []string{"-m", "../../etc"}},
		{Command: "docker", Args: []string{"run", "-i", "--rm", "mcp/fetch"}},
		{Command: "pipx", Args: []string{"list"}},
		{URL: "https://h/mcp"},
	} {
		if n, ok := StartNeedsOf(srv, home); ok {
			t.Errorf("%s %q: needs %+v, want none", srv.Command, srv.Args, n)
		}
	}

	f, err := ParseClientConfig([]byte(`{"mcpServers": {"fetch": {"command": "uvx", "args": ["mcp-server-fetch"], "env": {"HOME": "/h"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	f.Place(filepath.Join(t.TempDir(), "claude_desktop_config.json"))
	im := &f.Servers[0]
	notes := strings.Join(im.Notes, "\n")
	if !strings.Contains(notes, "uvx needs, just to start, the network, uv's cache (~/.cache/uv)") || !strings.Contains(notes, "none of it is granted here") ||
		!strings.Contains(notes, "or install it once: uv tool install mcp-server-fetch") {
		t.Errorf("notes %q", notes)
	}
	if im.Server.Network || len(im.Server.Roots) != 0 || len(im.Server.Needs) != 0 {
		t.Errorf("granted on import: %+v", im.Server)
	}
	n, _ := StartNeedsOf(im.Server, home)
	GrantStart(im, n)
	if s := im.Server; !s.Network || s.Env["HOME"] != "/h" || s.Env["UV_CACHE_DIR"] != home+"/.cache/uv" || s.Env["PATH"] != "${PATH}" || s.Needs[home+"/.local/share/uv"] != "rwx" || len(s.Roots) != 0 {
		t.Errorf("granted %+v", s)
	}
}
