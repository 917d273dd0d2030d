package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"modbay/conform"
	"modbay/runner"
)

// maxCheckInputShown bounds the input shown on one checklist line, in
// bytes: boundary inputs can be long (a maxLength of thousands).
const maxCheckInputShown = 160

// CheckOptions is what `modbay check` was asked to do.
type CheckOptions struct {
	IO *ioStreams
	G  *globals
	// Ref is a module id or an executable path.
	Ref string
	// Yes runs the capabilities that need approval too.
	Yes bool
	// JSON prints the checklist as JSON.
	JSON bool
}

// newCheckCommand builds `modbay check`; runF, when non-nil, replaces
// checkRun.
func newCheckCommand(g *globals, runF func(context.Context, *CheckOptions) error) *cobra.Command {
	opts := &CheckOptions{IO: g.io, G: g}
	cmd := &cobra.Command{
		Use:   "check MODULE|PATH",
		Short: "Run a module's conformance checklist: describes, verdict and generated calls",
		Long: `Describe the module twice (the same descriptor?), take the validator's verdict,
then call every capability with inputs generated from its request schema: the
schema's examples and defaults, a minimal input, one with every optional field
set, boundary values (minimum/maximum, minLength/maxLength, enum members), one
input the schema refuses, and one capability the module does not have.

Calls run as invoke runs them, with a temporary workspace (removed after; pass
--workspace to use a directory of your own). Capabilities that need approval
run only with --yes. A long-running capability is polled to completion.

Each line is pass, warn, fail or skipped, with the input used:
  fail     a protocol violation, a crash, a refused artifact, a wrong effect,
           invalid input not answered invalid_request, an unknown capability
           not answered unknown_capability
  warn     an error envelope for a generated valid input (it may be valid yet
           meaningless), a validator finding, a descriptor that changes
  skipped  an input modbay cannot generate (a pattern or format), or approval

Exit status: 0 nothing failed, 4 something failed, 2 usage.`,
		Example: `  modbay check ./mymod/mymod
  modbay check notes --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return checkRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "also run the capabilities that need approval (network, writes, cost, credentials)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the checklist as JSON")
	return cmd
}

// checkRun runs the checklist with a temporary workspace unless
// --workspace was given, prints it and exits ExitHostVerdict when an item
// failed.
func checkRun(ctx context.Context, o *CheckOptions) error {
	if o.G.workspace == "" {
		ws, err := os.MkdirTemp("", "modbay-check-workspace-")
		if err != nil {
			return withCode(ExitUsage, "temporary workspace: %v", err)
		}
		o.G.cleanups = append(o.G.cleanups, func() { runner.RemoveTree(ws) })
		o.G.workspace = ws
	}
	e, err := o.G.env(ctx)
	if err != nil {
		return err
	}
	rep, err := conform.Check(ctx, e.host, o.Ref, conform.Options{Yes: o.Yes})
	if err != nil {
		if errors.Is(err, runner.ErrNotFound) {
			return withCode(ExitUsage, "%v", err)
		}
		return withCode(ExitHostVerdict, "%v", err)
	}
	if o.JSON {
		if err := writeJSON(o.IO.Out, struct {
			*conform.Report
			OK bool `json:"ok"`
		}{rep, !rep.Failed()}); err != nil {
			return err
		}
	} else {
		writeChecklist(o.IO.Out, rep)
	}
	if rep.Failed() {
		return silentExit(ExitHostVerdict)
	}
	return nil
}

// writeChecklist prints one line per item — verdict, name, input, detail —
// every module string sanitized, then the totals.
func writeChecklist(w io.Writer, rep *conform.Report) {
	fmt.Fprintf(w, "check %s\n", cleanID(rep.Module))
	for _, it := range rep.Items {
		line := fmt.Sprintf("%-7s %s", it.Status, clean(it.Name))
		if len(it.Input) > 0 {
			in := string(it.Input)
			if len(in) > maxCheckInputShown {
				in = in[:maxCheckInputShown] + "…"
			}
			line += "  input " + clean(in)
		}
		if it.Detail != "" {
			line += "  — " + clean(it.Detail)
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "%d passed, %s, %d failed, %d skipped\n", rep.Count(conform.Pass),
		count(rep.Count(conform.Warn), "warning", "warnings"), rep.Count(conform.Fail), rep.Count(conform.Skipped))
}
