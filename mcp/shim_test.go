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

// fakeTree makes the files under root (paths relative to it, content
// after "=" when given), executables when under a bin folder.
func fakeTree(t *testing.T, root string, files ...string) {
	t.Helper()
	for _, f := range files {
		name, content, _ := strings.Cut(f, "=")
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// TestResolveInterpreter: a shim or link of each version manager
// resolves, reading only the manager's files, to the interpreter it runs
// and that interpreter's install tree.
func TestResolveInterpreter(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "proj")
	fakeTree(t, home,
		".pyenv/shims/python", ".pyenv/version=3.12.1\n", ".pyenv/versions/3.12.1/bin/python", ".pyenv/versions/3.11.7/bin/python",
		"proj/.python-version=3.11.7\n",
		".asdf/shims/node", ".tool-versions=nodejs 20.11.0\n", ".asdf/installs/nodejs/20.11.0/bin/node",
		".local/share/mise/shims/python", ".local/share/mise/installs/python/3.13.0/bin/python",
		".volta/bin/node", `.volta/tools/user/platform.json={"node":{"runtime":"22.1.0"}}`, ".volta/tools/image/node/22.1.0/bin/node",
		".nvm/versions/node/v20.20.2/bin/node",
		".local/share/uv/python/cpython-3.12.4-linux-x86_64-gnu/bin/python3.12",
		".local/share/uv/tools/mcp-server-fetch/bin/mcp-server-fetch",
	)
	uvPython := filepath.Join(home, ".local/share/uv/python/cpython-3.12.4-linux-x86_64-gnu")
	if err := os.Symlink(filepath.Join(uvPython, "bin/python3.12"), filepath.Join(home, ".local/share/uv/tools/mcp-server-fetch/bin/python")); err != nil {
		t.Fatal(err)
	}
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
	fakeTree(t, home, "evil/.python-version=../../etc\n")
	if in, ok := resolveInterpreter(filepath.Join(home, ".pyenv/shims/python"), home, filepath.Join(home, "evil"), noEnv); ok && strings.Contains(in.Path, "etc") {
		t.Errorf("followed a version naming a path: %+v", in)
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
