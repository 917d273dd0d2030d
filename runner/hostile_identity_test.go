package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modbay/config"
	"modbay/modproto"
)

// hostile is one configuration of testdata/hostile/module.sh: what the
// module claims and what it does with what it is given.
type hostile struct {
	id, write, network, action, root, target string
}

// install writes the hostile module at exe (its folders made).
func (hm hostile) install(t *testing.T, exe string) string {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "hostile", "module.sh"))
	if err != nil {
		t.Fatal(err)
	}
	head := fmt.Sprintf("#!/bin/sh\nID='%s'\nWRITE='%s'\nNETWORK='%s'\nACTION='%s'\nROOT='%s'\nTARGET='%s'\n",
		hm.id, hm.write, hm.network, hm.action, hm.root, hm.target)
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, append([]byte(head), body...), 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

// attempt loads the module at ref and, when the host takes it, plans and
// runs its one capability approved, as a person pressing yes would. It
// returns the module and the plan error ("" when none, or when the module
// was refused at discovery).
func (f *fixture) attempt(ref string) (*Module, error) {
	f.t.Helper()
	m, err := f.host.Load(ctxGuard(f.t), ref)
	if err != nil {
		f.t.Fatal(err)
	}
	if m.Status != StatusReady {
		return m, nil
	}
	p, err := f.host.Plan(m, "h.run", nil)
	if err != nil {
		return m, err
	}
	if _, err := f.host.Run(ctxGuard(f.t), p, true, nil); err != nil {
		return m, err
	}
	return m, nil
}

// TestHostileIDClimbsOutOfState: a module loaded by path that calls
// itself "../.." and declares a write root "etc" had the host make and
// grant <home>/state/../../etc, outside the home, and wrote there. Its id
// is now its executable's name: it is refused, naming the rule, and
// nothing is written outside the home.
func TestHostileIDClimbsOutOfState(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	home := filepath.Join(base, "home")
	cfg, err := config.Load(home)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Sandbox = config.SandboxAuto
	f := &fixture{t: t, home: home, cfg: cfg, host: NewHost(cfg)}
	exe := hostile{id: "../..", write: `"etc"`, action: "write", root: "etc", target: "config.yaml"}.
		install(t, filepath.Join(base, "src", "climber", "climber"))
	m, _ := f.attempt(exe)
	if _, err := os.Stat(filepath.Join(base, "etc", "config.yaml")); err == nil {
		t.Fatal("the module wrote outside the home through its id")
	}
	if m.Status != StatusBroken || !strings.Contains(m.Reason, "docs/protocol.md §13") {
		t.Errorf("status %s: %s; want broken naming the id rule", m.Status, m.Reason)
	}
}

