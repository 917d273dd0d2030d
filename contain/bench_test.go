//go:build linux

package contain

import (
	"os/exec"
	"testing"
	"time"
)

// benchSpawn starts and waits for /bin/true b.N times under spec. Besides
// the mean it reports the fastest run (min-ns/op): on a machine shared by
// other work, the minimum is the cost without the queueing.
func benchSpawn(b *testing.B, spec Spec) {
	dir := b.TempDir()
	spec.Module, spec.ModuleDir, spec.RunDir, spec.Limits = "/bin/true", "/bin", dir, DefaultLimits
	Probe() // once per process, not per run
	fastest := time.Duration(1 << 62)
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		cmd := exec.Command("/bin/true")
		cmd.Env = []string{"TMPDIR=" + dir}
		if _, _, err := Start(cmd, spec); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		fastest = min(fastest, time.Since(t0))
	}
	b.ReportMetric(float64(fastest.Nanoseconds()), "min-ns/op")
}

// BenchmarkSpawnPlain is the uncontained baseline: a process group only.
func BenchmarkSpawnPlain(b *testing.B) { benchSpawn(b, Spec{Mode: ModeOff}) }

// BenchmarkSpawnContained is what every module run pays (budget:
// at most 5 ms over BenchmarkSpawnPlain).
func BenchmarkSpawnContained(b *testing.B) { benchSpawn(b, Spec{}) }

// BenchmarkSpawnContainedUserNS adds a user namespace as root: Go then
// forks instead of vforking (measured to justify leaving it out as root).
func BenchmarkSpawnContainedUserNS(b *testing.B) {
	forceUserNS = true
	defer func() { forceUserNS = false }()
	benchSpawn(b, Spec{})
}

// BenchmarkSpawnContainedNetwork is a contained run granted the network
// (no network namespace).
func BenchmarkSpawnContainedNetwork(b *testing.B) { benchSpawn(b, Spec{Network: true}) }

// BenchmarkSpawnContainedNoNetNS is a contained run without a network
// grant on a machine without network namespaces (seccomp alone refuses
// sockets): what the namespace costs.
func BenchmarkSpawnContainedNoNetNS(b *testing.B) {
	orig := Probe()
	probed.NetNS = false
	defer func() { probed = orig }()
	benchSpawn(b, Spec{})
}

// BenchmarkSpawnContainedNoMountNS is a contained run as root without the
// read-only mount namespace: against BenchmarkSpawnContained, what the
// namespace (unshare, remount, bind back, its teardown) costs.
func BenchmarkSpawnContainedNoMountNS(b *testing.B) {
	orig := Probe()
	probed.MountNS = false
	defer func() { probed = orig }()
	benchSpawn(b, Spec{})
}

// BenchmarkMountNS is the read-only mount namespace alone, on a disposable
// thread of its own (thread start and exit included, as in a run): one rw
// path bound back.
func BenchmarkMountNS(b *testing.B) {
	if !Probe().MountNS {
		b.Skip("no mount namespace here: " + Probe().MountNSWhy)
	}
	dir := b.TempDir()
	for b.Loop() {
		res := make(chan error, 1)
		go onDisposableThread(func() {
			_, err := readOnlyMounts([]string{dir})
			res <- err
		})
		if err := <-res; err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDisposableThread is a disposable thread doing nothing: the part
// of BenchmarkMountNS that every run pays anyway.
func BenchmarkDisposableThread(b *testing.B) {
	for b.Loop() {
		res := make(chan struct{})
		go onDisposableThread(func() { close(res) })
		<-res
	}
}
