package cli

import (
	"fmt"
	"sort"

	"github.com/spf13/cobra"

	"modbay/runner"
	"modbay/schemalint"
)

func newValidateCommand(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate MODULE|PATH",
		Short: "Check a module against the protocol's rules",
		Long: `Describe the module (bypassing nothing: the same sandbox as a run) and check its
envelope and descriptor against WIRE.md §6 and §9, and its skill and overlay files
against their digests. Every violation is listed with the rule it broke.

It also lints every request schema (package schemalint): schemas that do not
compile, $refs that resolve to nothing, "required" names missing from
"properties", and constructs model-provider tool APIs reject (OpenAI strict
mode's subset). A schema error (does not compile, a $ref that resolves to
nothing) refuses the module, since its capability cannot be invoked; warnings
are printed and do not change the verdict.

Exit status: 0 valid (warnings may be printed), 4 the module is refused.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := g.env(cmd.Context())
			if err != nil {
				return err
			}
			m, err := e.load(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			lint := lintSchemas(m)
			schemaErrors := 0
			for _, f := range lint {
				if f.Severity == schemalint.Error {
					schemaErrors++
				}
			}
			valid := m.Descriptor != nil && len(m.Violations) == 0 && m.Status != "broken" && schemaErrors == 0
			out := cmd.OutOrStdout()
			if asJSON {
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
					fmt.Fprintf(out, "%s: valid (%s)\n", clean(m.ID), m.Status)
				case m.Reason != "" && m.Status == "broken":
					fmt.Fprintf(out, "%s: refused — %s\n", clean(m.ID), clean(m.Reason))
				default:
					fmt.Fprintf(out, "%s: refused — %d request schema error(s): a capability whose schema does not compile cannot be invoked\n", clean(m.ID), schemaErrors)
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
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
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
