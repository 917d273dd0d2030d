package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"modbay/history"
	"modbay/runner"
)

// jobWatchInterval is how often `modbay jobs wait` reads the record of a
// job another process polls.
const jobWatchInterval = time.Second

// JobsOptions is what `modbay jobs …` was asked to do.
type JobsOptions struct {
	IO *ioStreams
	G  *globals
	// Command is the subcommand: list, wait or cancel.
	Command string
	// RunID is the run whose job wait or cancel names.
	RunID string
	// JSON (list), Verbose (wait) and Yes (cancel) are the flags.
	JSON, Verbose, Yes bool
}

// jobsRun runs the subcommand o names.
func jobsRun(ctx context.Context, o *JobsOptions) error {
	switch o.Command {
	case "wait":
		return jobsWait(ctx, o.G, o.RunID, o.Verbose)
	case "cancel":
		return jobsCancel(ctx, o.G, o.RunID, o.Yes)
	}
	return jobsList(ctx, o.G, o.JSON)
}

// newJobsCommand builds `modbay jobs [list|wait RUN|cancel RUN]`; runF,
// when non-nil, replaces jobsRun.
func newJobsCommand(g *globals, runF func(context.Context, *JobsOptions) error) *cobra.Command {
	if runF == nil {
		runF = jobsRun
	}
	opts := &JobsOptions{IO: g.io, G: g}
	run := func(cmd *cobra.Command, command string, args []string) error {
		opts.Command = command
		if len(args) > 0 {
			opts.RunID = args[0]
		}
		return runF(cmd.Context(), opts)
	}
	list := func(cmd *cobra.Command, args []string) error { return run(cmd, "list", args) }
	cmd := &cobra.Command{
		Use:   "jobs",
		Short: "List long-running jobs still in flight; wait for one or cancel it",
		Long: `A long-running capability returns a job handle and modbay polls it (docs/protocol.md §12).
When the polling stops before the job ends (ctrl+c, the cockpit quit, the host was
killed), the job goes on in the module and its handle stays in the history:
"modbay jobs wait RUN" polls it again to its end (one poller per job, whichever
process holds it), and "modbay jobs cancel RUN" calls the capability's
cancel_capability when it declares one; without it, modbay can only stop watching.`,
		Args: cobra.NoArgs,
		RunE: list,
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the jobs as JSON")
	ls := &cobra.Command{Use: "list", Short: "List the jobs in flight", Args: cobra.NoArgs, RunE: list}
	ls.Flags().BoolVar(&opts.JSON, "json", false, "print the jobs as JSON")
	wait := &cobra.Command{
		Use:   "wait RUN",
		Short: "Poll a job to its end (or watch the process that polls it) and print its result",
		Args:  cobra.ExactArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return run(cmd, "wait", args) },
	}
	wait.Flags().BoolVarP(&opts.Verbose, "verbose", "v", false, "print each poll's state")
	cancel := &cobra.Command{
		Use:   "cancel RUN",
		Short: "Cancel a job through its capability's cancel_capability",
		Args:  cobra.ExactArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return run(cmd, "cancel", args) },
	}
	cancel.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "approve the cancel call when it needs approval")
	cmd.AddCommand(ls, wait, cancel)
	return cmd
}

// jobsList prints the runs whose job is in flight or resumable.
func jobsList(ctx context.Context, g *globals, asJSON bool) error {
	jobs, err := g.listRuns(ctx, func(x history.Summary) bool {
		return x.JobID != "" && !runner.IsTerminalJobState(x.JobState) &&
			(x.Status == history.StatusRunning || x.Status == history.StatusDetached || x.Status == history.StatusInterrupted)
	}, 0)
	if err != nil {
		return err
	}
	if asJSON {
		out := []historyOut{}
		for _, x := range jobs {
			out = append(out, summaryOut(x))
		}
		return writeJSON(g.io.Out, out)
	}
	if len(jobs) == 0 {
		fmt.Fprintln(g.io.Out, "no jobs in flight")
		return nil
	}
	st, _, _ := g.openHistory(ctx) // opened by listRuns just now
	for _, x := range jobs {
		who := "polled by a modbay process"
		if x.Status != history.StatusRunning {
			rep := g.repeat()
			if st != nil {
				if rec, err := st.Get(x.RunID); err == nil {
					// The flags the run was made with: its workspace (a
					// gateway's --workspace), --examples for a built-in
					// example's job.
					rep = rec.Repeat
				}
			}
			who = "not polled: " + rep.Line("jobs", "wait", x.RunID)
		}
		pct := ""
		if x.JobPercent != nil {
			pct = fmt.Sprintf(" %.0f%%", *x.JobPercent)
		}
		fmt.Fprintf(g.io.Out, "%s  %s %s  job %s %s%s  (%s)\n", x.RunID, cleanID(x.Module), cleanID(x.Capability),
			cleanID(x.JobID), clean(x.JobState), pct, who)
	}
	return nil
}

