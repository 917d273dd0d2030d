package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"modbay/approval"
	"modbay/config"
	"modbay/examples"
	"modbay/history"
	"modbay/mcp"
	"modbay/render"
	"modbay/runner"
	"modbay/ui"
)

// globals are the flags every command shares.
type globals struct {
	home      string
	workspace string
	modules   []string
	examples  bool
	noColor   bool
	noCache   bool
	// skills are --skills folders (docs/skills.md).
	skills []string
	// io is where every command reads and writes.
	io *ioStreams
	// cleanups run when the command ends (a check's workspace, MCP
	// sessions).
	cleanups []func()
	// mcp is the MCP servers' source once env added it (nil without
	// mcp_servers).
	mcp *mcp.Source
	// rep are the flags of the lines this command prints to be run again
	// (runner.Host.Repeat), set by env.
	rep *runner.Globals
}

// repeat are the global flags every line a command prints to be run again
// carries (runner.Globals.Line): the host's once env ran, else those of
// the home and workspace the flags name.
func (g *globals) repeat() runner.Globals {
	if g.rep != nil {
		return *g.rep
	}
	home, err := config.ResolveHome(g.home)
	if err != nil {
		return runner.Globals{}
	}
	cfg, err := config.Load(home)
	if err != nil {
		return runner.Globals{Home: home}
	}
	if g.workspace != "" {
		if ws, err := filepath.Abs(g.workspace); err == nil {
			cfg.Workspace = ws
		}
	}
	return runner.GlobalsOf(cfg)
}

// env is what a command works with once flags are read: the host and a note
// for the person when the built-in examples stand in for an empty home.
type env struct {
	host   *runner.Host
	banner string
	// mcp is the source of the config's mcp_servers (nil: none).
	mcp *mcp.Source
	// examples is whether the built-in examples are among the host's
	// modules (an empty home, or --examples).
	examples bool
}

// Execute runs the modbay command line with args (without the program name)
// and returns the process exit code (see the Exit constants).
func Execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return execute(ctx, args, systemStreams(stdout, stderr), nil)
}

// execute is Execute with the streams and, for tests, the commands' run
// functions replaced (nil hooks run everything for real).
func execute(ctx context.Context, args []string, ios *ioStreams, hooks *runHooks) (code int) {
	root, g := newRoot(ios, hooks)
	root.SetArgs(args)
	defer func() {
		// modbay's own crash on this goroutine: its own exit code, with
		// the stack for a bug report (the cockpit restored the terminal).
		if r := recover(); r != nil {
			fmt.Fprintf(ios.ErrOut, "modbay: internal error: %s\n%s", render.Sanitize(fmt.Sprint(r)), debug.Stack())
			code = ExitCrash
		}
	}()
	err := root.ExecuteContext(ctx)
	for _, c := range g.cleanups {
		c()
	}
	history.Flush()
	runner.FlushRunDirs()
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, tea.ErrProgramPanic) {
		fmt.Fprintln(ios.ErrOut, "modbay: internal error: the cockpit crashed (the panic is above)")
		return ExitCrash
	}
	code = codeOf(err)
	// An error can quote a module's output (a verdict, a path): it is
	// sanitized like every other module string.
	if msg := err.Error(); msg != "" {
		fmt.Fprintln(ios.ErrOut, "modbay:", render.Sanitize(msg))
	}
	return code
}

// NewRootCommand builds the root command and its subcommands, writing to
// stdout and stderr.
func NewRootCommand(stdout, stderr io.Writer) *cobra.Command {
	root, _ := newRoot(systemStreams(stdout, stderr), nil)
	return root
}

