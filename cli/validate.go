package cli

import (
	"context"
	"fmt"
	"sort"

	"github.com/spf13/cobra"

	"modbay/runner"
	"modbay/schemalint"
)

// ValidateOptions is what `modbay validate` was asked to do.
type ValidateOptions struct {
	IO *ioStreams
	G  *globals
	// Ref is a module id or an executable path.
	Ref string
	// JSON prints the verdict, the module and the schema lint as JSON.
	JSON bool
}

// newValidateCommand builds `modbay validate`; runF, when non-nil,
// replaces validateRun.
func newValidateCommand(g *globals, runF func(context.Context, *ValidateOptions) error) *cobra.Command {
	opts := &ValidateOptions{IO: g.io, G: g}
	cmd := &cobra.Command{
		Use:   "validate MODULE|PATH",
		Short: "Check a module against the protocol's rules",
		Long: `Describe the module (in the same sandbox as a run; the describe cache answers
when its key matches, WIRE.md §2: --no-cache describes afresh, and --json's
"cached" says which it was) and check its envelope and descriptor against WIRE.md §6 and §9, and its skill and overlay files
against their digests. Every violation is listed with the rule it broke.

It also lints every request schema (package schemalint): schemas that do not
compile, $refs that resolve to nothing, "required" names missing from
"properties", and constructs model-provider tool APIs reject (OpenAI strict
mode's subset). A request schema that does not compile (a $ref that resolves
to nothing included) refuses the module, since its capability cannot be
invoked: the same verdict list and the cockpit show. Other findings are
printed and do not change the verdict.

Exit status: 0 valid (warnings may be printed), 4 the module is refused.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return validateRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

// validateRun loads one module, lints its request schemas and prints the
// verdict: valid, or refused with every violation; refused exits with a
// host verdict.
func validateRun(ctx context.Context, o *ValidateOptions) error {
	e, err := o.G.env(ctx)
	if err != nil {
		return err
	}
	m, err := e.load(ctx, o.Ref)
	if err != nil {
		return err
	}
	lint := lintSchemas(m)
	// One verdict everywhere: the runner's, reached at discovery (request
	// schemas that do not compile refuse the module there); the lint adds
	// findings, never a second verdict.
	valid := m.Descriptor != nil && m.Status != runner.StatusBroken
	out := o.IO.Out
	if o.JSON {
		j := struct {
			Valid bool `json:"valid"`
			moduleJSON
			SchemaLint []schemalint.Finding `json:"schema_lint"`
		}{valid, toJSON(m, false), lint}
		if err := writeJSON(out, j); err != nil {
			return err
		}
	} else {
		switch {
		case valid:
			fmt.Fprintf(out, "%s: valid (%s)\n", cleanID(m.ID), m.Status)
		default:
			fmt.Fprintf(out, "%s: refused — %s\n", cleanID(m.ID), clean(m.Reason))
		}
		for _, v := range m.Violations {
			fmt.Fprintf(out, "  violation: %s\n", clean(v.Error()))
		}
		for _, w := range m.Warnings {
			fmt.Fprintf(out, "  warning:   %s\n", clean(w))
		}
		for _, f := range lint {
			fmt.Fprintf(out, "  schema:    %s\n", clean(f.String()))
		}
	}
	if !valid {
		return silentExit(ExitHostVerdict)
	}
	return nil
}

// lintSchemas lints every request schema of m's descriptor, by schema id.
func lintSchemas(m *runner.Module) []schemalint.Finding {
	out := []schemalint.Finding{}
	if m.Descriptor == nil {
		return out
	}
	ids := make([]string, 0, len(m.Descriptor.RequestSchemas))
	for id := range m.Descriptor.RequestSchemas {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		out = append(out, schemalint.Lint(id, m.Descriptor.RequestSchemas[id])...)
	}
	return out
}
