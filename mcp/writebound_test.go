package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modbay/config"
	"modbay/modproto"
	"modbay/runner"
)

// TestWriteBoundKillIsTheBound: an MCP server whose tool writes past its
// entry's limits.write_mb is killed by the write watch, and the call is
// host.write_bound naming the bound, not a failed session (the server's
// death is the host's doing).
func TestWriteBoundKillIsTheBound(t *testing.T) {
	// Not parallel: the write bound's trigger is the filesystem's growth
	// (statfs), which files other tests delete meanwhile can hide.
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	script, _ := filepath.Abs(filepath.Join("testdata", "servers", "write_flood.py"))
	// The watch is part of containment (docs/containment.md "Writes"):
	// sandbox auto.
	for _, sandbox := range []string{config.SandboxAuto} {
		t.Run(sandbox, func(t *testing.T) {
			srv := config.MCPServer{Command: py, Args: []string{script},
				Roots:  map[string]string{filepath.Dir(script): config.RootRO},
				Limits: config.MCPLimits{Process: config.Limits{WriteMB: 4}}}
			f := newFixture(t, sandbox, map[string]config.MCPServer{"flood": srv})
			m := f.module("flood")
			if m.Status != runner.StatusReady {
				t.Fatalf("flood server: %s: %s\n%s", m.Status, m.Reason, m.Stderr)
			}
			res := f.run(m, "flood", `{}`, runner.RunOptions{})
			if res.Host == nil || res.Host.Code != modproto.CodeHostWriteBound {
				t.Fatalf("host verdict %+v, want %s", res.Host, modproto.CodeHostWriteBound)
			}
			if !strings.Contains(res.Host.Detail, "limits.write_mb (4 MiB)") {
				t.Errorf("the verdict does not name the bound: %s", res.Host.Detail)
			}
		})
	}
}

// TestWriteBoundHeldUnlinked: a server whose tool holds 16 MiB it unlinked
// (seen by statfs, by no walk), then writes 8 MiB seen, against a 4 MiB
// bound, is stopped: the files it holds are its own.
func TestWriteBoundHeldUnlinked(t *testing.T) {
	// Not parallel: as TestWriteBoundKillIsTheBound.
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	script, _ := filepath.Abs(filepath.Join("testdata", "servers", "write_flood.py"))
	srv := config.MCPServer{Command: py, Args: []string{script},
		Roots:  map[string]string{filepath.Dir(script): config.RootRO},
		Limits: config.MCPLimits{Process: config.Limits{WriteMB: 4}}}
	f := newFixture(t, config.SandboxAuto, map[string]config.MCPServer{"slack": srv})
	m := f.module("slack")
	if m.Status != runner.StatusReady {
		t.Fatalf("slack server: %s: %s\n%s", m.Status, m.Reason, m.Stderr)
	}
	res := f.run(m, "slack", `{}`, runner.RunOptions{})
	if res.Host == nil || res.Host.Code != modproto.CodeHostWriteBound {
		t.Fatalf("host verdict %+v, want %s", res.Host, modproto.CodeHostWriteBound)
	}
}
