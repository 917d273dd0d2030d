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
	// cleanups run when the command ends (the examples' private
	// directory).
	cleanups []func()
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
	root, g := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	for _, c := range g.cleanups {
		c()
	}
	if err == nil {
		return ExitOK
	}
	code := codeOf(err)
	// An error can quote a module's output (a verdict, a path): it is
	// sanitized like every other module string.
	if msg := err.Error(); msg != "" {
		fmt.Fprintln(stderr, "modbay:", render.Sanitize(msg))
	}
	return code
}

// NewRootCommand builds the root command and its subcommands, writing to
// stdout and stderr.
func NewRootCommand(stdout, stderr io.Writer) *cobra.Command {
	root, _ := newRoot(stdout, stderr)
	return root
}

// newRoot builds the root command and the globals its flags fill.
func newRoot(stdout, stderr io.Writer) (*cobra.Command, *globals) {
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
	return root, g
}

// env resolves the home and configuration. When the home has no modules
// (or with --examples) the built-in examples are added as extra modules
// from a directory private to this process, so the home's own config,
// workspace and artifact store still apply; cleanup removes that directory
// and must be called when the command ends.
func (g *globals) env(ctx context.Context) (*env, error) {
	home, err := config.ResolveHome(g.home)
	if err != nil {
		return nil, withCode(ExitUsage, "%v", err)
	}
	cfg, err := config.Load(home)
	if err != nil {
		return nil, withCode(ExitUsage, "%v", err)
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
	if g.examples || (!hasModules(home) && len(cfg.Modules) == 0 && len(g.modules) == 0) {
		dirs, cleanup, err := installExamples()
		if err != nil {
			return nil, withCode(ExitUsage, "preparing the example modules: %v", err)
		}
		g.cleanups = append(g.cleanups, cleanup)
		e.host.AddExampleModules(dirs...)
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

// installExamples writes the built-in examples' launchers and bundles into
// a fresh directory private to this process and returns their module
// directories and a cleanup that removes it. The launchers re-execute this
// very binary, so no other modbay (another build, a test binary) can
// rewrite them under a running cockpit.
func installExamples() ([]string, func(), error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return nil, nil, err
	}
	dir, err := os.MkdirTemp("", "modbay-examples-")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	dirs, err := examples.InstallModules(dir, exe)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return dirs, cleanup, nil
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
