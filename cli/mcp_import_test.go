package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modbay/config"
)

// TestMCPImportExistingIDs: an id config.yaml has is left out with a
// message when nobody can be asked (no terminal), and replaced with
// --force.
func TestMCPImportExistingIDs(t *testing.T) {
	home := t.TempDir()
	mine := "mcp_servers:\n  remote:\n    url: https://mine.example/mcp\n"
	if err := os.WriteFile(filepath.Join(home, config.FileName), []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(file, []byte(`{"mcpServers":{"remote":{"url":"https://example.com/mcp"},"local":{"command":"/bin/true"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	load := func() *config.Config {
		c, err := config.Load(home)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	code, out, errb := run(t, "--home", home, "mcp", "import", file)
	if code != 0 || !strings.Contains(out, "left out remote: config.yaml already has it (--force replaces it)") || !strings.Contains(out, "added 1 server") {
		t.Fatalf("import without a terminal: exit %d\n%s%s", code, out, errb)
	}
	if c := load(); c.MCPServers["remote"].URL != "https://mine.example/mcp" || c.MCPServers["local"].Command != "/bin/true" {
		t.Errorf("after import: %+v", c.MCPServers)
	}
	code, out, errb = run(t, "--home", home, "mcp", "import", "--force", file)
	if code != 0 || !strings.Contains(out, "replacing remote") {
		t.Fatalf("import --force: exit %d\n%s%s", code, out, errb)
	}
	if c := load(); c.MCPServers["remote"].URL != "https://example.com/mcp" || len(c.MCPServers) != 2 {
		t.Errorf("after --force: %+v", c.MCPServers)
	}
	if code, _, _ := run(t, "--home", home, "mcp", "import", "--force", "--skip-existing", file); code == 0 {
		t.Error("--force with --skip-existing was accepted")
	}
}

// TestMCPImportSkipsANameWithoutAnID: a server named ".." gives no id; it
// is left out with a message, never written as an empty id.
func TestMCPImportSkipsANameWithoutAnID(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(file, []byte(`{"mcpServers":{"..":{"command":"/bin/false"},"local":{"command":"/bin/true"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errb := run(t, "--home", home, "mcp", "import", file)
	if code != 0 || !strings.Contains(out, "..                   skipped: the name gives no usable id") || !strings.Contains(out, "added 1 server") {
		t.Fatalf("import: exit %d\n%s%s", code, out, errb)
	}
	c, err := config.Load(home)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.MCPServers[""]; ok || len(c.MCPServers) != 1 || c.MCPServers["local"].Command != "/bin/true" {
		t.Fatalf("mcp_servers after import: %+v", c.MCPServers)
	}
}

// TestMCPImportAsksForWhatNpxNeeds: an npx server is imported without the
// network and npm cache npx needs just to start unless the person, asked
// on a terminal, agrees.
func TestMCPImportAsksForWhatNpxNeeds(t *testing.T) {
	file := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	if err := os.WriteFile(file, []byte(`{"mcpServers":{"memory":{"command":"npx","args":["-y","@modelcontextprotocol/server-memory"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, answer := range []string{"n\n", "y\n"} {
		home := t.TempDir()
		ios, out, _ := fakeStreams(true)
		in := strings.NewReader(answer)
		ios.In = in
		ios.IsTerminal = func(any) bool { return true }
		o := &MCPImportOptions{IO: ios, G: &globals{home: home, io: ios}, Files: []string{file}}
		if err := mcpImportRun(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		c, err := config.Load(home)
		if err != nil {
			t.Fatal(err)
		}
		srv := c.MCPServers["memory"]
		granted := srv.Network && srv.Env["npm_config_cache"] != "" && len(srv.Roots) == 0 && srv.Needs[srv.Env["npm_config_cache"]] == config.RootRWX
		if !strings.Contains(out.String(), "memory runs with npx, which needs, just to start, the network and an npm cache it can write and run programs from") ||
			!strings.Contains(out.String(), "grant it for the server's whole life? [y/N]") || granted != (answer == "y\n") {
			t.Errorf("answer %q: granted %v (%+v)\n%s", answer, granted, srv, out)
		}
		if !strings.Contains(out.String(), "npm install --prefix ~/mcp/memory @modelcontextprotocol/server-memory") {
			t.Errorf("the install-once recipe is not offered:\n%s", out)
		}
	}
}

// TestMCPImportAsksForWhatUvxNeeds: a uvx server is asked about as an npx
// one is (the network, uv's cache and its folder), and offered uv tool
// install; answered y its folders go under needs:, never roots:;
// answered n it gets none of it.
func TestMCPImportAsksForWhatUvxNeeds(t *testing.T) {
	file := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	if err := os.WriteFile(file, []byte(`{"mcpServers":{"fetch":{"command":"uvx","args":["mcp-server-fetch"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, answer := range []string{"\n", "y\n"} {
		home := t.TempDir()
		ios, out, _ := fakeStreams(true)
		ios.In = strings.NewReader(answer)
		ios.IsTerminal = func(any) bool { return true }
		o := &MCPImportOptions{IO: ios, G: &globals{home: home, io: ios}, Files: []string{file}}
		if err := mcpImportRun(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		c, err := config.Load(home)
		if err != nil {
			t.Fatal(err)
		}
		srv := c.MCPServers["fetch"]
		granted := srv.Network && srv.Env["UV_CACHE_DIR"] != "" && len(srv.Roots) == 0 && len(srv.Needs) == 2 && srv.Needs[srv.Env["UV_CACHE_DIR"]] == config.RootRWX
		if !strings.Contains(out.String(), "fetch runs with uvx, which needs, just to start, the network, uv's cache") || granted != (answer == "y\n") {
			t.Errorf("answer %q: granted %v (%+v)\n%s", answer, granted, srv, out)
		}
		if !strings.Contains(out.String(), "or install it once: uv tool install mcp-server-fetch") {
			t.Errorf("the install-once recipe is not offered:\n%s", out)
		}
	}
}
