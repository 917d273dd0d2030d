package mcp

import (
	"testing"

	"modbay/config"
)

// TestLaunch: what describe and the detail pane show for a server in
// place of an executable: the command and arguments as configured, or a
// remote URL without the parts credentials hide in.
func TestLaunch(t *testing.T) {
	for _, tc := range []struct {
		srv  config.MCPServer
		want string
	}{
		{config.MCPServer{Command: "npx", Args: []string{"-y", "@scope/server", "--root", "my dir", "${TOKEN}"}},
			"npx -y @scope/server --root 'my dir' '${TOKEN}'"},
		{config.MCPServer{URL: "https://user:secret@mcp.example.com:8443/mcp?key=abc#frag"}, "https://mcp.example.com:8443/mcp"},
		{config.MCPServer{}, ""},
	} {
		if got := NewDriver("srv", tc.srv, nil).Launch(); got != tc.want {
			t.Errorf("Launch(%+v) = %q, want %q", tc.srv, got, tc.want)
		}
	}
}
