package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/config"
	"modbay/runner"
)

// httpServer serves s over streamable HTTP on a local test server (wrap,
// when set, sees every request first) and returns its endpoint; the
// server is closed with the test.
func httpServer(tb testing.TB, s *sdk.Server, wrap func(http.Handler) http.Handler) string {
	tb.Helper()
	var h http.Handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	if wrap != nil {
		h = wrap(h)
	}
	ts := httptest.NewServer(h)
	tb.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

// TestRemoteServer: a remote server ({url, headers}) lists and answers a
// call, every request carrying the configured headers with host
// variables expanded; and none of the host's other variables.
func TestRemoteServer(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "remote", Version: "2.1.0"}, &sdk.ServerOptions{PageSize: 1})
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echoes.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, echoOut, error) {
			return nil, echoOut{Echo: in.Text}, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "plain", Description: "Unannotated."},
		func(context.Context, *sdk.CallToolRequest, nameIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hi"}}}, nil, nil
		})
	var mu sync.Mutex
	var auths, extras []string
	url := httpServer(t, s, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			auths = append(auths, r.Header.Get("Authorization"))
			extras = append(extras, r.Header.Get("X-Team"))
			mu.Unlock()
			h.ServeHTTP(w, r)
		})
	})
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"remote": {URL: url,
		Headers: map[string]string{"Authorization": "Bearer ${MCP_TEST_HOST_SECRET}", "X-Team": "tools"}}})
	m := f.module("remote")
	if m.Status != runner.StatusReady || m.Descriptor.Version != "2.1.0" || len(m.Descriptor.Capabilities) != 2 {
		t.Fatalf("remote: %s %s, %+v", m.Status, m.Reason, m.Descriptor)
	}
	// A remote server's network is its endpoint's host.
	if got := m.Descriptor.Permissions.Network; len(got) != 1 || got[0] != "127.0.0.1" {
		t.Errorf("network permission %v, want the endpoint's host", got)
	}
	res := f.run(m, "echo", `{"text":"over http"}`, runner.RunOptions{})
	if !res.OK() || string(res.Envelope.Result) != `{"echo":"over http"}` {
		t.Fatalf("echo: %+v %+v", res.Host, res.Envelope)
	}
	if p, err := f.host.Plan(m, "plain", nil); err != nil || !p.NeedsApproval() {
		t.Errorf("unannotated remote tool: %v, approval %q; want asked", err, p.Approval)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auths) < 3 {
		t.Fatalf("%d requests seen", len(auths))
	}
	for i := range auths {
		if auths[i] != "Bearer s3cret" || extras[i] != "tools" {
			t.Errorf("request %d: Authorization %q X-Team %q, want the configured headers expanded", i, auths[i], extras[i])
		}
	}
}

// TestRemoteNeedsOAuth: a server answering 401 with a WWW-Authenticate
// challenge is listed as needs setup, saying it needs OAuth sign-in,
// which modbay does not do yet.
func TestRemoteNeedsOAuth(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="https://auth.example.org/.well-known/oauth-protected-resource"`)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_token"})
	}))
	t.Cleanup(ts.Close)
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"oauth": {URL: ts.URL + "/mcp"}})
	m := f.module("oauth")
	if m.Status != runner.StatusNeedsSetup || !strings.Contains(m.Reason, "OAuth") {
		t.Fatalf("oauth server: %s: %s; want needs setup naming OAuth", m.Status, m.Reason)
	}
	if !strings.Contains(m.Reason, "auth.example.org") {
		t.Errorf("reason %q does not name the authorization server's metadata", m.Reason)
	}
	// Asked again (the cockpit's r), it still needs setup, not broken.
	if m = f.host.Redescribe(f.ctx, m); m.Status != runner.StatusNeedsSetup {
		t.Errorf("described again: %s: %s", m.Status, m.Reason)
	}
}

// TestPromptedInputs: a VS Code ${input:id} is read from its
// MODBAY_INPUT_ variable when the server starts; without it the server
// is not started and the reason names the variable to set.
func TestPromptedInputs(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "in", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, echoOut, error) {
			return nil, echoOut{Echo: in.Text}, nil
		})
	var mu sync.Mutex
	var auth string
	url := httpServer(t, s, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			auth = r.Header.Get("Authorization")
			mu.Unlock()
			h.ServeHTTP(w, r)
		})
	})
	if got := InputEnv("github-token.v2"); got != "MODBAY_INPUT_GITHUB_TOKEN_V2" {
		t.Errorf("InputEnv = %q", got)
	}
	entry := config.MCPServer{URL: url, Headers: map[string]string{"Authorization": "Bearer ${input:api-key}"}}
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"in": entry})
	m := f.module("in")
	if m.Status != runner.StatusBroken || !strings.Contains(m.Reason, "${input:api-key} (set MODBAY_INPUT_API_KEY)") {
		t.Fatalf("without the input: %s: %s", m.Status, m.Reason)
	}
	hostVars["MODBAY_INPUT_API_KEY"] = "k3y"
	defer delete(hostVars, "MODBAY_INPUT_API_KEY")
	f = newFixture(t, config.SandboxOff, map[string]config.MCPServer{"in": entry})
	if m = f.module("in"); m.Status != runner.StatusReady {
		t.Fatalf("with the input: %s: %s", m.Status, m.Reason)
	}
	mu.Lock()
	defer mu.Unlock()
	if auth != "Bearer k3y" {
		t.Errorf("Authorization %q, want the input's value", auth)
	}
}
