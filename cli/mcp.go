package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"modbay/config"
	"modbay/internal/words"
	"modbay/mcp"
	"modbay/render"
	"modbay/runner"
)

// addMCPServers adds cfg's mcp_servers to host as a module source,
// returned (nil when there are none), and stops every server it
// started when the command ends: no server process outlives a command.
func (g *globals) addMCPServers(host *runner.Host, cfg *config.Config) *mcp.Source {
	return g.addMCPServersFrom(host, cfg, nil)
}

// addMCPServersFrom is addMCPServers over a config replacing prev's
// (mcp.NewSourceFrom): unchanged servers keep running, and prev's others
// are stopped.
func (g *globals) addMCPServersFrom(host *runner.Host, cfg *config.Config, prev *mcp.Source) *mcp.Source {
	if len(cfg.MCPServers) == 0 {
		if prev != nil {
			_ = prev.Close()
		}
		return nil
	}
	src := mcp.NewSourceFrom(cfg, nil, prev)
	host.AddSource(src)
	g.mcp = src
	g.cleanups = append(g.cleanups, func() { _ = src.CloseWithin(commandStopGrace) })
	return src
}

// commandStopGrace is how long a server has to exit once a command that
// has printed its answer closes its stdin, before its whole tree is
// killed: the command's exit does not wait out mcp.StopGrace.
const commandStopGrace = 150 * time.Millisecond

// refreshMCP makes the MCP servers' cached tool lists stale, so the next
// discovery lists them again (list --refresh, the cockpit's r).
func (g *globals) refreshMCP() {
	if g.mcp != nil {
		g.mcp.Refresh()
	}
}

// MCPImportOptions is what `modbay mcp import` was asked to do.
type MCPImportOptions struct {
	IO *ioStreams
	G  *globals
	// Files are the client configurations to read; none reads every
	// known location that exists (clientConfigPaths).
	Files []string
	// DryRun lists the servers found and how many would be added, and
	// writes nothing.
	DryRun bool
	// SkipExisting leaves out, without asking, the servers whose id
	// config.yaml already has.
	SkipExisting bool
	// Force replaces the entries of ids config.yaml already has (for
	// scripts); without it a terminal is asked for each, and anything else
	// leaves them out with a message.
	Force bool
	// in reads the person's answers (one reader for every question).
	in *bufio.Reader
}

// reader is the one reader of the person's answers on standard input.
func (o *MCPImportOptions) reader() *bufio.Reader {
	if o.in == nil {
		o.in = bufio.NewReader(o.IO.In)
	}
	return o.in
}

// askStart asks, on a terminal, whether server s gets what its launcher
// (npx, uvx, pipx run, python -m) needs just to start (mcp.StartNeedsOf,
// mcp.GrantStart); without a terminal, on a dry run or an answer other
// than y it gets nothing, and its notes say what to add.
func (o *MCPImportOptions) askStart(s *mcp.Imported) {
	if o.DryRun || !o.IO.IsTerminal(o.IO.In) || !o.IO.IsTerminal(o.IO.Out) {
		return
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return
	}
	n, ok := mcp.StartNeedsOf(s.Server, home)
	if !ok {
		return
	}
	fmt.Fprintf(o.IO.Out, "%s runs with %s, which needs, just to start, %s: grant it for the server's whole life? [y/N] ",
		render.SanitizeLine(s.ID), n.Launcher, render.SanitizeLine(n.What))
	ans, _ := o.reader().ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(ans)); a == "y" || a == "yes" {
		mcp.GrantStart(s, n)
	}
}

