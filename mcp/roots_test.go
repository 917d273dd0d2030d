package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/config"
	"modbay/runner"
)

// serverRoots serves one tool, "roots", answering with roots/list's
// roots (one "name uri" line each) and how many
// notifications/roots/list_changed this process got.
const serverRoots = "roots"

func serveRoots() error {
	var changed atomic.Int32
	s := sdk.NewServer(&sdk.Implementation{Name: "roots", Version: "1.0.0"}, &sdk.ServerOptions{
		RootsListChangedHandler: func(context.Context, *sdk.RootsListChangedRequest) { changed.Add(1) },
	})
	sdk.AddTool(s, &sdk.Tool{Name: "roots", Description: "Lists the client's roots.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}},
		func(ctx context.Context, req *sdk.CallToolRequest, _ nameIn) (*sdk.CallToolResult, any, error) {
			res, err := req.Session.ListRoots(ctx, nil)
			if err != nil {
				return nil, nil, err
			}
			var b strings.Builder
			for _, r := range res.Roots {
				fmt.Fprintf(&b, "%s %s\n", r.Name, r.URI)
			}
			fmt.Fprintf(&b, "list_changed %d\n", changed.Load())
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: b.String()}}}, nil, nil
		})
	// "sample" asks for a sampling reply and says how it was refused.
	sdk.AddTool(s, &sdk.Tool{Name: "sample", Description: "Asks the client for a model's reply.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}},
		func(ctx context.Context, req *sdk.CallToolRequest, _ nameIn) (*sdk.CallToolResult, any, error) {
			_, err := req.Session.CreateMessage(ctx, &sdk.CreateMessageParams{MaxTokens: 5, Messages: []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: "hi"}}}})
			var we *jsonrpc.Error
			if !errors.As(err, &we) {
				return nil, nil, fmt.Errorf("not a JSON-RPC error: %v", err)
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("code %d: %s", we.Code, we.Message)}}}, nil, nil
		})
	return s.Run(context.Background(), &sdk.StdioTransport{})
}

// TestSamplingRefusals: a refused sampling request answers code -1 (MCP's
// example of a user who rejected it), saying who refused: the person
// declining, dismissing, or no one to ask.
func TestSamplingRefusals(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	srv := config.MCPServer{Command: exe, Env: map[string]string{serverEnv: serverRoots}}
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"roots": srv})
	m := f.module("roots")
	answer := func(a runner.ElicitAction) runner.Elicitor {
		return func(context.Context, runner.Elicitation) (runner.ElicitAnswer, error) {
			return runner.ElicitAnswer{Action: a}, nil
		}
	}
	for _, tc := range []struct {
		elicit runner.Elicitor
		want   string
	}{
		{answer(runner.ElicitDecline), "code -1: " + samplingDeclined},
		{answer(runner.ElicitCancel), "code -1: " + samplingDismissed},
		{nil, "code -1: " + samplingNoOne},
	} {
		res := f.run(m, "sample", `{}`, runner.RunOptions{Elicit: tc.elicit})
		if got := staged(t, res); !res.OK() || !strings.Contains(got, tc.want) {
			t.Errorf("refusal answered %q, want %q", got, tc.want)
		}
	}
}

