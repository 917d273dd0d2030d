//go:build linux

package contain

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// attackExe is the hostile module, built once by TestMain.
var attackExe string

func TestMain(m *testing.M) {
	if os.Getenv(ttyHostEnv) != "" || os.Getenv(deathHostEnv) != "" {
		os.Exit(m.Run()) // the re-executed terminal host builds nothing
	}
	dir, err := os.MkdirTemp("", "contain-attack-")
	if err != nil {
		panic(err)
	}
	attackExe = filepath.Join(dir, "attack")
	build := exec.Command("go", "build", "-o", attackExe, "./testdata/hostile/attack")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		panic("build the hostile module: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// requireFloor skips (one line) when a mechanism is missing, except on CI
// (CI=true), where pid and network namespaces, a usable user namespace and
// Landlock ABI ≥ 6 are the fixed floor and their absence fails the test.
func requireFloor(t *testing.T) Support {
	t.Helper()
	s := Probe()
	var missing []string
	if s.LandlockABI < 6 {
		missing = append(missing, "landlock ABI ≥ 6 (have "+strconv.Itoa(s.LandlockABI)+": "+s.LandlockWhy+")")
	}
	if !s.UserNS {
		missing = append(missing, "user namespace ("+s.UserNSWhy+")")
	}
	if !s.PIDNS {
		missing = append(missing, "pid namespace ("+s.PIDNSWhy+")")
	}
	if !s.NetNS {
		missing = append(missing, "network namespace ("+s.NetNSWhy+")")
	}
	if !s.Seccomp {
		missing = append(missing, "seccomp ("+s.SeccompWhy+")")
	}
	if len(missing) > 0 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI floor not met: %s", strings.Join(missing, "; "))
		}
		t.Skipf("containment mechanisms missing: %s", strings.Join(missing, "; "))
	}
	return s
}

// world is what a hostile case aims at: files outside the grants, the
// host's listeners and secrets.
type world struct {
	runDir, rwRoot, outside, home, modbayHome string
	tcp, udp, sock                            string
	token                                     string
}

const hostSecret = "HOST_SECRET=hunter2"

// inheritedFD is the descriptor the host "inherited" in TestHostile.
const inheritedFD = 77

func newWorld(t *testing.T) *world {
	t.Helper()
	base := t.TempDir()
	w := &world{
		runDir:     filepath.Join(base, "run"),
		rwRoot:     filepath.Join(base, "rw"),
		outside:    filepath.Join(base, "outside"),
		home:       filepath.Join(base, "home"),
		modbayHome: filepath.Join(base, "home", ".local", "share", "modbay"),
		token:      strconv.FormatInt(time.Now().UnixNano(), 36),
	}
	for _, d := range []string{w.runDir, w.rwRoot, w.outside, filepath.Join(w.home, ".ssh"), filepath.Join(w.modbayHome, "cache", "describe")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(w.outside, "notes.txt"):                      "outside\n",
		filepath.Join(w.home, ".ssh", "id_ed25519"):                "PRIVATE KEY\n",
		filepath.Join(w.modbayHome, "config.yaml"):                 "policy: {}\n",
		filepath.Join(w.modbayHome, "cache", "describe", "x.json"): "{}\n",
	}
	for p, s := range files {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tl.Close() })
	go func() {
		for {
			c, err := tl.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	ul, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ul.Close() })
	go func() {
		b := make([]byte, 64)
		for {
			n, a, err := ul.ReadFrom(b)
			if err != nil {
				return
			}
			_, _ = ul.WriteTo(b[:n], a)
		}
	}()
	w.sock = filepath.Join(base, "agent.sock")
	sl, err := net.Listen("unix", w.sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sl.Close() })
	go func() {
		for {
			c, err := sl.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	w.tcp, w.udp = tl.Addr().String(), ul.LocalAddr().String()
	return w
}

// spec is the grants of a hostile run: its own dir, one rw root, no
// network, no subprocess.
func (w *world) spec(mode Mode) Spec {
	return Spec{Module: attackExe, ModuleDir: filepath.Dir(attackExe), WriteRoots: []string{w.rwRoot},
		RunDir: w.runDir, Limits: DefaultLimits, Mode: mode, ExecNarrow: true}
}

// fileState is one file outside the grants: its bytes and the metadata
// Landlock does not cover (mode, owner, modification time).
type fileState struct {
	data     string
	mode     os.FileMode
	uid, gid uint32
	mtime    time.Time
}

// snapshot reads every file outside the grants, with its metadata.
func (w *world) snapshot(t *testing.T) map[string]fileState {
	t.Helper()
	m := map[string]fileState{}
	for _, root := range []string{w.outside, w.home} {
		_ = filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
			if err == nil && fi.Mode().IsRegular() {
				b, _ := os.ReadFile(p)
				st := fi.Sys().(*syscall.Stat_t)
				m[p] = fileState{data: string(b), mode: fi.Mode(), uid: st.Uid, gid: st.Gid, mtime: fi.ModTime()}
			}
			return nil
		})
	}
	return m
}

