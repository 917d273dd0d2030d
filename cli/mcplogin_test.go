package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPLoginRefusals: login names only remote servers of config.yaml
// (an SSE one is tried, here an address nothing listens on); logout of a server never signed in says so, and of
// one signed in removes its token file.
func TestMCPLoginRefusals(t *testing.T) {
	home := t.TempDir()
	writeConfig(t, home, "mcp_servers:\n  local:\n    command: /bin/true\n  old:\n    url: http://127.0.0.1:9/sse\n    type: sse\n")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"mcp", "login", "nope"}, ExitUsage, `no MCP server "nope"`},
		{[]string{"mcp", "login", "local"}, ExitHostVerdict, "not a remote server (url)"},
		{[]string{"mcp", "login", "old"}, ExitHostVerdict, "old: sign-in: "},
		{[]string{"mcp", "logout", "local"}, ExitOK, "local: not signed in"},
	} {
		code, _, stderr := run(t, append([]string{"--home", home}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
	tok := filepath.Join(home, "auth", "mcp", "local.json")
	if err := os.MkdirAll(filepath.Dir(tok), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tok, []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, "--home", home, "mcp", "logout", "local"); code != ExitOK || !strings.Contains(stderr, "signed out") {
		t.Errorf("logout: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(tok); err == nil {
		t.Error("the token file is still there after logout")
	}
}
