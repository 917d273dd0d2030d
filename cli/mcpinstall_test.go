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
			if strings.Contains(fixture, `"modbay"`) {
				// A different modbay entry is shown and kept without --force.
				if b, _ := os.ReadFile(file); code != ExitUsage || string(b) != fixture || !strings.Contains(stderr, "/old/modbay") || !strings.Contains(stderr, "--force") {
					t.Fatalf("without --force: exit %d %s\n%s", code, stderr, b)
				}
				code, out, stderr = run(t, "--home", home, "mcp", "install", client, "--workspace", ws, "--write", "--file", file, "--force")
				if !strings.Contains(out, "replaced (--force)") || !strings.Contains(out, "/old/modbay") {
					t.Errorf("--force does not say what it replaced: %s", out)
				}
			}
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
			// The clients that start a server in a cwd get the workspace.
			if wantCwd := map[string]string{"vscode": ws}[client]; got.Server.Cwd != wantCwd {
				t.Errorf("cwd %q, want %q\n%s", got.Server.Cwd, wantCwd, b)
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
	if code, _, stderr := run(t, "--home", "/srv/h", "mcp", "install", "codex", "--write", "--file", file, "--force"); code != 0 {
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

// --write keeps every earlier file: the first backup stays FILE.bak, the
// next ones are FILE.bak.1, …; a file already backed up is not copied
// again.
func TestMCPInstallKeepsEveryBackup(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(t.TempDir(), "mcp.json")
	original := "{\n  \"mcpServers\": {\"gh\": {\"command\": \"gh-mcp\"}}\n}\n"
	if err := os.WriteFile(file, []byte(original), 0o640); err != nil {
		t.Fatal(err)
	}
	install := func(ws string, force bool) (int, string, string) {
		args := []string{"--home", home, "mcp", "install", "cursor", "--workspace", ws, "--write", "--file", file}
		if force {
			args = append(args, "--force")
		}
		return run(t, args...)
	}
	if code, out, stderr := install("/srv/a", false); code != 0 || !strings.Contains(out, file+".bak)") {
		t.Fatalf("first: exit %d %s %s", code, out, stderr)
	}
	second, _ := os.ReadFile(file)
	if code, out, stderr := install("/srv/b", true); code != 0 || !strings.Contains(out, file+".bak.1)") {
		t.Fatalf("second: exit %d %s %s", code, out, stderr)
	}
	if code, _, stderr := install("/srv/c", true); code != 0 {
		t.Fatalf("third: exit %d %s", code, stderr)
	}
	third, _ := os.ReadFile(file)
	for name, want := range map[string]string{".bak": original, ".bak.1": string(second)} {
		b, err := os.ReadFile(file + name)
		if err != nil || string(b) != want {
			t.Errorf("%s: %v\n%s\nwant\n%s", name, err, b, want)
		}
		if st, err := os.Stat(file + name); err != nil || st.Mode().Perm() != 0o640 {
			t.Errorf("%s mode %v, want the file's 0640", name, st.Mode())
		}
	}
	if b, _ := os.ReadFile(file + ".bak.2"); string(b) == string(third) || !strings.Contains(string(b), "/srv/b") {
		t.Errorf(".bak.2 holds %q, want the file before the third write", b)
	}
	// Writing back the text a backup already holds reuses that backup.
	if err := os.WriteFile(file, []byte(original), 0o640); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := install("/srv/d", false); code != 0 || !strings.Contains(out, file+".bak)") {
		t.Errorf("same text again: exit %d %s", code, out)
	}
	if _, err := os.Stat(file + ".bak.3"); err == nil {
		t.Error("a fourth backup of text already backed up")
	}
}

// A new project file is the project's, shared: 0644 (its folder 0755);
// a new user file is the user's: 0600; an existing file keeps its mode.
func TestMCPInstallFileModes(t *testing.T) {
	t.Setenv("MODBAY_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	user := t.TempDir()
	t.Setenv("HOME", user)
	ws := t.TempDir()
	mode := func(p string) os.FileMode {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return st.Mode().Perm()
	}
	for _, c := range []struct {
		args      []string
		file, dir string
		want, dm  os.FileMode
	}{
		{[]string{"claude-code"}, filepath.Join(ws, ".mcp.json"), "", 0o644, 0},
		{[]string{"vscode"}, filepath.Join(ws, ".vscode", "mcp.json"), filepath.Join(ws, ".vscode"), 0o644, 0o755},
		{[]string{"cursor", "--scope", "user"}, filepath.Join(user, ".cursor", "mcp.json"), filepath.Join(user, ".cursor"), 0o600, 0o700},
		{[]string{"codex"}, filepath.Join(user, ".codex", "config.toml"), "", 0o600, 0},
	} {
		args := append([]string{"mcp", "install"}, c.args...)
		if code, _, stderr := run(t, append(args, "--workspace", ws, "--write")...); code != 0 {
			t.Fatalf("%v: exit %d %s", c.args, code, stderr)
		}
		if m := mode(c.file); m != c.want {
			t.Errorf("%v: %s is %v, want %v", c.args, c.file, m, c.want)
		}
		if c.dir != "" && mode(c.dir) != c.dm {
			t.Errorf("%v: %s is %v, want %v", c.args, c.dir, mode(c.dir), c.dm)
		}
	}
	// An existing file keeps its mode.
	file := filepath.Join(ws, ".cursor", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("{}\n"), 0o664); err != nil || os.Chmod(file, 0o664) != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, "mcp", "install", "cursor", "--workspace", ws, "--write"); code != 0 || mode(file) != 0o664 {
		t.Errorf("existing file: exit %d %s mode %v", code, stderr, mode(file))
	}
}

// Printed, standard output is the entry alone (it parses); the file it
// goes in is said on standard error.
func TestMCPInstallPrintsOnlyTheEntry(t *testing.T) {
	t.Setenv("MODBAY_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", t.TempDir())
	for _, client := range []string{"claude-desktop", "vscode", "cursor"} {
		code, out, stderr := run(t, "mcp", "install", client, "--workspace", "/srv/p")
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil {
			t.Errorf("%s: exit %d, stdout is not the JSON entry (%v):\n%s", client, code, err, out)
		}
		if !strings.HasPrefix(stderr, "# in ") {
			t.Errorf("%s: stderr %q does not say where the entry goes", client, stderr)
		}
	}
	code, out, stderr := run(t, "mcp", "install", "codex", "--workspace", "/srv/p")
	f, err := mcp.ParseClientConfig([]byte(out))
	if code != 0 || err != nil || len(f.Servers) != 1 || f.Servers[0].Server.Cwd != "/srv/p" || !strings.HasPrefix(stderr, "# in ~/.codex/config.toml") {
		t.Errorf("codex: exit %d %v %+v\n%s\n%s", code, err, f, out, stderr)
	}
}

// The Codex table's subtables go with it when it is replaced; a table
// laid out otherwise but holding the same values is this entry.
func TestMCPInstallCodexSubtables(t *testing.T) {
	exe, _ := os.Executable()
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	file := filepath.Join(t.TempDir(), "config.toml")
	old := "[mcp_servers.modbay]\ncommand = \"/old\"\n\n[mcp_servers.modbay.env]\nX = \"1\"\n\n[mcp_servers.other]\ncommand = \"x\"\n"
	if err := os.WriteFile(file, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, "--home", "/srv/h", "mcp", "install", "codex", "--write", "--file", file); code != ExitUsage || !strings.Contains(stderr, "X = \"1\"") {
		t.Fatalf("without --force: exit %d %s", code, stderr)
	}
	if code, _, stderr := run(t, "--home", "/srv/h", "mcp", "install", "codex", "--write", "--file", file, "--force"); code != 0 {
		t.Fatalf("--force: exit %d %s", code, stderr)
	}
	b, _ := os.ReadFile(file)
	want := "[mcp_servers.modbay]\ncommand = \"" + exe + "\"\nargs = [\"mcp\", \"serve\", \"--home\", \"/srv/h\"]\n\n[mcp_servers.other]\ncommand = \"x\"\n"
	if string(b) != want {
		t.Errorf("got:\n%s\nwant:\n%s", b, want)
	}
	same := "[mcp_servers.modbay]\nargs = [ \"mcp\", \"serve\", \"--home\", \"/srv/h\" ]\ncommand = '" + exe + "'\n"
	if err := os.WriteFile(file, []byte(same), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run(t, "--home", "/srv/h", "mcp", "install", "codex", "--write", "--file", file); code != 0 || !strings.Contains(out, "already has") {
		t.Errorf("same values: exit %d %s", code, out)
	}
}
