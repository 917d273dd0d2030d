package examples

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"modbay/modproto"
)

// testExe returns the running test binary, which acts as modbay's
// `example-module` subcommand (see TestMain).
func testExe(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// runLauncher runs a module executable the way the host does (docs/protocol.md §3):
// absolute path, a scratch working directory, an environment of only
// TMPDIR, a deadline.
func runLauncher(t *testing.T, launcher string, args ...string) (*modproto.Envelope, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, launcher, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"TMPDIR=" + t.TempDir()}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	_ = cmd.Run() // the exit code never decides the outcome
	env, err := modproto.DecodeEnvelope(out.Bytes())
	if err != nil {
		t.Fatalf("%s %q: %v\nstdout %q\nstderr %q", launcher, args, err, out.String(), errb.String())
	}
	return env, errb.String()
}

func TestInstallDemoHome(t *testing.T) {
	home := t.TempDir()
	exe := testExe(t)
	if err := InstallDemoHome(home, exe); err != nil {
		t.Fatal(err)
	}
	for _, id := range IDs() {
		dir := filepath.Join(home, "modules", id)
		launcher := filepath.Join(dir, id)
		st, err := os.Stat(launcher)
		if err != nil || st.Mode().Perm() != 0o755 {
			t.Fatalf("launcher %s: %v %v", launcher, st, err)
		}
		b, _ := os.ReadFile(launcher)
		if want := "#!" + exe + " example-module\n"; len(want) <= maxShebangLine && string(b) != want {
			t.Errorf("launcher:\n%s\nwant:\n%s", b, want)
		}
		// The launcher is a working module: describe through it, as the
		// host would, and check the bundle on disk against the digests.
		env, _ := runLauncher(t, launcher, "module", "describe", "--json")
		if errs := modproto.ValidateEnvelope(env, modproto.OperationDescribe, "", id); len(errs) > 0 {
			t.Fatalf("%s: %v", id, errs)
		}
		d, err := modproto.DecodeDescriptor(env.Result)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range append(skillPaths(d), overlayPaths(d)...) {
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(doc[0])))
			if err != nil {
				t.Fatalf("%s: bundle file %s: %v", id, doc[0], err)
			}
			if modproto.Digest(b) != doc[1] {
				t.Errorf("%s: %s on disk does not match the descriptor's digest", id, doc[0])
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
			t.Errorf("%s: README.md: %v", id, err)
		}
	}
	for _, rel := range []string{"welcome.md", "ideas.md", "notes/standup.md", "notes/reading-list.md", "notes/recipes.md", "data/trips.csv"} {
		if _, err := os.Stat(filepath.Join(home, "workspace", filepath.FromSlash(rel))); err != nil {
			t.Errorf("workspace seed %s: %v", rel, err)
		}
	}
}

