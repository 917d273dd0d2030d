package mcp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"modbay/config"
	"modbay/runner"
)

// interpFixture is the absolute path of testdata/interp/NAME: a home
// (home) and a Homebrew prefix (brew) holding the version managers'
// trees, their shims and links, with fake executables that are never run.
func interpFixture(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "interp", name))
	if err == nil {
		p, err = filepath.EvalSymlinks(p)
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestResolveInterpreter: a shim or link of each version manager
// resolves, reading only the manager's files, to the interpreter it runs
// and that interpreter's install tree (testdata/interp/home).
func TestResolveInterpreter(t *testing.T) {
	home := interpFixture(t, "home")
	proj := filepath.Join(home, "proj")
	noEnv := func(string) string { return "" }
	for _, tc := range []struct {
		command, dir, mgr, path string
		trees                   []string
	}{
		{".pyenv/shims/python", home, "pyenv", ".pyenv/versions/3.12.1/bin/python", []string{".pyenv/versions/3.12.1"}},
		{".pyenv/shims/python", proj, "pyenv", ".pyenv/versions/3.11.7/bin/python", []string{".pyenv/versions/3.11.7"}},
		{".asdf/shims/node", proj, "asdf", ".asdf/installs/nodejs/20.11.0/bin/node", []string{".asdf/installs/nodejs/20.11.0"}},
		{".local/share/mise/shims/python", proj, "mise", ".local/share/mise/installs/python/3.13.0/bin/python", []string{".local/share/mise/installs/python/3.13.0"}},
		{".volta/bin/node", proj, "volta", ".volta/tools/image/node/22.1.0/bin/node", []string{".volta/tools/image/node/22.1.0"}},
		{".nvm/versions/node/v20.20.2/bin/node", proj, "nvm", ".nvm/versions/node/v20.20.2/bin/node", []string{".nvm/versions/node/v20.20.2"}},
		{".local/share/uv/tools/mcp-server-fetch/bin/mcp-server-fetch", proj, "uv", ".local/share/uv/tools/mcp-server-fetch/bin/mcp-server-fetch",
			[]string{".local/share/uv/tools/mcp-server-fetch", ".local/share/uv/python/cpython-3.12.4-linux-x86_64-gnu"}},
		// pipx's link in ~/.local/bin into its venv; the venv's python is
		// the system's, which is no tree of the home.
		{".local/bin/mcp-server-time", proj, "pipx", ".local/share/pipx/venvs/mcp-server-time/bin/mcp-server-time", []string{".local/share/pipx/venvs/mcp-server-time"}},
	} {
		in, ok := resolveInterpreter(filepath.Join(home, tc.command), home, tc.dir, noEnv)
		var trees []string
		for _, tr := range tc.trees {
			trees = append(trees, filepath.Join(home, tr))
		}
		if !ok || in.Manager != tc.mgr || in.Path != filepath.Join(home, tc.path) || !slices.Equal(in.Trees, trees) {
			t.Errorf("%s from %s: %+v %v, want %s %s %q", tc.command, tc.dir, in, ok, tc.mgr, tc.path, trees)
		}
	}
	if _, ok := resolveInterpreter("/usr/bin/python3", home, proj, noEnv); ok {
		t.Error("a system interpreter was taken for a version manager's")
	}
	// A version file naming a path is not followed.
	if in, ok := resolveInterpreter(filepath.Join(home, ".pyenv/shims/python"), home, filepath.Join(home, "evil"), noEnv); ok && strings.Contains(in.Path, "etc") {
		t.Errorf("followed a version naming a path: %+v", in)
	}
}

// TestResolveHomebrew: a Homebrew command (a link in the prefix's bin or
// opt) resolves to its formula's Cellar tree, and gets the trees of the
// runtime dependencies its receipt names (through opt; a name climbing
// out of the prefix or missing is skipped) and the prefix's bin, opt and
// lib folders (testdata/interp/brew, found through HOMEBREW_PREFIX).
func TestResolveHomebrew(t *testing.T) {
	brew := interpFixture(t, "brew")
	env := func(k string) string {
		if k == "HOMEBREW_PREFIX" {
			return brew
		}
		return ""
	}
	want := []string{"Cellar/node/22.1.0", "Cellar/icu4c@74/74.2", "Cellar/openssl@3/3.3.1", "bin", "opt", "lib"}
	for i := range want {
		want[i] = filepath.Join(brew, want[i])
	}
	for _, cmd := range []string{"bin/node", "opt/node/bin/node"} {
		in, ok := resolveInterpreter(filepath.Join(brew, cmd), interpFixture(t, "home"), brew, env)
		if !ok || in.Manager != "Homebrew" || in.Path != filepath.Join(brew, "Cellar/node/22.1.0/bin/node") || !slices.Equal(in.Trees, want) {
			t.Errorf("%s: %+v %v, want trees %q", cmd, in, ok, want)
		}
	}
}

// TestPyenvShimRunsContained: a server whose command is this machine's
// pyenv shim runs under the sandbox: the shim is resolved to the
// interpreter, granted its own tree only, and describe says so.
func TestPyenvShimRunsContained(t *testing.T) {
	home, _ := os.UserHomeDir()
	shim := filepath.Join(home, ".pyenv", "shims", "python3")
	if _, err := os.Stat(shim); err != nil {
		t.Skip("no pyenv shim on this machine")
	}
	script, _ := filepath.Abs(filepath.Join("testdata", "servers", "echo_server.py"))
	srv := config.MCPServer{Command: shim, Args: []string{script}, Env: map[string]string{"HOME": home},
		Roots: map[string]string{filepath.Dir(script): config.RootRO}}
	f := newFixture(t, config.SandboxAuto, map[string]config.MCPServer{"py": srv})
	m := f.module("py")
	if m.Status != runner.StatusReady {
		t.Fatalf("pyenv server: %s: %s\n%s", m.Status, m.Reason, m.Stderr)
	}
	res := f.run(m, "echo", `{"text":"hi"}`, runner.RunOptions{})
	if !res.OK() || len(res.Artifacts) != 1 {
		t.Fatalf("echo: %+v", res.Host)
	}
	b, _ := os.ReadFile(res.Artifacts[0].Staged)
	if !strings.Contains(string(b), filepath.Join(home, ".pyenv", "versions")) {
		t.Errorf("the server ran %q, want pyenv's interpreter", b)
	}
	if l := f.src.Driver("py").Launch(); !strings.Contains(l, "pyenv runs "+filepath.Join(home, ".pyenv", "versions")) || !strings.Contains(l, "nothing else of the home") {
		t.Errorf("launch %q does not say what was added", l)
	}
}
