package mcp

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"modbay/config"
)

// Interpreter is what a stdio server's command runs when it is a version
// manager's shim or lives in one's install tree (pyenv, asdf, mise,
// volta, nvm, uv, pipx, Homebrew on Linux): the real interpreter, and the
// install trees it needs read and execute of, nothing else of the home.
type Interpreter struct {
	// Manager names the version manager ("pyenv", "asdf", …).
	Manager string
	// Path is the interpreter the command runs.
	Path string
	// Trees are its install trees, granted read and execute.
	Trees []string
}

// maxVersionFile bounds a version file read (.python-version,
// .tool-versions, volta's platform.json).
const maxVersionFile = 16 << 10

// resolveInterpreter finds what command (absolute, as resolved) runs
// through a version manager, reading only the managers' own files (no
// program runs): home is the server's HOME, dir the folder version files
// are looked up from (its cwd), env its variables. ok is false for a
// command no manager owns.
func resolveInterpreter(command, home, dir string, env func(string) string) (Interpreter, bool) {
	name := filepath.Base(command)
	or := func(v, def string) string {
		if v != "" {
			return v
		}
		return def
	}
	found := func(mgr, tree, bin string) (Interpreter, bool) {
		// A version read from a file names one folder, never a path.
		if v := filepath.Base(tree); v == "" || v == "." || v == ".." || v == string(filepath.Separator) {
			return Interpreter{}, false
		}
		if fi, err := os.Stat(bin); err != nil || fi.IsDir() {
			return Interpreter{}, false
		}
		in := Interpreter{Manager: mgr, Path: bin, Trees: []string{tree}}
		in.Trees = append(in.Trees, linkedTrees(bin, tree, home)...)
		return in, true
	}
	if pyenv := or(env("PYENV_ROOT"), filepath.Join(home, ".pyenv")); command == filepath.Join(pyenv, "shims", name) {
		v := or(firstField(env("PYENV_VERSION")), findVersionFile(dir, ".python-version", ""))
		if v == "" {
			v = firstField(readSmall(filepath.Join(pyenv, "version")))
		}
		tree := filepath.Join(pyenv, "versions", v)
		return found("pyenv", tree, filepath.Join(tree, "bin", name))
	}
	for _, m := range []struct{ mgr, root string }{
		{"asdf", or(env("ASDF_DATA_DIR"), filepath.Join(home, ".asdf"))},
		{"mise", or(env("MISE_DATA_DIR"), filepath.Join(home, ".local", "share", "mise"))},
	} {
		if command != filepath.Join(m.root, "shims", name) {
			continue
		}
		tool := toolOf(name, m.mgr)
		v := findVersionFile(dir, ".tool-versions", tool)
		if v == "" {
			v = toolVersion(readSmall(filepath.Join(home, ".tool-versions")), tool)
		}
		if v == "" {
			v = onlyEntry(filepath.Join(m.root, "installs", tool))
		}
		tree := filepath.Join(m.root, "installs", tool, v)
		return found(m.mgr, tree, filepath.Join(tree, "bin", name))
	}
	if volta := or(env("VOLTA_HOME"), filepath.Join(home, ".volta")); command == filepath.Join(volta, "bin", name) {
		var platform struct {
			Node struct {
				Runtime string `json:"runtime"`
			} `json:"node"`
		}
		_ = json.Unmarshal([]byte(readSmall(filepath.Join(volta, "tools", "user", "platform.json"))), &platform)
		tree := filepath.Join(volta, "tools", "image", "node", platform.Node.Runtime)
		return found("volta", tree, filepath.Join(tree, "bin", name))
	}
	real, err := filepath.EvalSymlinks(command)
	if err != nil {
		return Interpreter{}, false
	}
	for _, m := range []struct {
		mgr, root string
		depth     int // path elements below root that make the tree
	}{
		{"nvm", filepath.Join(or(env("NVM_DIR"), filepath.Join(home, ".nvm")), "versions", "node"), 1},
		{"uv", filepath.Join(home, ".local", "share", "uv", "tools"), 1},
		{"uv", filepath.Join(home, ".local", "share", "uv", "python"), 1},
		{"pipx", filepath.Join(or(env("PIPX_HOME"), filepath.Join(home, ".local", "share", "pipx")), "venvs"), 1},
	} {
		if !strings.HasPrefix(real, m.root+string(filepath.Separator)) {
			continue
		}
		rel, _ := filepath.Rel(m.root, real)
		parts := strings.Split(rel, string(filepath.Separator))
		if len(parts) <= m.depth {
			continue
		}
		return found(m.mgr, filepath.Join(append([]string{m.root}, parts[:m.depth]...)...), real)
	}
	if brew := or(env("HOMEBREW_PREFIX"), DefaultHomebrewPrefix); strings.HasPrefix(real, filepath.Join(brew, "Cellar")+string(filepath.Separator)) {
		rel, _ := filepath.Rel(filepath.Join(brew, "Cellar"), real)
		parts := strings.Split(rel, string(filepath.Separator))
		if len(parts) <= 2 {
			return Interpreter{}, false
		}
		in, ok := found("Homebrew", filepath.Join(brew, "Cellar", parts[0], parts[1]), real)
		if ok {
			in.Trees = append(in.Trees, brewTrees(brew, in.Trees[0])...)
		}
		return in, ok
	}
	return Interpreter{}, false
}

