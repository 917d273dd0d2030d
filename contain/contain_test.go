//go:build linux

package contain

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// withSupport runs f with Probe's answer replaced by edit(Probe()), as on
// a machine that lacks something.
func withSupport(t *testing.T, edit func(*Support), f func()) {
	t.Helper()
	orig := Probe()
	s := orig
	edit(&s)
	probed = s
	defer func() { probed = orig }()
	f()
}

// TestRequireRefusesAGap: sandbox: require starts nothing that cannot be
// fully contained (here: no network namespace and no seccomp, so only
// Landlock's TCP rules would apply), and says which layer.
func TestRequireRefusesAGap(t *testing.T) {
	requireFloor(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	noNet := func(s *Support) {
		s.NetNS, s.NetNSWhy = false, "test: none"
		s.Seccomp, s.SeccompWhy = false, "test: none"
	}
	withSupport(t, noNet, func() {
		cmd := exec.Command("/bin/sh", "-c", "echo > "+marker)
		_, enf, err := Start(cmd, Spec{RunDir: dir, Mode: ModeRequire})
		if !errors.Is(err, ErrNotContained) {
			t.Fatalf("require with a gap: err %v", err)
		}
		if enf.Network != NetworkLandlockTCP || !strings.Contains(err.Error(), "network") {
			t.Fatalf("the refusal must name the layer: %v\n%s", err, enf)
		}
		// auto runs it, and says the same.
		cmd = exec.Command("/bin/sh", "-c", "echo > "+marker)
		_, enf, err = Start(cmd, Spec{RunDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		if enf.Complete() || enf.Network != NetworkLandlockTCP {
			t.Fatalf("auto without a network namespace must report it:\n%s", enf)
		}
	})
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("auto must still run the module: %v", err)
	}
}

// TestRequireRefusedNothingRan: the refused module never ran an
// instruction (it is killed at its execve stop).
func TestRequireRefusedNothingRan(t *testing.T) {
	requireFloor(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	withSupport(t, func(s *Support) { s.PIDNS, s.PIDNSWhy = false, "test: none" }, func() {
		cmd := exec.Command("/bin/sh", "-c", "echo > "+marker)
		if _, _, err := Start(cmd, Spec{RunDir: dir, Mode: ModeRequire}); !errors.Is(err, ErrNotContained) {
			t.Fatalf("err %v", err)
		}
	})
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a refused module ran")
	}
}

func TestEnforcementString(t *testing.T) {
	requireFloor(t)
	dir := t.TempDir()
	cmd := exec.Command("/bin/true")
	_, enf, err := Start(cmd, Spec{RunDir: dir, Limits: Limits{OpenFiles: 64, CPUSeconds: 5}})
	if err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	fs, meta := "landlock ABI "+itoa(Probe().LandlockABI), MetadataSetuidRefused
	if Probe().MountNS {
		fs, meta = fs+FilesystemMountNS, MetadataReadOnly
	}
	net := NetworkNamespace
	if Probe().Root {
		net = NetworkNamespaceShared
	}
	want := "processes: pid namespace\nfilesystem: " + fs +
		"\nnetwork: " + net + " + no sockets (seccomp)\ncapabilities: dropped\nterminal: own session\nsignals: landlock scope + pid namespace" +
		"\nunix sockets: refused (seccomp)\ndescriptors: closed above 2\nmetadata: " + meta + "\nlimits: open files 64, cpu 5 s"
	if enf.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", enf, want)
	}
	b, _ := json.Marshal(enf)
	if !strings.Contains(string(b), `"processes":"pid namespace"`) || strings.Contains(string(b), "gaps") {
		t.Fatalf("json: %s", b)
	}
	if !enf.Complete() {
		t.Fatalf("gaps: %v", enf.Gaps)
	}
}

func TestOffSaysSo(t *testing.T) {
	cmd := exec.Command("/bin/true")
	_, enf, err := Start(cmd, Spec{Mode: ModeOff})
	if err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if enf.Complete() || enf.Contained || !strings.Contains(enf.String(), "filesystem: not enforced (sandbox: off)") {
		t.Fatalf("off must say every layer is off:\n%s", enf)
	}
}

func TestLimitsApplied(t *testing.T) {
	requireFloor(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "limits")
	cmd := exec.Command("/bin/sh", "-c", "ulimit -n > "+out+"; ulimit -t >> "+out)
	if _, _, err := Start(cmd, Spec{RunDir: dir, Limits: Limits{OpenFiles: 77, CPUSeconds: 9}}); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	b, err := os.ReadFile(out)
	if err != nil || strings.Fields(string(b))[0] != "77" || strings.Fields(string(b))[1] != "9" {
		t.Fatalf("limits seen by the module: %q %v", b, err)
	}
}

func TestProbeLines(t *testing.T) {
	lines := Probe().Lines()
	if len(lines) < 6 || !strings.HasPrefix(lines[1], "landlock:") {
		t.Fatalf("%q", lines)
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": ModeAuto, "auto": ModeAuto, "require": ModeRequire, "off": ModeOff} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("%q: %q %v", in, got, err)
		}
	}
	if _, err := ParseMode("maybe"); err == nil {
		t.Error("maybe accepted")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestRootWithoutMountNSIsAGap: as root, Landlock alone leaves every
// root-owned file's mode, owner and times open, so a run without its
// read-only mount namespace is recorded as a filesystem gap (and refused
// under sandbox: require), with the metadata layer saying what still holds.
func TestRootWithoutMountNSIsAGap(t *testing.T) {
	requireFloor(t)
	if !isRoot() {
		t.Skip("the mount namespace is made only as root")
	}
	dir := t.TempDir()
	withSupport(t, func(s *Support) { s.MountNS, s.MountNSWhy = false, "test: none" }, func() {
		cmd := exec.Command("/bin/true")
		_, enf, err := Start(cmd, Spec{RunDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		if enf.Complete() || !strings.Contains(enf.Filesystem, "mount namespace not enforced (test: none)") || enf.Metadata != MetadataSetuidRefused {
			t.Fatalf("without a mount namespace as root:\n%s\ngaps %v", enf, enf.Gaps)
		}
		if _, _, err := Start(exec.Command("/bin/true"), Spec{RunDir: dir, Mode: ModeRequire}); !errors.Is(err, ErrNotContained) {
			t.Fatalf("require: %v", err)
		}
	})
}
