package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modbay/config"
	"modbay/contain"
	"modbay/runner"
)

// TestHostileServerFolderHoldingTheHome: an MCP server whose command is
// named after a folder that holds the modbay home (/srv/srv with the home
// at /srv/modbay) was granted that folder as its own, read and execute,
// and read what lies in it. The server's folder is judged against the
// host's folders as a module's is, so it gets its command only.
func TestHostileServerFolderHoldingTheHome(t *testing.T) {
	if sup := contain.Probe(); !sup.PIDNS || sup.LandlockABI < 6 {
		t.Skipf("containment mechanisms missing: %s", strings.Join(sup.Lines(), "; "))
	}
	beside := t.TempDir() // the fixture's home is made beside it
	outer := filepath.Dir(beside)
	secret := filepath.Join(beside, "neighbour.env")
	if err := os.WriteFile(secret, []byte("API_KEY=SECRET-KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(filepath.Join("testdata", "servers", "peek_server.sh"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := filepath.Join(outer, filepath.Base(outer))
	if err := os.WriteFile(cmd, append([]byte("#!/bin/sh\n"), body...), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := config.MCPServer{Command: cmd, Env: map[string]string{"TARGET": secret}}
	f := newFixture(t, config.SandboxAuto, map[string]config.MCPServer{"peek": srv})
	if got := filepath.Dir(f.host.Config().Home); got != outer {
		t.Fatalf("the home %s is not in %s", got, outer)
	}
	m := f.module("peek")
	if m.Status != runner.StatusReady {
		t.Fatalf("peek server: %s: %s\n%s", m.Status, m.Reason, m.Stderr)
	}
	res := f.run(m, "peek", `{}`, runner.RunOptions{})
	if !res.OK() || len(res.Artifacts) != 1 {
		t.Fatalf("peek: %+v\n%s", res.Host, res.Stderr)
	}
	b, _ := os.ReadFile(res.Artifacts[0].Staged)
	if !strings.Contains(string(b), "read:") {
		t.Fatalf("the server did not answer: %q", b)
	}
	if strings.Contains(string(b), "SECRET-KEY") {
		t.Fatal("a server whose folder holds the home read a file in it")
	}
}

// TestStartRefusalNamesTheConfigLine: a contained server that writes its
// cache outside its roots before answering fails to start, and the reason
// names the entry's needs: and roots: in config.yaml and the folder to add;
// with that folder under needs: it starts.
func TestStartRefusalNamesTheConfigLine(t *testing.T) {
	if sup := contain.Probe(); !sup.PIDNS || sup.LandlockABI < 6 {
		t.Skipf("containment mechanisms missing: %s", strings.Join(sup.Lines(), "; "))
	}
	body, err := os.ReadFile(filepath.Join("testdata", "servers", "cache_server.sh"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd, cache := filepath.Join(dir, "cache-server"), filepath.Join(dir, "npm-cache")
	if err := os.WriteFile(cmd, append([]byte("#!/bin/sh\n"), body...), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(cache, 0o700); err != nil {
		t.Fatal(err)
	}
	srv := config.MCPServer{Command: cmd, Env: map[string]string{"CACHE": cache}}
	m := newFixture(t, config.SandboxRequire, map[string]config.MCPServer{"cachey": srv}).module("cachey")
	if m.Status != runner.StatusBroken {
		t.Fatalf("the server started with its cache outside its roots: %s %s", m.Status, m.Reason)
	}
	for _, want := range []string{"likely refused by containment", "mcp_servers.cachey's roots: and needs:", `add "` + cache + `": rw under its needs:`} {
		if !strings.Contains(m.Reason, want) {
			t.Errorf("the reason lacks %q:\n%s", want, m.Reason)
		}
	}
	srv.Needs = map[string]string{cache: config.RootRW}
	if m := newFixture(t, config.SandboxRequire, map[string]config.MCPServer{"cachey": srv}).module("cachey"); m.Status != runner.StatusReady {
		t.Fatalf("with needs: the server still fails: %s %s", m.Status, m.Reason)
	}
}
