package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"modbay/config"
	"modbay/mcp"
)

// MCPInstallOptions is what `modbay mcp install` was asked to do.
type MCPInstallOptions struct {
	IO *ioStreams
	G  *globals
	// Client is one of installClients' names.
	Client string
	// Workspace, when not "", is passed to serve as --workspace (made
	// absolute); project-scope files are written under it.
	Workspace string
	// Write merges the entry into the client's config file (a backup
	// first); without it the entry is printed.
	Write bool
	// Scope is "user" or "project" for clients that have both ("":
	// project), or "local" (claude-code: this project, in the user's file).
	Scope string
	// File replaces the client's config file's path.
	File string
}

// installClient is one MCP client modbay mcp install knows.
type installClient struct {
	// key is the JSON object the servers live in ("" for TOML).
	key string
	// typed entries carry "type": "stdio".
	typed bool
	// paths are the config file per scope ("user", "project"), relative
	// to the user's home or the project folder.
	user, project string
	// local: the client has a local scope, the user's file keeping the
	// entry for one project only (Claude Code: projects.<dir>.mcpServers
	// in ~/.claude.json).
	local bool
}

// installClients are the clients, by name (docs/gateway.md "Set-up").
func installClients() map[string]installClient {
	appSupport := filepath.Join(".config")
	if runtime.GOOS == "darwin" {
		appSupport = filepath.Join("Library", "Application Support")
	}
	return map[string]installClient{
		"claude-code":    {key: "mcpServers", typed: true, user: ".claude.json", project: ".mcp.json", local: true},
		"claude-desktop": {key: "mcpServers", user: filepath.Join(appSupport, "Claude", "claude_desktop_config.json")},
		"vscode":         {key: "servers", typed: true, user: filepath.Join(appSupport, "Code", "User", "mcp.json"), project: filepath.Join(".vscode", "mcp.json")},
		"cursor":         {key: "mcpServers", user: filepath.Join(".cursor", "mcp.json"), project: filepath.Join(".cursor", "mcp.json")},
		"codex":          {user: filepath.Join(".codex", "config.toml")},
	}
}

// newMCPInstallCommand builds `modbay mcp install`.
func newMCPInstallCommand(g *globals) *cobra.Command {
	o := &MCPInstallOptions{IO: g.io, G: g}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range installClients() {
			if !yield(n) {
				return
			}
		}
	})
	cmd := &cobra.Command{
		Use:   "install CLIENT",
		Short: "Print (or --write) the entry that makes an MCP client start modbay mcp serve",
		Long: `Prints the configuration entry with which CLIENT (` + strings.Join(names, ", ") + `)
starts modbay mcp serve: the absolute path of this modbay, --home when the home is
not the default, --workspace when given. For claude-code it prints the
"claude mcp add" line. --write merges the entry into the client's config file
instead — a backup (FILE.bak) first, the file's other entries and comments kept —
at --scope user or project (default project: under --workspace, else the current
folder) for the clients that have both; claude-desktop and codex have only user.
claude-code also has --scope local: the entry in ~/.claude.json for this project
only (the folder --workspace names, else the current one), as claude mcp add's
default scope keeps it.`,
		Example: `  modbay mcp install claude-code --workspace ~/src/project
  modbay mcp install vscode --workspace . --write
  modbay mcp install codex --write`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: names,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Client = args[0]
			return mcpInstallRun(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Workspace, "workspace", "", "the project folder modules get (passed to serve as --workspace)")
	f.BoolVar(&o.Write, "write", false, "merge the entry into the client's config file (a backup first)")
	f.StringVar(&o.Scope, "scope", "", "with --write: user or project (default project), for clients that have both; local for claude-code")
	f.StringVar(&o.File, "file", "", "with --write: this config `FILE` instead of the client's")
	return cmd
}

// serveArgs are the arguments the client passes to modbay.
func (o *MCPInstallOptions) serveArgs() ([]string, error) {
	args := []string{"mcp", "serve"}
	home, err := config.ResolveHome(o.G.home)
	if err != nil {
		return nil, err
	}
	def, derr := defaultHome()
	if derr != nil || def != home {
		args = append(args, "--home", home)
	}
	if o.Workspace != "" {
		args = append(args, "--workspace", o.Workspace)
	}
	return args, nil
}

// defaultHome is the home modbay uses with no flag and no MODBAY_HOME
// (the client's environment does not carry this shell's).
func defaultHome() (string, error) {
	if x := os.Getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "modbay"), nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, ".local", "share", "modbay"), nil
}

