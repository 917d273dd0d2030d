package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modbay/mcp"
)

// fixtureConfigs are client files as people have them: other servers,
// comments (VS Code's JSONC), an older modbay entry.
var fixtureConfigs = map[string]string{
	"claude-code":    "{\n  \"mcpServers\": {\n    \"github\": {\"type\": \"stdio\", \"command\": \"gh-mcp\"}\n  }\n}\n",
	"claude-desktop": "{\n  \"globalShortcut\": \"Ctrl+Space\",\n  \"mcpServers\": {\"modbay\": {\"command\": \"/old/modbay\", \"args\": [\"mcp\", \"serve\"]}}\n}\n",
	"vscode":         "{\n  // project tools\n  \"inputs\": [],\n  \"servers\": {\n    \"fs\": {\"type\": \"stdio\", \"command\": \"fs-mcp\"}, // files\n  },\n}\n",
	"cursor":         "",
}

func TestMCPInstallRoundTrip(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	home := t.TempDir()
	ws := t.TempDir()
	for client, fixture := range fixtureConfigs {
		t.Run(client, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "config.json")
			if fixture != "" {
				if err := os.WriteFile(file, []byte(fixture), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			code, out, stderr := run(t, "--home", home, "mcp", "install", client, "--workspace", ws, "--write", "--file", file)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if fixture != "" {
				if b, _ := os.ReadFile(file + ".bak"); string(b) != fixture || !strings.Contains(out, ".bak") {
					t.Errorf("backup %q; %s", b, out)
				}
			}
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, keep := range []string{"// project tools", "// files", "\"github\"", "\"fs\"", "globalShortcut"} {
				if strings.Contains(fixture, keep) && !strings.Contains(string(b), keep) {
					t.Errorf("%s lost:\n%s", keep, b)
				}
			}
			// Round trip: modbay mcp import reads back what install wrote.
			f, err := mcp.ParseClientConfig(b)
			if err != nil {
				t.Fatalf("%v\n%s", err, b)
			}
			var got *mcp.Imported
			for i := range f.Servers {
				if f.Servers[i].ID == "modbay" {
					got = &f.Servers[i]
				}
			}
			want := "mcp serve --home " + home + " --workspace " + ws
			if got == nil || got.Server.Command != exe || strings.Join(got.Server.Args, " ") != want || got.Server.Transport() != "stdio" {
				t.Fatalf("imported %+v, want %s %s\n%s", got, exe, want, b)
			}
			if code, out, _ := run(t, "--home", t.TempDir(), "mcp", "import", "--dry-run", file); code != 0 || !strings.Contains(out, "modbay") || !strings.Contains(out, exe) {
				t.Errorf("mcp import --dry-run: exit %d\n%s", code, out)
			}
			// Installing again changes nothing.
			if _, out, _ := run(t, "--home", home, "mcp", "install", client, "--workspace", ws, "--write", "--file", file); !strings.Contains(out, "already has") {
				t.Errorf("second install: %s", out)
			}
		})
	}
}

func TestMCPInstallPrints(t *testing.T) {
	exe, _ := os.Executable()
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	t.Setenv("MODBAY_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", t.TempDir())
	// The default home is not passed; a workspace is made absolute.
	code, out, stderr := run(t, "mcp", "install", "claude-code", "--scope", "user", "--workspace", "/tmp/my project")
	if code != 0 || strings.TrimSpace(out) != "claude mcp add --scope user modbay -- "+exe+" mcp serve --workspace '/tmp/my project'" {
		t.Errorf("claude-code: exit %d %q %s", code, out, stderr)
	}
	_, out, _ = run(t, "mcp", "install", "vscode")
	if !strings.Contains(out, `"servers"`) || !strings.Contains(out, `"type": "stdio"`) || strings.Contains(out, "--home") {
		t.Errorf("vscode:\n%s", out)
	}
	if code, _, stderr := run(t, "mcp", "install", "codex", "--scope", "project"); code != ExitUsage || !strings.Contains(stderr, "no project scope") {
		t.Errorf("codex --scope project: exit %d %s", code, stderr)
	}
	if code, _, _ := run(t, "mcp", "install", "emacs"); code != ExitUsage {
		t.Errorf("unknown client: exit %d", code)
	}

	// Codex: the TOML table, merged in place of an older one, other tables kept.
	file := filepath.Join(t.TempDir(), "config.toml")
	old := "model = \"o3\"\n\n[mcp_servers.modbay]\ncommand = \"/old\"\nargs = []\n\n[mcp_servers.other]\ncommand = \"x\"\n"
	if err := os.WriteFile(file, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, "--home", "/srv/h", "mcp", "install", "codex", "--write", "--file", file); code != 0 {
		t.Fatalf("codex --write: %s", stderr)
	}
	b, _ := os.ReadFile(file)
	want := "model = \"o3\"\n\n[mcp_servers.modbay]\ncommand = \"" + exe + "\"\nargs = [\"mcp\", \"serve\", \"--home\", \"/srv/h\"]\n\n[mcp_servers.other]\ncommand = \"x\"\n"
	if string(b) != want {
		t.Errorf("codex config:\n%s\nwant:\n%s", b, want)
	}
	// Round trip: modbay mcp import reads Codex's TOML back.
	f, err := mcp.ParseClientConfig(b)
	if err != nil || f.Format != mcp.FormatCodex || len(f.Servers) != 2 {
		t.Fatalf("import of the codex config: %+v %v", f, err)
	}
	if got := f.Servers[0]; got.ID != "modbay" || got.Server.Command != exe || strings.Join(got.Server.Args, " ") != "mcp serve --home /srv/h" {
		t.Errorf("imported %+v", got)
	}
	if code, out, _ := run(t, "--home", t.TempDir(), "mcp", "import", "--dry-run", file); code != 0 || !strings.Contains(out, exe) || !strings.Contains(out, "other") {
		t.Errorf("mcp import --dry-run codex: exit %d\n%s", code, out)
	}
}