// TestHostileDotIDReadsSavedRequests: id "." and a write root ".requests"
// addressed <home>/state/.requests, where the host saved the request files
// of traced runs (secrets in clear). Refused now, and the saved requests
// no longer live under state/ at all.
func TestHostileDotIDReadsSavedRequests(t *testing.T) {
	t.Parallel()
	f := containedFixture(t)
	if _, err := f.host.SaveRequest("req_0123456789abcdef0123456789abcdef", []byte(`{"input":{"api_key":"SECRET-KEY"}}`)); err != nil {
		t.Fatal(err)
	}
	// Before the layout changed, saved requests sat in state/.requests.
	legacy := filepath.Join(f.home, "state", ".requests")
	if err := os.MkdirAll(legacy, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(legacy, "req_old.json"), []byte(`{"input":{"api_key":"SECRET-KEY"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	exe := hostile{id: ".", write: `".requests"`, action: "steal", root: ".requests"}.
		install(t, filepath.Join(t.TempDir(), "dot", "dot"))
	m, _ := f.attempt(exe)
	if b, _ := os.ReadFile(filepath.Join(f.cfg.Workspace, "stolen.txt")); strings.Contains(string(b), "SECRET-KEY") {
		t.Fatal("the module read saved request files through id . and root .requests")
	}
	if m.Status != StatusBroken || !strings.Contains(m.Reason, "docs/protocol.md §13") {
		t.Errorf("status %s: %s; want broken naming the rule", m.Status, m.Reason)
	}
	if strings.HasPrefix(f.cfg.RequestsDir(), f.cfg.StateBase()+string(filepath.Separator)) {
		t.Errorf("saved requests live under state/: %s", f.cfg.RequestsDir())
	}
}

// TestHostileImpostorIsNotPreApproved: policy.pre_approved names notes; a
// module loaded by path that calls itself notes and declares network ran
// with no approval. It is asked now, and the approval says why.
func TestHostileImpostorIsNotPreApproved(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.cfg.Policy.PreApproved = []config.PreApproval{{Module: "notes"}}
	exe := hostile{id: "notes", network: `"evil.example"`, action: "mark", target: "impostor"}.
		install(t, filepath.Join(t.TempDir(), "notes", "notes"))
	m, err := f.host.Load(ctxGuard(t), exe)
	if err != nil || m.Status != StatusReady {
		t.Fatalf("load: %v %s %s", err, m.Status, m.Reason)
	}
	p, err := f.host.Plan(m, "h.run", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.host.Run(ctxGuard(t), p, false, nil); !errors.Is(err, ErrApprovalRequired) {
		t.Fatalf("an impostor of a pre-approved id ran unasked: err %v", err)
	}
	if !strings.Contains(p.AskedAgain, "loaded by path") {
		t.Errorf("the approval does not say why it asks: %q", p.AskedAgain)
	}
	// The entry still covers the installed notes.
	hostile{id: "notes", network: `"evil.example"`, action: "mark", target: "installed"}.
		install(t, filepath.Join(f.cfg.ModulesDir(), "notes", "notes"))
	inst := f.load("notes")
	if p, err := f.host.Plan(inst, "h.run", nil); err != nil || p.NeedsApproval() {
		t.Errorf("the installed notes is no longer pre-approved: %v %v", err, p.Approval)
	}
}

// TestHostileChangedEffectsAreAskedAgain: a pre-approved installed module
// that starts declaring the network after its first approved run is asked
// again, saying its effects changed.
func TestHostileChangedEffectsAreAskedAgain(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.cfg.Policy.PreApproved = []config.PreApproval{{Module: "notes"}}
	exe := filepath.Join(f.cfg.ModulesDir(), "notes", "notes")
	hostile{id: "notes", action: "mark", target: "first"}.install(t, exe)
	f.run(f.load("notes"), "h.run", `{}`, nil)
	hostile{id: "notes", network: `"evil.example"`, action: "mark", target: "second"}.install(t, exe)
	p, err := f.host.Plan(f.load("notes"), "h.run", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !p.NeedsApproval() || !strings.Contains(p.AskedAgain, "effects changed") {
		t.Errorf("changed effects were not asked again: %v %q", p.Approval, p.AskedAgain)
	}
}

// TestHostileWidenedPermissionsAreAskedAgain: a pre-approved module (it
// reaches the network, so it would be asked) that kept its capability's
// effects but declared more (a new write root here;
// binaries, network hosts or credentials alike) ran with them unasked: the
// record held the effects alone. It is asked again, and a record written
// by an earlier version (effects alone) still covers an unchanged module.
func TestHostileWidenedPermissionsAreAskedAgain(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.cfg.Policy.PreApproved = []config.PreApproval{{Module: "notes"}}
	exe := filepath.Join(f.cfg.ModulesDir(), "notes", "notes")
	hostile{id: "notes", network: `"api.example"`, action: "mark", target: "first"}.install(t, exe)
	m := f.load("notes")
	f.run(m, "h.run", `{}`, nil)
	hostile{id: "notes", network: `"api.example"`, write: `"loot"`, action: "mark", target: "second"}.install(t, exe)
	p, err := f.host.Plan(f.load("notes"), "h.run", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !p.NeedsApproval() || !strings.Contains(p.AskedAgain, "other permissions") {
		t.Errorf("widened permissions were not asked again: %v %q", p.Approval, p.AskedAgain)
	}
	// An effects-only record, as earlier versions wrote it, of the module
	// as it is now.
	m = f.load("notes")
	eff, _ := json.Marshal(m.Descriptor.Capability("h.run").Effects)
	old, _ := json.Marshal(map[string]string{approvedEffectsKey(m, "h.run"): string(eff)})
	if err := os.WriteFile(f.cfg.ApprovedEffectsFile(), old, 0o600); err != nil {
		t.Fatal(err)
	}
	if p, err := f.host.Plan(m, "h.run", nil); err != nil || p.NeedsApproval() {
		t.Errorf("an earlier version's record no longer covers the module: %v %v %q", err, p.Approval, p.AskedAgain)
	}
}

// TestHostileShadowRunsThePath: --module PATH whose id is an installed
// module's silently ran the installed copy. The path's copy runs now, and
// the module says which one it shadows.
func TestHostileShadowRunsThePath(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	installed := hostile{id: "notes", action: "mark", target: "installed"}.
		install(t, filepath.Join(f.cfg.ModulesDir(), "notes", "notes"))
	path := hostile{id: "notes", action: "mark", target: "path"}.
		install(t, filepath.Join(t.TempDir(), "notes", "notes"))
	f.host.AddFlagModules(path)
	m := f.load("notes")
	f.run(m, "h.run", `{}`, nil)
	if b, _ := os.ReadFile(filepath.Join(f.cfg.Workspace, "ran.txt")); string(b) != "path\n" {
		t.Fatalf("ran %q, want the --module copy", b)
	}
	if m.Shadows != installed || !strings.Contains(ShadowNote(m), installed) || !strings.Contains(ShadowNote(m), path) {
		t.Errorf("shadows %q, note %q", m.Shadows, ShadowNote(m))
	}
	for _, d := range f.host.Discover(ctxGuard(t)) {
		if d.ID == "notes" && d.Origin == OriginHome && !strings.Contains(d.Reason, "--module") {
			t.Errorf("the shadowed module's reason: %s", d.Reason)
		}
	}
}

// TestHostileLooseExecutableReadsNeighbour: a bare executable in a shared
// folder was granted read and execute on the whole folder and read its
// neighbours (another module's .env). It gets only itself now.
func TestHostileLooseExecutableReadsNeighbour(t *testing.T) {
	t.Parallel()
	f := containedFixture(t)
	shared := filepath.Join(t.TempDir(), "shared")
	neighbour := filepath.Join(shared, "neighbour.env")
	exe := hostile{id: "peek", action: "read", target: neighbour}.install(t, filepath.Join(shared, "peek"))
	if err := os.WriteFile(neighbour, []byte("API_KEY=SECRET-KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := f.attempt(exe)
	if err != nil || m.Status != StatusReady {
		t.Fatalf("a loose executable no longer runs: %v %s %s", err, m.Status, m.Reason)
	}
	if b, _ := os.ReadFile(filepath.Join(f.cfg.Workspace, "stolen.txt")); strings.Contains(string(b), "SECRET-KEY") {
		t.Fatal("a loose executable read its neighbour")
	}
	// In a folder of its own (<id>/<id>) the folder is its own to read.
	own := filepath.Join(t.TempDir(), "peek")
	exe = hostile{id: "peek", action: "read", target: filepath.Join(own, "own.txt")}.install(t, filepath.Join(own, "peek"))
	if err := os.WriteFile(filepath.Join(own, "own.txt"), []byte("MINE\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := f.attempt(exe); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(f.cfg.Workspace, "stolen.txt")); string(b) != "MINE\n" {
		t.Errorf("a module in its own folder could not read it: %q", b)
	}
}

// TestHostileOwnDirSymlink: a folder named after the module that is a
// symlink to a shared folder is not a folder of its own.
func TestHostileOwnDirSymlink(t *testing.T) {
	t.Parallel()
	shared := t.TempDir()
	exe := filepath.Join(shared, "peek")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "peek")
	if err := os.Symlink(shared, link); err != nil {
		t.Fatal(err)
	}
	if d := OwnDir(filepath.Join(link, "peek"), link); d != "" {
		t.Errorf("a symlink to a shared folder was granted as the module's own: %s", d)
	}
	own := filepath.Join(t.TempDir(), "peek")
	if err := os.Mkdir(own, 0o755); err != nil {
		t.Fatal(err)
	}
	if d := OwnDir(filepath.Join(own, "peek"), own); d != canonical(own) {
		t.Errorf("own folder: %q", d)
	}
	for _, dir := range []string{"/", "/tmp", os.TempDir()} {
		if d := OwnDir(filepath.Join(dir, filepath.Base(dir)), dir); d != "" {
			t.Errorf("%s was granted as a module's own folder", dir)
		}
	}
}

// TestHostileFolderHoldingTheHome: an executable named after a folder
// that holds the modbay home (/srv/srv with the home at /srv/modbay, or
// ~/.local/share/share) was granted that folder as its own and read the
// home through it: the saved request files of earlier runs, another
// module's .env. A folder holding a shared one is not a folder of its own.
func TestHostileFolderHoldingTheHome(t *testing.T) {
	t.Parallel()
	f := containedFixture(t)
	outer := filepath.Dir(f.cfg.Home)
	name := filepath.Base(outer)
	if !modproto.ValidModuleID(name) {
		t.Skipf("temp folder %q is not a module id", name)
	}
	saved := filepath.Join(f.cfg.RequestsDir(), "req_00000000000000000000000000000000.json")
	if err := os.MkdirAll(filepath.Dir(saved), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(saved, []byte(`{"input":{"api_key":"SECRET-KEY"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	exe := hostile{id: name, action: "read", target: saved}.install(t, filepath.Join(outer, name))
	m, err := f.attempt(exe)
	if err != nil || m.Status != StatusReady {
		t.Fatalf("the module no longer runs: %v %s %s", err, m.Status, m.Reason)
	}
	if b, _ := os.ReadFile(filepath.Join(f.cfg.Workspace, "stolen.txt")); strings.Contains(string(b), "SECRET-KEY") {
		t.Fatal("a module whose folder holds the home read a saved request file")
	}
	for _, s := range []string{f.cfg.Home, f.cfg.ModulesDir(), f.cfg.Workspace} {
		if d := OwnDir(exe, outer, s); d != "" {
			t.Errorf("%s, holding %s, was granted as a module's own folder", d, s)
		}
	}
	// A folder anyone may write to is nobody's own.
	open := filepath.Join(t.TempDir(), "peek")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if d := OwnDir(filepath.Join(open, "peek"), open); d != "" {
		t.Errorf("a world-writable folder was granted as a module's own: %s", d)
	}
}

// TestHostileWorkspaceHoldingTheHome: with a workspace that holds the home
// (--workspace ~, the home at ~/.local/share/modbay), a module, unasked,
// appended "sandbox: off" to the home's config.yaml through the workspace
// root every run gets, and the next module ran uncontained. Such a
// workspace, or one inside a host folder, refuses the run before it starts.
func TestHostileWorkspaceHoldingTheHome(t *testing.T) {
	t.Parallel()
	f := containedFixture(t)
	conf := filepath.Join(f.cfg.Home, config.FileName)
	exe := hostile{id: "wr", action: "read", target: "/dev/null"}.install(t, filepath.Join(f.cfg.ModulesDir(), "wr", "wr"))
	for _, ws := range []string{filepath.Dir(f.cfg.Home), f.cfg.Home, f.cfg.ModulesDir()} {
		f.cfg.Workspace = ws
		rel, err := filepath.Rel(ws, conf)
		if err != nil {
			t.Fatal(err)
		}
		hostile{id: "wr", action: "write", root: "workspace", target: rel}.install(t, exe)
		m, err := f.attempt("wr")
		if m.Status != StatusReady {
			t.Fatalf("wr: %s %s", m.Status, m.Reason)
		}
		if err == nil || !strings.Contains(err.Error(), "docs/protocol.md §13") {
			t.Errorf("workspace %s: the run was not refused: %v", ws, err)
		}
		if b, _ := os.ReadFile(conf); strings.Contains(string(b), "sandbox: off") {
			t.Fatalf("workspace %s: a module rewrote the home's config.yaml:\n%s", ws, b)
		}
	}
	f.cfg.Workspace = filepath.Join(f.cfg.Home, "workspace")
	if _, err := f.attempt("wr"); err != nil {
		t.Errorf("the home's own workspace was refused: %v", err)
	}
}

// TestStateRootElsewhereIsRefused: a plan whose write root is not at
// <home>/state/<key>/<name> never starts, so no record of it says its
// containment was complete.
func TestStateRootElsewhereIsRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := kitchenDescriptor(t)
	d.Permissions.FilesystemWrite = []string{"out"}
	m := stubModule(t, "kitchen", d)
	p := &Plan{Module: m, Capability: d.Capabilities[0]}
	p.Request.Roots = map[string]modproto.Root{"out": {Path: t.TempDir(), Mode: modproto.RootReadWrite}}
	if _, err := f.host.Run(ctxGuard(t), p, true, nil); err == nil || !strings.Contains(err.Error(), "docs/protocol.md §13") {
		t.Fatalf("a write root outside the state layout: err %v", err)
	}
}

// TestPreApprovedByPathAndDigest: path: covers the module loaded from that
// executable and digest: only while its bytes match; a changed digest is
// asked again, saying so.
func TestPreApprovedByPathAndDigest(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	exe := hostile{id: "notes", network: `"api.example"`, action: "mark", target: "x"}.
		install(t, filepath.Join(t.TempDir(), "notes", "notes"))
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	sum := modproto.Digest(b)
	plan := func() *Plan {
		t.Helper()
		m, err := f.host.Load(ctxGuard(t), exe)
		if err != nil || m.Status != StatusReady {
			t.Fatalf("load: %v %s", err, m.Reason)
		}
		p, err := f.host.Plan(m, "h.run", nil)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if !plan().NeedsApproval() {
		t.Fatal("a network call needs no approval without pre_approved")
	}
	for _, a := range []config.PreApproval{{Path: exe}, {Path: exe, Digest: sum}, {Digest: sum}} {
		f.cfg.Policy.PreApproved = []config.PreApproval{a}
		if p := plan(); p.NeedsApproval() {
			t.Errorf("%+v does not cover the module: %v", a, p.Approval)
		}
	}
	f.cfg.Policy.PreApproved = []config.PreApproval{{Path: exe, Digest: "sha256:" + strings.Repeat("0", 64)}}
	if p := plan(); !p.NeedsApproval() || !strings.Contains(p.AskedAgain, "its bytes are now "+sum) {
		t.Errorf("another digest: approval %v, why %q", p.Approval, p.AskedAgain)
	}
	f.cfg.Policy.PreApproved = []config.PreApproval{{Path: filepath.Join(t.TempDir(), "notes", "notes")}}
	if p := plan(); !p.NeedsApproval() {
		t.Error("a path: entry for another executable covers this one")
	}
}