// TestInstallDemoHomeIdempotent checks that a second install keeps the
// person's files, rewrites launchers for a new exe, and repairs the bundle.
func TestInstallDemoHomeIdempotent(t *testing.T) {
	home := t.TempDir()
	if err := InstallDemoHome(home, "/old/modbay"); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(home, "workspace")
	mine := []byte("# My own welcome\n")
	if err := os.WriteFile(filepath.Join(ws, "welcome.md"), mine, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(ws, "ideas.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(ws, "data", "trips.csv.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	skill := filepath.Join(home, "modules", "notes", "skills", "notes-report", "SKILL.md")
	if err := os.WriteFile(skill, []byte("drifted"), 0o644); err != nil {
		t.Fatal(err)
	}
	disabled := filepath.Join(home, "modules", "fetch", ".disabled")
	if err := os.WriteFile(disabled, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	// An exe path with a space and a quote in it must survive the shell.
	odd := filepath.Join(t.TempDir(), "it's a dir")
	if err := os.Mkdir(odd, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(odd, "modbay")
	if err := os.Symlink(testExe(t), exe); err != nil {
		t.Fatal(err)
	}
	if err := InstallDemoHome(home, exe); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "welcome.md")); !bytes.Equal(b, mine) {
		t.Errorf("a person's file was overwritten: %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "ideas.md")); err != nil {
		t.Errorf("a missing seed file should be restored: %v", err)
	}
	if b, _ := os.ReadFile(skill); bytes.Equal(b, []byte("drifted")) {
		t.Errorf("a drifted bundle file should be rewritten")
	}
	if _, err := os.Stat(disabled); err != nil {
		t.Errorf(".disabled must be left alone: %v", err)
	}
	launcher := filepath.Join(home, "modules", "notes", "notes")
	b, _ := os.ReadFile(launcher)
	if strings.Contains(string(b), "/old/modbay") || !strings.HasPrefix(string(b), "#!/bin/sh\n") {
		t.Errorf("launcher not rewritten, or not the shell fallback for a path with a space:\n%s", b)
	}

	// Invoke notes.report through the launcher against the seeded
	// workspace, with the host's empty environment.
	req := modproto.Request{
		Protocol: modproto.ProtocolID, Capability: "notes.report", RequestID: modproto.NewRequestID(),
		Input: json.RawMessage(`{"pattern":"**/*.md"}`),
		Roots: map[string]modproto.Root{"workspace": {Path: ws, Mode: modproto.RootReadWrite}},
	}
	rb, _ := json.Marshal(req)
	reqPath := filepath.Join(t.TempDir(), "request.json")
	if err := os.WriteFile(reqPath, rb, 0o600); err != nil {
		t.Fatal(err)
	}
	env, stderr := runLauncher(t, launcher, "module", "invoke", "notes.report", "--input", reqPath)
	if errs := modproto.ValidateEnvelope(env, modproto.OperationInvoke, req.RequestID, "notes"); len(errs) > 0 || !env.OK {
		t.Fatalf("invoke through launcher: %v %+v", errs, env.Error)
	}
	if !strings.Contains(stderr, "reading notes/standup.md") {
		t.Errorf("stderr %q", stderr)
	}
	if len(env.Execution.Artifacts) != 3 {
		t.Errorf("artifacts %+v", env.Execution.Artifacts)
	}
}

// TestLauncherEnvironmentExact checks that a launcher adds nothing to
// the environment the host gives a module (docs/protocol.md §3: only TMPDIR): the
// process behind it (the test binary's envProbeID, see TestMain) reports
// its environment, which must be the host's exactly. A /bin/sh launcher
// added PWD (dash) or PWD, SHLVL and _ (bash).
func TestLauncherEnvironmentExact(t *testing.T) {
	exe := testExe(t)
	// The shell fallback, for a binary whose path cannot be a shebang's
	// interpreter, unsets what dash adds.
	odd := filepath.Join(t.TempDir(), "a dir")
	if err := os.Mkdir(odd, 0o755); err != nil {
		t.Fatal(err)
	}
	oddExe := filepath.Join(odd, "modbay")
	if err := os.Symlink(exe, oddExe); err != nil {
		t.Fatal(err)
	}
	for name, exe := range map[string]string{"shebang": exe, "shell fallback": oddExe} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), envProbeID)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			l := filepath.Join(dir, envProbeID)
			if err := os.WriteFile(l, launcher(exe, envProbeID), 0o755); err != nil {
				t.Fatal(err)
			}
			if name == "shebang" && !strings.HasPrefix(string(launcher(exe, envProbeID)), "#!"+exe+" ") {
				t.Fatalf("the test binary's path %s should fit a shebang", exe)
			}
			tmp := t.TempDir()
			cmd := exec.Command(l, "module", "describe", "--json")
			cmd.Dir = t.TempDir()
			cmd.Env = []string{"TMPDIR=" + tmp}
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: %v", l, err)
			}
			var got []string
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%q: %v", out, err)
			}
			want := []string{"TMPDIR=" + tmp}
			if name == "shell fallback" {
				// bash as /bin/sh keeps SHLVL; dash adds nothing.
				got = slices.DeleteFunc(got, func(kv string) bool { return strings.HasPrefix(kv, "SHLVL=") })
			}
			if !slices.Equal(got, want) {
				t.Errorf("the module's environment is %q, want exactly the host's %q", got, want)
			}
		})
	}
}

