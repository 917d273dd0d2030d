package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"modbay/history"
	"modbay/runner"
	"modbay/schema"
)

// RerunOptions is what `modbay rerun` was asked to do.
type RerunOptions struct {
	Invoke *InvokeOptions
	// RunID is the recorded run to repeat.
	RunID string
}

// newRerunCommand builds `modbay rerun RUN`; runF, when non-nil, replaces
// rerunRun.
func newRerunCommand(g *globals, runF func(context.Context, *RerunOptions) error) *cobra.Command {
	inv := &InvokeOptions{IO: g.io, G: g}
	opts := &RerunOptions{Invoke: inv}
	cmd := &cobra.Command{
		Use:   "rerun RUN",
		Short: "Run a recorded run again, with its input as recorded",
		Long: `Plan the recorded run's capability again with its input as it was recorded
(or --input), checked against the capability's request schema as it is today:
the differences are printed and an input today's schema refuses runs nothing
(exit 5). Values the schema marks secret (writeOnly, format: password) were
never recorded: pass them with --input. Artifacts handed to the run
(--artifact) are handed again from the history. Approval works as for invoke:
a call that needs it runs only with --yes. The new run is recorded as a
re-run of RUN. Exit status as for modbay invoke.`,
		Example: `  modbay rerun req_0123456789abcdef0123456789abcdef
  modbay rerun req_0123456789abcdef0123456789abcdef --yes --input '{"pattern":"*.txt"}'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.RunID = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return rerunRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&inv.Input, "input", "i", "", "the input instead of the recorded one: JSON text, @FILE, or @- for standard input")
	f.BoolVarP(&inv.Yes, "yes", "y", false, "approve a call that needs approval (network, writes, cost, credentials)")
	f.BoolVar(&inv.JSON, "json", false, "print the outcome as JSON")
	f.BoolVarP(&inv.Verbose, "verbose", "v", false, "stream the module's stderr and job progress while it runs")
	f.BoolVar(&inv.Detach, "detach", false, "for a long-running capability: print the run id once the job's handle arrives and leave it running")
	return cmd
}

// rerunRun reads the record, loads its module, takes the input (recorded
// or --input), prints how it compares with today's schema, hands the
// recorded artifacts again and runs it as invoke does.
func rerunRun(ctx context.Context, o *RerunOptions) error {
	inv := o.Invoke
	s, e, err := inv.G.openHistory(ctx)
	if err != nil {
		return err
	}
	rec, err := historyGet(s, o.RunID)
	if err != nil {
		return err
	}
	m, err := loadRecorded(ctx, e, rec)
	if err != nil {
		return err
	}
	inv.ModuleRef, inv.CapabilityID = rec.Module, rec.Capability
	if m.Origin == runner.OriginFlag {
		inv.ModuleRef = m.Exe // a module loaded by path is repeated by its path
	}
	w := inv.IO.ErrOut
	var raw json.RawMessage
	switch {
	case inv.Input != "":
		if raw, err = readInput(inv.Input, inv.IO.In); err != nil {
			return inv.refuse(usageRefusal("--input: %v", err))
		}
		fmt.Fprintf(w, "re-run of %s (%s %s) with the input given\n", rec.RunID, cleanID(rec.Module), cleanID(rec.Capability))
	case !rec.InputRecorded:
		return inv.refuse(usageRefusal("run %s has no recorded input (%s): pass --input", rec.RunID, clean(rec.NoInputWhy())))
	default:
		raw = history.WithoutRedacted(rec.Input, rec.Redacted)
		fmt.Fprintf(w, "re-run of %s (%s %s) with its input as recorded: %s\n", rec.RunID, cleanID(rec.Module), cleanID(rec.Capability), clean(string(raw)))
		if len(rec.Redacted) > 0 {
			fmt.Fprintf(w, "  secret fields were not recorded and are left out: %s (pass them with --input)\n", clean(strings.Join(rec.Redacted, ", ")))
		}
		if rec.SentUnchecked {
			fmt.Fprintln(w, "  that run was sent anyway, without checking its input against the request schema; a re-run checks it")
		}
	}
	if m.Descriptor != nil {
		if c := m.Descriptor.Capability(rec.Capability); c != nil && c.RequestSchema != "" {
			writeSchemaDiff(w, m.Descriptor.RequestSchemas[c.RequestSchema], raw)
		}
	}
	var handoff []runner.HandoffFile
	for _, h := range rec.Handoff {
		ref, err := history.ParseArtifactRef(h.Origin)
		if err == nil {
			var f runner.HandoffFile
			if f, err = s.HandoffFile(h.Root, ref, e.host.Config().ArtifactsDir()); err == nil {
				handoff = append(handoff, f)
				continue
			}
		}
		return inv.refuse(usageRefusal("the run was handed %s, which cannot be handed again: %v", clean(h.Origin), err))
	}
	return inv.call(ctx, e, m, raw, handoff, history.BeginOptions{Source: history.SourceRerun, RerunOf: rec.RunID})
}

// writeSchemaDiff says whether input still fits the request schema doc as
// it is today, and where it does not.
func writeSchemaDiff(w io.Writer, doc, input json.RawMessage) {
	v, err := schema.ValidateInput(doc, input)
	if err != nil {
		fmt.Fprintf(w, "  today's request schema cannot be read: %s\n", clean(err.Error()))
		return
	}
	if len(v) == 0 {
		fmt.Fprintln(w, "  it still fits today's request schema")
		return
	}
	fmt.Fprintln(w, "  today's request schema differs:")
	for _, e := range v {
		p := e.Path
		if p == "" {
			p = "(root)"
		}
		fmt.Fprintf(w, "    %s: %s\n", clean(p), clean(e.Detail))
	}
}