// runHooks replace commands' run functions (cli/cli's runF): a test
// builds the real command line, parses flags and arguments into each
// command's options, and checks them without running anything. A nil
// field runs the command for real.
type runHooks struct {
	cockpit   func(context.Context, *CockpitOptions) error
	list      func(context.Context, *ListOptions) error
	describe  func(context.Context, *DescribeOptions) error
	validate  func(context.Context, *ValidateOptions) error
	invoke    func(context.Context, *InvokeOptions) error
	dev       func(context.Context, *DevOptions) error
	render    func(context.Context, *RenderOptions) error
	doctor    func(context.Context, *DoctorOptions) error
	new       func(context.Context, *NewOptions) error
	check     func(context.Context, *CheckOptions) error
	rerun     func(context.Context, *RerunOptions) error
	mcpImport func(context.Context, *MCPImportOptions) error
	// mcpSurface is mcp resources, read, prompts and prompt, told apart
	// by MCPSurfaceOptions.Command.
	mcpSurface func(context.Context, *MCPSurfaceOptions) error
	// mcpLogin is login and logout, told apart by MCPLoginOptions.Logout.
	mcpLogin func(context.Context, *MCPLoginOptions) error
	// history is the list; the subcommands share historyRun, told apart
	// by HistoryRunOptions.Command.
	history    func(context.Context, *HistoryOptions) error
	historyRun func(context.Context, *HistoryRunOptions) error
	// jobs is the list and every subcommand, told apart by JobsOptions.Command.
	jobs func(context.Context, *JobsOptions) error
	// skills is the list and every subcommand, told apart by SkillsOptions.Command.
	skills func(context.Context, *SkillsOptions) error
	// exampleModule is the hidden entry of the built-in examples' launchers.
	exampleModule func(context.Context, *ExampleModuleOptions) error
}

// CockpitOptions is what `modbay` without a command was asked to do: open
// the cockpit.
type CockpitOptions struct {
	IO *ioStreams
	G  *globals
}

