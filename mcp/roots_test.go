package mcp

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"

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
	return s.Run(context.Background(), &sdk.StdioTransport{})
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
