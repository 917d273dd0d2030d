package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolveHomeOrder(t *testing.T) {
	t.Setenv("MODBAY_HOME", "/m")
	t.Setenv("FACET_STUDIO_HOME", "/f")
	t.Setenv("XDG_DATA_HOME", "/x")
	if h, _ := ResolveHome("/flag"); h != "/flag" {
		t.Fatalf("flag: got %q", h)
	}
	if h, _ := ResolveHome(""); h != "/m" {
		t.Fatalf("MODBAY_HOME: got %q", h)
	}
	t.Setenv("MODBAY_HOME", "")
	if h, _ := ResolveHome(""); h != "/f" {
		t.Fatalf("FACET_STUDIO_HOME: got %q", h)
	}
	t.Setenv("FACET_STUDIO_HOME", "")
	if h, _ := ResolveHome(""); h != "/x/modbay" {
		t.Fatalf("XDG: got %q", h)
	}
}

func TestLoad(t *testing.T) {
	home := t.TempDir()
	c, err := Load(home)
	if err != nil {
		t.Fatal(err)
	}
	if c.Workspace != filepath.Join(home, "workspace") {
		t.Fatalf("default workspace %q", c.Workspace)
	}
	y := "workspace: ws\nroots:\n  seed_in: /data/seeds\npolicy:\n  credentials: [OPENAI_API_KEY]\n  pre_approved:\n    - module: net\n      capability: fetch\n"
	if err := os.WriteFile(filepath.Join(home, FileName), []byte(y), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err = Load(home)
	if err != nil {
		t.Fatal(err)
	}
	if c.Workspace != filepath.Join(home, "ws") || c.Roots["seed_in"] != "/data/seeds" {
		t.Fatalf("parsed %+v", c)
	}
	if a := c.Policy.PreApproved; len(a) != 1 || a[0].Module != "net" || !a[0].CoversCapability("fetch") || a[0].CoversCapability("other") {
		t.Fatal("pre-approval mismatch")
	}
	if err := os.WriteFile(filepath.Join(home, FileName), []byte("polcy:\n  deny_network: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(home); err == nil {
		t.Fatal("a misspelt key was ignored: a policy typo must be an error")
	}
	if err := os.WriteFile(filepath.Join(home, FileName), []byte("roots: [1, 2"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(home); err == nil {
		t.Fatal("malformed yaml accepted")
	}
}

// FuzzLoad: any config.yaml either loads or fails with an error; it never
// panics, and a loaded config always has an absolute, clean workspace.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("workspace: ws\nroots:\n  seed_in: /data\npolicy:\n  credentials: [A]\n  pre_approved:\n    - module: m\n"))
	f.Add([]byte("binaries: {ffmpeg: /usr/bin/ffmpeg}\ndeadline_ms: 1000\n"))
	f.Add([]byte("polcy: {}\n"))
	f.Add([]byte("- [\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, FileName), b, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := Load(home)
		if err != nil {
			return
		}
		if !filepath.IsAbs(c.Workspace) || filepath.Clean(c.Workspace) != c.Workspace {
			t.Fatalf("workspace %q is not absolute and clean", c.Workspace)
		}
	})
}

func TestLoadSandbox(t *testing.T) {
	for _, tc := range []struct {
		yaml    string
		want    string
		wantErr bool
	}{
		{"", "", false},
		{"sandbox: require\n", SandboxRequire, false},
		{"sandbox: off\nlimits: {open_files: 64, cpu_seconds: 5}\n", SandboxOff, false},
		{"sandbox: maybe\n", "", true},
	} {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, FileName), []byte(tc.yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := Load(home)
		if (err != nil) != tc.wantErr {
			t.Fatalf("%q: err %v", tc.yaml, err)
		}
		if err == nil && c.Sandbox != tc.want {
			t.Errorf("%q: sandbox %q, want %q", tc.yaml, c.Sandbox, tc.want)
		}
	}
}

func TestHistorySection(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, FileName), []byte("history:\n  max_runs: 5\n  max_bytes: -1\n  record_inputs: false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(home)
	if err != nil {
		t.Fatal(err)
	}
	if c.History.Runs() != 5 || c.History.Bytes() != 0 || c.History.Inputs() {
		t.Errorf("history = %+v: runs %d bytes %d inputs %v", c.History, c.History.Runs(), c.History.Bytes(), c.History.Inputs())
	}
	var d History
	if d.Runs() != DefaultHistoryMaxRuns || d.Bytes() != DefaultHistoryMaxBytes || !d.Inputs() {
		t.Errorf("defaults wrong: %d %d %v", d.Runs(), d.Bytes(), d.Inputs())
	}
	if c.HistoryDir() != filepath.Join(home, "history") {
		t.Errorf("HistoryDir = %s", c.HistoryDir())
	}
}

// TestLoadErrorsSayWhere: a config.yaml that does not load names the file
// and the line (and column when known) of the problem, on its first line.
func TestLoadErrorsSayWhere(t *testing.T) {
	for _, tc := range []struct{ yaml, where, msg string }{
		{"binaries:\n  ffmpeg: /x\n  - oops\n", ":3:3: ", "non-map value"},
		{"workspace: ws\npolcy:\n  x: 1\n", ":2:1: ", `unknown field "polcy"`},
		{"limits:\n  open_files: lots\n", ":2:15: ", "cannot unmarshal"},
		{"binaries: {}\nsandbox: maybe\n", ":2: ", "is not one of auto, require, off"},
		{"sandbox: auto\ndescribe_parallel: -1\n", ":2: ", "describe_parallel: -1 is not between 1 and 256"},
		{"describe_parallel: 100000\n", ":1: ", "describe_parallel: 100000 is not between"},
	} {
		home := t.TempDir()
		path := filepath.Join(home, FileName)
		if err := os.WriteFile(path, []byte(tc.yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Load(home)
		var fe *FileError
		if !errors.As(err, &fe) {
			t.Fatalf("%q: %v is not a *FileError", tc.yaml, err)
		}
		first, _, _ := strings.Cut(err.Error(), "\n")
		if !strings.HasPrefix(first, path+tc.where) || !strings.Contains(first, tc.msg) || fe.Short() != first {
			t.Errorf("%q: first line %q, want %s%s…%s", tc.yaml, first, path, tc.where, tc.msg)
		}
	}
}
