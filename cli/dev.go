package cli

import (
	"context"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"modbay/history"
	"modbay/ui"
)

// DevOptions is what `modbay dev` was asked to do: open the cockpit on one
// module and describe it again whenever its files change.
type DevOptions struct {
	IO *ioStreams
	G  *globals
	// Path is the module: its directory (holding an executable of the
	// directory's name) or its executable.
	Path string
}

// newDevCommand builds `modbay dev`; runF, when non-nil, replaces devRun.
func newDevCommand(g *globals, runF func(context.Context, *DevOptions) error) *cobra.Command {
	opts := &DevOptions{IO: g.io, G: g}
	return &cobra.Command{
		Use:   "dev PATH",
		Short: "Open the cockpit on one module and describe it again when its files change",
		Long: `Open the cockpit on the module at PATH (a module directory holding an executable
of the same name, or the executable itself) and nothing else. modbay watches the
module's directory, the launcher's directory and their subdirectories; when a
file there changes it describes the module again, bypassing the describe cache,
and says what changed in the descriptor: capabilities added or removed, request
schemas, effects. A descriptor that has become invalid shows its verdict and the
screens keep the last valid one; fix the file and it is described again.

Runs go through the usual approval, containment and artifact checks.`,
		Example: `  modbay dev ./hello
  modbay dev ~/src/mymodule/mymodule`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Path = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return devRun(cmd.Context(), opts)
		},
	}
}

// devRun checks the terminal and the path, then opens the cockpit in dev
// mode (ui.Options.Dev) on the module's executable.
func devRun(ctx context.Context, o *DevOptions) error {
	abs, err := filepath.Abs(o.Path)
	if err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	if fi.IsDir() {
		abs = filepath.Join(abs, filepath.Base(abs))
	}
	if !o.IO.IsTerminal(o.IO.Out) || !(o.IO.IsTerminal(o.IO.In) || o.IO.CanOpenTTY()) {
		return withCode(ExitUsage, "%s", noTerminalHint)
	}
	if o.IO.Getenv("TERM") == "dumb" {
		return withCode(ExitUsage, "%s", dumbTerminalHint)
	}
	if ran, err := o.IO.superviseTerminal(); ran {
		return err
	}
	// Named as a module, so the examples never stand in for an empty
	// home: the session is about this module.
	o.G.modules = append(o.G.modules, abs)
	e, err := o.G.env(ctx)
	if err != nil {
		return err
	}
	cfg := e.host.Config()
	hist, _ := history.OpenConfig(cfg)
	profile, noColor := o.IO.cockpitColors(o.G.noColor)
	return ui.Run(ctx, e.host, ui.Options{NoColor: noColor, Profile: &profile, History: hist, Dev: abs, Theme: cfg.Theme, Keys: cfg.Keys,
		SkillFolders: skillFolders(cfg, o.G), SkillWritableRoots: writableRoots(cfg), RunSkillScript: scriptRunner(cfg)})
}
