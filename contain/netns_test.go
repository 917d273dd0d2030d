//go:build linux

package contain

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// netNSOf is pid's network namespace ("net:[inode]").
func netNSOf(t *testing.T, pid int) string {
	t.Helper()
	l, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// startSleeper starts a contained sleep without the network and returns
// its pid, its network namespace and what was enforced.
func startSleeper(t *testing.T) (string, Enforcement) {
	t.Helper()
	cmd := exec.Command("/bin/sleep", "30")
	_, enf, err := Start(cmd, Spec{RunDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return netNSOf(t, cmd.Process.Pid), enf
}

// TestSharedNetNS: as root, runs without the network join one empty
// network namespace, not the host's, and say so; only while seccomp
// refuses every socket. Without seccomp each run gets a fresh one.
func TestSharedNetNS(t *testing.T) {
	s := requireFloor(t)
	if !s.Root || !s.NetNS || !s.Seccomp {
		t.Skip("the shared network namespace is made as root with network namespaces and seccomp")
	}
	host := netNSOf(t, os.Getpid())
	Prepare() // made in the background, or by the first run: one namespace either way
	a, ea := startSleeper(t)
	b, eb := startSleeper(t)
	if a == host || a != b {
		t.Fatalf("host %s, runs %s and %s: want one namespace shared, not the host's", host, a, b)
	}
	for _, e := range []Enforcement{ea, eb} {
		if e.Network != NetworkNamespaceShared+" + "+NetworkNoSockets || !e.Complete() {
			t.Errorf("network %q, gaps %v", e.Network, e.Gaps)
		}
	}
	withSupport(t, func(s *Support) { s.Seccomp, s.SeccompWhy = false, "test: none" }, func() {
		c, ec := startSleeper(t)
		d, _ := startSleeper(t)
		if c == host || c == a || c == d {
			t.Errorf("without seccomp: host %s, shared %s, runs %s and %s: want a fresh namespace each", host, a, c, d)
		}
		if ec.Network != NetworkNamespace {
			t.Errorf("without seccomp: network %q", ec.Network)
		}
	})
}