// Codex's other keys: an HTTP server's bearer_token_env_var becomes an
// Authorization header naming the variable; a disabled server says so;
// a file that is neither JSON nor TOML is refused.
func TestParseCodexConfig(t *testing.T) {
	f, err := mcp.ParseClientConfig([]byte("[mcp_servers.gh]\nurl = \"https://api.example/mcp\"\nbearer_token_env_var = \"GH_TOKEN\"\nenabled = false\n\n[mcp_servers.fs]\ncommand = \"/usr/bin/fs-mcp\"\nenv = { ROOT = \"/srv\" }\n"))
	if err != nil || len(f.Servers) != 2 {
		t.Fatalf("%+v %v", f, err)
	}
	fs, gh := f.Servers[0], f.Servers[1]
	if fs.Server.Command != "/usr/bin/fs-mcp" || fs.Server.Env["ROOT"] != "/srv" {
		t.Errorf("fs: %+v", fs)
	}
	if gh.Server.URL != "https://api.example/mcp" || gh.Server.Headers["Authorization"] != "Bearer ${GH_TOKEN}" || !strings.Contains(strings.Join(gh.Notes, ";"), "enabled = false") {
		t.Errorf("gh: %+v", gh)
	}
	if _, err := mcp.ParseClientConfig([]byte("model = [unclosed")); err == nil {
		t.Error("a file neither JSON nor TOML was read")
	}
}

// Claude Code's local scope: the entry goes under projects.<dir> of the
// user's ~/.claude.json, beside the file's other projects and its
// user-scope servers, and mcp import reads it back from there.
func TestMCPInstallClaudeCodeLocalScope(t *testing.T) {
	exe, _ := os.Executable()
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	t.Setenv("MODBAY_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	user := t.TempDir()
	t.Setenv("HOME", user)
	ws := t.TempDir()
	file := filepath.Join(user, ".claude.json")
	old := "{\n  \"numStartups\": 3,\n  \"mcpServers\": {\"gh\": {\"type\": \"stdio\", \"command\": \"gh-mcp\"}},\n  \"projects\": {\n    \"/other\": {\"allowedTools\": []}\n  }\n}\n"
	if err := os.WriteFile(file, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run(t, "mcp", "install", "claude-code", "--scope", "local", "--workspace", ws); code != 0 || !strings.Contains(out, "claude mcp add --scope local modbay -- ") {
		t.Errorf("print: exit %d %s", code, out)
	}
	if code, _, stderr := run(t, "mcp", "install", "claude-code", "--scope", "local", "--workspace", ws, "--write"); code != 0 {
		t.Fatalf("--write: exit %d %s", code, stderr)
	}
	b, _ := os.ReadFile(file)
	var doc struct {
		MCPServers map[string]any `json:"mcpServers"`
		Projects   map[string]struct {
			MCPServers map[string]struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			} `json:"mcpServers"`
		} `json:"projects"`
		NumStartups int `json:"numStartups"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	e := doc.Projects[ws].MCPServers["modbay"]
	if e.Command != exe || strings.Join(e.Args, " ") != "mcp serve --workspace "+ws || doc.MCPServers["modbay"] != nil ||
		doc.MCPServers["gh"] == nil || doc.NumStartups != 3 || len(doc.Projects) != 2 {
		t.Errorf("written:\n%s", b)
	}
	if code, out, _ := run(t, "--home", t.TempDir(), "mcp", "import", "--dry-run", file); code != 0 || !strings.Contains(out, "modbay") {
		t.Errorf("mcp import --dry-run: exit %d\n%s", code, out)
	}
	if _, out, _ := run(t, "mcp", "install", "claude-code", "--scope", "local", "--workspace", ws, "--write"); !strings.Contains(out, "already has") {
		t.Errorf("second install: %s", out)
	}
	if code, _, stderr := run(t, "mcp", "install", "cursor", "--scope", "local"); code != ExitUsage || !strings.Contains(stderr, "no local scope") {
		t.Errorf("cursor --scope local: exit %d %s", code, stderr)
	}
}
