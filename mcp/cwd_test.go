package mcp

import (
	"slices"
	"testing"

	"modbay/config"
)

// TestCwdReadOnlyUnlessListed: an entry's cwd is a read root, never a
// write root, unless its roots list it with a mode.
func TestCwdReadOnlyUnlessListed(t *testing.T) {
	read, write, _ := sandboxRoots(config.MCPServer{Command: "/bin/srv", Cwd: "/home/p/project"})
	if !slices.Contains(read, "/home/p/project") || slices.Contains(write, "/home/p/project") {
		t.Fatalf("unlisted cwd: read %v, write %v", read, write)
	}
	read, write, _ = sandboxRoots(config.MCPServer{Command: "/bin/srv", Cwd: "/home/p/project", Roots: map[string]string{"/home/p/project": config.RootRW}})
	if slices.Contains(read, "/home/p/project") || !slices.Contains(write, "/home/p/project") {
		t.Fatalf("cwd listed rw: read %v, write %v", read, write)
	}
}