// DefaultHomebrewPrefix is Homebrew's prefix on Linux when HOMEBREW_PREFIX
// is unset.
const DefaultHomebrewPrefix = "/home/linuxbrew/.linuxbrew"

// maxBrewDeps bounds the runtime dependencies of a Homebrew formula whose
// trees are granted.
const maxBrewDeps = 64

// brewTrees are what a Homebrew formula installed at tree needs beside
// its own tree to run: the Cellar trees of its runtime dependencies (its
// INSTALL_RECEIPT.json's, each through prefix/opt/<name>, which the
// formula's binaries load their libraries by), and the prefix's shared
// bin, opt and lib folders. Only folders inside the prefix are named.
func brewTrees(prefix, tree string) []string {
	var out []string
	var receipt struct {
		Deps []struct {
			FullName string `json:"full_name"`
		} `json:"runtime_dependencies"`
	}
	_ = json.Unmarshal([]byte(readSmallN(filepath.Join(tree, "INSTALL_RECEIPT.json"), maxReceipt)), &receipt)
	cellar := filepath.Join(prefix, "Cellar") + string(filepath.Separator)
	for i, d := range receipt.Deps {
		if i == maxBrewDeps {
			break
		}
		name := d.FullName
		if name == "" || strings.Contains(name, "..") || strings.HasPrefix(name, "/") {
			continue
		}
		real, err := filepath.EvalSymlinks(filepath.Join(prefix, "opt", name))
		if err != nil || !strings.HasPrefix(real, cellar) || slices.Contains(out, real) {
			continue
		}
		out = append(out, real)
	}
	for _, sub := range []string{"bin", "opt", "lib"} {
		if fi, err := os.Stat(filepath.Join(prefix, sub)); err == nil && fi.IsDir() {
			out = append(out, filepath.Join(prefix, sub))
		}
	}
	return out
}

// maxReceipt bounds a Homebrew INSTALL_RECEIPT.json read.
const maxReceipt = 256 << 10

// linkedTrees are the trees bin's own interpreter lives in when it is a
// script or a venv link into another of the home's trees (a uv tool's
// entry point runs the venv's python, a link into uv's python folder).
func linkedTrees(bin, tree, home string) []string {
	var out []string
	for _, p := range []string{filepath.Join(tree, "bin", "python"), filepath.Join(tree, "bin", "python3")} {
		if real, err := filepath.EvalSymlinks(p); err == nil && !strings.HasPrefix(real, tree+string(filepath.Separator)) && strings.HasPrefix(real, home+string(filepath.Separator)) {
			out = append(out, filepath.Dir(filepath.Dir(real)))
			break
		}
	}
	return out
}

// toolOf is the plugin (asdf) or tool (mise) name of a shim.
func toolOf(name, mgr string) string {
	switch {
	case strings.HasPrefix(name, "python"), name == "pip", strings.HasPrefix(name, "pip3"):
		return "python"
	case name == "node", name == "npm", name == "npx":
		if mgr == "asdf" {
			return "nodejs"
		}
		return "node"
	}
	return name
}

// findVersionFile is the version named in file, looked for from dir up to
// the root: the first field of its first line, or, with tool set, the
// version of tool in a .tool-versions file.
func findVersionFile(dir, file, tool string) string {
	for d := dir; d != ""; d = filepath.Dir(d) {
		if s := readSmall(filepath.Join(d, file)); s != "" {
			if tool != "" {
				if v := toolVersion(s, tool); v != "" {
					return v
				}
			} else if v := firstField(s); v != "" {
				return v
			}
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return ""
}

// toolVersion is tool's version in a .tool-versions text.
func toolVersion(s, tool string) string {
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == tool {
			return firstField(f[1])
		}
	}
	return ""
}

// firstField is the first word of s ("3.12.1" of "3.12.1:3.11.7\n").
func firstField(s string) string {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ':' || r == ' ' || r == '\n' || r == '\t' || r == '\r' })
	if len(f) == 0 || strings.ContainsAny(f[0], "/\\") || f[0] == ".." {
		return ""
	}
	return f[0]
}

// onlyEntry is the name of dir's one entry, "" when it has none or more.
func onlyEntry(dir string) string {
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) != 1 {
		return ""
	}
	return ents[0].Name()
}

// readSmall is file's text, at most maxVersionFile bytes; "" when
// unreadable.
func readSmall(file string) string { return readSmallN(file, maxVersionFile) }

// readSmallN is file's text, at most n bytes; "" when unreadable or
// longer (a cut JSON text would not parse anyway).
func readSmallN(file string, n int) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(n)+1))
	if err != nil || len(b) > n {
		return ""
	}
	return string(b)
}

// InterpreterOf is what server srv's command resolves to through a
// version manager, as it would when the server starts (lookup reads the
// host's variables its entry names): ok is false for a command no manager
// owns, or one that cannot be found. It reads files only.
func InterpreterOf(srv config.MCPServer, lookup func(string) (string, bool)) (Interpreter, bool) {
	if srv.Transport() != "stdio" {
		return Interpreter{}, false
	}
	if lookup == nil {
		lookup = config.HostLookup
	}
	path, err := resolveCommand(srv.Command, srv.Env, lookup)
	if err != nil {
		return Interpreter{}, false
	}
	env := map[string]string{}
	for k, v := range srv.Env {
		env[k], _ = config.ExpandVars(v, lookup)
	}
	return serverInterpreter(path, srv, env, lookup)
}
