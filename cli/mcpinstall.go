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
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
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
	// Force replaces a modbay entry the file has that differs from this
	// one; without it such a file is left as it is.
	Force bool
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
	// cwd: the client starts the server in an entry's "cwd" (VS Code's
	// mcp.json, Codex's config.toml), set to --workspace when given.
	cwd bool
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
		"vscode":         {key: "servers", typed: true, cwd: true, user: filepath.Join(appSupport, "Code", "User", "mcp.json"), project: filepath.Join(".vscode", "mcp.json")},
		"cursor":         {key: "mcpServers", user: filepath.Join(".cursor", "mcp.json"), project: filepath.Join(".cursor", "mcp.json")},
		"codex":          {cwd: true, user: filepath.Join(".codex", "config.toml")},
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
instead — a backup first (FILE.bak, else the first free FILE.bak.N: an earlier
backup is never replaced), the file's other entries and comments kept — at
--scope user or project (default project: under --workspace, else the current
folder) for the clients that have both; claude-desktop and codex have only user.
claude-code also has --scope local: the entry in ~/.claude.json for this project
only (the folder --workspace names, else the current one), as claude mcp add's
default scope keeps it. A modbay entry the file already has that differs from
this one is shown and left as it is unless --force is given. For vscode and
codex, whose entries have a working directory, --workspace is also the entry's
cwd. When printing, standard output is only the entry; the file it goes in is
said on standard error.`,
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
	f.BoolVar(&o.Force, "force", false, "with --write: replace a different modbay entry the file already has")
	return cmd
}

// serveArgs are the arguments the client passes to modbay.
func (o *MCPInstallOptions) serveArgs() ([]string, error) {
	args := []string{"mcp", "serve"}
	home, err := config.ResolveHome(o.G.home)
	if err != nil {
		return nil, err
	}
	def, derr := config.DefaultHome()
	if derr != nil || def != home {
		args = append(args, "--home", home)
	}
	if o.Workspace != "" {
		args = append(args, "--workspace", o.Workspace)
	}
	return args, nil
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
		text, _ := c.entry(exe, args, o.Workspace, nil, nil)
		fmt.Fprintf(o.IO.ErrOut, "# %s\n", c.where(o.Scope))
		o.IO.Out.Write(text)
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
	merged, err := c.entry(exe, args, o.Workspace, old, keys)
	if err != nil {
		return withCode(ExitUsage, "%s: %v", path, err)
	}
	cur, same, err := c.current(old, keys, exe, args, o.Workspace)
	if err != nil {
		return withCode(ExitUsage, "%s: %v", path, err)
	}
	if bytes.Equal(merged, old) || same {
		fmt.Fprintf(o.IO.Out, "%s already has this modbay entry\n", path)
		return nil
	}
	if cur != "" && !o.Force {
		fmt.Fprintf(o.IO.ErrOut, "%s already has a different modbay entry:\n%s\nthis modbay's would be:\n%s\nNothing was written: pass --force to replace it.\n",
			path, indentLines(cur), indentLines(c.printed(exe, args, o.Workspace)))
		return silentExit(ExitUsage)
	}
	// A new project file is shared with the project (0644: the entry
	// holds no secret), a user's file is the user's alone; an existing
	// file keeps its mode.
	mode, dirMode := os.FileMode(0o600), os.FileMode(0o700)
	if o.Scope != "user" && o.Scope != "local" && c.project != "" {
		mode, dirMode = 0o644, 0o755
	}
	backup := ""
	if old != nil {
		if st, err := os.Stat(path); err == nil {
			mode = st.Mode().Perm()
		}
		if backup, err = writeBackup(path, old, mode); err != nil {
			return withCode(ExitUsage, "backup: %v", err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), dirMode); err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	tmp := path + ".modbay-install"
	if err := os.WriteFile(tmp, merged, mode); err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	if old != nil { // the file's own mode, whatever the umask
		if err := os.Chmod(tmp, mode); err != nil {
			_ = os.Remove(tmp)
			return withCode(ExitUsage, "%v", err)
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return withCode(ExitUsage, "%v", err)
	}
	if cur != "" {
		fmt.Fprintf(o.IO.Out, "replaced (--force) the modbay entry of %s, which was:\n%s\n", path, indentLines(cur))
	}
	if old != nil {
		fmt.Fprintf(o.IO.Out, "wrote the modbay entry to %s (the previous file is %s)\n", path, backup)
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
// and printing, the entry alone. cwd is the entry's working directory
// ("": none) for clients that have one.
func (c installClient) entry(exe string, args []string, cwd string, old []byte, keys []string) ([]byte, error) {
	if c.key == "" {
		return mergeCodexEntry(old, codexEntry(exe, args, c.cwdOf(cwd))), nil
	}
	b, err := json.Marshal(c.jsonEntry(exe, args, cwd))
	if err != nil {
		return nil, err
	}
	if keys == nil {
		keys = []string{c.key}
	}
	return mcp.MergeClientEntryAt(old, keys, "modbay", b)
}

// cwdOf is cwd when the client's entries have a working directory.
func (c installClient) cwdOf(cwd string) string {
	if !c.cwd {
		return ""
	}
	return cwd
}

// jsonEntry is the modbay entry of a JSON client.
func (c installClient) jsonEntry(exe string, args []string, cwd string) map[string]any {
	e := map[string]any{"command": exe, "args": args}
	if c.typed {
		e["type"] = "stdio"
	}
	if cwd = c.cwdOf(cwd); cwd != "" {
		e["cwd"] = cwd
	}
	return e
}

// printed is the modbay entry alone as text, as the file would hold it.
func (c installClient) printed(exe string, args []string, cwd string) string {
	if c.key == "" {
		return codexEntry(exe, args, c.cwdOf(cwd))
	}
	b, _ := json.MarshalIndent(c.jsonEntry(exe, args, cwd), "", "  ")
	return string(b)
}

// current is the modbay entry old already has under keys (else c.key),
// as text ("" when it has none), and whether it is the same as this one
// (the same members and values, however laid out).
func (c installClient) current(old []byte, keys []string, exe string, args []string, cwd string) (string, bool, error) {
	if c.key == "" {
		table := codexTable(old)
		if table == "" {
			return "", false, nil
		}
		var have, want map[string]any
		_, err := toml.Decode(table, &have)
		if _, werr := toml.Decode(codexEntry(exe, args, c.cwdOf(cwd)), &want); err == nil && werr == nil && reflect.DeepEqual(have, want) {
			return table, true, nil
		}
		return table, false, nil
	}
	if keys == nil {
		keys = []string{c.key}
	}
	raw, ok, err := mcp.ClientEntryAt(old, keys, "modbay")
	if err != nil || !ok {
		return "", false, err
	}
	var have, want any
	wb, _ := json.Marshal(c.jsonEntry(exe, args, cwd))
	if json.Unmarshal(raw, &have) == nil && json.Unmarshal(wb, &want) == nil && reflect.DeepEqual(have, want) {
		return string(raw), true, nil
	}
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw), false, nil
	}
	return b.String(), false, nil
}

// writeBackup keeps old, path's text, beside it before path is replaced:
// as path.bak, else the first free path.bak.N, never over an earlier
// backup (one holding the same text is used as it is). It returns the
// backup's path.
func writeBackup(path string, old []byte, mode os.FileMode) (string, error) {
	for n := 0; n < maxBackups; n++ {
		name := path + ".bak"
		if n > 0 {
			name += "." + strconv.Itoa(n)
		}
		if b, err := os.ReadFile(name); err == nil && bytes.Equal(b, old) {
			return name, nil
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(old)
		if err == nil {
			err = f.Chmod(mode) // the file's own mode, whatever the umask
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(name)
			return "", err
		}
		return name, nil
	}
	return "", fmt.Errorf("%s.bak to %s.bak.%d are all taken: remove some", path, path, maxBackups-1)
}

// maxBackups bounds the backups writeBackup looks through.
const maxBackups = 100

// indentLines is text with each line indented by two spaces.
func indentLines(text string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(text, "\n"), "\n", "\n  ")
}

// codexEntry is Codex's TOML table for modbay, with cwd when not "".
func codexEntry(exe string, args []string, cwd string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = tomlString(a)
	}
	t := "[mcp_servers.modbay]\ncommand = " + tomlString(exe) + "\nargs = [" + strings.Join(q, ", ") + "]\n"
	if cwd != "" {
		t += "cwd = " + tomlString(cwd) + "\n"
	}
	return t
}

// isModbayTable reports whether a TOML line (trimmed) opens the modbay
// table or one of its subtables ([mcp_servers.modbay.env]).
func isModbayTable(t string) bool {
	return t == "[mcp_servers.modbay]" || strings.HasPrefix(t, "[mcp_servers.modbay.")
}

// codexTable is the text of old's modbay table and its subtables ("":
// none), each up to the next other table.
func codexTable(old []byte) string {
	var out []string
	in := false
	for _, l := range strings.SplitAfter(string(old), "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "[") {
			in = isModbayTable(t)
		}
		if in {
			out = append(out, l)
		}
	}
	return strings.TrimRight(strings.Join(out, ""), "\n")
}

// tomlString is s as a TOML basic string (JSON's escapes are TOML's).
func tomlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSpace(b.String())
}

// mergeCodexEntry replaces the [mcp_servers.modbay] table of old and its
// subtables (their lines up to the next other table header) with table,
// or appends it; every other line is kept.
func mergeCodexEntry(old []byte, table string) []byte {
	lines := strings.SplitAfter(string(old), "\n")
	var out []string
	found, skipping := false, false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			if isModbayTable(t) {
				if !found {
					out = append(out, table)
				}
				found, skipping = true, true
				continue
			}
			if skipping {
				out = append(out, "\n") // the blank line before the next table
			}
			skipping = false
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
