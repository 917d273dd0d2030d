package mcp

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"modbay/config"
	"modbay/runner"
)

// starts counts the lines the test server appended to p.
func starts(t *testing.T, p string) int {
	t.Helper()
	b, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("start\n"))
}

// TestListCache: a server never seen is connected once; the next
// discovery (a new command: a new host and source on the same home)
// shows the cached list without starting it; a refresh or a new server
// version lists it again; a call on a cached module still checks
// structuredContent against the outputSchema.
func TestListCache(t *testing.T) {
	home := t.TempDir()
	startsFile := filepath.Join(t.TempDir(), "starts")
	srv := testServer(t)
	srv.Env[startsEnv] = startsFile
	servers := map[string]config.MCPServer{"test": srv}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// discover is one command: a fresh host and source, closed after.
	discover := func() (*runner.Module, *runner.Host, *Source) {
		cfg, err := config.Load(home)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Sandbox, cfg.MCPServers = config.SandboxOff, servers
		h := runner.NewHost(cfg)
		src := NewSource(cfg, func(k string) (string, bool) { v, ok := hostVars[k]; return v, ok })
		h.AddSource(src)
		t.Cleanup(func() { _ = src.Close() })
		for _, m := range h.Discover(ctx) {
			if m.ID == "test" {
				return m, h, src
			}
		}
		t.Fatal("test not discovered")
		return nil, nil, nil
	}

	m, _, src := discover()
	if m.Status != runner.StatusReady || m.Cached || starts(t, startsFile) != 1 {
		t.Fatalf("first list: %s cached=%v, %d starts; want ready, live, 1 start", m.Status, m.Cached, starts(t, startsFile))
	}
	first := m.DescribedAt
	src.Close()

	m, h, src := discover()
	if !m.Cached || m.Status != runner.StatusReady || tools(m.Descriptor) != 13 || starts(t, startsFile) != 1 {
		t.Fatalf("second list: cached=%v %s, %d tools, %d starts; want the cached list, no start",
			m.Cached, m.Status, tools(m.Descriptor), starts(t, startsFile))
	}
	if res, _, _ := src.Driver("test").Catalog(); len(res) != 1 {
		t.Errorf("the cached list's catalog: %q, want the resource listed with it", res)
	}
	if p, err := h.Plan(m, "wipe", nil); err != nil || !p.Destructive {
		t.Errorf("a cached list's destructive tool: %v, destructive %v; want its hints kept with the list", err, p != nil && p.Destructive)
	}
	if !m.DescribedAt.Equal(first) {
		t.Errorf("cached list dated %v, want its listing time %v", m.DescribedAt, first)
	}
	if got := ListedAge(m.DescribedAt, m.DescribedAt.Add(3*time.Minute+10*time.Second)); got != "tools as of 3m ago" {
		t.Errorf("ListedAge = %q", got)
	}
	fi, err := os.Stat(filepath.Join(home, "cache", cacheSubdir, "test.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("state file: %v, %v; want 0600", fi, err)
	}
	// A call on the cached module starts the server and still judges
	// structuredContent by the tool's outputSchema.
	p, err := h.Plan(m, "echo", []byte(`{"text":"cached"}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.Run(ctx, p, true, nil)
	if err != nil || !res.OK() || string(res.Envelope.Result) != `{"echo":"cached"}` || len(res.Envelope.Warnings) != 0 {
		t.Fatalf("call on the cached module: %v %+v %+v", err, res.Host, res.Envelope)
	}
	if starts(t, startsFile) != 2 {
		t.Errorf("%d starts after a call, want 2", starts(t, startsFile))
	}
	src.Close()

	// A refresh lists again, once.
	src.Refresh()
	m, _, src = discover()
	if m.Cached || starts(t, startsFile) != 3 {
		t.Errorf("after refresh: cached=%v, %d starts; want live, 3", m.Cached, starts(t, startsFile))
	}
	src.Close()
	if m, _, _ = discover(); !m.Cached || starts(t, startsFile) != 3 {
		t.Errorf("after the refreshed list: cached=%v, %d starts; want cached, 3", m.Cached, starts(t, startsFile))
	}

	// A connect that meets another version than the one recorded makes
	// the cached list stale.
	d := &Driver{id: "test", cacheDir: filepath.Join(home, "cache")}
	st := d.readState()
	if st.Version != "0.3.1" {
		t.Fatalf("state %+v, want the server's version recorded", st)
	}
	d.writeState(listState{Version: "0.3.0", Epoch: st.Epoch})
	m, h, src = discover()
	if !m.Cached {
		t.Fatal("the version is known only on connect: the list should still be cached")
	}
	p, _ = h.Plan(m, "echo", []byte(`{"text":"v"}`))
	if res, err := h.Run(ctx, p, true, nil); err != nil || !res.OK() {
		t.Fatalf("call: %v %+v", err, res)
	}
	src.Close()
	n := starts(t, startsFile)
	if m, _, _ = discover(); m.Cached || starts(t, startsFile) != n+1 {
		t.Errorf("after a version change: cached=%v; want listed again", m.Cached)
	}

	// A server no longer configured loses its state file.
	servers = map[string]config.MCPServer{"other": srv}
	cfg, _ := config.Load(home)
	cfg.MCPServers = servers
	NewSource(cfg, nil)
	if _, err := os.Stat(filepath.Join(home, "cache", cacheSubdir, "test.json")); !os.IsNotExist(err) {
		t.Errorf("state of a removed server: %v, want removed", err)
	}
}
