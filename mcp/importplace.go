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
		npxRecipe(im)
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

// npxRecipe notes, for a server started with npx, what npx needs just to
// start (none of it is granted on import) and the tighter install-once
// recipe (docs/mcp.md, npx servers).
func npxRecipe(im *Imported) {
	s := im.Server
	if !IsNpx(s) {
		return
	}
	pkg := ""
	for _, a := range s.Args {
		if !strings.HasPrefix(a, "-") {
			pkg = a
			break
		}
	}
	if pkg == "" {
		return
	}
	im.Notes = append(im.Notes, "npx needs, just to start, the network and an npm cache it can write and run programs from; neither is granted here. "+
		"Either add network: true, env PATH, HOME and npm_config_cache, and that cache under needs: (rwx), or install it once: "+
		"npm install --prefix ~/mcp/"+im.ID+" "+pkg+" and make command node with args naming its entry point under ~/mcp/"+im.ID+"/node_modules (docs/mcp.md)")
}

// IsNpx reports whether srv is started with npx.
func IsNpx(srv config.MCPServer) bool { return filepath.Base(srv.Command) == "npx" }

// GrantNpxStart gives npx server im what npx needs just to start, as the
// person agreed: the network for the server's life, PATH and HOME from the
// host, and the npm cache under home (npm_config_cache) as an rwx need.
func GrantNpxStart(im *Imported, home string) {
	s := &im.Server
	cache := filepath.Join(home, ".npm")
	s.Network = true
	if s.Env == nil {
		s.Env = map[string]string{}
	}
	for k, v := range map[string]string{"PATH": "${PATH}", "HOME": "${HOME}", "npm_config_cache": cache} {
		if _, set := s.Env[k]; !set {
			s.Env[k] = v
		}
	}
	if s.Needs == nil {
		s.Needs = map[string]string{}
	}
	s.Needs[cache] = config.RootRWX
	im.Notes = append(im.Notes, "granted, as you answered: network: true, env PATH, HOME and npm_config_cache, and "+cache+" as an rwx need (in its sandbox, not announced as an MCP root)")
}