// survivors lists the pids whose argv holds token.
func survivors(token string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if bytes.Contains(b, []byte(token)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// run starts the attack contained by mode and returns its output.
func run(t *testing.T, w *world, mode Mode, extra []*os.File, args ...string) (string, Enforcement) {
	t.Helper()
	cmd := exec.Command(attackExe, args...)
	cmd.Env = []string{"TMPDIR=" + w.runDir, "HOME=" + w.home}
	cmd.Dir = w.runDir
	cmd.ExtraFiles = extra
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	p, enf, err := Start(cmd, w.spec(mode))
	if err != nil {
		t.Fatalf("start %v: %v", args, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = p.Kill()
		<-done
		t.Fatalf("%v did not finish", args)
	}
	return strings.TrimSpace(out.String()), enf
}

func TestHostile(t *testing.T) {
	requireFloor(t)
	w := newWorld(t)
	usr1 := make(chan os.Signal, 4)
	signal.Notify(usr1, syscall.SIGUSR1)
	defer signal.Stop(usr1)

	// inheritedFD is inherited by the host without close-on-exec, as
	// from a shell's `exec 7<secret` (7 itself is the Go runtime's in a
	// test binary, so a free number stands in for it).
	secretPath := filepath.Join(w.outside, "secret")
	if err := os.WriteFile(secretPath, []byte(hostSecret), 0o600); err != nil {
		t.Fatal(err)
	}
	sf, err := os.Open(secretPath)
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	if _, err := unix.FcntlInt(inheritedFD, unix.F_GETFD, 0); err == nil {
		t.Fatalf("descriptor %d is already in use", inheritedFD)
	}
	if err := unix.Dup2(int(sf.Fd()), inheritedFD); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(inheritedFD)
	// /proc/<pid>/environ is the environment the host was started with:
	// its first entry stands for a secret there.
	env, err := os.ReadFile("/proc/self/environ")
	if err != nil || len(env) == 0 {
		t.Skip("the test host has no environment to steal")
	}
	envSecret, _, _ := bytes.Cut(env, []byte{0})

	host := strconv.Itoa(os.Getpid())
	cases := []struct {
		name string
		args []string
		// signalled is true when the attack's proof is the host's
		// SIGUSR1.
		signalled bool
	}{
		{"shadow", []string{"read", "/etc/shadow", "root:"}, false},
		{"ssh", []string{"read", filepath.Join(w.home, ".ssh", "id_ed25519"), "PRIVATE"}, false},
		{"outside", []string{"write", filepath.Join(w.outside, "notes.txt")}, false},
		{"config", []string{"write", filepath.Join(w.modbayHome, "config.yaml")}, false},
		{"cache", []string{"write", filepath.Join(w.modbayHome, "cache", "describe", "x.json")}, false},
		{"tcp", []string{"tcp", w.tcp}, false},
		{"udp", []string{"udp", w.udp}, false},
		{"mptcp", []string{"mptcp", w.tcp}, false},
		{"unix", []string{"unix", w.sock}, false},
		{"environ", []string{"read", "/proc/" + host + "/environ", string(envSecret)}, false},
		{"signal", []string{"signal", host}, true},
		{"fd", []string{"fd", strconv.Itoa(inheritedFD), "hunter2"}, false},
		{"keyring", []string{"keyring", "planted"}, false},
		{"setuid", []string{"setuid", filepath.Join(w.outside, "notes.txt")}, false},
		// Landlock does not cover modes, owners and times: as root, the
		// read-only mount namespace stops them (EROFS).
		{"chmod", []string{"chmod", filepath.Join(w.outside, "notes.txt")}, false},
		{"chown", []string{"chown", filepath.Join(w.outside, "notes.txt")}, false},
		{"utime", []string{"utime", filepath.Join(w.outside, "notes.txt")}, false},
		// Granted no subprocess, the module can start no other program.
		{"exec", []string{"exec", "/bin/sh"}, false},
		// Nor a program from an anonymous memory file (memfd_create,
		// execveat): refused by seccomp, Landlock seeing no path.
		{"memfd", []string{"memfd"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "shadow" && !isRoot() {
				t.Skip("/etc/shadow is unreadable to this user even uncontained")
			}
			if (c.name == "chmod" || c.name == "chown" || c.name == "utime") && !isRoot() {
				// Not root, the user's own files outside the grants stay
				// open to these (no mount namespace; the enforcement
				// record says so) and chown is refused anyway.
				t.Skip("metadata changes are contained by the mount namespace, made only as root")
			}
			before := w.snapshot(t)
			// A contained run marked it close-on-exec; inherited, it is not.
			if _, err := unix.FcntlInt(inheritedFD, unix.F_SETFD, 0); err != nil {
				t.Fatal(err)
			}
			out, _ := run(t, w, ModeOff, nil, c.args...)
			if out != "ATTACK OK" {
				t.Fatalf("uncontained, the attack should work (or the test proves nothing): %s", out)
			}
			if c.signalled {
				select {
				case <-usr1:
				case <-time.After(2 * time.Second):
					t.Fatal("uncontained, the host never got the signal")
				}
			}
			restore(t, before)
			out, enf := run(t, w, ModeAuto, nil, c.args...)
			if !strings.HasPrefix(out, "blocked:") {
				t.Fatalf("contained, the attack worked: %s\n%s", out, enf)
			}
			if c.signalled {
				select {
				case <-usr1:
					t.Fatal("contained, the host was signalled")
				case <-time.After(200 * time.Millisecond):
				}
			}
			if !enf.Complete() {
				t.Errorf("not fully contained: %v", enf.Gaps)
			}
			if after := w.snapshot(t); !equalMaps(before, after) {
				t.Errorf("files outside the grants changed")
			}
			t.Logf("contained: %s", out)
		})
	}

	// Without a network namespace, the seccomp filter alone must stop
	// every kind of socket, not only what Landlock's TCP rules cover.
	withSupport(t, func(s *Support) { s.NetNS, s.NetNSWhy = false, "test: none" }, func() {
		for _, args := range [][]string{{"tcp", w.tcp}, {"udp", w.udp}, {"mptcp", w.tcp}, {"unix", w.sock}} {
			out, enf := run(t, w, ModeAuto, nil, args...)
			if !strings.HasPrefix(out, "blocked:") || enf.Network != NetworkNoSockets || !enf.Complete() {
				t.Errorf("%s without a network namespace: %s\n%s", args[0], out, enf)
			}
		}
	})

	t.Run("rw root stays writable", func(t *testing.T) {
		out, enf := run(t, w, ModeAuto, nil, "write", filepath.Join(w.rwRoot, "out.txt"))
		if out != "ATTACK OK" {
			t.Fatalf("a granted rw root must be writable: %s", out)
		}
		if isRoot() && (!strings.Contains(enf.Filesystem, FilesystemMountNS) || enf.Metadata != MetadataReadOnly) {
			t.Errorf("as root, the run should be in a read-only mount namespace:\n%s", enf)
		}
		// Modes and times inside the grants stay the module's to change,
		// in an rw root and in its run directory alike.
		for _, p := range []string{filepath.Join(w.rwRoot, "out.txt"), filepath.Join(w.runDir, "tmp.txt")} {
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			for _, c := range []string{"chmod", "utime"} {
				if out, _ := run(t, w, ModeAuto, nil, c, p); out != "ATTACK OK" {
					t.Errorf("%s inside the grants: %s", c, out)
				}
			}
		}
	})
}

// restore puts back the files (and their metadata) an uncontained attack
// changed.
func restore(t *testing.T, snap map[string]fileState) {
	t.Helper()
	for p, s := range snap {
		if err := os.WriteFile(p, []byte(s.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, int(s.uid), int(s.gid)); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, s.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, s.mtime, s.mtime); err != nil {
			t.Fatal(err)
		}
	}
}

func equalMaps(a, b map[string]fileState) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestHostileSurvive: a grandchild that joins the host's process group and
// drops its environment outlives a process-group kill, but not the pid
// namespace.
func TestHostileSurvive(t *testing.T) {
	requireFloor(t)
	w := newWorld(t)
	pgid := strconv.Itoa(syscall.Getpgrp())

	tok := "off" + w.token
	out, _ := run(t, w, ModeOff, nil, "survive", pgid, tok)
	if out != "ATTACK OK" {
		t.Fatalf("uncontained survive: %s", out)
	}
	time.Sleep(100 * time.Millisecond)
	left := survivors(tok)
	for _, pid := range left {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	if len(left) == 0 {
		t.Fatal("uncontained, the grandchild should have survived (or the test proves nothing)")
	}

	tok = "on" + w.token
	out, enf := run(t, w, ModeAuto, nil, "survive", pgid, tok)
	if out != "ATTACK OK" {
		t.Logf("contained survive: %s", out)
	}
	if enf.Processes != ProcessesPIDNamespace {
		t.Fatalf("processes: %s", enf.Processes)
	}
	deadline := time.Now().Add(2 * time.Second)
	for len(survivors(tok)) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if left := survivors(tok); len(left) > 0 {
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Fatalf("contained, %d process(es) survived the module: %v", len(left), left)
	}
}

// TestHostileProcesses: with limits.processes, a module that starts many
// processes at once is stopped short by its pids cgroup, root included
// (RLIMIT_NPROC alone does not bind root).
func TestHostileProcesses(t *testing.T) {
	s := requireFloor(t)
	if !s.PidsCgroup {
		t.Skip("no pids cgroup here: " + s.PidsCgroupWhy)
	}
	w := newWorld(t)
	const n = "40" // lingering Go processes, several threads each
	start := func(mode Mode, tok string) (string, Enforcement) {
		cmd := exec.Command(attackExe, "procs", n, tok)
		cmd.Env = []string{"TMPDIR=" + w.runDir}
		cmd.Dir = w.runDir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		spec := w.spec(mode)
		spec.Limits.Processes = 24
		_, enf, err := Start(cmd, spec)
		if err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		return strings.TrimSpace(out.String()), enf
	}
	kill := func(tok string) {
		for _, pid := range survivors(tok) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	tok := "procsoff" + w.token
	out, _ := start(ModeOff, tok)
	kill(tok)
	if out != "ATTACK OK" {
		t.Fatalf("uncontained, %s processes should start: %s", n, out)
	}
	tok = "procson" + w.token
	out, enf := start(ModeAuto, tok)
	defer kill(tok)
	if out == "ATTACK OK" {
		t.Fatalf("contained, %s processes started under a limit of 24:\n%s", n, enf)
	}
	if !strings.Contains(enf.Limits, "processes 24 (pids cgroup)") || !enf.Complete() {
		t.Errorf("limits: %s; gaps %v", enf.Limits, enf.Gaps)
	}
	t.Logf("contained: %.120s", out)
	deadline := time.Now().Add(3 * time.Second)
	for len(survivors(tok)) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if left := survivors(tok); len(left) > 0 {
		t.Fatalf("%d process(es) outlived the module", len(left))
	}
}

// TestHostileWrites: a module cannot fill the disk through its rw roots:
// one file stops at Limits.FileSize (SIGXFSZ kills it; ignored, the write
// fails), and many files below it are stopped at Limits.WriteBytes, the
// tree killed while it runs, or found once it exited.
func TestHostileWrites(t *testing.T) {
	requireFloor(t)
	w := newWorld(t)
	limits := Limits{OpenFiles: 64, FileSize: 4 << 20, WriteBytes: 12 << 20, WriteFiles: 1000}
	start := func(mode Mode, args ...string) (*exec.Cmd, *Process, Enforcement, *bytes.Buffer) {
		t.Helper()
		cmd := exec.Command(attackExe, args...)
		cmd.Env = []string{"TMPDIR=" + w.runDir}
		cmd.Dir = w.runDir
		out := &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = out, out
		spec := w.spec(mode)
		spec.Limits = limits
		p, enf, err := Start(cmd, spec)
		if err != nil {
			t.Fatal(err)
		}
		return cmd, p, enf, out
	}
	clean := func() {
		ents, _ := os.ReadDir(w.rwRoot)
		for _, e := range ents {
			os.Remove(filepath.Join(w.rwRoot, e.Name()))
		}
	}
	big := filepath.Join(w.rwRoot, "big.bin")

	// Uncontained, the writes work: the test can fail.
	cmd, _, _, out := start(ModeOff, "bigfile", big, "8")
	if cmd.Wait() != nil || !strings.Contains(out.String(), "ATTACK OK") {
		t.Fatalf("uncontained, an 8 MiB file should be written: %s", out)
	}
	clean()

	// Go ignores SIGXFSZ: the write fails with EFBIG (a shell is killed
	// by it, runner's TestHostileDiskWrites shows).
	cmd, p, enf, out := start(ModeAuto, "bigfile", big, "8")
	if err := cmd.Wait(); err == nil || !strings.Contains(out.String(), "file too large") {
		t.Fatalf("contained, an 8 MiB file past a 4 MiB limit: %v %s", err, out)
	}
	if fi, err := os.Stat(big); err != nil || fi.Size() > 4<<20 {
		t.Fatalf("the file grew past the limit: %v", err)
	}
	if !strings.Contains(enf.Limits, "file size 4 MiB") || !strings.Contains(enf.Limits, "writes 12 MiB and 1000 files per run") {
		t.Errorf("limits as applied: %s", enf.Limits)
	}
	if err := p.WriteBound(); err != nil {
		t.Errorf("4 MiB written is under the run's 12 MiB: %v", err)
	}
	clean()

	// fallocate reserves blocks without writing them, past the file limit
	// with FALLOC_FL_KEEP_SIZE (the size stays 0): refused (EOPNOTSUPP).
	cmd, _, _, out = start(ModeOff, "fallocate", big, "8")
	if cmd.Wait() != nil || !strings.Contains(out.String(), "ATTACK OK") {
		t.Fatalf("uncontained, fallocate should reserve 8 MiB: %s", out)
	}
	clean()
	cmd, _, _, out = start(ModeAuto, "fallocate", big, "8")
	if err := cmd.Wait(); err == nil || !strings.Contains(out.String(), "not supported") {
		t.Fatalf("contained, fallocate of 8 MiB past a 4 MiB limit: %v %s", err, out)
	}
	clean()

	// 20 files of 1 MiB, each under the file limit, 20 MiB in all.
	cmd, p, _, out = start(ModeAuto, "fill", w.rwRoot, "20", "linger")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = p.Kill()
		<-done
		t.Fatal("the filling module was not killed at its write bound")
	}
	var wb *WriteBoundError
	if err := p.WriteBound(); !errors.As(err, &wb) || wb.Bound != "write_mb" || !wb.Killed || !wb.Attributed {
		t.Fatalf("write bound: %v (%s)", err, out)
	}
	if !strings.Contains(wb.Error(), "past limits.write_mb (12 MiB); the process tree was killed") {
		t.Errorf("message: %s", wb.Error())
	}
	clean()

	// Fast enough to exit before a poll: found when it is over.
	cmd, p, _, out = start(ModeAuto, "fill", w.rwRoot, "14")
	_ = cmd.Wait()
	if err := p.WriteBound(); !errors.As(err, &wb) || wb.Killed || wb.Bytes < 14<<20 {
		t.Fatalf("after exit: %v (%s)", err, out)
	}
	clean()

	// Under the bound, nothing is said.
	cmd, p, _, _ = start(ModeAuto, "fill", w.rwRoot, "3")
	_ = cmd.Wait()
	if err := p.WriteBound(); err != nil {
		t.Fatalf("3 MiB: %v", err)
	}
}

// TestHostileWritesHeldUnlinked: files a module writes, unlinks and keeps
// open take space statfs sees but no walk finds; they are the run's own,
// so they count and cannot raise the trigger for the visible writes
// after them (30 MiB held, then 15 MiB seen, against 12 MiB).
func TestHostileWritesHeldUnlinked(t *testing.T) {
	requireFloor(t)
	w := newWorld(t)
	cmd := exec.Command(attackExe, "slack", w.rwRoot, "10", "5")
	cmd.Env = []string{"TMPDIR=" + w.runDir}
	cmd.Dir = w.runDir
	out := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	spec := w.spec(ModeAuto)
	spec.Limits = Limits{OpenFiles: 64, FileSize: 4 << 20, WriteBytes: 12 << 20, WriteFiles: 1000}
	p, _, err := Start(cmd, spec)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = p.Kill()
		<-done
		t.Fatal("the module holding unlinked files was not stopped")
	}
	var wb *WriteBoundError
	if err := p.WriteBound(); !errors.As(err, &wb) || wb.Bound != "write_mb" || !wb.Killed {
		t.Fatalf("write bound: %v (%s)", err, out)
	}
	if strings.Contains(out.String(), "ATTACK OK") {
		t.Fatalf("the module wrote past its bound: %s", out)
	}
}
