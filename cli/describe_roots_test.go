package cli

import (
	"bytes"
	"strings"
	"testing"

	"modbay/config"
	"modbay/mcp"
	"modbay/modproto"
	"modbay/runner"
)

// TestDescribeWorkspaceAlwaysSupplied: describe's permissions name the
// workspace root the host supplies read-write to every module run
// (docs/protocol.md §4), beside what the module requests; an MCP server, whose
// roots come from its config entry, gets no such line.
func TestDescribeWorkspaceAlwaysSupplied(t *testing.T) {
	d := &modproto.Descriptor{Module: "m", Name: "M", Version: "1",
		Permissions: modproto.Permissions{FilesystemWrite: []string{"output"}}}
	var buf bytes.Buffer
	writeModule(&buf, &runner.Module{ID: "m", Status: runner.StatusReady, Descriptor: d})
	out := buf.String()
	perms := out[strings.Index(out, "Permissions"):]
	for _, want := range []string{"workspace:       rw, always supplied", "write roots:     output"} {
		if !strings.Contains(perms, want) {
			t.Errorf("describe permissions lack %q:\n%s", want, out)
		}
	}
	buf.Reset()
	writeModule(&buf, &runner.Module{ID: "srv", Origin: mcp.Origin, Status: runner.StatusReady, Descriptor: d})
	if strings.Contains(buf.String(), "workspace:") {
		t.Errorf("an MCP server is said to get the workspace:\n%s", buf.String())
	}
}

// TestDescribeMCPServerLaunch: a server has no executable; describe says
// how it is reached (its command, or its URL without credentials),
// sanitized, never an empty "executable:".
func TestDescribeMCPServerLaunch(t *testing.T) {
	d := &modproto.Descriptor{Module: "srv", Name: "Server", Version: "1"}
	for _, tc := range []struct {
		srv  config.MCPServer
		want string
	}{
		{config.MCPServer{Command: "npx", Args: []string{"-y", "srv\x1b[31m"}}, "  command:    npx -y 'srv␛[31m'\n"},
		{config.MCPServer{URL: "https://u:p@mcp.example.com/mcp?token=x"}, "  url:        https://mcp.example.com/mcp\n"},
	} {
		var buf bytes.Buffer
		writeModule(&buf, &runner.Module{ID: "srv", Origin: mcp.Origin, Status: runner.StatusReady, Descriptor: d,
			Driver: mcp.NewDriver("srv", tc.srv, nil)})
		out := buf.String()
		if !strings.Contains(out, tc.want) || strings.Contains(out, "executable:") || strings.Contains(out, "\x1b") {
			t.Errorf("describe of %+v lacks %q:\n%q", tc.srv, tc.want, out)
		}
	}
}

// TestDescribeServerSession: describe shows what a server said as it
// started, and each root says whether the server is told of it.
func TestDescribeServerSession(t *testing.T) {
	var buf bytes.Buffer
	writeServerSession(&buf, &mcp.ServerSession{ProtocolVersion: "2025-11-25", Capabilities: []string{"logging", "tools (listChanged)"},
		Instructions: "Call a first.", StartupStderr: "Warning: Cannot access directory /nope"})
	for _, want := range []string{"protocol:        2025-11-25", "capabilities:    logging, tools (listChanged)", "instructions:\n    Call a first.", "start-up stderr:\n    Warning: Cannot access directory /nope"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("session lacks %q:\n%s", want, buf.String())
		}
	}
	buf.Reset()
	writeServerFiles(&buf, config.MCPServer{Command: "npx", Env: map[string]string{"npm_config_cache": "/h/.npm"},
		Roots: map[string]string{"/data": "rw", "/h/.npm": "rwx"}, Needs: map[string]string{"/opt/pkg": "ro"}})
	for _, want := range []string{"/data — rw, announced to the server as an MCP root", "/h/.npm — rwx, not announced", "need:            /opt/pkg — ro, to start only"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("files lack %q:\n%s", want, buf.String())
		}
	}
}