// mcpInstallRun prints the entry, or merges it into the client's file.
func mcpInstallRun(_ context.Context, o *MCPInstallOptions) error {
	c, ok := installClients()[o.Client]
	if !ok {
		return withCode(ExitUsage, "unknown client %q: one of claude-code, claude-desktop, vscode, cursor, codex", o.Client)
	}
	switch o.Scope {
	case "", "project", "user":
	case "local":
		if !c.local {
			return withCode(ExitUsage, "%s has no local scope (claude-code has)", o.Client)
		}
	default:
		return withCode(ExitUsage, "--scope %q: user, project or local", o.Scope)
	}
	if o.Scope == "project" && c.project == "" {
		return withCode(ExitUsage, "%s has no project scope: its configuration is the user's only", o.Client)
	}
	if o.Workspace != "" {
		ws, err := filepath.Abs(o.Workspace)
		if err != nil {
			return withCode(ExitUsage, "%v", err)
		}
		o.Workspace = ws
	}
	exe, err := os.Executable()
	if err != nil {
		return withCode(ExitUsage, "cannot tell this modbay's path: %v", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	args, err := o.serveArgs()
	if err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	if !o.Write {
		if o.Client == "claude-code" {
			line := "claude mcp add"
			if o.Scope != "" {
				line += " --scope " + o.Scope
			}
			line += " modbay -- " + shellWords(append([]string{exe}, args...))
			fmt.Fprintln(o.IO.Out, line)
			return nil
		}
		text, _ := c.entry(exe, args, nil, nil)
		fmt.Fprintf(o.IO.Out, "# %s\n%s", c.where(o.Scope), text)
		return nil
	}
	path := o.File
	if path == "" {
		if path, err = c.path(o.Scope, o.Workspace); err != nil {
			return withCode(ExitUsage, "%v", err)
		}
	}
	var keys []string // where the entry goes: c.key at the top, or under a project
	if o.Scope == "local" {
		dir := o.Workspace
		if dir == "" {
			if dir, err = os.Getwd(); err != nil {
				return withCode(ExitUsage, "%v", err)
			}
		}
		keys = []string{"projects", dir, c.key}
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return withCode(ExitUsage, "%v", err)
	}
	merged, err := c.entry(exe, args, old, keys)
	if err != nil {
		return withCode(ExitUsage, "%s: %v", path, err)
	}
	if bytes.Equal(merged, old) {
		fmt.Fprintf(o.IO.Out, "%s already has this modbay entry\n", path)
		return nil
	}
	mode := os.FileMode(0o600)
	if old != nil {
		if st, err := os.Stat(path); err == nil {
			mode = st.Mode().Perm()
		}
		if err := os.WriteFile(path+".bak", old, mode); err != nil {
			return withCode(ExitUsage, "backup: %v", err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	tmp := path + ".modbay-install"
	if err := os.WriteFile(tmp, merged, mode); err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return withCode(ExitUsage, "%v", err)
	}
	if old != nil {
		fmt.Fprintf(o.IO.Out, "wrote the modbay entry to %s (the previous file is %s.bak)\n", path, path)
	} else {
		fmt.Fprintf(o.IO.Out, "wrote the modbay entry to %s\n", path)
	}
	return nil
}

// where says, in a printed entry's first line, which file it goes in.
func (c installClient) where(scope string) string {
	if scope == "user" || scope == "local" || c.project == "" {
		return "in ~/" + filepath.ToSlash(c.user)
	}
	return "in the project's " + filepath.ToSlash(c.project) + " (or ~/" + filepath.ToSlash(c.user) + ")"
}

// path is the client's config file at scope ("" is project where the
// client has one), project files under workspace (else the current folder).
func (c installClient) path(scope, workspace string) (string, error) {
	if scope == "user" || scope == "local" || c.project == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(h, c.user), nil
	}
	if workspace == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		workspace = wd
	}
	return filepath.Join(workspace, c.project), nil
}

// entry is old (a config file's text, nil: none) with the modbay entry
// merged in — under keys when given, else under c.key — and with old nil
// and printing, the entry alone.
func (c installClient) entry(exe string, args []string, old []byte, keys []string) ([]byte, error) {
	if c.key == "" {
		return mergeCodexEntry(old, codexEntry(exe, args)), nil
	}
	e := map[string]any{"command": exe, "args": args}
	if c.typed {
		e["type"] = "stdio"
	}
	b, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	if keys == nil {
		keys = []string{c.key}
	}
	return mcp.MergeClientEntryAt(old, keys, "modbay", b)
}

// codexEntry is Codex's TOML table for modbay.
func codexEntry(exe string, args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = tomlString(a)
	}
	return "[mcp_servers.modbay]\ncommand = " + tomlString(exe) + "\nargs = [" + strings.Join(q, ", ") + "]\n"
}

// tomlString is s as a TOML basic string (JSON's escapes are TOML's).
func tomlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSpace(b.String())
}

// mergeCodexEntry replaces the [mcp_servers.modbay] table of old (its
// lines up to the next table header) with table, or appends it; every
// other line is kept.
func mergeCodexEntry(old []byte, table string) []byte {
	lines := strings.SplitAfter(string(old), "\n")
	var out []string
	found, skipping := false, false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			if skipping {
				out = append(out, "\n") // the blank line before the next table
			}
			skipping = false
			if t == "[mcp_servers.modbay]" {
				found, skipping = true, true
				out = append(out, table)
				continue
			}
		}
		if !skipping {
			out = append(out, l)
		}
	}
	s := strings.Join(out, "")
	if !found {
		if s != "" && !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		if s != "" {
			s += "\n"
		}
		s += table
	}
	return []byte(s)
}

// shellWords quotes each word for a POSIX shell when it needs quoting.
func shellWords(ws []string) string {
	q := make([]string, len(ws))
	for i, w := range ws {
		if w != "" && strings.IndexFunc(w, func(r rune) bool {
			return !(r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r == '=' || r == '+' || r == ',' || r == '@' ||
				r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) < 0 {
			q[i] = w
		} else {
			q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}
