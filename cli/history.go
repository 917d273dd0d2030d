package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"modbay/conform"
	"modbay/history"
	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
)

// invokeRecorded runs plan as history.Invoke does, recorded in the home's
// history (or not, when it cannot be opened: said once on w, as a
// record that cannot be written is; a run never fails for want of it).
func (e *env) invokeRecorded(ctx context.Context, w io.Writer, p *runner.Plan, o history.BeginOptions, ro runner.RunOptions) (*runner.Result, error) {
	warn := func(msg string) { fmt.Fprintf(w, "modbay: warning: %s\n", render.SanitizeLine(msg)) }
	s, err := history.OpenConfig(e.host.Config())
	if err != nil {
		warn("this run is not recorded in the history: " + err.Error())
	}
	return history.Invoke(ctx, s, e.host, p, o, ro, warn)
}

// HistoryOptions is what `modbay history` (the list) was asked to do.
type HistoryOptions struct {
	IO *ioStreams
	G  *globals
	// Module, Capability and Status keep only the runs that match
	// (exactly); Limit bounds how many are printed (0: all).
	Module, Capability, Status string
	// Source keeps only the runs from this source (history.Sources, as
	// one word: "mcp-serve" for the agents' calls through the gateway).
	Source string
	Limit  int
	JSON   bool
}

// HistoryRunOptions is what `modbay history show|export|pin RUN` was asked
// to do.
type HistoryRunOptions struct {
	IO *ioStreams
	G  *globals
	// Command is the subcommand: show, export or pin.
	Command string
	// RunID is the run named; Dir is export's folder (DIR or --dir, ""
	// for ./modbay-RUN).
	RunID, Dir string
	// Fixture makes export also write the run as a replay fixture.
	Fixture bool
	// JSON (show), Off (pin) and Pinned (rm) are the flags.
	JSON, Off, Pinned bool
}

// historyRunRun runs the subcommand o names.
func historyRunRun(ctx context.Context, o *HistoryRunOptions) error {
	switch o.Command {
	case "export":
		return historyExportRun(ctx, o)
	case "pin":
		return historyPinRun(ctx, o)
	case "rm":
		return historyRmRun(ctx, o)
	}
	return historyShowRun(ctx, o)
}

// newHistoryCommand builds `modbay history` and its subcommands; listF and
// runF, when non-nil, replace historyList and historyRunRun.
func newHistoryCommand(g *globals, listF func(context.Context, *HistoryOptions) error, runF func(context.Context, *HistoryRunOptions) error) *cobra.Command {
	if listF == nil {
		listF = historyList
	}
	if runF == nil {
		runF = historyRunRun
	}
	opts := &HistoryOptions{IO: g.io, G: g}
	cmd := &cobra.Command{
		Use:   "history",
		Short: "List the runs recorded in the home's history, newest first",
		Long: `Every run (the cockpit's, modbay invoke's, re-runs, and the polls of a job, grouped
under the run that started it) is recorded under <home>/history: module and
capability, the input as sent (secret fields never stored), roots and grants, the
envelope, the host's verdict, what containment enforced, the stderr tail, timings
and the staged artifacts. config.yaml's history: section bounds it (max_runs,
max_bytes, record_inputs); pinned runs are never pruned.`,
		Example: `  modbay history --module notes --limit 5
  modbay history show req_0123…
  modbay history export req_0123… ./bug-report`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return listF(cmd.Context(), opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Module, "module", "", "only runs of this module")
	f.StringVar(&opts.Capability, "capability", "", "only runs of this capability")
	f.StringVar(&opts.Status, "status", "", "only runs with this status ("+statusNames()+")")
	f.StringVar(&opts.Source, "source", "", "only runs from this source ("+sourceNames()+"; mcp-serve: agents' calls through modbay mcp serve)")
	f.IntVar(&opts.Limit, "limit", 0, "print at most N runs")
	f.BoolVar(&opts.JSON, "json", false, "print the runs as JSON")
	cmd.AddCommand(newHistoryShowCommand(g, runF), newHistoryExportCommand(g, runF), newHistoryPinCommand(g, runF), newHistoryRmCommand(g, runF))
	return cmd
}

func sourceNames() string {
	var s []string
	for _, src := range history.Sources {
		s = append(s, history.SourceWord(src))
	}
	return strings.Join(s, ", ")
}

func statusNames() string {
	var s []string
	for _, st := range history.Statuses {
		s = append(s, string(st))
	}
	return strings.Join(s, ", ")
}

// listRuns lists the home's recorded runs, newest first, that keep
// accepts (at most limit of them; 0: all); a damaged record is skipped
// with a warning on stderr.
func (g *globals) listRuns(ctx context.Context, keep func(history.Summary) bool, limit int) ([]history.Summary, error) {
	s, _, err := g.openHistory(ctx)
	if err != nil {
		return nil, err
	}
	sums, warns, err := s.List()
	if err != nil {
		return nil, withCode(ExitUsage, "%v", err)
	}
	for _, w := range warns {
		fmt.Fprintf(g.io.ErrOut, "modbay: warning: %s\n", render.SanitizeLine(w))
	}
	var out []history.Summary
	for _, x := range sums {
		if keep(x) {
			out = append(out, x)
		}
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out, nil
}

// jobRecord opens the history and reads run id's record, which must be a
// long-running job's.
func (g *globals) jobRecord(ctx context.Context, id string) (*history.Store, *env, *history.Record, error) {
	s, e, err := g.openHistory(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	rec, err := historyGet(s, id)
	if err != nil {
		return nil, nil, nil, err
	}
	if rec.Job == nil {
		return nil, nil, nil, withCode(ExitUsage, "run %s is not a long-running job", id)
	}
	return s, e, rec, nil
}

// openHistory opens the home's history.
func (g *globals) openHistory(ctx context.Context) (*history.Store, *env, error) {
	e, err := g.env(ctx)
	if err != nil {
		return nil, nil, err
	}
	s, err := history.OpenConfig(e.host.Config())
	if err != nil {
		return nil, nil, withCode(ExitUsage, "%v", err)
	}
	return s, e, nil
}

// historyOut is the --json shape of one run in the list.
type historyOut struct {
	RunID      string   `json:"run_id"`
	Module     string   `json:"module"`
	Capability string   `json:"capability"`
	Status     string   `json:"status"`
	Code       string   `json:"code,omitempty"`
	Kind       string   `json:"kind,omitempty"` // Code's failure kind (docs/protocol.md §15)
	Source     string   `json:"source,omitempty"`
	Started    string   `json:"started"`
	DurationMS int64    `json:"duration_ms"`
	Pinned     bool     `json:"pinned"`
	JobID      string   `json:"job_id,omitempty"`
	JobState   string   `json:"job_state,omitempty"`
	JobPercent *float64 `json:"job_percent,omitempty"`
}

// kindOf is code's failure kind, "" for no code.
func kindOf(code string) string {
	if code == "" {
		return ""
	}
	return string(modproto.KindOf(code))
}

// summaryOut is run x as history --json and jobs list --json print it.
func summaryOut(x history.Summary) historyOut {
	return historyOut{RunID: x.RunID, Module: x.Module, Capability: x.Capability, Status: string(x.Status),
		Code: x.Code, Kind: kindOf(x.Code), Source: x.Source, Started: x.Started.UTC().Format(time.RFC3339), DurationMS: x.DurationMS,
		Pinned: x.Pinned, JobID: x.JobID, JobState: x.JobState, JobPercent: x.JobPercent}
}

// historyList prints the runs that match, newest first; warnings about
// damaged records go to stderr.
func historyList(ctx context.Context, o *HistoryOptions) error {
	if o.Status != "" && !knownStatus(o.Status) {
		return withCode(ExitUsage, "--status: %q is not one of %s", o.Status, statusNames())
	}
	if o.Source != "" && !slices.ContainsFunc(history.Sources, func(src string) bool { return history.SourceWord(src) == history.SourceWord(o.Source) }) {
		return withCode(ExitUsage, "--source: %q is not one of %s", o.Source, sourceNames())
	}
	keep, err := o.G.listRuns(ctx, func(x history.Summary) bool {
		return (o.Module == "" || x.Module == o.Module) && (o.Capability == "" || x.Capability == o.Capability) &&
			(o.Status == "" || string(x.Status) == o.Status) && (o.Source == "" || history.SourceWord(x.Source) == history.SourceWord(o.Source))
	}, o.Limit)
	if err != nil {
		return err
	}
	if o.JSON {
		out := []historyOut{}
		for _, x := range keep {
			out = append(out, summaryOut(x))
		}
		return writeJSON(o.IO.Out, out)
	}
	if len(keep) == 0 {
		fmt.Fprintln(o.IO.Out, "no runs recorded")
		return nil
	}
	for _, x := range keep {
		fmt.Fprintln(o.IO.Out, historyLine(x))
	}
	return nil
}

func knownStatus(s string) bool {
	for _, st := range history.Statuses {
		if string(st) == s {
			return true
		}
	}
	return false
}

// historyLine is one run as `modbay history` prints it.
func historyLine(x history.Summary) string {
	status := string(x.Status)
	if x.Code != "" && x.Status != history.StatusOK && x.Code != status {
		// The code says more than the status; a cancelled run's code is
		// its status ("cancelled", not "cancelled cancelled").
		status += " " + clean(x.Code)
	}
	pin := " "
	if x.Pinned {
		pin = "*"
	}
	line := fmt.Sprintf("%s %s  %s  %-22s %s  %s", pin, x.RunID, x.Started.Local().Format("2006-01-02 15:04:05"),
		status, calledWords(x.Module, x.Capability), (time.Duration(x.DurationMS) * time.Millisecond).Round(time.Millisecond))
	if x.JobID != "" {
		line += "  job " + cleanID(x.JobID) + " " + clean(x.JobState)
	}
	return line
}

// calledWords is what a run called: "<module> <capability>", or for a
// call refused because it named no tool served (a record without a
// module, history.RecordRefused), "tool <name> (not served)".
func calledWords(module, capability string) string {
	if module == "" {
		return "tool " + cleanID(capability) + " (not served)"
	}
	return cleanID(module) + " " + cleanID(capability)
}

// historyGet reads one record, mapping its errors to exit codes.
func historyGet(s *history.Store, id string) (*history.Record, error) {
	rec, err := s.Get(id)
	var de *history.DamagedError
	switch {
	case errors.Is(err, history.ErrNotFound), errors.Is(err, history.ErrBadID):
		return nil, withCode(ExitUsage, "%v", err)
	case errors.As(err, &de):
		return nil, withCode(ExitHostVerdict, "%v", err)
	case err != nil:
		return nil, withCode(ExitUsage, "%v", err)
	}
	return rec, nil
}

// newHistoryShowCommand builds `modbay history show RUN`.
func newHistoryShowCommand(g *globals, runF func(context.Context, *HistoryRunOptions) error) *cobra.Command {
	opts := &HistoryRunOptions{IO: g.io, G: g, Command: "show"}
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "Show one recorded run: input, verdict, job, artifacts",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.RunID = args[0]
			return runF(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the whole record as JSON")
	return cmd
}

// historyShowRun prints run o.RunID's record.
func historyShowRun(ctx context.Context, o *HistoryRunOptions) error {
	s, _, err := o.G.openHistory(ctx)
	if err != nil {
		return err
	}
	rec, err := historyGet(s, o.RunID)
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.IO.Out, rec)
	}
	writeRecord(o.IO.Out, rec)
	return nil
}

// grantWords are the grants a run was given, each kind that has any
// ("network example.com; subprocess ffmpeg"), sanitized; "" for none.
func grantWords(g modproto.Grants) string {
	var parts []string
	for _, k := range []struct {
		name string
		v    []string
	}{{"network", g.Network}, {"credentials", g.Credentials}, {"paid", g.PaidProviders}, {"subprocess", g.Subprocess}} {
		if len(k.v) > 0 {
			parts = append(parts, k.name+" "+clean(strings.Join(k.v, ",")))
		}
	}
	if g.Publish {
		parts = append(parts, "publish")
	}
	return strings.Join(parts, "; ")
}

// writeRecord prints a human account of a recorded run: what was asked,
// then the result as `modbay invoke` prints it.
func writeRecord(w io.Writer, rec *history.Record) {
	fmt.Fprintf(w, "run       %s (%s", rec.RunID, rec.Status)
	if rec.Pinned {
		fmt.Fprint(w, ", pinned")
	}
	by := clean(rec.Source)
	if rec.Client != "" {
		by += " for the agent's client " + clean(rec.Client)
	}
	fmt.Fprintf(w, ")\ncalled    %s\nstarted   %s by %s\n", calledWords(rec.Module, rec.Capability), rec.Started.Local().Format(time.RFC3339), by)
	if rec.Approved {
		who := "the person (at modbay's prompt, or --yes)"
		if rec.ApprovedBy != "" {
			who = rec.ApprovedBy
		}
		fmt.Fprintf(w, "approved  by %s\n", clean(who))
	}
	if rec.RerunOf != "" {
		fmt.Fprintf(w, "re-runs   %s\n", cleanID(rec.RerunOf))
	}
	if line, ok := rec.CommandLine(); ok {
		fmt.Fprintf(w, "repeat    %s\n", clean(line))
		if rec.NeedsYes() {
			fmt.Fprintf(w, "          (%s)\n", runner.RepeatNeedsYes)
		}
	}
	if rec.SentUnchecked {
		// modbay invoke refuses such an input (exit 5): say why the
		// repeat line may be refused.
		fmt.Fprintln(w, "sent      anyway, not checked against the request schema (the repeat line checks it)")
	}
	switch {
	case !rec.InputRecorded:
		fmt.Fprintf(w, "input     not recorded (%s)\n", clean(rec.NoInputWhy()))
	default:
		fmt.Fprintf(w, "input     %s\n", render.SanitizeLine(string(rec.Input)))
		if len(rec.Redacted) > 0 {
			fmt.Fprintf(w, "          secret fields not stored: %s\n", clean(strings.Join(rec.Redacted, ", ")))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(rec.Roots)) {
		r := rec.Roots[name]
		fmt.Fprintf(w, "root      %s %s %s\n", clean(name), r.Mode, clean(r.Path))
	}
	for _, h := range rec.Handoff {
		fmt.Fprintf(w, "handed    %s to root %s as %s\n", clean(h.Origin), clean(h.Root), clean(h.Rel))
	}
	if g := grantWords(rec.Grants); g != "" {
		fmt.Fprintf(w, "grants    %s\n", g)
	}
	if len(rec.Approval) > 0 {
		fmt.Fprintf(w, "approval  %s (approved: %v)\n", clean(strings.Join(rec.Approval, "; ")), rec.Approved)
	}
	if e := rec.Enforcement; e != nil {
		fmt.Fprintf(w, "contained %v; filesystem %s; network %s\n", e.Contained, clean(e.Filesystem), clean(e.Network))
	}
	if c := rec.Cancel; c != nil {
		via := "stopped watching only (no cancel_capability)"
		if c.Via != "" {
			via = "via " + cleanID(c.Via)
		}
		fmt.Fprintf(w, "cancel    %s: ok %v %s\n", via, c.OK, clean(strings.TrimSpace(c.Code+" "+c.Detail)))
	}
	fmt.Fprintln(w)
	switch rec.Status {
	case history.StatusRunning, history.StatusInterrupted, history.StatusDetached:
		if j := rec.Job; j != nil {
			fmt.Fprintf(w, "job %s: %s %s after %s", cleanID(j.ID), clean(j.State), clean(j.Detail), count(j.Polls, "poll", "polls"))
			if rec.Resumable() {
				fmt.Fprintf(w, " (%s resumes it)", clean(rec.Repeat.Line("jobs", "wait", rec.RunID)))
			}
			fmt.Fprintln(w)
		} else if rec.Status == history.StatusInterrupted {
			fmt.Fprintln(w, "the process recording this run ended before its outcome")
		}
		if rec.Status != history.StatusDetached {
			return
		}
	}
	writeResult(w, rec.Result(), true, false)
}

// newHistoryExportCommand builds `modbay history export RUN [DIR]`.
func newHistoryExportCommand(g *globals, runF func(context.Context, *HistoryRunOptions) error) *cobra.Command {
	opts := &HistoryRunOptions{IO: g.io, G: g, Command: "export"}
	cmd := &cobra.Command{
		Use:   "export RUN [DIR]",
		Short: "Write a run's record, request, envelope, stderr and artifacts into a folder",
		Long: `Write request.json (the request as sent, secret fields redacted), envelope.json,
stderr.txt, record.json and artifacts/ (a copy of each staged artifact under its
declared file name) into DIR (default ./modbay-RUN): a folder to attach to a bug
report. --fixture also writes fixture.json, the run as a fixture that
"modbay check MODULE --replay DIR" sends again and compares
(docs/modules.md#record-and-replay).`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.RunID = args[0]
			if len(args) == 2 {
				if opts.Dir != "" {
					return withCode(ExitUsage, "give the directory once: as DIR or --dir")
				}
				opts.Dir = args[1]
			}
			return runF(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Dir, "dir", "", "the folder to write (default ./modbay-RUN)")
	cmd.Flags().BoolVar(&opts.Fixture, "fixture", false, "also write the run as a replay fixture (fixture.json)")
	return cmd
}

// historyExportRun writes run o.RunID's files into o.Dir (./modbay-RUN
// when empty).
func historyExportRun(ctx context.Context, o *HistoryRunOptions) error {
	s, e, err := o.G.openHistory(ctx)
	if err != nil {
		return err
	}
	rec, err := historyGet(s, o.RunID)
	if err != nil {
		return err
	}
	dir := o.Dir
	if dir == "" {
		dir = "modbay-" + rec.RunID
	}
	ex, err := history.Export(rec, dir, e.host.Config().ArtifactsDir())
	if err != nil {
		return withCode(ExitHostVerdict, "export: %v", err)
	}
	abs, _ := filepath.Abs(ex.Dir)
	fmt.Fprintf(o.IO.Out, "exported %s to %s:\n", rec.RunID, clean(abs))
	for _, f := range ex.Files {
		fmt.Fprintf(o.IO.Out, "  %s\n", clean(f))
	}
	for _, m := range ex.Missing {
		fmt.Fprintf(o.IO.ErrOut, "modbay: warning: artifact not exported: %s\n", clean(m))
	}
	if o.Fixture {
		return exportFixture(o, rec, ex.Dir, e.host.Config().Home)
	}
	return nil
}

// exportFixture writes run rec as dir/fixture.json: its input (the secret
// fields it withheld left out) and its outcome rebuilt from the record.
func exportFixture(o *HistoryRunOptions, rec *history.Record, dir, home string) error {
	if !rec.InputRecorded {
		return withCode(ExitUsage, "--fixture: run %s's input was not recorded (%s), so it cannot be sent again", rec.RunID, clean(rec.NoInputWhy()))
	}
	res := &runner.Result{RequestID: rec.RunID, Module: rec.Module, Capability: rec.Capability, Stderr: rec.StderrTail, ExitCode: rec.ExitCode, Signal: rec.Signal}
	if len(rec.Envelope) > 0 {
		var env modproto.Envelope
		if err := json.Unmarshal(rec.Envelope, &env); err == nil {
			res.Envelope = &env
		}
	}
	if h := rec.Host; h != nil {
		res.Host = &runner.HostError{Code: h.Code, Detail: h.Detail}
	}
	for _, w := range rec.EffectWarnings {
		res.EffectWarnings = append(res.EffectWarnings, modproto.ValidationError{Detail: w})
	}
	for _, a := range rec.Artifacts {
		res.Artifacts = append(res.Artifacts, runner.VerifiedArtifact{Artifact: a.Artifact, Staged: a.Staged, Size: a.Size, Presentation: a.Presentation})
	}
	if j := rec.Job; j != nil {
		res.Job = &runner.JobStatus{ID: j.ID, State: j.State}
	}
	ws := ""
	if r, ok := rec.Roots["workspace"]; ok {
		ws = r.Path
	}
	f, err := conform.RunFixture(rec.Module, rec.RunID, rec.Capability, rec.Input, rec.Redacted, !rec.SentUnchecked, res,
		map[string]string{ws: "<workspace>", home: "<home>"})
	if err != nil {
		return withCode(ExitHostVerdict, "--fixture: %v", err)
	}
	if err := conform.WriteFixture(dir, f); err != nil {
		return withCode(ExitHostVerdict, "--fixture: %v", err)
	}
	abs, _ := filepath.Abs(dir)
	fmt.Fprintf(o.IO.Out, "  %s (replay: %s)\n", conform.FixtureFile, clean(rec.Repeat.Line("check", rec.Ref(), "--replay", abs)))
	return nil
}

// newHistoryPinCommand builds `modbay history pin RUN [--off]`.
func newHistoryPinCommand(g *globals, runF func(context.Context, *HistoryRunOptions) error) *cobra.Command {
	opts := &HistoryRunOptions{IO: g.io, G: g, Command: "pin"}
	cmd := &cobra.Command{
		Use:   "pin RUN",
		Short: "Pin a run so pruning never removes it (--off unpins)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.RunID = args[0]
			return runF(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Off, "off", false, "unpin")
	return cmd
}

// historyPinRun pins run o.RunID, or unpins it with o.Off.
func historyPinRun(ctx context.Context, o *HistoryRunOptions) error {
	s, _, err := o.G.openHistory(ctx)
	if err != nil {
		return err
	}
	if _, err := historyGet(s, o.RunID); err != nil {
		return err
	}
	if err := s.Pin(o.RunID, !o.Off); err != nil {
		return withCode(ExitHostVerdict, "%v", err)
	}
	word := "pinned"
	if o.Off {
		word = "unpinned"
	}
	fmt.Fprintf(o.IO.Out, "%s %s\n", word, o.RunID)
	return nil
}

// newHistoryRmCommand builds `modbay history rm RUN [--pinned]`.
func newHistoryRmCommand(g *globals, runF func(context.Context, *HistoryRunOptions) error) *cobra.Command {
	opts := &HistoryRunOptions{IO: g.io, G: g, Command: "rm"}
	cmd := &cobra.Command{
		Use:   "rm RUN",
		Short: "Delete a run from the history and free its artifacts no other run keeps",
		Long: `Delete RUN's record from the history, and remove from the artifact store
the staged artifacts no other recorded run references. A pinned run is
deleted only with --pinned; a run being recorded or polled never is.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.RunID = args[0]
			return runF(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Pinned, "pinned", false, "delete the run even when it is pinned")
	return cmd
}

// historyRmRun deletes run o.RunID (history.Store.Delete).
func historyRmRun(ctx context.Context, o *HistoryRunOptions) error {
	s, _, err := o.G.openHistory(ctx)
	if err != nil {
		return err
	}
	if _, err := historyGet(s, o.RunID); err != nil {
		return err
	}
	d, err := s.Delete(o.RunID, o.Pinned)
	if errors.Is(err, history.ErrPinned) {
		return withCode(ExitUsage, "run %s is pinned: pass --pinned to delete it anyway", o.RunID)
	}
	if err != nil {
		return withCode(ExitHostVerdict, "%v", err)
	}
	fmt.Fprintf(o.IO.Out, "deleted %s; freed %s (%s)\n", o.RunID, count(d.Artifacts, "artifact", "artifacts"), humanBytes(d.Bytes))
	return nil
}

// humanBytes is n bytes in B, KiB or MiB.
func humanBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