func TestInstallDemoHomeErrors(t *testing.T) {
	if err := InstallDemoHome("", "/x"); err == nil {
		t.Error("empty home accepted")
	}
	if err := InstallDemoHome(t.TempDir(), ""); err == nil {
		t.Error("empty exe accepted")
	}
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "modules", "notes"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := InstallDemoHome(home, "/x"); err == nil || !strings.Contains(err.Error(), `"notes"`) {
		t.Errorf("a file in the way should be reported with the module: %v", err)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/bin/modbay": `'/usr/bin/modbay'`,
		"/a b/it's":       `'/a b/it'\''s'`,
		"$HOME`x`":        `'$HOME` + "`x`" + `'`,
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// skillPaths lists [path, digest] of d's skills.
func skillPaths(d *modproto.Descriptor) [][2]string {
	var out [][2]string
	for _, s := range d.Skills {
		out = append(out, [2]string{s.Path, s.Digest})
	}
	return out
}

// overlayPaths lists [path, digest] of d's agent overlays.
func overlayPaths(d *modproto.Descriptor) [][2]string {
	var out [][2]string
	for _, o := range d.AgentOverlays {
		out = append(out, [2]string{o.Path, o.Digest})
	}
	return out
}

// TestBundleFilesAllDeclared checks that every embedded bundle file is the
// README or a declared skill or overlay, so nothing ships undescribed.
func TestBundleFilesAllDeclared(t *testing.T) {
	for _, id := range IDs() {
		d := describe(t, id)
		declared := map[string]bool{"README.md": true}
		for _, p := range append(skillPaths(d), overlayPaths(d)...) {
			declared[p[0]] = true
		}
		files, err := bundleFiles(id)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != len(declared) {
			t.Errorf("%s: files %q, declared %v", id, files, declared)
		}
		for _, f := range files {
			if !declared[f] {
				t.Errorf("%s: %s is not declared", id, f)
			}
		}
	}
}

// TestInstallBuiltinsStable checks that the examples of one binary land
// at the same paths under the home on every call (what `modbay list`
// shows must still be there after modbay exits), that another binary gets
// its own directory, and that the directory of a binary that is gone is
// removed.
func TestInstallBuiltinsStable(t *testing.T) {
	home := t.TempDir()
	exe := testExe(t)
	first, err := InstallBuiltins(home, exe)
	if err != nil {
		t.Fatal(err)
	}
	again, err := InstallBuiltins(home, exe)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(first, again) || len(first) != len(IDs()) {
		t.Fatalf("paths changed between calls: %q then %q", first, again)
	}
	for i, d := range first {
		if !strings.HasPrefix(d, filepath.Join(home, BuiltinsDir)+"/") || filepath.Base(d) != IDs()[i] {
			t.Errorf("module dir %s is not <home>/%s/<key>/%s", d, BuiltinsDir, IDs()[i])
		}
		env, _ := runLauncher(t, filepath.Join(d, IDs()[i]), "module", "describe", "--json")
		if !env.OK || env.Module != IDs()[i] {
			t.Errorf("%s: describe through the launcher: %+v", d, env.Error)
		}
	}

	// A second binary, which then goes away: its directory is removed by
	// the next install of any binary, the first binary's is kept.
	gone := filepath.Join(t.TempDir(), "modbay")
	if err := os.Symlink(exe, gone); err != nil {
		t.Fatal(err)
	}
	other, err := InstallBuiltins(home, gone)
	if err != nil {
		t.Fatal(err)
	}
	otherKey := filepath.Dir(other[0])
	if otherKey == filepath.Dir(first[0]) {
		t.Fatal("two binaries share one directory")
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallBuiltins(home, exe); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(otherKey); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the directory of a binary that is gone should be removed: %v", err)
	}
	if _, err := os.Stat(first[0]); err != nil {
		t.Errorf("the running binary's examples should stay: %v", err)
	}
}

// TestSeedFollowsNoSymlink: symlinks a module planted in the workspace
// (a folder the samples go in, a sample's own name) never lead seeding
// to write outside it.
func TestSeedFollowsNoSymlink(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	entries, err := fs.ReadDir(seedFS, seedDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.Symlink(outside, filepath.Join(ws, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	if err := SeedWorkspace(ws); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadDir(outside); len(got) != 0 {
		t.Fatalf("seeding wrote %d entries outside the workspace through a symlink", len(got))
	}
}