// newRoot builds the root command and the globals its flags fill; hooks
// may be nil.
func newRoot(ios *ioStreams, hooks *runHooks) (*cobra.Command, *globals) {
	if hooks == nil {
		hooks = &runHooks{}
	}
	g := &globals{io: ios}
	cockpit := &CockpitOptions{IO: ios, G: g}
	root := &cobra.Command{
		Use:   "modbay",
		Short: "A terminal cockpit for xibodev.module/v1 modules",
		Long: `modbay finds the modules installed in its home, describes and validates them,
builds a form from each capability's request schema, asks before a call may cost
money, reach the network or write outside, runs the module with the host's
guarantees and renders its artifacts.

Run without a command to open the cockpit. When the home has no modules, the
built-in example modules are shown. The cockpit needs a terminal (over SSH,
ssh -t) that is not TERM=dumb; the commands work anywhere.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if hooks.cockpit != nil {
				return hooks.cockpit(cmd.Context(), cockpit)
			}
			return cockpitRun(cmd.Context(), cockpit)
		},
	}
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return withCode(ExitUsage, "%v", err) })
	pf := root.PersistentFlags()
	pf.StringVar(&g.home, "home", "", homeFlagUsage())
	pf.StringVar(&g.workspace, "workspace", "", "directory supplied to modules as the workspace root (default <home>/workspace)")
	pf.StringArrayVar(&g.modules, "module", nil, "also load the module executable at `PATH` (repeatable)")
	pf.BoolVar(&g.examples, "examples", false, "use the built-in example modules even when the home has modules")
	pf.BoolVar(&g.noColor, "no-color", false, "no colors (also when NO_COLOR is set)")
	pf.BoolVar(&g.noCache, "no-cache", false, "describe every module afresh, bypassing the describe cache for this command")
	pf.StringArrayVar(&g.skills, "skills", nil, "also look for skills in `DIR` (repeatable)")
	root.AddCommand(
		newListCommand(g, hooks.list),
		newDescribeCommand(g, hooks.describe),
		newValidateCommand(g, hooks.validate),
		newInvokeCommand(g, hooks.invoke),
		newDevCommand(g, hooks.dev),
		newRenderCommand(g, hooks.render),
		newDoctorCommand(g, hooks.doctor),
		newNewCommand(g, hooks.new),
		newHistoryCommand(g, hooks.history, hooks.historyRun), newJobsCommand(g, hooks.jobs), newRerunCommand(g, hooks.rerun),
		newExampleModuleCommand(g, hooks.exampleModule),
		newCheckCommand(g, hooks.check),
		newMCPCommand(g, hooks.mcpImport, hooks.mcpSurface, hooks.mcpLogin),
		newSkillsCommand(g, hooks.skills),
	)
	return root, g
}

// noTerminalHint is what the cockpit says when it has no terminal to draw
// on (ssh host modbay without -t, a pipe, cron).
const noTerminalHint = "no terminal: use ssh -t, or the commands (modbay list, invoke …)"

// dumbTerminalHint is what the cockpit says to TERM=dumb, which cannot
// position the cursor or show a selection.
const dumbTerminalHint = "TERM=dumb cannot show the cockpit: use the commands (modbay list, describe, invoke …), or set TERM to your terminal's type"

// cockpitRun opens the cockpit, after checking it has a terminal: stdout
// must be one, and keys must come from standard input or the controlling
// terminal; bubbletea would otherwise fail with a TTY error. TERM=dumb is
// refused too. Both refusals exit with ExitUsage before anything starts.
func cockpitRun(ctx context.Context, o *CockpitOptions) error {
	if !o.IO.IsTerminal(o.IO.Out) || !(o.IO.IsTerminal(o.IO.In) || o.IO.CanOpenTTY()) {
		return withCode(ExitUsage, "%s", noTerminalHint)
	}
	if o.IO.Getenv("TERM") == "dumb" {
		return withCode(ExitUsage, "%s", dumbTerminalHint)
	}
	if ran, err := o.IO.superviseTerminal(); ran {
		return err
	}
	e, err := o.G.env(ctx)
	if err != nil {
		return err
	}
	cfg := e.host.Config()
	if e.banner == "" {
		e.banner = examplesHiddenNote(cfg.Home, e.examples)
	}
	hist, _ := history.OpenConfig(cfg) // nil: the cockpit records nothing
	// Agents' calls through modbay mcp serve are approved here; a home
	// whose serve folder cannot be made just has no cockpit approvals.
	asks, _ := approval.Listen(filepath.Join(cfg.ServeDir(), approval.SocketsDir), fmt.Sprintf("the cockpit (pid %d)", os.Getpid()))
	if asks != nil {
		defer asks.Close()
	}
	profile, noColor := o.IO.cockpitColors(o.G.noColor)
	return ui.Run(ctx, e.host, ui.Options{Banner: e.banner, NoColor: noColor, Profile: &profile, History: hist, Theme: cfg.Theme, Keys: cfg.Keys,
		SkillFolders: skillFolders(cfg, o.G), SkillWritableRoots: writableRoots(cfg), RunSkillScript: scriptRunner(cfg),
		Reload: o.G.reloader(e), Refresh: o.G.refreshMCP, AgentApprovals: asks,
		AgentTools: agentTools(o.G, func() *runner.Host { return e.host }), AgentSessions: agentSessions(cfg.ServeDir())})
}

// env resolves the home and configuration. When the home has no modules
// (or with --examples) the built-in examples are added as extra modules
// from <home>/examples (installExamples), so the home's own config,
// workspace and artifact store still apply.
func (g *globals) env(ctx context.Context) (*env, error) {
	home, err := config.ResolveHome(g.home)
	if err != nil {
		return nil, withCode(ExitUsage, "%v", err)
	}
	cfg, err := config.Load(home)
	if err != nil {
		return nil, withCode(ExitUsage, "%v", err)
	}
	_ = ctx
	return g.envFor(cfg, nil)
}

// envFor builds the host for cfg (as loaded from cfg.Home) and the
// command line's flags. prev is the env a reload replaces (nil on start):
// its MCP source is kept when cfg's mcp_servers did not change, so servers
// in use are not restarted, and is closed when they did.
func (g *globals) envFor(cfg *config.Config, prev *env) (*env, error) {
	home := cfg.Home
	// Host files an older home kept inside state/ move out of the modules'
	// reach first (docs/protocol.md §13).
	if err := config.MigrateLayout(home); err != nil {
		return nil, withCode(ExitUsage, "moving the home's files to their places (docs/protocol.md §13): %v", err)
	}
	defaultWorkspace := cfg.Workspace == filepath.Join(home, "workspace")
	if g.workspace != "" {
		ws, err := filepath.Abs(g.workspace)
		if err != nil {
			return nil, withCode(ExitUsage, "--workspace: %v", err)
		}
		cfg.Workspace, defaultWorkspace = ws, false
	}
	e := &env{host: runner.NewHost(cfg)}
	rep := e.host.Repeat()
	g.rep = &rep
	e.host.NoCache = g.noCache
	if prev != nil && prev.mcp != nil && reflect.DeepEqual(prev.host.Config().MCPServers, cfg.MCPServers) {
		e.mcp = prev.mcp
		e.host.AddSource(e.mcp)
	} else {
		var was *mcp.Source
		if prev != nil {
			was = prev.mcp
		}
		// Servers whose entries did not change, or changed only in
		// roots, keep their drivers (the latter restarted with them).
		e.mcp = g.addMCPServersFrom(e.host, cfg, was)
	}
	for _, m := range g.modules {
		abs, err := filepath.Abs(m)
		if err != nil {
			return nil, withCode(ExitUsage, "--module %s: %v", m, err)
		}
		if _, err := os.Stat(abs); err != nil {
			return nil, withCode(ExitUsage, "--module: %v", err)
		}
		e.host.AddFlagModules(abs)
	}
	if g.examples || (!hasModules(home) && len(cfg.Modules) == 0 && len(g.modules) == 0 && len(cfg.MCPServers) == 0) {
		dirs, err := installExamples(home)
		if err != nil {
			return nil, withCode(ExitUsage, "preparing the example modules: %v", err)
		}
		e.host.AddExampleModules(dirs...)
		// Their launchers re-execute this binary: describe them here.
		e.host.DescribeExample = examples.Describe
		e.examples = true
		// Sample notes for the notes example, only in the home's own
		// default workspace: never into a directory the person chose.
		if defaultWorkspace {
			if err := examples.SeedWorkspace(cfg.Workspace); err != nil {
				return nil, withCode(ExitUsage, "%v", err)
			}
		}
		if g.examples {
			e.banner = "Showing the built-in example modules too (--examples)."
		} else {
			e.banner = fmt.Sprintf("Showing the built-in examples: no modules in %s.", cfg.ModulesDir())
		}
	}
	return e, nil
}

// reloader is the cockpit's Options.Reload over e: each call reads
// <home>/config.yaml again and builds a new env from it (envFor), which
// the next call replaces in turn. A config that does not load returns its
// error (a *config.FileError naming file:line) and keeps the current env.
// Calls are serialized: two quick r presses must not both replace it.
func (g *globals) reloader(e *env) func(context.Context) (*ui.Reloaded, error) {
	var mu sync.Mutex
	cur := e
	return func(context.Context) (*ui.Reloaded, error) {
		mu.Lock()
		defer mu.Unlock()
		cfg, err := config.Load(cur.host.Config().Home)
		if err != nil {
			return nil, err
		}
		next, err := g.envFor(cfg, cur)
		if err != nil {
			return nil, err
		}
		cur = next
		cfg = next.host.Config()
		if next.banner == "" {
			next.banner = examplesHiddenNote(cfg.Home, next.examples)
		}
		return &ui.Reloaded{Backend: next.host, Workspace: cfg.Workspace, Banner: next.banner,
			SkillFolders: skillFolders(cfg, g), SkillWritableRoots: writableRoots(cfg), RunSkillScript: scriptRunner(cfg)}, nil
	}
}

// hasModules reports whether <home>/modules holds any candidate (a
// non-dot entry).
func hasModules(home string) bool {
	entries, err := os.ReadDir(filepath.Join(home, "modules"))
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			return true
		}
	}
	return false
}

// examplesHiddenNoted is the file under <home>/examples that records that
// the cockpit said once why the examples no longer show.
const examplesHiddenNoted = ".hidden-noted"

// examplesHiddenNote is the cockpit's banner the first time it starts
// without the built-in examples in a home that showed them before (its
// <home>/examples exists): they vanish when the first module is added,
// and the list says why, once. "" otherwise, or when shown.
func examplesHiddenNote(home string, shown bool) string {
	dir := filepath.Join(home, "examples")
	if shown {
		return ""
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return ""
	}
	mark := filepath.Join(dir, examplesHiddenNoted)
	if _, err := os.Lstat(mark); err == nil {
		return ""
	}
	if err := os.WriteFile(mark, nil, 0o600); err != nil {
		return "" // a home that cannot keep the mark is not told each start
	}
	return "The built-in examples show only in an empty home or with --examples (modbay --examples)."
}

// installExamples writes the built-in examples' launchers and bundles for
// this very binary under <home>/examples (examples.InstallBuiltins) and
// returns their module directories. The paths stay put between runs, so
// what `modbay list` shows is a path a person can use.
func installExamples(home string) ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return nil, err
	}
	return examples.InstallBuiltins(home, exe)
}

// load finds a module by id or executable path, mapping "not found" to a
// usage error.
//
// A built-in example's id that no installed module has finds the example
// even when the home has modules (which hides the examples without
// --examples): the lines modbay copies and prints to repeat a run name
// examples by id, and must work as pasted.
func (e *env) load(ctx context.Context, ref string) (*runner.Module, error) {
	m, err := e.host.Load(ctx, ref)
	if errors.Is(err, runner.ErrNotFound) && !e.examples && slices.Contains(examples.IDs(), ref) {
		dirs, ierr := installExamples(e.host.Config().Home)
		if ierr != nil {
			return nil, withCode(ExitUsage, "preparing the example modules: %v", ierr)
		}
		e.host.AddExampleModules(dirs...)
		e.host.DescribeExample = examples.Describe
		e.examples = true
		m, err = e.host.Load(ctx, ref)
	}
	if err != nil {
		return nil, withCode(ExitUsage, "%v", err)
	}
	return m, nil
}

// ExampleModuleOptions are `modbay example-module`'s: the built-in
// module's words as its launcher passed them, unparsed.
type ExampleModuleOptions struct {
	IO *ioStreams
	// Args are `<id> module describe --json` or `<id> module invoke
	// <capability> --input <file>` (examples.Main's argv).
	Args []string
}

// newExampleModuleCommand is the hidden entry point the example modules'
// launchers call: `modbay example-module <id> module describe|invoke ...`;
// runF, when non-nil, replaces exampleModuleRun.
func newExampleModuleCommand(g *globals, runF func(context.Context, *ExampleModuleOptions) error) *cobra.Command {
	opts := &ExampleModuleOptions{IO: g.io}
	return &cobra.Command{
		Use:                "example-module ID module (describe --json | invoke CAPABILITY --input FILE)",
		Short:              "Run a built-in example module (used by its launcher)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Args = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return exampleModuleRun(cmd.Context(), opts)
		},
	}
}

// exampleModuleRun runs the example module o.Args name; its exit code is
// the module's.
func exampleModuleRun(_ context.Context, o *ExampleModuleOptions) error {
	if code := examples.Main(o.Args, o.IO.Out, o.IO.ErrOut); code != 0 {
		return silentExit(code)
	}
	return nil
}

// homeFlagUsage is --home's help: the rule (docs/protocol.md §2) and the
// default home it gives in this environment, the one that applies.
func homeFlagUsage() string {
	u := "modbay home (default $MODBAY_HOME, else $FACET_STUDIO_HOME (an earlier tool's home, same layout), else $XDG_DATA_HOME/modbay when XDG_DATA_HOME is set, else ~/.local/share/modbay"
	if h, err := config.ResolveHome(""); err == nil {
		u += "; here " + h
	}
	return u + ")"
}
