package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// surfaceHome is a home whose one MCP server is mcp/testdata/surface
// (resources, a template, prompts), built for the test.
func surfaceHome(t *testing.T) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "surface")
	if out, err := exec.Command("go", "build", "-o", exe, "../mcp/testdata/surface").CombinedOutput(); err != nil {
		t.Fatalf("building the surface server: %v\n%s", err, out)
	}
	home := t.TempDir()
	cfg := "sandbox: off\nmcp_servers:\n  s:\n    command: " + exe + "\n"
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// TestMCPSurfaceCommands: mcp resources, read, prompts and prompt against
// a real server, and describe --json carrying the listing.
func TestMCPSurfaceCommands(t *testing.T) {
	home := surfaceHome(t)
	code, out, errb := run(t, "--home", home, "mcp", "resources", "s")
	if code != 0 || !strings.Contains(out, "4 resources") || !strings.Contains(out, "test://greeting/{name}{?style}") ||
		strings.ContainsRune(out, 0x1b) {
		t.Fatalf("resources: %d\n%s\n%s", code, out, errb)
	}
	code, out, errb = run(t, "--home", home, "mcp", "read", "s", "test://text/hello", "--json")
	var res struct {
		OK        bool `json:"ok"`
		Artifacts []struct {
			Staged string `json:"staged"`
		} `json:"artifacts"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || !res.OK || len(res.Artifacts) != 1 {
		t.Fatalf("read: %d\n%s\n%s", code, out, errb)
	}
	if b, _ := os.ReadFile(res.Artifacts[0].Staged); string(b) != "hello, resource\n" {
		t.Errorf("read staged %q", b)
	}
	code, out, _ = run(t, "--home", home, "mcp", "prompts", "s", "--json")
	if code != 0 || !strings.Contains(out, `"name": "greet"`) || !strings.Contains(out, `"completions": true`) {
		t.Errorf("prompts: %d\n%s", code, out)
	}
	code, out, errb = run(t, "--home", home, "mcp", "prompt", "s", "greet", "--arg", "name=Ada", "--arg", "style=formal")
	if code != 0 || !strings.Contains(out, "Please greet Ada (formal)") {
		t.Errorf("prompt: %d\n%s\n%s", code, out, errb)
	}
	// A required argument left out is refused before anything is sent.
	if code, _, errb = run(t, "--home", home, "mcp", "prompt", "s", "greet"); code != ExitInputInvalid {
		t.Errorf("prompt without its required argument: exit %d\n%s", code, errb)
	}
	code, out, _ = run(t, "--home", home, "describe", "s", "--json")
	var d struct {
		MCP struct {
			Resources []any `json:"resources"`
			Prompts   []any `json:"prompts"`
			Templates []any `json:"resource_templates"`
		} `json:"mcp"`
		Warnings []string `json:"warnings"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &d) != nil || len(d.MCP.Resources) != 4 || len(d.MCP.Prompts) != 2 || len(d.MCP.Templates) != 1 {
		t.Errorf("describe --json: %d\n%s", code, out)
	}
	if !strings.Contains(strings.Join(d.Warnings, "\n"), "needs-tasks needs MCP tasks") {
		t.Errorf("describe warnings %q", d.Warnings)
	}
	if _, out, _ = run(t, "--home", home, "describe", "s"); !strings.Contains(out, "mcp.prompts.get.greet — Greet someone (hidden: a resource or prompt") {
		t.Errorf("describe says of a prompt:\n%s", out)
	}
}
