package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStateDirRefusesClimbingNames: no key or root name outside the
// grammar becomes a path, and every accepted one stays two levels under
// <home>/state.
func TestStateDirRefusesClimbingNames(t *testing.T) {
	c := &Config{Home: "/h"}
	for _, kr := range [][2]string{
		{"../..", "out"}, {".", ".requests"}, {"..", "x"}, {"notes", ".."}, {"notes", "a/b"},
		{"notes", "."}, {"", "out"}, {"notes", ""}, {"notes@zz", "out"}, {"notes@0123456789abcdeF", "out"},
		{"a/b", "out"}, {"notes", "out.d"}, {"nötes", "out"}, {"notes", "ou\x00t"}, {strings.Repeat("a", 65), "out"},
	} {
		if p, err := c.StateDir(kr[0], kr[1]); err == nil {
			t.Errorf("StateDir(%q, %q) = %s, want a refusal", kr[0], kr[1], p)
		}
	}
	for _, kr := range [][2]string{{"notes", "out"}, {"xibodev.facet", "project_root"}, {"notes@0123456789abcdef", "out"}} {
		p, err := c.StateDir(kr[0], kr[1])
		if err != nil || filepath.Dir(filepath.Dir(p)) != "/h/state" {
			t.Errorf("StateDir(%q, %q) = %s, %v", kr[0], kr[1], p, err)
		}
	}
	if k := PathStateKey("notes", "/tmp/a/notes"); !ValidStateKey(k) || k == PathStateKey("notes", "/tmp/b/notes") || k == "notes" {
		t.Errorf("path state keys: %s", k)
	}
}

// TestMigrateLayout: an old home's saved requests and inputs (presets
// with them) move out of state/; a symlink planted there is not
// followed; a second run is a no-op.
func TestMigrateLayout(t *testing.T) {
	home := t.TempDir()
	outside := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	req := "req_0123456789abcdef0123456789abcdef.json"
	write(filepath.Join(home, "state", ".requests", req), `{"secret":1}`)
	write(filepath.Join(home, "state", ".modbay", "inputs", "notes", "notes.list.json"), `{"presets":[{"name":"p"}]}`)
	write(filepath.Join(home, "state", "notes", "out", "kept.txt"), "module state")
	write(filepath.Join(outside, "victim"), "not moved")
	if err := os.Symlink(filepath.Join(outside, "victim"), filepath.Join(home, "state", ".requests", "planted.json")); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := MigrateLayout(home); err != nil {
			t.Fatal(err)
		}
	}
	c := &Config{Home: home}
	if b, err := os.ReadFile(filepath.Join(c.RequestsDir(), req)); err != nil || string(b) != `{"secret":1}` {
		t.Errorf("saved request: %q %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(c.InputsDir(), "notes", "notes.list.json")); err != nil || !strings.Contains(string(b), `"p"`) {
		t.Errorf("presets: %q %v", b, err)
	}
	if _, err := os.Lstat(filepath.Join(c.RequestsDir(), "planted.json")); err == nil {
		t.Error("a planted symlink moved into the host's requests")
	}
	if _, err := os.Stat(filepath.Join(home, "state", ".modbay")); err == nil {
		t.Error("state/.modbay is still there")
	}
	if b, err := os.ReadFile(filepath.Join(home, "state", "notes", "out", "kept.txt")); err != nil || string(b) != "module state" {
		t.Errorf("module state: %q %v", b, err)
	}
	if fi, err := os.Stat(c.RequestsDir()); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("requests dir: %v %v", fi, err)
	}
}

// TestPreApprovedForms: each pre_approved entry names a module one way;
// an entry that names none, mixes module with path or digest, or gives a
// relative path or a malformed digest is a config error at policy.
func TestPreApprovedForms(t *testing.T) {
	digest := "sha256:" + strings.Repeat("a", 64)
	for _, c := range []struct {
		entry string
		ok    bool
	}{
		{"{module: notes}", true},
		{"{path: /opt/x/x, capability: x.run}", true},
		{"{path: /opt/x/x, digest: \"" + digest + "\"}", true},
		{"{digest: \"" + digest + "\"}", true},
		{"{capability: x.run}", false},
		{"{module: notes, path: /opt/x/x}", false},
		{"{module: ../..}", false},
		{"{path: x/x}", false},
		{"{digest: sha256:abc}", false},
	} {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, FileName), []byte("policy:\n  pre_approved:\n    - "+c.entry+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Load(home)
		if (err == nil) != c.ok {
			t.Errorf("%s: err %v, want ok %v", c.entry, err, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "policy.pre_approved[0]") {
			t.Errorf("%s: the error does not say where: %v", c.entry, err)
		}
	}
}