// newMCPCommand is `modbay mcp` and its subcommands; importF, surfaceF
// and loginF, when non-nil, replace mcpImportRun, the surface commands'
// run and mcpLoginRun.
func newMCPCommand(g *globals, importF func(context.Context, *MCPImportOptions) error, surfaceF func(context.Context, *MCPSurfaceOptions) error, loginF func(context.Context, *MCPLoginOptions) error) *cobra.Command {
	cmd := &cobra.Command{Use: "mcp", Short: "MCP servers as modules (config.yaml mcp_servers)", Args: cobra.NoArgs}
	o := &MCPImportOptions{IO: g.io, G: g}
	imp := &cobra.Command{
		Use:   "import [FILE...]",
		Short: "Add the MCP servers of Claude Desktop, Claude Code, VS Code, Cursor or Codex to config.yaml",
		Long: `Reads MCP client configurations — Claude Desktop's claude_desktop_config.json,
Claude Code's .mcp.json and ~/.claude.json, VS Code's .vscode/mcp.json (servers and
inputs), Cursor's mcp.json, Codex's ~/.codex/config.toml ([mcp_servers.NAME]) — shows
what it found and adds the servers to config.yaml's mcp_servers. Nothing is run and no variable is expanded. An id config.yaml already has
is never overwritten without asking: on a terminal you are asked for each, --force
replaces them (for scripts), --skip-existing leaves them out, and otherwise they are
left out with a message. An env or header value that looks like a secret is written as
${VAR} when a variable of your environment holds the same value, and flagged when none
does. Without FILE, every known location that exists is read.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Files = args
			if importF != nil {
				return importF(cmd.Context(), o)
			}
			return mcpImportRun(cmd.Context(), o)
		},
	}
	imp.Flags().BoolVar(&o.DryRun, "dry-run", false, "list the servers found and how many would be added to config.yaml; write nothing")
	imp.Flags().BoolVar(&o.SkipExisting, "skip-existing", false, "leave out servers whose id config.yaml already has, without asking")
	imp.Flags().BoolVar(&o.Force, "force", false, "replace the entries of ids config.yaml already has, without asking")
	imp.MarkFlagsMutuallyExclusive("skip-existing", "force")
	cmd.AddCommand(imp, newMCPServeCommand(g), newMCPPinsCommand(g), newMCPInstallCommand(g), newMCPToolsCommand(g))
	addMCPSurfaceCommands(cmd, g, surfaceF)
	addMCPLoginCommands(cmd, g, loginF)
	return cmd
}

// clientConfigPaths are where the clients keep their MCP configuration:
// the project's files first, then the user's.
func clientConfigPaths() []string {
	ps := []string{".mcp.json", filepath.Join(".vscode", "mcp.json"), filepath.Join(".cursor", "mcp.json")}
	if h, err := os.UserHomeDir(); err == nil {
		ps = append(ps,
			filepath.Join(h, ".config", "Claude", "claude_desktop_config.json"),
			filepath.Join(h, ".claude.json"),
			filepath.Join(h, ".cursor", "mcp.json"),
			filepath.Join(h, ".codex", "config.toml"))
	}
	return ps
}

// mcpImportRun reads each file, shows each server found with its notes,
// merges them into config.yaml (mcp.MergeServers) and writes it, unless
// DryRun. Exit 2 when nothing could be read or an id exists.
func mcpImportRun(_ context.Context, o *MCPImportOptions) error {
	home, err := config.ResolveHome(o.G.home)
	if err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	cfg, err := config.Load(home)
	if err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	files := o.Files
	if len(files) == 0 {
		for _, p := range clientConfigPaths() {
			if _, err := os.Stat(p); err == nil {
				files = append(files, p)
			}
		}
		if len(files) == 0 {
			return withCode(ExitUsage, "no MCP client configuration found (looked in %v); name one: modbay mcp import FILE", clientConfigPaths())
		}
	}
	var all []mcp.Imported
	seen := map[string]string{}
	out := o.IO.Out
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			return withCode(ExitUsage, "%v", err)
		}
		f, err := mcp.ParseClientConfig(b)
		if err != nil {
			return withCode(ExitUsage, "%s: %v", file, err)
		}
		f.Place(file)
		fmt.Fprintf(out, "%s (%s): %d %s\n", render.SanitizeLine(file), f.Format, len(f.Servers), words.Plural(len(f.Servers), "server", "servers"))
		for _, s := range f.Servers {
			where := s.Server.URL
			if s.Server.Transport() == "stdio" {
				where = s.Server.Command
			}
			if s.ID == "" {
				// A name of dots or symbols only ("..") leaves no id.
				fmt.Fprintf(out, "  %-20s skipped: the name gives no usable id (letters, digits, '-', '_', '.')\n", render.SanitizeLine(s.Name))
				continue
			}
			if prev, dup := seen[s.ID]; dup {
				fmt.Fprintf(out, "  %-20s skipped: %s already names it\n", render.SanitizeLine(s.ID), render.SanitizeLine(prev))
				continue
			}
			seen[s.ID] = file
			mcp.ReferenceSecrets(&s, o.IO.Environ())
			fmt.Fprintf(out, "  %-20s %s %s\n", render.SanitizeLine(s.ID), s.Server.Transport(), render.SanitizeLine(where))
			for _, n := range s.Notes {
				fmt.Fprintf(out, "  %-20s note: %s\n", "", render.SanitizeLine(n))
			}
			o.askStart(&s)
			all = append(all, s)
		}
	}
	path := filepath.Join(home, config.FileName)
	text, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return withCode(ExitUsage, "%v", err)
	}
	merged, skipped, replaced, err := mcp.MergeServers(text, cfg.MCPServers, all, o.replaceExisting())
	if err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	for _, id := range skipped {
		fmt.Fprintf(out, "left out %s: config.yaml already has it (--force replaces it)\n", render.SanitizeLine(id))
	}
	for _, id := range replaced {
		fmt.Fprintf(out, "replacing %s: config.yaml's entry gives way to the imported one\n", render.SanitizeLine(id))
	}
	added := len(all) - len(skipped)
	if o.DryRun {
		fmt.Fprintf(out, "dry run: would add %d %s to %s\n", added, words.Plural(added, "server", "servers"), path)
		return nil
	}
	if added == 0 {
		fmt.Fprintln(out, "nothing to add")
		return nil
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	tmp := path + ".import"
	if err := os.WriteFile(tmp, merged, 0o600); err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return withCode(ExitUsage, "%v", err)
	}
	fmt.Fprintf(out, "added %d %s to %s\n", added, words.Plural(added, "server", "servers"), path)
	return nil
}

// replaceExisting decides, per id config.yaml already has, whether the
// import replaces it: always with --force, never with --skip-existing or
// without a terminal to ask on (nil), else the person's answer (y/yes);
// a dry run never asks and replaces nothing.
func (o *MCPImportOptions) replaceExisting() func(string) bool {
	switch {
	case o.Force:
		return func(string) bool { return true }
	case o.SkipExisting || o.DryRun || !o.IO.IsTerminal(o.IO.In) || !o.IO.IsTerminal(o.IO.Out):
		return nil
	}
	return func(id string) bool {
		fmt.Fprintf(o.IO.Out, "config.yaml already has mcp_servers.%s: replace it with the imported one? [y/N] ", render.SanitizeLine(id))
		ans, _ := o.reader().ReadString('\n')
		ans = strings.ToLower(strings.TrimSpace(ans))
		return ans == "y" || ans == "yes"
	}
}
