package runner

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"modbay/modproto"
)

// The host side of containment: each misdeed below is done by a real module
// process (the fake's t.art modes) against a default home, where the
// workspace is <home>/workspace and the secret lives in <home>/outside.

// secretContent is a file the module could not have made.
var secretContent = []byte(`{"secret":"host's own"}`)

// hardenModes are t.art misdeeds against the host's state and roots.
var hardenModes = map[string]func(ws string, req modproto.Request, content []byte, a map[string]any, ok func(any, []map[string]any) int) int{
	// tamper_store rewrites the staged copy of content in the store (made
	// writable, same size) and reports nothing.
	"tamper_store": func(ws string, req modproto.Request, content []byte, a map[string]any, ok func(any, []map[string]any) int) int {
		hexSum := strings.TrimPrefix(modproto.Digest(content), "sha256:")
		staged := filepath.Join(ws, "..", "artifacts", "sha256", hexSum[:2], hexSum)
		_ = os.Chmod(staged, 0o644)
		_ = os.WriteFile(staged, []byte(strings.ToUpper(string(content))), 0o644)
		return ok(map[string]any{}, nil)
	},
	// swap_root renames the rw root "out" and puts a symlink to the
	// outside directory in its place, then reports the secret as an
	// artifact in it.
	"swap_root": func(ws string, req modproto.Request, content []byte, a map[string]any, ok func(any, []map[string]any) int) int {
		out := req.Roots["out"].Path
		_ = os.Rename(out, out+".moved")
		_ = os.Symlink(filepath.Join(ws, "..", "outside"), out)
		a["root"], a["path"] = "out", "secret.json"
		a["digest"], a["bytes"] = modproto.Digest(secretContent), len(secretContent)
		return ok(map[string]any{}, []map[string]any{a})
	},
	// swap_workspace puts a symlink to the outside directory in place of
	// <home>/workspace, for the next module's writes.
	"swap_workspace": func(ws string, req modproto.Request, content []byte, a map[string]any, ok func(any, []map[string]any) int) int {
		_ = os.Rename(ws, ws+".moved")
		_ = os.Symlink(filepath.Join(ws, "..", "outside"), ws)
		return ok(map[string]any{}, nil)
	},
	// hardlink links the secret into the workspace and reports it.
	"hardlink": func(ws string, req modproto.Request, content []byte, a map[string]any, ok func(any, []map[string]any) int) int {
		_ = os.Link(filepath.Join(ws, "..", "outside", "secret.json"), filepath.Join(ws, "linked.json"))
		a["path"] = "linked.json"
		a["digest"], a["bytes"] = modproto.Digest(secretContent), len(secretContent)
		return ok(map[string]any{}, []map[string]any{a})
	},
	// hardlink_own writes its report and links it under a second name.
	"hardlink_own": func(ws string, req modproto.Request, content []byte, a map[string]any, ok func(any, []map[string]any) int) int {
		_ = os.WriteFile(filepath.Join(ws, "own.json"), content, 0o644)
		_ = os.Link(filepath.Join(ws, "own.json"), filepath.Join(ws, "own-too.json"))
		a["path"] = "own-too.json"
		return ok(map[string]any{}, []map[string]any{a})
	},
}

// writeSecret makes <home>/outside/secret.json, a while before any run.
func (f *fixture) writeSecret() string {
	f.t.Helper()
	dir := filepath.Join(f.home, "outside")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.t.Fatal(err)
	}
	p := filepath.Join(dir, "secret.json")
	if err := os.WriteFile(p, secretContent, 0o600); err != nil {
		f.t.Fatal(err)
	}
	time.Sleep(2 * coarseClockSlack)
	return p
}

// TestStagingNeverTrustsTheStore: a store file rewritten in place (same
// size, made writable) is replaced by the next run's verified copy, so a
// run never says "verified" over bytes it did not hash.
func TestStagingNeverTrustsTheStore(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("good", "good")
	m := f.load("good")
	first := f.run(m, "t.art", `{"mode":"ok"}`, nil)
	if !first.OK() {
		t.Fatalf("first run: %+v", first.Host)
	}
	if res := f.run(m, "t.art", `{"mode":"tamper_store"}`, nil); !res.OK() {
		t.Fatalf("tamper run: %+v", res.Host)
	}
	staged := first.Artifacts[0].Staged
	if b, _ := os.ReadFile(staged); modproto.Digest(b) == first.Artifacts[0].Digest {
		t.Fatal("the attack did not tamper with the store (the test cannot fail)")
	}
	again := f.run(m, "t.art", `{"mode":"ok"}`, nil)
	if !again.OK() || len(again.Artifacts) != 1 {
		t.Fatalf("third run: %+v", again.Host)
	}
	a := again.Artifacts[0]
	b, err := os.ReadFile(a.Staged)
	if err != nil {
		t.Fatal(err)
	}
	if modproto.Digest(b) != a.Digest {
		t.Fatalf("the run says verified %s, but the staged file hashes to %s", a.Digest, modproto.Digest(b))
	}
	if fi, _ := os.Stat(a.Staged); fi.Mode().Perm() != 0o444 {
		t.Errorf("staged mode %o, want 0444", fi.Mode().Perm())
	}
}

