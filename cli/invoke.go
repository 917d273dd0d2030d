package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
)

// maxInputFileBytes bounds an --input @FILE: request inputs are small
// documents, and a mistyped path to a huge file should fail fast.
const maxInputFileBytes = 16 << 20

func newInvokeCommand(g *globals) *cobra.Command {
	var (
		input    string
		yes      bool
		asJSON   bool
		verbose  bool
		deadline time.Duration
	)
	cmd := &cobra.Command{
		Use:   "invoke MODULE CAPABILITY",
		Short: "Run one capability of a module and verify its artifacts",
		Long: `Validate the input against the capability's request schema, run the module with
the host's guarantees (empty environment but TMPDIR, scratch working directory,
declared roots only, deadline killing the whole process tree, output ceiling),
check the envelope and every artifact, and stage the artifacts.

A call that may reach the network, write outside, use a paid provider, publish,
be granted credentials or cost an unknown amount needs approval: pass --yes to
give it. Without --yes such a call is refused and nothing runs.

Exit status: 0 ok, 1 the module returned an error, 2 usage, 3 approval required,
4 host verdict (spawn, invalid JSON, protocol violation, timeout, output too
large, artifact refused), 5 input invalid against the request schema.`,
		Example: `  modbay invoke notes notes.report --input '{"pattern":"*.md"}'
  modbay invoke fetch fetch.url --input @req.json --yes --json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			// With --json, every outcome is JSON on stdout, refusals too.
			refuse := func(code int, outcome string, reasons []string, format string, a ...any) error {
				if !asJSON {
					return withCode(code, format, a...)
				}
				if reasons == nil {
					reasons = []string{}
				}
				_ = writeJSON(cmd.OutOrStdout(), refusalOut{OK: false, Outcome: outcome, Message: fmt.Sprintf(format, a...), Reasons: reasons, Ran: false})
				return silentExit(code)
			}
			if cmd.Flags().Changed("deadline") && deadline <= 0 {
				return refuse(ExitUsage, "usage", nil, "--deadline must be positive (got %s)", deadline)
			}
			raw, err := readInput(input, cmd.InOrStdin())
			if err != nil {
				return refuse(ExitUsage, "usage", nil, "--input: %v", err)
			}
			e, err := g.env(cmd.Context())
			if err != nil {
				return err
			}
			m, err := e.load(cmd.Context(), args[0])
			if err != nil {
				return refuse(ExitUsage, "usage", nil, "%v", err)
			}
			plan, err := e.host.Plan(m, args[1], raw)
			var ie *runner.InputError
			switch {
			case errors.As(err, &ie) && asJSON:
				var reasons []string
				for _, v := range ie.Violations {
					reasons = append(reasons, v.Error())
				}
				return refuse(ExitInputInvalid, "input_invalid", reasons, "input is invalid against request schema %s; nothing ran", ie.Schema)
			case errors.As(err, &ie):
				fmt.Fprintf(cmd.ErrOrStderr(), "input is invalid against request schema %s; nothing ran\n", clean(ie.Schema))
				for _, v := range ie.Violations {
					p := v.Path
					if p == "" {
						p = "(root)"
					}
					fmt.Fprintf(cmd.ErrOrStderr(), "  %s: %s\n", clean(p), clean(v.Detail))
				}
				return silentExit(ExitInputInvalid)
			case errors.Is(err, runner.ErrBroken):
				return refuse(ExitHostVerdict, "broken", nil, "%v; nothing ran", err)
			case errors.As(err, new(*runner.SchemaError)):
				return refuse(ExitHostVerdict, "schema_invalid", nil, "%v; nothing ran", err)
			case errors.Is(err, runner.ErrDisabled):
				return refuse(ExitHostVerdict, "disabled", nil, "%v; nothing ran", err)
			case err != nil:
				return refuse(ExitUsage, "usage", nil, "%v", err)
			}
			if deadline > 0 {
				plan.Request.DeadlineMS = int(deadline / time.Millisecond)
			}
			if plan.NeedsApproval() && !yes && asJSON {
				return refuse(ExitApprovalRequired, "approval_required", plan.Approval, "%s %s needs approval; nothing ran (pass --yes)", m.ID, plan.Capability.ID)
			}
			if plan.NeedsApproval() && !yes {
				w := cmd.ErrOrStderr()
				fmt.Fprintf(w, "%s %s needs approval; nothing ran:\n", clean(m.ID), clean(plan.Capability.ID))
				for _, r := range plan.Approval {
					fmt.Fprintf(w, "  - %s\n", clean(r))
				}
				fmt.Fprintln(w, "Pass --yes to approve this call.")
				return silentExit(ExitApprovalRequired)
			}
			var events func(runner.Event)
			if verbose {
				w := cmd.ErrOrStderr()
				events = func(ev runner.Event) {
					if len(ev.Stderr) > 0 {
						io.WriteString(w, render.Sanitize(string(ev.Stderr)))
					}
					if j := ev.Job; j != nil {
						fmt.Fprintf(w, "job %s: %s %s\n", clean(j.ID), clean(j.State), clean(j.Detail))
					}
				}
			}
			res, err := e.host.Run(cmd.Context(), plan, true, events)
			if err != nil {
				return withCode(ExitHostVerdict, "%v", err)
			}
			if asJSON {
				if err := writeJSON(cmd.OutOrStdout(), resultJSON(res)); err != nil {
					return err
				}
			} else {
				writeResult(cmd.OutOrStdout(), res, !verbose)
			}
			switch {
			case res.Host != nil:
				return silentExit(ExitHostVerdict)
			case !res.OK():
				return silentExit(ExitModuleError)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&input, "input", "i", "", "the input: JSON text, @FILE, or @- for standard input (default {})")
	f.BoolVarP(&yes, "yes", "y", false, "approve a call that needs approval (network, writes, cost, credentials)")
	f.BoolVar(&asJSON, "json", false, "print the outcome as JSON")
	f.BoolVarP(&verbose, "verbose", "v", false, "stream the module's stderr and job progress while it runs")
	f.DurationVar(&deadline, "deadline", 0, "override the deadline (e.g. 30s); the whole process tree is killed when it passes")
	return cmd
}

// readInput reads --input: "" → {}, "@-" → stdin, "@FILE" → the file, else
// the text itself; it must be valid JSON.
func readInput(s string, stdin io.Reader) (json.RawMessage, error) {
	var b []byte
	switch {
	case s == "":
		return json.RawMessage(`{}`), nil
	case s == "@-":
		var err error
		if b, err = io.ReadAll(io.LimitReader(stdin, maxInputFileBytes+1)); err != nil {
			return nil, err
		}
	case strings.HasPrefix(s, "@"):
		f, err := os.Open(s[1:])
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if b, err = io.ReadAll(io.LimitReader(f, maxInputFileBytes+1)); err != nil {
			return nil, err
		}
	default:
		b = []byte(s)
	}
	if len(b) > maxInputFileBytes {
		return nil, fmt.Errorf("larger than %d bytes", maxInputFileBytes)
	}
	if !json.Valid(b) {
		return nil, errors.New("not valid JSON")
	}
	return json.RawMessage(b), nil
}

// refusalOut is the --json shape of an invoke that did not run: a usage
// error, invalid input, approval required, a disabled module.
type refusalOut struct {
	OK      bool     `json:"ok"`
	Outcome string   `json:"outcome"`
	Message string   `json:"message"`
	Reasons []string `json:"reasons"`
	Ran     bool     `json:"ran"`
}

// resultOut is the --json shape of an invoke outcome.
type resultOut struct {
	RequestID      string             `json:"request_id"`
	Module         string             `json:"module"`
	Capability     string             `json:"capability"`
	OK             bool               `json:"ok"`
	Code           string             `json:"code,omitempty"`
	Host           *hostOut           `json:"host_error,omitempty"`
	Envelope       *modproto.Envelope `json:"envelope,omitempty"`
	EffectWarnings []violation        `json:"effect_warnings"`
	Artifacts      []artifactOut      `json:"artifacts"`
	Stderr         string             `json:"stderr"`
	ExitCode       int                `json:"exit_code"`
	DurationMS     int64              `json:"duration_ms"`
	Job            *runner.JobStatus  `json:"job,omitempty"`
}

type hostOut struct {
	Code       string      `json:"code"`
	Detail     string      `json:"detail"`
	Violations []violation `json:"violations"`
}

type artifactOut struct {
	modproto.Artifact
	Staged       string `json:"staged"`
	Size         int64  `json:"size"`
	Presentation string `json:"resolved_presentation"`
}

func resultJSON(r *runner.Result) resultOut {
	o := resultOut{RequestID: r.RequestID, Module: r.Module, Capability: r.Capability, OK: r.OK(), Code: r.Code(),
		Envelope: r.Envelope, EffectWarnings: []violation{}, Artifacts: []artifactOut{}, Stderr: r.Stderr,
		ExitCode: r.ExitCode, DurationMS: r.Duration.Milliseconds(), Job: r.Job}
	if h := r.Host; h != nil {
		o.Host = &hostOut{Code: h.Code, Detail: h.Detail, Violations: []violation{}}
		for _, v := range h.Violations {
			o.Host.Violations = append(o.Host.Violations, violation{v.Path, v.Detail})
		}
	}
	for _, v := range r.EffectWarnings {
		o.EffectWarnings = append(o.EffectWarnings, violation{v.Path, v.Detail})
	}
	for _, a := range r.Artifacts {
		o.Artifacts = append(o.Artifacts, artifactOut{a.Artifact, a.Staged, a.Size, a.Presentation})
	}
	return o
}

// writeResult prints a human account of r; showStderr adds the module's
// stderr when the run did not succeed.
func writeResult(w io.Writer, r *runner.Result, showStderr bool) {
	status := "ok"
	if !r.OK() {
		status = "error " + clean(r.Code())
	}
	fmt.Fprintf(w, "%s  %s %s  %s  %s\n", status, clean(r.Module), clean(r.Capability), r.RequestID, r.Duration.Round(time.Millisecond))
	if h := r.Host; h != nil {
		fmt.Fprintf(w, "host verdict: %s\n", clean(h.Detail))
		for _, v := range h.Violations {
			fmt.Fprintf(w, "  %s\n", clean(v.Error()))
		}
	}
	if env := r.Envelope; env != nil {
		if e := env.Error; e != nil && r.Host == nil {
			fmt.Fprintf(w, "message:   %s\nretryable: %v\n", clean(e.Message), e.Retryable)
			if len(e.Details) > 0 {
				b, _ := json.MarshalIndent(e.Details, "", "  ")
				fmt.Fprintf(w, "details:\n%s\n", indent(render.Sanitize(string(b))))
			}
		}
		if env.OK && r.Host == nil {
			if out, err := render.JSON(env.Result, render.Options{Width: 100, NoColor: true}); err == nil {
				fmt.Fprintf(w, "result:\n%s\n", indent(strings.TrimRight(out, "\n")))
			}
		}
		for _, s := range env.Warnings {
			fmt.Fprintf(w, "warning: %s\n", clean(s))
		}
		x := env.Execution
		fmt.Fprintf(w, "cost: estimated %s, actual %s\n", render.Cost(x.EstimatedCost), render.Cost(x.ActualCost))
	}
	for _, v := range r.EffectWarnings {
		fmt.Fprintf(w, "effects: %s\n", clean(v.Error()))
	}
	if len(r.Artifacts) > 0 {
		fmt.Fprintln(w, "artifacts (verified, staged read-only):")
		for _, a := range r.Artifacts {
			title := a.Title
			if title == "" {
				title = a.Path
			}
			fmt.Fprintf(w, "  %s  %s  %s  %s  %s\n    %s\n", clean(title), clean(a.MediaType), a.Presentation,
				render.HumanBytes(a.Size), render.ShortDigest(a.Digest), clean(a.Staged))
		}
	}
	if r.Job != nil {
		fmt.Fprintf(w, "job %s: %s after %d polls\n", clean(r.Job.ID), clean(r.Job.State), r.Job.Polls)
	}
	if showStderr && !r.OK() && strings.TrimSpace(r.Stderr) != "" {
		fmt.Fprintf(w, "stderr:\n%s\n", indent(strings.TrimRight(render.Sanitize(r.Stderr), "\n")))
	}
}

func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }
