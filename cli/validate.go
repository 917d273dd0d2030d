package cli

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

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
when its key matches: --no-cache describes afresh, and --json's "cached" says which
it was) and check its envelope and descriptor against the protocol's rules
(docs/modules.md#the-envelope, docs/modules.md#the-descriptor), and its skill and
overlay files against their digests. Every violation is listed once, at its path,
with the rule it broke.

Strict: a key the protocol does not define is reported with the closest known
name ("netwrok": did you mean "network"?). In effects and permissions, which
decide what a call is approved for, it refuses the module; elsewhere it is a
warning (requirements' "required" and "for" are kept, not reported). A value of
the wrong JSON type is named with the type expected. A descriptor without
capabilities, and request schemas no capability references, are warnings.

It also lints every request schema (package schemalint): schemas that do not
compile, $refs that resolve to nothing, "required" names missing from
"properties" or forbidden by additionalProperties: false (directly or through
then/else, allOf, dependentRequired), $ref cycles no finite input satisfies,
keys that are no JSON Schema keyword ("minimun": did you mean "minimum"?), and
constructs model-provider tool APIs reject (OpenAI strict
mode's subset). A request schema that does not compile (a $ref that resolves
to nothing included) refuses the module, since its capability cannot be
invoked: the same verdict list and the cockpit show. Other findings are
printed and do not change the verdict.

Exit status: 0 valid (warnings may be printed), 4 the module or any of its
capabilities is refused (the schema findings that cause it are errors).`,
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
	lint := runner.LintRequestSchemas(ctx, m)
	markRefusalCauses(m, lint)
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
		writeVerdict(out, m, valid, lint)
	}
	if !valid || len(m.Refused) > 0 {
		return silentExit(ExitHostVerdict)
	}
	return nil
}

// refusalLintRules are the lint rules that explain why no input satisfies a
// schema: a misspelled keyword ("propertes") is one.
var refusalLintRules = []string{schemalint.RuleRequired, schemalint.RuleCycle, schemalint.RuleKeyword}

// markRefusalCauses makes the findings that explain a refused capability
// errors: the schema of a capability no input reaches, a rule that can
// cause that.
func markRefusalCauses(m *runner.Module, lint []schemalint.Finding) {
	if m.Descriptor == nil || len(m.Refused) == 0 {
		return
	}
	refused := map[string]bool{}
	for _, c := range m.Descriptor.Capabilities {
		if _, ok := m.Refused[c.ID]; ok {
			refused[c.RequestSchema] = true
		}
	}
	for i, f := range lint {
		if refused[f.Schema] && slices.Contains(refusalLintRules, f.Rule) {
			lint[i].Severity = schemalint.Error
		}
	}
}

// writeVerdict prints validate's text account: the verdict on one line,
// then each violation, warning and schema finding once. When the runner's
// one-line reason summarizes an item listed below (the first violation, a
// request schema that does not compile), the verdict line keeps only the
// reason's lead and that item is listed as the error it is, so nothing
// prints twice.
func writeVerdict(out io.Writer, m *runner.Module, valid bool, lint []schemalint.Finding) {
	id := cleanID(m.ID)
	warnings := slices.Clone(m.Warnings)
	var causes []string
	if !valid {
		for _, v := range m.Violations {
			causes = append(causes, v.Error())
		}
		// A refusal whose reason quotes a warning (a request schema that
		// does not compile) lists that warning as its cause.
		warnings = slices.DeleteFunc(warnings, func(w string) bool {
			if strings.Contains(m.Reason, w) {
				causes = append(causes, w)
				return true
			}
			return false
		})
	}
	switch {
	case valid && len(m.Refused) > 0:
		// The module stays usable; the capabilities no input can reach
		// are refused (the schema findings below say why, once).
		caps := slices.Sorted(maps.Keys(m.Refused))
		whose := "its request schema"
		if len(caps) > 1 {
			whose = "their request schemas"
		}
		fmt.Fprintf(out, "%s: valid (%s); %s refused, as no input satisfies %s: %s (fix the schema errors below)\n", id, m.Status,
			count(len(caps), "capability", "capabilities"), whose, clean(strings.Join(caps, ", ")))
	case valid:
		fmt.Fprintf(out, "%s: valid (%s)\n", id, m.Status)
	case len(causes) > 0:
		lead := m.Reason
		if i := strings.Index(lead, causes[0]); i >= 0 {
			lead = strings.TrimRight(strings.TrimSpace(lead[:i]), ":")
		}
		fmt.Fprintf(out, "%s: refused — %s: %s\n", id, clean(lead), count(len(causes), "error", "errors"))
	default:
		fmt.Fprintf(out, "%s: refused — %s\n", id, clean(m.Reason))
	}
	for _, c := range causes {
		fmt.Fprintf(out, "  error:     %s\n", clean(c))
	}
	for _, w := range warnings {
		fmt.Fprintf(out, "  warning:   %s\n", clean(w))
	}
	for _, f := range lint {
		fmt.Fprintf(out, "  schema:    %s\n", clean(f.String()))
	}
}