// TestRootsListAndChange: a stdio server's roots/list answers its
// configured roots as file URIs; a reload that changes only its roots
// keeps the driver, restarts the server with the new roots (its sandbox
// cannot widen) and sends notifications/roots/list_changed.
func TestRootsListAndChange(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	a, b := t.TempDir(), t.TempDir()
	srv := config.MCPServer{Command: exe, Env: map[string]string{serverEnv: serverRoots}, Roots: map[string]string{a: config.RootRO}}
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"roots": srv})
	m := f.module("roots")
	if m.Status != runner.StatusReady {
		t.Fatalf("roots: %s %s\n%s", m.Status, m.Reason, m.Stderr)
	}
	uri := func(p string) string { return (&url.URL{Scheme: "file", Path: p}).String() }
	res := f.run(m, "roots", `{}`, runner.RunOptions{})
	if got, want := staged(t, res), "(ro) "+uri(a)+"\nlist_changed 0\n"; !res.OK() || !strings.HasSuffix(got, want) || strings.Count(got, "\n") != 2 {
		t.Fatalf("roots/list answered %q, want the one root %s", got, want)
	}
	d := f.src.Driver("roots")

	// A reload with a second root and nothing else changed.
	cfg, err := config.Load(f.home)
	if err != nil {
		t.Fatal(err)
	}
	srv.Roots = map[string]string{a: config.RootRO, b: config.RootRW}
	cfg.MCPServers = map[string]config.MCPServer{"roots": srv}
	src := NewSourceFrom(cfg, func(k string) (string, bool) { v, ok := hostVars[k]; return v, ok }, f.src)
	t.Cleanup(func() { _ = src.Close() })
	if src.Driver("roots") != d {
		t.Fatal("a roots change made a new driver; want the running one restarted")
	}
	if st := d.Status(); st.State != runner.LifecycleStarting {
		t.Errorf("after the roots change: %s, want starting (restarted on next use)", st.State)
	}
	host := runner.NewHost(cfg)
	host.AddSource(src)
	var m2 *runner.Module
	for _, mm := range host.Discover(f.ctx) {
		if mm.ID == "roots" {
			m2 = mm
		}
	}
	p, err := host.Plan(m2, "roots", []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err = host.RunWith(f.ctx, p, runner.RunOptions{Approved: true})
	if err != nil {
		t.Fatal(err)
	}
	got := staged(t, res)
	for _, want := range []string{"(ro) " + uri(a) + "\n", "(rw) " + uri(b) + "\n", "list_changed 1\n"} {
		if !res.OK() || !strings.Contains(got, want) {
			t.Errorf("after the change roots/list answered %q, want %q", got, want)
		}
	}
}

// TestRootsStartupNeedsNotAdvertised: what a server needs only to start
// (its needs, and the npm cache or node_modules roots import wrote before
// needs existed) is in its sandbox but never in roots/list; only the
// folders the person gave it as data are.
func TestRootsStartupNeedsNotAdvertised(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, need, cache := t.TempDir(), t.TempDir(), t.TempDir()
	nm := filepath.Join(t.TempDir(), "node_modules")
	if err := os.Mkdir(nm, 0o755); err != nil {
		t.Fatal(err)
	}
	srv := config.MCPServer{Command: exe,
		Env:   map[string]string{serverEnv: serverRoots, "npm_config_cache": cache},
		Roots: map[string]string{data: config.RootRW, cache: config.RootRWX, nm: config.RootRO},
		Needs: map[string]string{need: config.RootRWX}}
	read, write, bins := sandboxRoots(srv)
	if !slices.Contains(read, nm) || !slices.Contains(write, need) || !slices.Contains(bins, need) || !slices.Contains(bins, cache) || !slices.Contains(write, data) {
		t.Errorf("sandbox read %v write %v bins %v: want every root and need in it", read, write, bins)
	}
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"roots": srv})
	m := f.module("roots")
	if m.Status != runner.StatusReady {
		t.Fatalf("roots: %s %s\n%s", m.Status, m.Reason, m.Stderr)
	}
	uri := func(p string) string { return (&url.URL{Scheme: "file", Path: p}).String() }
	res := f.run(m, "roots", `{}`, runner.RunOptions{})
	got := staged(t, res)
	if want := "(rw) " + uri(data) + "\nlist_changed 0\n"; !res.OK() || !strings.HasSuffix(got, want) || strings.Count(got, "\n") != 2 {
		t.Fatalf("roots/list answered %q, want only the data root %s", got, want)
	}
	if sr := f.src.Driver("roots").ServerRoots(); sr[need] != config.RootRWX || sr[cache] != config.RootRWX || sr[data] != config.RootRW {
		t.Errorf("ServerRoots %v: the Permissions pane must still list every folder it may touch", sr)
	}
}
