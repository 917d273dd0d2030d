//go:build linux

package contain

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// restrictedThreads lists the host's threads that carry no_new_privs or a
// seccomp filter, or sit in a mount namespace of their own: the spawning
// threads of modules still running.
func restrictedThreads(t *testing.T) []string {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	hostMnt, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	for _, task := range tasks {
		if mnt, err := os.Readlink(filepath.Join("/proc/self/task", task.Name(), "ns", "mnt")); err == nil && mnt != hostMnt {
			bad = append(bad, task.Name()+" (own mount namespace)")
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc/self/task", task.Name(), "status"))
		if err != nil {
			continue // the thread exited meanwhile
		}
		if bytes.Contains(b, []byte("NoNewPrivs:\t1")) || !bytes.Contains(b, []byte("Seccomp:\t0")) {
			bad = append(bad, task.Name()+" (pid "+strconv.Itoa(os.Getpid())+")")
		}
	}
	return bad
}

// TestRestrictedThreadsDie: the thread a module was started from dies with
// its goroutine; the host never runs anything else on a restricted thread.
func TestRestrictedThreadsDie(t *testing.T) {
	requireFloor(t)
	dir := t.TempDir()
	for range 10 {
		cmd := exec.Command("/bin/true")
		if _, _, err := Start(cmd, Spec{RunDir: dir}); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
	}
	deadline := time.Now().Add(2 * time.Second)
	for len(restrictedThreads(t)) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if bad := restrictedThreads(t); len(bad) > 0 {
		t.Fatalf("restricted threads outlived their modules: %v", bad)
	}
	// And the host itself is unrestricted: it still reads /tmp.
	if _, err := os.ReadDir(os.TempDir()); err != nil {
		t.Fatal(err)
	}
}

const deathHostEnv = "CONTAIN_DEATH_HOST"

// TestHostDeathKillsTheModule: when the host is killed (SIGKILL: no
// cleanup runs), the parent-death signal and the PID namespace take the
// module and its descendants with it.
func TestHostDeathKillsTheModule(t *testing.T) {
	requireFloor(t)
	token := "death" + newWorld(t).token
	host := exec.Command(os.Args[0], "-test.run=^TestDeathHost$")
	host.Env = append(os.Environ(), deathHostEnv+"="+token, ttyAttackEnv+"="+attackExe)
	var out bytes.Buffer
	host.Stdout, host.Stderr = &out, &out
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	// Both lingerers have exec'd (argv "linger\x00<token>"; the shell that
	// starts them has the words in one argument).
	lingerers := func() int { return len(survivors("linger\x00" + token)) }
	deadline := time.Now().Add(5 * time.Second)
	for lingerers() < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := lingerers(); n < 2 {
		_ = host.Process.Kill()
		_ = host.Wait()
		t.Fatalf("the module and its child never started (%d): %s", n, out.String())
	}
	_ = host.Process.Kill()
	_ = host.Wait()
	deadline = time.Now().Add(2 * time.Second)
	for len(survivors(token)) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if left := survivors(token); len(left) > 0 {
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Fatalf("%d process(es) outlived the killed host", len(left))
	}
}

// TestDeathHost is the host TestHostDeathKillsTheModule kills; it does
// nothing otherwise. Its module lingers and starts a lingering child.
func TestDeathHost(t *testing.T) {
	token := os.Getenv(deathHostEnv)
	if token == "" {
		t.Skip("only run by TestHostDeathKillsTheModule")
	}
	dir := t.TempDir()
	attack := os.Getenv(ttyAttackEnv)
	cmd := exec.Command("/bin/sh", "-c", strings.Join([]string{attack, "linger", token, "&", "exec", attack, "linger", token}, " "))
	if _, _, err := Start(cmd, Spec{Module: attack, ModuleDir: filepath.Dir(attack), RunDir: dir}); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
}
