//go:build linux

package contain

import (
	"os/exec"
	"testing"
)

// benchSpawn starts and waits for /bin/true b.N times with mode.
func benchSpawn(b *testing.B, mode Mode) {
	dir := b.TempDir()
	Probe() // once per process, not per run
	b.ResetTimer()
	for b.Loop() {
		cmd := exec.Command("/bin/true")
		cmd.Env = []string{"TMPDIR=" + dir}
		if _, _, err := Start(cmd, Spec{Module: "/bin/true", ModuleDir: "/bin", RunDir: dir, Limits: DefaultLimits, Mode: mode}); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSpawnPlain is the uncontained baseline: a process group only.
func BenchmarkSpawnPlain(b *testing.B) { benchSpawn(b, ModeOff) }

// BenchmarkSpawnContained is what every module run pays (issue 10 budget:
// at most 5 ms over BenchmarkSpawnPlain).
func BenchmarkSpawnContained(b *testing.B) { benchSpawn(b, ModeAuto) }

// BenchmarkSpawnContainedUserNS adds a user namespace as root: Go then
// forks instead of vforking (measured to justify leaving it out as root).
func BenchmarkSpawnContainedUserNS(b *testing.B) {
	forceUserNS = true
	defer func() { forceUserNS = false }()
	benchSpawn(b, ModeAuto)
}

// BenchmarkSpawnContainedNetwork is a contained run granted the network
// (no network namespace).
func BenchmarkSpawnContainedNetwork(b *testing.B) {
	dir := b.TempDir()
	Probe()
	b.ResetTimer()
	for b.Loop() {
		cmd := exec.Command("/bin/true")
		if _, _, err := Start(cmd, Spec{Module: "/bin/true", ModuleDir: "/bin", RunDir: dir, Network: true, Limits: DefaultLimits}); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
	}
}