// jobsWait polls job run id to its end and prints the result, exiting as
// invoke does. When another process polls it, it watches the record until
// that process is done (or gone: then it takes over).
func jobsWait(ctx context.Context, g *globals, id string, verbose bool) error {
	s, e, rec, err := g.jobRecord(ctx, id)
	if err != nil {
		return err
	}
	said := false
	for {
		run, err := s.Resume(id)
		if err == nil {
			return resumeJob(ctx, g, e, s, run, verbose)
		}
		if !errors.Is(err, history.ErrBusy) {
			// Not resumable: it ended; print how.
			if rec, gerr := historyGet(s, id); gerr == nil && !rec.Resumable() {
				writeRecord(g.io.Out, rec)
				return recordExit(rec)
			}
			return withCode(ExitUsage, "%v", err)
		}
		if !said {
			fmt.Fprintf(g.io.ErrOut, "another modbay process polls job %s; waiting for it to finish\n", cleanID(rec.Job.ID))
			said = true
		}
		select {
		case <-ctx.Done():
			return withCode(ExitHostVerdict, "stopped waiting; the job goes on")
		case <-time.After(jobWatchInterval):
		}
	}
}

// resumeJob polls the job run holds to its end, records and prints the
// result.
func resumeJob(ctx context.Context, g *globals, e *env, s *history.Store, run *history.Run, verbose bool) error {
	rec := run.Record()
	m, err := loadRecorded(ctx, e, &rec)
	if err != nil {
		run.Finish(nil, err)
		return err
	}
	events := func(ev runner.Event) {
		if j := ev.Job; j != nil && verbose {
			pct := ""
			if j.Percent != nil {
				pct = fmt.Sprintf(" %.0f%%", *j.Percent)
			}
			fmt.Fprintf(g.io.ErrOut, "job %s: %s%s %s\n", cleanID(j.ID), clean(j.State), pct, clean(j.Detail))
		}
	}
	job, err := run.JobStatus()
	if err != nil {
		run.Finish(nil, err)
		return withCode(ExitHostVerdict, "%v", err)
	}
	watch, err := watchHangup(ctx, map[string]any{"stdout": g.io.Out, "stderr": g.io.ErrOut})
	if err != nil {
		run.Finish(nil, err)
		return withCode(ExitHostVerdict, "%v", err)
	}
	res, err := e.host.ResumeJob(watch.Context(), m, rec.Capability, rec.RunID, job, runner.RunOptions{Events: run.Events(events)})
	watch.Stop()
	final, ferr := run.Finish(res, err)
	if err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	if ferr != nil {
		fmt.Fprintf(g.io.ErrOut, "modbay: warning: the history did not record the outcome: %s\n", clean(ferr.Error()))
	}
	writeResult(g.io.Out, res, true, false)
	if final.Status == history.StatusDetached {
		fmt.Fprintf(g.io.ErrOut, "polling stopped; the job goes on (%s resumes it)\n", clean(g.repeat().Line("jobs", "wait", rec.RunID)))
	}
	if code := resultCode(res); code != ExitOK {
		return silentExit(code)
	}
	return nil
}