// TestSwappedRootIsNotFollowed: a module that swaps its rw root for a
// symlink to a directory outside, and declares an artifact in it, gets no
// verified artifact (it is looked up beneath the directory opened at plan
// time), and the next plan refuses the symlinked root.
func TestSwappedRootIsNotFollowed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.writeSecret()
	f.addModule("good", "good")
	m := f.load("good")
	res := f.run(m, "t.art", `{"mode":"swap_root"}`, nil)
	if res.OK() || len(res.Artifacts) > 0 {
		t.Fatalf("a secret behind a swapped root was staged: %+v", res.Artifacts)
	}
	if fi, err := os.Lstat(f.stateDir("good", "out")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the attack did not swap the root (the test cannot fail): %v", err)
	}
	_, err := f.host.Plan(m, "t.art", nil)
	if !errors.Is(err, ErrRootSymlink) {
		t.Fatalf("plan over a symlinked state root: err %v, want ErrRootSymlink", err)
	}
	if !strings.Contains(err.Error(), "symlink") || !strings.Contains(err.Error(), "root out") {
		t.Errorf("unclear error: %v", err)
	}
}

// TestSwappedWorkspaceIsRefused: <home>/workspace swapped for a symlink
// does not redirect the next honest module's writes: its plan is refused
// and the outside directory is unchanged.
func TestSwappedWorkspaceIsRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.writeSecret()
	f.addModule("evil", "good")
	f.addModule("honest", "good")
	evil, honest := f.load("evil"), f.load("honest")
	if res := f.run(evil, "t.art", `{"mode":"swap_workspace"}`, nil); !res.OK() {
		t.Fatalf("swap run: %+v", res.Host)
	}
	if fi, err := os.Lstat(f.cfg.Workspace); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the attack did not swap the workspace (the test cannot fail): %v", err)
	}
	_, err := f.host.Plan(honest, "t.art", []byte(`{"mode":"ok"}`))
	if !errors.Is(err, ErrRootSymlink) || !strings.Contains(err.Error(), "workspace") {
		t.Fatalf("plan over a symlinked <home>/workspace: err %v, want ErrRootSymlink naming it", err)
	}
	if _, err := os.Stat(filepath.Join(f.home, "outside", "report.json")); err == nil {
		t.Error("the honest module wrote through the symlink")
	}
}

// TestRootSwappedAfterPlan: the same swap between plan and run (while the
// approval dialog waits) is refused when the run starts.
func TestRootSwappedAfterPlan(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.writeSecret()
	f.addModule("honest", "good")
	m := f.load("honest")
	p, err := f.host.Plan(m, "t.art", []byte(`{"mode":"ok"}`))
	if err != nil {
		t.Fatal(err)
	}
	ws := f.cfg.Workspace
	if err := os.Rename(ws, ws+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(f.home, "outside"), ws); err != nil {
		t.Fatal(err)
	}
	if _, err := f.host.Run(ctxGuard(t), p, true, nil); !errors.Is(err, ErrRootSymlink) {
		t.Fatalf("run after the workspace was swapped: err %v, want ErrRootSymlink", err)
	}
	if _, err := os.Stat(filepath.Join(f.home, "outside", "report.json")); err == nil {
		t.Error("the module wrote through the symlink")
	}
}

// TestPersonalWorkspaceMayBeASymlink: a person's own workspace outside the
// home may be a symlink; it is resolved once, at plan time.
func TestPersonalWorkspaceMayBeASymlink(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	other := t.TempDir()
	real := filepath.Join(other, "real-ws")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(other, "ws-link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	f.cfg.Workspace = link
	f.addModule("good", "good")
	m := f.load("good")
	p, err := f.host.Plan(m, "t.art", []byte(`{"mode":"ok"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Request.Roots["workspace"].Path; got != canonical(real) {
		t.Errorf("workspace root %s, want it resolved to %s", got, canonical(real))
	}
	res, err := f.host.Run(ctxGuard(t), p, true, nil)
	if err != nil || !res.OK() || len(res.Artifacts) != 1 {
		t.Fatalf("run in a symlinked personal workspace: %v %+v", err, res)
	}
}

// TestHardLinkToAnOlderFileIsRefused: a hard link to a file the module
// could not have made is not staged; a module's own file linked twice is.
func TestHardLinkToAnOlderFileIsRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.writeSecret()
	f.addModule("good", "good")
	m := f.load("good")
	res := f.run(m, "t.art", `{"mode":"hardlink"}`, nil)
	if fi, err := os.Stat(filepath.Join(f.cfg.Workspace, "linked.json")); err != nil || fi.Size() != int64(len(secretContent)) {
		t.Fatalf("the module made no hard link (the test cannot fail): %v", err)
	}
	if res.OK() || len(res.Artifacts) > 0 {
		t.Fatalf("a hard link to the secret was staged: %+v", res.Artifacts)
	}
	wantHost(t, res, modproto.CodePathOutsideRoot)
	if !strings.Contains(res.Host.Detail, "hard link") {
		t.Errorf("detail %q", res.Host.Detail)
	}
	own := f.run(m, "t.art", `{"mode":"hardlink_own"}`, nil)
	if !own.OK() {
		t.Fatalf("a module's own file under two names was refused: %+v", own.Host)
	}
}
