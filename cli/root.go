package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"modbay/config"
	"modbay/examples"
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
}

// env is what a command works with once flags are read: the host and a note
// for the person when the built-in examples stand in for an empty home.
type env struct {
	host   *runner.Host
	banner string
}

// Execute runs the modbay command line with args (without the program name)
// and returns the process exit code (see the Exit constants).
func Execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := NewRootCommand(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	code := codeOf(err)
	if msg := err.Error(); msg != "" {
		fmt.Fprintln(stderr, "modbay:", msg)
	}
	return code
}

// NewRootCommand builds the root command and its subcommands, writing to
// stdout and stderr.
func NewRootCommand(stdout, stderr io.Writer) *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:   "modbay",
		Short: "A terminal cockpit for xibodev.module/v1 modules",
		Long: `modbay finds the modules installed in its home, describes and validates them,
builds a form from each capability's request schema, asks before a call may cost
money, reach the network or write outside, runs the module with the host's
guarantees and renders its artifacts.

Run without a command to open the cockpit. When the home has no modules, the
built-in example modules are shown.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := g.env(cmd.Context())
			if err != nil {
				return err
			}
			return ui.Run(cmd.Context(), e.host, ui.Options{Banner: e.banner, NoColor: g.noColor || os.Getenv("NO_COLOR") != ""})
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return withCode(ExitUsage, "%v", err) })
	pf := root.PersistentFlags()
	pf.StringVar(&g.home, "home", "", "modbay home (default $MODBAY_HOME, $FACET_STUDIO_HOME, then ~/.local/share/modbay)")
	pf.StringVar(&g.workspace, "workspace", "", "directory supplied to modules as the workspace root (default <home>/workspace)")
	pf.StringArrayVar(&g.modules, "module", nil, "also load the module executable at `PATH` (repeatable)")
	pf.BoolVar(&g.examples, "examples", false, "use the built-in example modules even when the home has modules")
	pf.BoolVar(&g.noColor, "no-color", false, "no colors (also when NO_COLOR is set)")
	root.AddCommand(
		newListCommand(g),
		newDescribeCommand(g),
		newValidateCommand(g),
		newInvokeCommand(g),
		newRenderCommand(g),
		newExampleModuleCommand(),
	)
	return root
}

// env resolves the home and configuration, falling back to the demo home of
// built-in examples when the home has no modules (or --examples).
func (g *globals) env(ctx context.Context) (*env, error) {
	home, err := config.ResolveHome(g.home)
	if err != nil {
		return nil, withCode(ExitUsage, "%v", err)
	}
	e := &env{}
	if g.examples || (!hasModules(home) && len(g.modules) == 0) {
		demo, err := demoHome()
		if err != nil {
			return nil, withCode(ExitUsage, "preparing the example modules: %v", err)
		}
		if g.examples {
			e.banner = "Showing the built-in example modules (--examples)."
		} else {
			e.banner = fmt.Sprintf("No modules in %s; showing the built-in examples.", home)
		}
		home = demo
	}
	cfg, err := config.Load(home)
	if err != nil {
		return nil, withCode(ExitUsage, "%v", err)
	}
	if g.workspace != "" {
		ws, err := filepath.Abs(g.workspace)
		if err != nil {
			return nil, withCode(ExitUsage, "--workspace: %v", err)
		}
		cfg.Workspace = ws
	}
	e.host = runner.NewHost(cfg)
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
	_ = ctx
	return e, nil
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

// demoHome writes the built-in examples' launchers into the per-user demo
// home ($XDG_CACHE_HOME/modbay/demo-home) and returns it. The launchers
// re-execute this binary, so they are rewritten on every start.
func demoHome() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "modbay", "demo-home")
	if err := examples.InstallDemoHome(dir, exe); err != nil {
		return "", err
	}
	return dir, nil
}

// load finds a module by id or executable path, mapping "not found" to a
// usage error.
func (e *env) load(ctx context.Context, ref string) (*runner.Module, error) {
	m, err := e.host.Load(ctx, ref)
	if err != nil {
		return nil, withCode(ExitUsage, "%v", err)
	}
	return m, nil
}

// newExampleModuleCommand is the hidden entry point the example modules'
// launchers call: `modbay example-module <id> module describe|invoke ...`.
func newExampleModuleCommand() *cobra.Command {
	return &cobra.Command{
		Use:                "example-module ID module (describe --json | invoke CAPABILITY --input FILE)",
		Short:              "Run a built-in example module (used by its launcher)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := examples.Main(args, cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
				return silentExit(code)
			}
			return nil
		},
	}
}
