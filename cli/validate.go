package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newValidateCommand(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate MODULE|PATH",
		Short: "Check a module against the protocol's rules",
		Long: `Describe the module (bypassing nothing: the same sandbox as a run) and check its
envelope and descriptor against WIRE.md §6 and §9, and its skill and overlay files
against their digests. Every violation is listed with the rule it broke.

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
			valid := m.Descriptor != nil && len(m.Violations) == 0 && m.Status != "broken"
			out := cmd.OutOrStdout()
			if asJSON {
				j := struct {
					Valid bool `json:"valid"`
					moduleJSON
				}{valid, toJSON(m, false)}
				if err := writeJSON(out, j); err != nil {
					return err
				}
			} else {
				if valid {
					fmt.Fprintf(out, "%s: valid (%s)\n", clean(m.ID), m.Status)
				} else {
					fmt.Fprintf(out, "%s: refused — %s\n", clean(m.ID), clean(m.Reason))
				}
				for _, v := range m.Violations {
					fmt.Fprintf(out, "  violation: %s\n", clean(v.Error()))
				}
				for _, w := range m.Warnings {
					fmt.Fprintf(out, "  warning:   %s\n", clean(w))
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
