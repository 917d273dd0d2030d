package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLoadMCPServe(t *testing.T) {
	for _, tc := range []struct {
		name, yml, wantErr string
	}{
		{"ok", "mcp_serve:\n  tools: [\"notes*\"]\n  exclude: [\"*/*.echo\"]\n  approve_by_elicitation: true\n  max_concurrent: 3\n", ""},
		{"unknown key", "mcp_serve:\n  approve_by_elicitaton: true\n", "approve_by_elicitaton"},
		{"bad pattern", "mcp_serve:\n  tools: [\"[notes\"]\n", "mcp_serve: tools: \"[notes\" is not a glob pattern"},
		{"two slashes", "mcp_serve:\n  exclude: [\"a/b/c\"]\n", "mcp_serve: exclude: \"a/b/c\" has more than one"},
		{"negative bound", "mcp_serve:\n  max_concurrent: -1\n", "max_concurrent: -1 is negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, FileName), []byte(tc.yml), 0o600); err != nil {
				t.Fatal(err)
			}
			c, err := Load(home)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Load = %v, want an error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			m := c.MCPServe
			if !slices.Equal(m.Tools, []string{"notes*"}) || !slices.Equal(m.Exclude, []string{"*/*.echo"}) || !m.ApproveByElicitation || m.MaxConcurrent != 3 {
				t.Errorf("mcp_serve = %+v", m)
			}
		})
	}
}
