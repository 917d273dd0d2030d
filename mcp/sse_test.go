package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/config"
	"modbay/runner"
)

// TestSSEServer: a remote server on the older HTTP+SSE transport (type:
// sse) lists its tools and answers a call with the configured headers;
// the same URL as streamable HTTP does not connect, and describe says
// which transport it is.
func TestSSEServer(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "legacy", Version: "0.9.0"}, &sdk.ServerOptions{PageSize: 1})
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echoes.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, echoOut, error) {
			return nil, echoOut{Echo: in.Text}, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "plain", Description: "Unannotated."},
		func(context.Context, *sdk.CallToolRequest, nameIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hi"}}}, nil, nil
		})
	var mu sync.Mutex
	var auths []string
	h := sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return s }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/sse" {
			mu.Lock()
			auths = append(auths, r.Header.Get("Authorization"))
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	srv := config.MCPServer{URL: ts.URL + "/sse", Type: "sse", Headers: map[string]string{"Authorization": "Bearer ${MCP_TEST_HOST_SECRET}"}}
	if err := config.CheckMCPServer("legacy", srv); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"legacy": srv, "streamable": {URL: ts.URL + "/other"}})
	m := f.module("legacy")
	if m.Status != runner.StatusReady || m.Descriptor.Version != "0.9.0" || len(m.Descriptor.Capabilities) != 2 {
		t.Fatalf("legacy: %s %s, %+v", m.Status, m.Reason, m.Descriptor)
	}
	res := f.run(m, "echo", `{"text":"over sse"}`, runner.RunOptions{})
	if !res.OK() || string(res.Envelope.Result) != `{"echo":"over sse"}` {
		t.Fatalf("echo: %+v %+v", res.Host, res.Envelope)
	}
	if l := f.src.Driver("legacy").Launch(); !strings.HasSuffix(l, "/sse (HTTP+SSE)") {
		t.Errorf("launch %q does not say HTTP+SSE", l)
	}
	mu.Lock()
	for i, a := range auths {
		if a != "Bearer s3cret" {
			t.Errorf("request %d: Authorization %q, want the configured header", i, a)
		}
	}
	mu.Unlock()
	if m := f.module("streamable"); m.Status == runner.StatusReady {
		t.Error("an SSE endpoint connected as streamable HTTP: the test shows nothing")
	}
}

// TestCheckMCPServerType: type names the transport, and must match the
// entry.
func TestCheckMCPServerType(t *testing.T) {
	for _, tc := range []struct {
		srv  config.MCPServer
		want string
	}{
		{config.MCPServer{URL: "https://x.example/sse", Type: "sse"}, ""},
		{config.MCPServer{URL: "https://x.example/mcp", Type: "http"}, ""},
		{config.MCPServer{Command: "/bin/true", Type: "stdio"}, ""},
		{config.MCPServer{URL: "https://x.example/mcp", Type: "websocket"}, `type "websocket" is not stdio, http or sse`},
		{config.MCPServer{Command: "/bin/true", Type: "sse"}, "type sse does not match the entry"},
	} {
		err := config.CheckMCPServer("x", tc.srv)
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.srv, err, tc.want)
		}
	}
}
