package mcp

import (
	"errors"
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
			if !strings.Contains(strings.Join(f.Servers[1].Notes, "\n"), "SSE") {
				t.Errorf("sse notes %q", f.Servers[1].Notes)
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
	var ee *ErrExists
	if _, _, err := MergeServers([]byte(orig), have, f.Servers, false); !errors.As(err, &ee) || ee.IDs[0] != "remote" {
		t.Fatalf("an existing id: %v, want *ErrExists naming remote", err)
	}
	out, skipped, err := MergeServers([]byte(orig), have, f.Servers, true)
	if err != nil || !slices.Equal(skipped, []string{"remote"}) {
		t.Fatalf("skip existing: %v, skipped %v", err, skipped)
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
	out, _, err = MergeServers([]byte("sandbox: auto"), nil, f.Servers, false)
	if err != nil || !strings.HasPrefix(string(out), "sandbox: auto\nmcp_servers:\n  playwright:\n") {
		t.Errorf("appended: %v\n%s", err, out)
	}
	if _, _, err := MergeServers([]byte("mcp_servers: {}\n"), nil, f.Servers, false); err == nil {
		t.Error("a one-line mcp_servers was merged into")
	}
}
