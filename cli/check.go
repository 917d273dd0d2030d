package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

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
	// Deadline bounds each call, its polls included.
	Deadline time.Duration
	// Record, when set, is the directory the run is written to as a
	// fixture; Replay, the directory of a fixture to run again and compare.
	Record, Replay string
	// Ignore lists JSON pointers a replay does not compare.
	Ignore []string
	// Inputs are replay's CAPABILITY=JSON overrides (the secret values a
	// fixture leaves out).
	Inputs []string
}

// newCheckCommand builds `modbay check`; runF, when non-nil, replaces
// checkRun.
func newCheckCommand(g *globals, runF func(context.Context, *CheckOptions) error) *cobra.Command {
	opts := &CheckOptions{IO: g.io, G: g}
	cmd := &cobra.Command{
		Use:   "check MODULE|PATH [--yes] [--json] [--deadline D] [--record DIR | --replay DIR]",
		Short: "Run a module's conformance checklist: describes, verdict and generated calls",
		Long: `Describe the module twice (the same descriptor?), take the validator's verdict,
then call every capability with inputs generated from its request schema: the
schema's examples and defaults, a minimal input, one with every optional field
set, boundary values (minimum/maximum, minLength/maxLength, enum members), one
input the schema refuses, and one capability the module does not have.

Calls run as invoke runs them, with a temporary workspace (removed after; pass
--workspace to use a directory of your own). Capabilities that need approval
run only with --yes. A long-running capability is polled to completion. Each
call, its polls included, has --deadline (default 60s) as its deadline_ms, or
the capability's own when that is shorter.

Each line is pass, warn, fail or skipped, with the input used:
  fail     a protocol violation, a crash, a refused artifact, a wrong effect,
           invalid input not answered invalid_request, an unknown capability
           not answered unknown_capability
  warn     an error envelope for a generated valid input (it may be valid yet
           meaningless), a validator finding, a descriptor that changes;
           an internal error with a cause the host can see (a write outside
           the rw roots, a missing program) fails, naming it
  skipped  an input modbay cannot generate (a pattern or format), or approval

Record and replay (docs/modules.md#record-and-replay): --record DIR writes the
run as DIR/fixture.json — each request, its outcome (envelope, artifacts with
their digests, effect warnings, a job's final state) and stderr, with request
ids, run ids, the workspace and the home replaced by placeholders and
writeOnly or password values left out. --replay DIR sends the same requests
to the module as it is now and lists every difference by JSON pointer (an
artifact's two digests, a result field's two values); timings and poll counts
never count, --ignore /envelope/result/at leaves a pointer's subtree out, and
--input CAPABILITY='{"token":"…"}' gives the secrets the fixture withheld.

Exit status: 0 nothing failed (a replay: no difference), 4 something failed,
6 a replay differs from its fixture, 2 usage.`,
		Example: `  modbay check ./mymod/mymod
  modbay check notes --json
  modbay check ./mymod/mymod --record testdata/fixture
  modbay check ./mymod/mymod --replay testdata/fixture --ignore /envelope/result/at`,
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
	cmd.Flags().DurationVar(&opts.Deadline, "deadline", conform.DefaultDeadline, "bound each call (its polls included), e.g. 90s or 5m")
	cmd.Flags().StringVar(&opts.Record, "record", "", "write the run as a fixture into `DIR`")
	cmd.Flags().StringVar(&opts.Replay, "replay", "", "send a fixture's requests again (from `DIR`) and compare the outcomes")
	cmd.Flags().StringArrayVar(&opts.Ignore, "ignore", nil, "with --replay: a JSON `pointer` into an outcome not compared (repeatable)")
	cmd.Flags().StringArrayVar(&opts.Inputs, "input", nil, "with --replay: `CAPABILITY=JSON` merged into that capability's recorded inputs (repeatable)")
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
	if o.Deadline <= 0 {
		return withCode(ExitUsage, "--deadline must be positive, got %s", o.Deadline)
	}
	if o.Record != "" && o.Replay != "" {
		return withCode(ExitUsage, "--record and --replay: one at a time")
	}
	if o.Replay == "" && (len(o.Ignore) > 0 || len(o.Inputs) > 0) {
		return withCode(ExitUsage, "--ignore and --input go with --replay")
	}
	for _, p := range o.Ignore {
		if !strings.HasPrefix(p, "/") {
			return withCode(ExitUsage, "--ignore %q: a JSON pointer starts with /", p)
		}
	}
	e, err := o.G.env(ctx)
	if err != nil {
		return err
	}
	paths := map[string]string{o.G.workspace: "<workspace>", e.host.Config().Home: "<home>"}
	if o.Replay != "" {
		return replayRun(ctx, o, e.host, paths)
	}
	rep, err := conform.Check(ctx, e.host, o.Ref, conform.Options{Yes: o.Yes, Deadline: o.Deadline})
	if err != nil {
		if errors.Is(err, runner.ErrNotFound) {
			return withCode(ExitUsage, "%v", err)
		}
		if ctx.Err() != nil {
			// SIGINT or SIGTERM (main's context): say what was checked.
			if rep != nil && !o.JSON {
				writeChecklist(o.IO.Out, rep)
			}
			return withCode(ExitHostVerdict, "%v: the check was cancelled", err)
		}
		return withCode(ExitHostVerdict, "%v", err)
	}
	if o.Record != "" {
		f := conform.NewFixture(rep, paths)
		if err := conform.WriteFixture(o.Record, f); err != nil {
			return withCode(ExitUsage, "--record: %v", err)
		}
		defer fmt.Fprintf(o.IO.ErrOut, "recorded %s into %s\n", count(len(f.Cases), "call", "calls"), filepath.Join(o.Record, conform.FixtureFile))
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

// replayRun sends a fixture's requests again and prints the differences;
// exit ExitReplayDiff when there is one.
func replayRun(ctx context.Context, o *CheckOptions, h *runner.Host, paths map[string]string) error {
	f, err := conform.ReadFixture(o.Replay)
	if err != nil {
		return withCode(ExitUsage, "--replay: %v", err)
	}
	inputs := map[string]json.RawMessage{}
	for _, kv := range o.Inputs {
		capID, js, ok := strings.Cut(kv, "=")
		if !ok || !json.Valid([]byte(js)) {
			return withCode(ExitUsage, "--input %q: want CAPABILITY=JSON", kv)
		}
		inputs[capID] = json.RawMessage(js)
	}
	rep, err := conform.Replay(ctx, h, o.Ref, f, conform.ReplayOptions{
		Options: conform.Options{Yes: o.Yes, Deadline: o.Deadline}, Paths: paths, Ignore: o.Ignore, Inputs: inputs})
	if err != nil {
		if errors.Is(err, runner.ErrNotFound) || errors.Is(err, conform.ErrSecretsWithheld) || strings.HasPrefix(err.Error(), "--input") {
			return withCode(ExitUsage, "%v", err)
		}
		return withCode(ExitHostVerdict, "%v", err)
	}
	if o.JSON {
		if err := writeJSON(o.IO.Out, struct {
			*conform.ReplayReport
			Equal bool `json:"equal"`
		}{rep, len(rep.Diffs) == 0}); err != nil {
			return err
		}
	} else {
		writeReplay(o.IO.Out, rep)
	}
	if len(rep.Diffs) > 0 {
		return silentExit(ExitReplayDiff)
	}
	return nil
}

// writeReplay prints a replay's differences, one per line, grouped by
// case, every module string sanitized.
func writeReplay(w io.Writer, rep *conform.ReplayReport) {
	fmt.Fprintf(w, "replay %s: %s\n", cleanID(rep.Module), count(rep.Cases, "call", "calls"))
	last := ""
	for _, d := range rep.Diffs {
		if d.Case != last {
			fmt.Fprintf(w, "differs  %s\n", clean(d.Case))
			last = d.Case
		}
		if d.Path == "" {
			fmt.Fprintf(w, "  %s\n", clean(d.Note))
			continue
		}
		line := fmt.Sprintf("  %s: recorded %s, now %s", clean(d.Path), orAbsent(clean(d.Recorded)), orAbsent(clean(d.Now)))
		if d.Note != "" {
			line += " (" + clean(d.Note) + ")"
		}
		fmt.Fprintln(w, line)
	}
	if len(rep.Diffs) == 0 {
		fmt.Fprintln(w, "no difference from the fixture")
	} else {
		fmt.Fprintf(w, "%s: a change you meant? record the fixture again (--record DIR); a field that varies on every run: --ignore POINTER\n", count(len(rep.Diffs), "difference", "differences"))
	}
}

// orAbsent is s, or "(absent)" when empty.
func orAbsent(s string) string {
	if s == "" {
		return "(absent)"
	}
	return s
}
