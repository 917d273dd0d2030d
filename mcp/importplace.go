package mcp

import (
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"modbay/config"
)

// stripJSONC is data with JSONC's comments (// and /* */) and trailing
// commas taken out, strings left as they are: VS Code's mcp.json is JSONC.
// Plain JSON comes back unchanged.
func stripJSONC(data []byte) []byte {
	out := make([]byte, 0, len(data))
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString:
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
			out = append(out, c)
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			if i < len(data) {
				out = append(out, '\n')
			}
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := strings.Index(string(data[i+2:]), "*/")
			if end < 0 {
				return out // an unclosed comment: the decoder says the rest is missing
			}
			i += 2 + end + 1
			out = append(out, ' ')
		case c == '}' || c == ']':
			// A trailing comma before the close is JSONC's, not JSON's.
			j := len(out) - 1
			for j >= 0 && (out[j] == ' ' || out[j] == '\t' || out[j] == '\n' || out[j] == '\r') {
				j--
			}
			if j >= 0 && out[j] == ',' {
				out = append(out[:j], out[j+1:]...)
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}

// workspaceFolderVar is VS Code's variable for the folder it opened.
const workspaceFolderVar = "${workspaceFolder}"

// Place finishes what was read from file for this machine, still running
// nothing: VS Code's ${workspaceFolder} becomes the folder the file
// belongs to (the parent of its .vscode folder, else its own folder);
// each absolute argument naming an existing folder becomes a root (rw: a
// filesystem server's allowed folders are what it reads and writes), and
// one naming a node or Python script makes its package's folder a root
// (ro: what the server needs just to start); a URL holding credentials
// (user:password@ or a key in its query) is flagged. Each is noted.
func (f *Found) Place(file string) {
	abs, err := filepath.Abs(file)
	if err != nil {
		abs = file
	}
	folder := filepath.Dir(abs)
	if filepath.Base(folder) == ".vscode" {
		folder = filepath.Dir(folder)
	}
	for i := range f.Servers {
		im := &f.Servers[i]
		mapWorkspaceFolder(im, folder)
		deriveRoots(im)
		flagURLCredentials(im)
		startNotes(im)
	}
}

// mapWorkspaceFolder replaces ${workspaceFolder} in the command, args,
// cwd and env with folder.
func mapWorkspaceFolder(im *Imported, folder string) {
	s := &im.Server
	used := false
	sub := func(v string) string {
		if strings.Contains(v, workspaceFolderVar) {
			used = true
			return strings.ReplaceAll(v, workspaceFolderVar, folder)
		}
		return v
	}
	s.Command, s.Cwd = sub(s.Command), sub(s.Cwd)
	for i, a := range s.Args {
		s.Args[i] = sub(a)
	}
	for k, v := range s.Env {
		s.Env[k] = sub(v)
	}
	if used {
		im.Notes = append(im.Notes, "${workspaceFolder} written as "+folder+", the folder this configuration belongs to")
	}
}

// scriptExts are the extensions of a script an interpreter is given.
var scriptExts = []string{".js", ".mjs", ".cjs", ".ts", ".py"}

// packageMarkers name the file at the top of a node or Python package.
var packageMarkers = []string{"package.json", "pyproject.toml", "setup.py"}

// maxPackageUp bounds how far above a script its package's top is looked
// for.
const maxPackageUp = 4

// deriveRoots adds a root for each absolute argument of a stdio server
// naming a folder (rw) or a script (its package's folder, ro).
func deriveRoots(im *Imported) {
	s := &im.Server
	if s.Transport() != "stdio" {
		return
	}
	// A folder an argument names is the server's data (a root, told to
	// it); a script's package is what it needs to start (a need, not told).
	add := func(path, mode, why string) {
		if _, ok := s.Roots[path]; ok {
			return
		}
		if s.Roots == nil {
			s.Roots = map[string]string{}
		}
		s.Roots[path] = mode
		im.Notes = append(im.Notes, fmt.Sprintf("root %s (%s): %s", path, mode, why))
	}
	need := func(path, mode, why string) {
		if _, ok := s.Needs[path]; ok {
			return
		}
		if s.Needs == nil {
			s.Needs = map[string]string{}
		}
		s.Needs[path] = mode
		im.Notes = append(im.Notes, fmt.Sprintf("need %s (%s): %s (in its sandbox, not announced as an MCP root)", path, mode, why))
	}
	for _, a := range s.Args {
		if !filepath.IsAbs(a) || strings.Contains(a, "${") {
			continue
		}
		p := filepath.Clean(a)
		fi, err := os.Stat(p)
		switch {
		case err != nil:
		case fi.IsDir():
			add(p, config.RootRW, "an argument names this folder (narrow it to ro if the server only reads it)")
		case slices.Contains(scriptExts, filepath.Ext(p)):
			top := packageTop(p)
			if nm := nodeModulesAbove(top); nm != "" {
				need(nm, config.RootRO, "the server's package and the packages it imports beside it, which it needs just to start")
			} else {
				need(top, config.RootRO, "the server's own files, which it needs just to start")
			}
		}
	}
}

// packageTop is the folder at the top of the package holding script (the
// nearest above it with a package marker, within maxPackageUp), else the
// script's folder.
func packageTop(script string) string {
	dir := filepath.Dir(script)
	for d, i := dir, 0; i < maxPackageUp; d, i = filepath.Dir(d), i+1 {
		for _, m := range packageMarkers {
			if _, err := os.Stat(filepath.Join(d, m)); err == nil {
				return d
			}
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return dir
}

// nodeModulesAbove is the innermost node_modules folder holding dir, else
// "". A package npm installed there imports its dependencies from that
// folder (npm hoists them beside it), so its own folder alone cannot start.
func nodeModulesAbove(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if filepath.Base(d) == "node_modules" {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// credentialQueryKeys are query parameter names that carry a credential.
var credentialQueryKeys = []string{"key", "api_key", "apikey", "token", "access_token", "secret", "password", "auth", "sig", "signature"}

// flagURLCredentials notes a remote server's URL that holds credentials.
func flagURLCredentials(im *Imported) {
	if im.Server.URL == "" {
		return
	}
	u, err := url.Parse(im.Server.URL)
	if err != nil {
		return
	}
	var what []string
	if u.User != nil {
		what = append(what, "a user and password (user:pass@)")
	}
	q := u.Query()
	for _, k := range slices.Sorted(maps.Keys(q)) {
		if slices.Contains(credentialQueryKeys, strings.ToLower(k)) && !strings.Contains(q.Get(k), "${") {
			what = append(what, "a credential in its query ("+k+"=…)")
		}
	}
	if len(what) > 0 {
		im.Notes = append(im.Notes, "url holds "+strings.Join(what, " and ")+", written to config.yaml as it is: move it into a header from a host variable (Authorization: Bearer ${TOKEN})")
	}
}

// StartNeeds is what a stdio server's launcher needs just to start,
// beyond the server itself (docs/mcp.md, import): none of it is granted
// on import unless the person agrees (GrantStart).
type StartNeeds struct {
	// Launcher is what starts the server: "npx", "uvx", "pipx run",
	// "python -m".
	Launcher string
	// Network is whether it fetches the package first.
	Network bool
	// Env are variables it reads, each set only where the entry sets none.
	Env map[string]string
	// Needs are the folders it needs, by path, with their mode: written
	// under the entry's needs: (in its sandbox, never announced as MCP
	// roots).
	Needs map[string]string
	// What says it in words: "the network and an npm cache it can write
	// and run programs from (~/.npm)".
	What string
	// Recipe is the tighter install-once alternative, "" when none.
	Recipe string
}

// valueFlags are the launchers' flags that take the next argument as
// their value, so it is no package name.
var valueFlags = []string{"--from", "--with", "--with-requirements", "--python", "-p", "--index-url", "--extra-index-url", "--index", "--spec", "--package", "--registry", "--cache"}

// packageArg is the first argument from args[from:] that is neither a
// flag nor a flag's value, "" when none; --from's and --spec's value
// names the package itself.
func packageArg(args []string, from int) string {
	for i := from; i < len(args); i++ {
		a := args[i]
		if (a == "--from" || a == "--spec") && i+1 < len(args) {
			return args[i+1]
		}
		if slices.Contains(valueFlags, a) {
			i++
			continue
		}
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// StartNeedsOf is what srv's launcher needs just to start, with its
// folders under home ("~" for notes): npx (the network, an npm cache it
// runs programs from), uvx and uv tool run (the network, uv's cache and
// its Python and tool folder), pipx run (the network, pipx's folder and
// pip's cache), python -m of a module installed in the user's
// site-packages (that folder, read-only). ok is false for any other
// command. It reads files only (python -m's site-packages).
func StartNeedsOf(srv config.MCPServer, home string) (StartNeeds, bool) {
	if srv.Transport() != "stdio" {
		return StartNeeds{}, false
	}
	args := srv.Args
	base := filepath.Base(srv.Command)
	hostEnv := map[string]string{"PATH": "${PATH}", "HOME": "${HOME}"}
	switch {
	case base == "npx":
		cache := filepath.Join(home, ".npm")
		n := StartNeeds{Launcher: "npx", Network: true, Env: maps.Clone(hostEnv), Needs: map[string]string{cache: config.RootRWX},
			What: "the network and an npm cache it can write and run programs from (" + cache + ")"}
		n.Env["npm_config_cache"] = cache
		if pkg := packageArg(args, 0); pkg != "" {
			n.Recipe = "npm install --prefix ~/mcp/ID " + pkg + " and make command node with args naming its entry point under ~/mcp/ID/node_modules"
		}
		return n, true
	case base == "uvx", base == "uv" && len(args) > 1 && args[0] == "tool" && args[1] == "run", base == "uv" && len(args) > 0 && args[0] == "run" && slices.Contains(args, "--with"):
		cache, data := filepath.Join(home, ".cache", "uv"), filepath.Join(home, ".local", "share", "uv")
		n := StartNeeds{Launcher: "uvx", Network: true, Env: maps.Clone(hostEnv),
			Needs: map[string]string{cache: config.RootRWX, data: config.RootRWX},
			What:  "the network, uv's cache (" + cache + ") and its Python and tool folder (" + data + "), both of which it writes and runs programs from"}
		n.Env["UV_CACHE_DIR"] = cache
		from := 0
		switch {
		case base == "uv" && args[0] == "tool":
			n.Launcher, from = "uv tool run", 2
		case base == "uv":
			n.Launcher, from = "uv run --with", 1
		}
		if pkg := packageArg(args, from); pkg != "" && n.Launcher != "uv run --with" {
			n.Recipe = "uv tool install " + pkg + " and make command the program it puts in ~/.local/bin (its uv tool folder gets read and execute when it starts, nothing else)"
		}
		return n, true
	case base == "pipx" && len(args) > 0 && args[0] == "run":
		pipx, pip := filepath.Join(home, ".local", "share", "pipx"), filepath.Join(home, ".cache", "pip")
		n := StartNeeds{Launcher: "pipx run", Network: true, Env: maps.Clone(hostEnv),
			Needs: map[string]string{pipx: config.RootRWX, pip: config.RootRW},
			What:  "the network, pipx's folder (" + pipx + "), which it writes and runs programs from, and pip's cache (" + pip + ")"}
		if pkg := packageArg(args, 1); pkg != "" {
			n.Recipe = "pipx install " + pkg + " and make command the program it puts in ~/.local/bin (its pipx venv gets read and execute when it starts, nothing else)"
		}
		return n, true
	case isPython(base) && len(args) > 1 && args[0] == "-m":
		lib := userSiteHolding(home, args[1])
		if lib == "" {
			return StartNeeds{}, false
		}
		return StartNeeds{Launcher: "python -m", Env: map[string]string{"HOME": "${HOME}"}, Needs: map[string]string{lib: config.RootRO},
			What: "your Python site-packages folder that holds " + args[1] + " (" + lib + ", read-only) and HOME to find it"}, true
	}
	return StartNeeds{}, false
}

// isPython reports whether a command's base name is a Python
// interpreter's: python, python3, python3.12.
func isPython(base string) bool {
	v, ok := strings.CutPrefix(base, "python")
	return ok && strings.Trim(v, "0123456789.") == ""
}

// maxSiteVersions bounds the ~/.local/lib/python3.* folders looked in.
const maxSiteVersions = 16

// userSiteHolding is the ~/.local/lib/pythonX.Y folder whose
// site-packages holds module's top package (a folder or a .py file),
// "" when none does. home "~" looks nowhere.
func userSiteHolding(home, module string) string {
	top, _, _ := strings.Cut(module, ".")
	if home == "~" || top == "" || strings.ContainsAny(top, `/\`) {
		return ""
	}
	dirs, _ := filepath.Glob(filepath.Join(home, ".local", "lib", "python3*"))
	for i, d := range dirs {
		if i == maxSiteVersions {
			break
		}
		site := filepath.Join(d, "site-packages")
		for _, p := range []string{filepath.Join(site, top), filepath.Join(site, top+".py")} {
			if _, err := os.Stat(p); err == nil {
				return d
			}
		}
	}
	return ""
}

// startNotes notes what a server's launcher needs just to start (none of
// it is granted here) and the tighter install-once recipe (docs/mcp.md).
// Folders are named under "~", but python -m's module is looked for in
// the user's own home.
func startNotes(im *Imported) {
	n, ok := StartNeedsOf(im.Server, "~")
	if home, err := os.UserHomeDir(); !ok && err == nil {
		n, ok = StartNeedsOf(im.Server, home)
	}
	if !ok {
		return
	}
	var env []string
	for _, k := range slices.Sorted(maps.Keys(n.Env)) {
		env = append(env, k)
	}
	var needs []string
	for _, p := range slices.Sorted(maps.Keys(n.Needs)) {
		needs = append(needs, p+" ("+n.Needs[p]+")")
	}
	note := n.Launcher + " needs, just to start, " + n.What + "; none of it is granted here. Either add "
	if n.Network {
		note += "network: true, "
	}
	note += "env " + strings.Join(env, ", ") + " and under needs: " + strings.Join(needs, ", ")
	if n.Recipe != "" {
		note += ", or install it once: " + strings.ReplaceAll(n.Recipe, "~/mcp/ID", "~/mcp/"+im.ID)
	}
	im.Notes = append(im.Notes, note+" (docs/mcp.md)")
}

// GrantStart gives server im what its launcher needs just to start (n,
// StartNeedsOf's with the real home), as the person agreed: the network
// when it fetches, each variable the entry does not set, each folder
// under needs:.
func GrantStart(im *Imported, n StartNeeds) {
	s := &im.Server
	if n.Network {
		s.Network = true
	}
	if s.Env == nil {
		s.Env = map[string]string{}
	}
	for k, v := range n.Env {
		if _, set := s.Env[k]; !set {
			s.Env[k] = v
		}
	}
	if s.Needs == nil {
		s.Needs = map[string]string{}
	}
	var needs []string
	for _, p := range slices.Sorted(maps.Keys(n.Needs)) {
		s.Needs[p] = n.Needs[p]
		needs = append(needs, p+" ("+n.Needs[p]+")")
	}
	what := "env " + strings.Join(slices.Sorted(maps.Keys(n.Env)), ", ") + " and the needs " + strings.Join(needs, ", ") + " (in its sandbox, not announced as MCP roots)"
	if n.Network {
		what = "network: true, " + what
	}
	im.Notes = append(im.Notes, "granted, as you answered: "+what)
}