// loadRecorded loads the module a record names: by id when the id still
// names the executable it ran from, else by that executable (a run of a
// module loaded by path whose id an installed module has too never goes to
// the installed one: docs/protocol.md §13). The examples' launchers move with
// the modbay binary: they are found by id.
func loadRecorded(ctx context.Context, e *env, rec *history.Record) (*runner.Module, error) {
	m, err := e.host.Load(ctx, rec.Module)
	if rec.ModuleExe != "" && (err != nil || (m.Exe != rec.ModuleExe && m.Origin != runner.OriginExamples)) {
		m, err = e.host.Load(ctx, rec.ModuleExe)
	}
	if err != nil {
		return nil, withCode(ExitUsage, "module %s of run %s: %v", cleanID(rec.Module), rec.RunID, err)
	}
	return m, nil
}

// recordExit is the exit code of a finished record, as invoke's.
func recordExit(rec *history.Record) error {
	switch rec.Status {
	case history.StatusOK:
		return nil
	case history.StatusError:
		return silentExit(ExitModuleError)
	}
	return silentExit(ExitHostVerdict)
}

// jobsCancel cancels job run id through its capability's
// cancel_capability (docs/protocol.md §12), recording the outcome; without one it
// says that modbay can only stop watching and the job goes on.
func jobsCancel(ctx context.Context, g *globals, id string, yes bool) error {
	s, e, rec, err := g.jobRecord(ctx, id)
	if err != nil {
		return err
	}
	if !rec.Resumable() {
		return withCode(ExitUsage, "job %s of run %s is not in flight (status %s, state %s)", cleanID(rec.Job.ID), id, rec.Status, clean(rec.Job.State))
	}
	m, err := loadRecorded(ctx, e, rec)
	if err != nil {
		return err
	}
	plan, err := s.PlanCancel(e.host, m, rec)
	if errors.Is(err, history.ErrNoCancel) {
		fmt.Fprintf(g.io.ErrOut, "%s %s declares no cancel_capability: modbay cannot cancel job %s; it can only stop watching, and the job goes on in the module\n",
			cleanID(rec.Module), cleanID(rec.Capability), cleanID(rec.Job.ID))
		return silentExit(ExitModuleError)
	}
	if err != nil {
		return withCode(codeOf(refusalOf(err)), "cancel %s: %v", cleanID(history.CancelCapability(m, rec)), err)
	}
	cancelCap := plan.Capability.ID
	if plan.NeedsApproval() && !yes {
		fmt.Fprintf(g.io.ErrOut, "%s %s needs approval; nothing ran:\n", cleanID(m.ID), cleanID(cancelCap))
		for _, r := range withAskedAgain(plan) {
			fmt.Fprintf(g.io.ErrOut, "  - %s\n", clean(r))
		}
		fmt.Fprintln(g.io.ErrOut, "Pass --yes to approve this call.")
		return silentExit(ExitApprovalRequired)
	}
	res, err := e.host.Run(ctx, plan, true, nil)
	if err != nil {
		return withCode(ExitHostVerdict, "cancel %s: %v", cleanID(cancelCap), err)
	}
	outcome, state, uerr := s.FinishCancel(id, plan, res)
	if uerr != nil {
		fmt.Fprintf(g.io.ErrOut, "modbay: warning: the history did not record the cancel: %s\n", clean(uerr.Error()))
	}
	if !outcome.OK {
		fmt.Fprintf(g.io.ErrOut, "%s refused to cancel job %s: %s %s\n", cleanID(cancelCap), cleanID(rec.Job.ID), clean(outcome.Code), clean(outcome.Detail))
		return silentExit(resultCode(res))
	}
	if state != "cancelled" && runner.IsTerminalJobState(state) {
		fmt.Fprintf(g.io.Out, "job %s: %s (answered by %s); its outcome stands\n", cleanID(rec.Job.ID), clean(history.LateCancel(state)), cleanID(cancelCap))
		return nil
	}
	fmt.Fprintf(g.io.Out, "job %s: cancel accepted by %s", cleanID(rec.Job.ID), cleanID(cancelCap))
	if state != "" {
		fmt.Fprintf(g.io.Out, " (state %s)", clean(state))
	}
	fmt.Fprintln(g.io.Out)
	return nil
}
