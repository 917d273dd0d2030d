package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"

	"modbay/history"
	"modbay/mcp"
	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
)

// maxInputFileBytes bounds an --input @FILE: request inputs are small
// documents, and a mistyped path to a huge file should fail fast.
const maxInputFileBytes = 16 << 20

// InvokeOptions is what `modbay invoke` was asked to do, parsed from the
// command line before anything runs.
type InvokeOptions struct {
	IO *ioStreams
	G  *globals
	// ModuleRef is a module id or executable path; CapabilityID the
	// capability to call.
	ModuleRef, CapabilityID string
	// Input is --input as given: "" ({}), JSON text, @FILE or @-.
	Input string
	// Yes approves a call that needs approval (docs/protocol.md §11).
	Yes bool
	// JSON prints every outcome, refusals too, as JSON on stdout.
	JSON bool
	// Verbose streams the module's stderr and job progress to stderr,
	// and lists the containment layer by layer.
	Verbose bool
	// Deadline overrides the request's deadline_ms when DeadlineSet.
	Deadline    time.Duration
	DeadlineSet bool
	// Trace adds the raw exchange and the copy lines.
	Trace bool
	// Refresh lists an MCP server's tools again and tries a server held
	// back after failed connects at once (docs/mcp.md).
	Refresh bool
	// Detach returns as soon as a long-running capability's job handle
	// arrives: the job is recorded as detached and `modbay jobs wait`
	// (or the cockpit) polls it (docs/protocol.md §12).
	Detach bool
	// Artifacts are --artifact ROOT=RUN:ARTIFACT_ID, as given: artifacts of
	// earlier runs handed to this one through its read root ROOT.
	Artifacts []string
	// ElicitInput is --elicit-input as given: "" (ask on a terminal,
	// else decline), JSON text or @FILE, the answer accepted to every
	// question the module asks mid-call (an MCP server's elicitation;
	// docs/mcp.md).
	ElicitInput string
	// elicitValue is ElicitInput read (nil when not given).
	elicitValue json.RawMessage
	// SamplingInput is --sampling-input as given: "" (ask on a terminal,
	// else decline), or JSON text, @FILE or @-: the reply written for
	// every sampling request of the call (an MCP server's
	// sampling/createMessage; docs/mcp.md).
	SamplingInput string
	// samplingValue is SamplingInput read as the reply's answer
	// ({"reply": text}; nil when not given).
	samplingValue json.RawMessage
}

// readSamplingInput reads --sampling-input: text, @FILE or @- (not when
// --input is @- too), holding the reply (samplingReply).
func (o *InvokeOptions) readSamplingInput() error {
	if o.SamplingInput == "" {
		return nil
	}
	if o.SamplingInput == "@-" && o.Input == "@-" {
		return errors.New("@- is taken by --input: give the reply, or @FILE")
	}
	b, err := readRaw(o.SamplingInput, o.IO.In)
	if err != nil {
		return err
	}
	reply, err := samplingReply(b)
	if err != nil {
		return err
	}
	o.samplingValue, _ = json.Marshal(map[string]string{"reply": reply})
	return nil
}

// samplingReply is the reply text of a --sampling-input value: JSON when
// it starts with '{' or '"' (a JSON string, {"reply": TEXT}, or a
// sampling result {"role":"assistant","content":...} whose content is a
// text block or a list of them, joined by newlines), else the text itself,
// every line of it, less one final newline. The errors: JSON that does
// not parse (line and column), a shape other than those, a role other
// than assistant, an empty reply.
func samplingReply(b []byte) (string, error) {
	shapes := `want the reply as text, a JSON string, {"reply": TEXT}, or a sampling result {"role":"assistant","content":{"type":"text","text":TEXT}}`
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 {
		return "", errors.New("the reply is empty (" + shapes + ")")
	}
	if trimmed[0] != '{' && trimmed[0] != '"' {
		text := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
		if !utf8.ValidString(text) {
			return "", errors.New("the reply is not UTF-8 text")
		}
		return text, nil
	}
	if why := modproto.JSONProblem(trimmed); why != "" {
		return "", errors.New(why)
	}
	var text string
	if json.Unmarshal(trimmed, &text) == nil {
		return text, nil
	}
	var obj struct {
		Reply   *string         `json:"reply"`
		Role    *string         `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(trimmed, &obj) != nil {
		return "", errors.New(shapes)
	}
	if obj.Reply != nil {
		return *obj.Reply, nil
	}
	if obj.Role != nil && *obj.Role != "assistant" {
		return "", fmt.Errorf("role %q: a sampling reply is the assistant's", *obj.Role)
	}
	type block struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	var blocks []block
	var one block
	switch {
	case json.Unmarshal(obj.Content, &one) == nil && one.Type != "":
		blocks = []block{one}
	case json.Unmarshal(obj.Content, &blocks) == nil && len(blocks) > 0:
	default:
		return "", errors.New(shapes)
	}
	var parts []string
	for i, bl := range blocks {
		if bl.Type != "text" || bl.Text == nil {
			return "", fmt.Errorf("content block %d is %q: modbay sends a text reply only", i, bl.Type)
		}
		parts = append(parts, *bl.Text)
	}
	return strings.Join(parts, "\n"), nil
}

// readElicitInput reads --elicit-input: JSON text or @FILE; standard
// input (@-) is where a terminal's answers come from, so it is refused.
func (o *InvokeOptions) readElicitInput() error {
	if o.ElicitInput == "" {
		return nil
	}
	if o.ElicitInput == "@-" {
		return errors.New("@- is not accepted (standard input carries the input or a person's answers): give JSON text or @FILE")
	}
	v, err := readInput(o.ElicitInput, nil)
	if err != nil {
		return err
	}
	o.elicitValue = v
	return nil
}

// newInvokeCommand builds `modbay invoke`; runF, when non-nil, replaces
// invokeRun (tests check the parsed options without running anything).
func newInvokeCommand(g *globals, runF func(context.Context, *InvokeOptions) error) *cobra.Command {
	opts := &InvokeOptions{IO: g.io, G: g}
	cmd := &cobra.Command{
		Use:   "invoke MODULE CAPABILITY",
		Short: "Run one capability of a module and verify its artifacts",
		Long: `Validate the input against the capability's request schema, run the module with
the host's guarantees (empty environment but TMPDIR, scratch working directory,
declared roots only, deadline killing the whole process tree, output ceiling),
check the envelope and every artifact, and stage the artifacts.

A module's call that may reach the network, write outside, use a paid provider,
publish, be granted credentials or cost an unknown amount needs approval. An MCP
tool has no cost declaration, so its unknown cost alone does not ask: its
annotations decide (docs/mcp.md), and a tool that is read-only and stays in a
closed world runs at once. Pass --yes to give the approval; without --yes a call
that needs it is refused (exit 3, saying why) and nothing runs. The repeat lines
modbay prints and copies (--trace, history show, the cockpit's c) never carry
--yes: an approval covers the call a person saw, so add it yourself.

Run without a terminal (ssh host modbay invoke …, a pipe), the run is
cancelled and its process tree killed as soon as the output's connection
closes or SIGHUP arrives.

On Linux the module is contained by the kernel (README "Containment"); the
output says what was enforced: a one-line summary, every layer with -v, and
"enforcement" with --json. With sandbox: require in config.yaml a module that
cannot be fully contained here is refused (outcome not_contained, exit 4) and
nothing runs; modbay doctor says what this machine lacks.

--artifact ROOT=RUN:ARTIFACT_ID hands an artifact of an earlier run (modbay
history show RUN lists them) to this one: modbay copies it into a fresh
read-only directory made for this run alone, under the base name of its
declared path, and supplies that directory as the read root ROOT, which the
module must declare in permissions.filesystem_read. The input names the file
by its path relative to the root (the command prints it); the directory is
removed when the run ends. Repeat the flag to hand several artifacts.

A module may ask a question in the middle of a call (an MCP server's
elicitation). On a terminal, modbay asks you in plain prompts on stderr and
reads your answer from standard input: accept (then each field), decline or
cancel. Without a terminal it declines and says so on stderr.
--elicit-input JSON answers every question with accept and that value,
checked against each question's schema (a value that does not match is
answered cancel).

A server may ask for a model's reply (MCP sampling). modbay calls no model:
on a terminal it shows the request (system prompt, messages, model
preferences) and you write the reply, ending it with a line holding only
"."; without a terminal it declines. --sampling-input TEXT|@FILE|@- answers
every sampling request with that reply (plain text of any number of lines,
or JSON). A URL the server asks you to open is printed, never opened.

Exit status: 0 ok, 1 the module returned an error, 2 usage, 3 approval required,
4 host verdict (spawn, invalid JSON, protocol violation, timeout, output too
large, artifact refused, not fully contained under sandbox: require), 5 input
invalid against the request schema (a malformed format such as a date or an
email, and a number no reader can hold: 1e999, 1e-400, an integer past 2^53).`,
		Example: `  modbay invoke notes notes.report --input '{"pattern":"*.md"}'
  modbay invoke fetch fetch.url --input @req.json --yes --json
  modbay invoke reader reader.read --artifact inbox=RUN:report --input '{"file":"report.md"}'`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ModuleRef, opts.CapabilityID = args[0], args[1]
			opts.DeadlineSet = cmd.Flags().Changed("deadline")
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return invokeRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Input, "input", "i", "", "the input: JSON text, @FILE, or @- for standard input (default {})")
	f.BoolVarP(&opts.Yes, "yes", "y", false, "approve a call that needs approval (network, writes, cost, credentials)")
	f.BoolVar(&opts.JSON, "json", false, "print the outcome as JSON")
	f.BoolVarP(&opts.Verbose, "verbose", "v", false, "stream the module's stderr (each line after \"│ \") job progress, progress and log messages while it runs; list the containment layers")
	f.BoolVar(&opts.Trace, "trace", false, "show the raw exchange (argv, env, request file, stdout, stderr, exit, timings) and the lines that repeat the call")
	f.BoolVar(&opts.Detach, "detach", false, "for a long-running capability: print the job's run id once its handle arrives and leave the job running (modbay jobs wait RUN)")
	f.StringVar(&opts.ElicitInput, "elicit-input", "", "answer every question the module asks mid-call (an MCP elicitation) with accept and this JSON value (text or @FILE); default: ask on a terminal, else decline")
	f.StringVar(&opts.SamplingInput, "sampling-input", "", "answer every sampling request of the call (an MCP sampling/createMessage; no model is called) with this reply: text, @FILE or @- (plain text, every line of it, or JSON: a string, {\"reply\": TEXT} or a sampling result); default: ask on a terminal, else decline")
	f.BoolVar(&opts.Refresh, "refresh", false, "for an MCP server: list its tools again, and start it even when it failed to connect a moment ago")
	f.StringArrayVar(&opts.Artifacts, "artifact", nil, "hand an artifact of an earlier run to a read root of this one: ROOT=RUN:ARTIFACT_ID (repeatable)")
	f.DurationVar(&opts.Deadline, "deadline", 0, "override the deadline (e.g. 30s); the whole process tree is killed when it passes")
	return cmd
}

// invokeRun plans and runs one call: validate the flags and the input,
// load the module, plan (refusals through refusalRules), ask for approval,
// run with live events when verbose, then report the result and exit with
// its code (resultCode).
func invokeRun(ctx context.Context, o *InvokeOptions) error {
	if o.DeadlineSet && o.Deadline <= 0 {
		return o.refuse(usageRefusal("--deadline must be positive (got %s)", o.Deadline))
	}
	// Before the input: --input @- would take standard input first.
	if err := o.readSamplingInput(); err != nil {
		return o.refuse(usageRefusal("--sampling-input: %v", err))
	}
	raw, err := readInput(o.Input, o.IO.In)
	if err != nil {
		return o.refuse(usageRefusal("--input: %v", err))
	}
	if err := o.readElicitInput(); err != nil {
		return o.refuse(usageRefusal("--elicit-input: %v", err))
	}
	e, err := o.G.env(ctx)
	if err != nil {
		return o.refuse(&refusal{Outcome: outcomeUsage, Code: codeOf(err), Message: err.Error(), Err: err})
	}
	e.host.PrepareContainment() // while the module is loaded and planned
	if o.Refresh && o.G.mcp != nil {
		if d := o.G.mcp.Driver(o.ModuleRef); d != nil {
			d.Refresh()
		}
	}
	m, err := e.load(ctx, o.ModuleRef)
	if err != nil {
		return o.refuse(usageRefusal("%v", err))
	}
	if n := runner.ShadowNote(m); n != "" {
		fmt.Fprintln(o.IO.ErrOut, "note: "+clean(n))
	}
	if m.Origin == runner.OriginFlag {
		// Repeat lines name a module loaded by path by its path: by id
		// they would run an installed module of that id (docs/protocol.md §13).
		o.ModuleRef = m.Exe
	}
	handoff, err := e.handoffFiles(o.Artifacts)
	if err != nil {
		return o.refuse(usageRefusal("--artifact: %v", err))
	}
	return o.call(ctx, e, m, raw, handoff, history.BeginOptions{Source: history.SourceInvoke})
}

// call plans and runs capability o.CapabilityID of m with input raw and
// the files handed to it, recorded with begin (a plain invoke or a
// re-run), and reports it: what invoke and rerun share.
func (o *InvokeOptions) call(ctx context.Context, e *env, m *runner.Module, raw json.RawMessage, handoff []runner.HandoffFile, begin history.BeginOptions) error {
	if err := describeNotContained(m); err != nil {
		return o.refuse(refusalOf(err))
	}
	planCtx, cancelPlan := ctx, context.CancelFunc(func() {})
	if o.Deadline > 0 {
		planCtx, cancelPlan = context.WithTimeout(ctx, o.Deadline)
	}
	plan, err := e.host.PlanWith(m, o.CapabilityID, raw, runner.PlanOptions{Handoff: handoff, Context: planCtx})
	cancelPlan()
	if err != nil {
		return o.refuse(refusalOf(err))
	}
	defer plan.Discard() // a run removes its handoff itself; a refusal here
	writeHandoff(o.IO.ErrOut, plan.Handoff)
	if o.Deadline > 0 {
		plan.Request.DeadlineMS = int(o.Deadline / time.Millisecond)
	}
	if o.Detach && (!plan.Capability.LongRunning || plan.Capability.PollCapability == "") {
		return o.refuse(usageRefusal("--detach: %s %s is not long-running (no poll_capability): there is no job to leave running", cleanID(m.ID), cleanID(plan.Capability.ID)))
	}
	if plan.NeedsApproval() && !o.Yes {
		return o.refuse(&refusal{Outcome: outcomeApprovalRequired, Code: ExitApprovalRequired,
			Message: fmt.Sprintf("%s %s needs approval; nothing ran (pass --yes)", m.ID, plan.Capability.ID),
			Reasons: withAskedAgain(plan), Err: runner.ErrApprovalRequired,
			subject: cleanID(m.ID) + " " + cleanID(plan.Capability.ID)})
	}
	watch, err := watchHangup(ctx, map[string]any{"stdout": o.IO.Out, "stderr": o.IO.ErrOut})
	if err != nil {
		return withCode(ExitHostVerdict, "%v", err)
	}
	exchange := runner.NewExchange()
	begin.Approved = o.Yes
	runCtx, detach := context.WithCancel(watch.Context())
	defer detach()
	events := o.events()
	endProgress := func() {}
	if events == nil && o.IO.IsTerminal != nil && o.IO.IsTerminal(o.IO.ErrOut) {
		events, endProgress = o.progress()
	}
	if o.Detach {
		// The handle is recorded first (history.Invoke), then polling stops:
		// the run ends detached, the job goes on in the module.
		next := events
		events = func(ev runner.Event) {
			if next != nil {
				next(ev)
			}
			if ev.Job != nil {
				detach()
			}
		}
	}
	ro := runner.RunOptions{Approved: true, Events: events, Elicit: o.elicitor(m.ID, o.elicitValue, o.samplingValue)}
	if o.Trace {
		ro.Record = exchange.Recorder()
	}
	res, err := e.invokeRecorded(runCtx, o.IO.ErrOut, plan, begin, ro)
	endProgress()
	watch.Stop()
	if hu := watch.HungUp(); hu != nil {
		// Nothing more reaches the person: the tree is dead (Run returns
		// after killing it); say so only where it can still be read.
		if watch.Gone("stderr") {
			return silentExit(ExitHostVerdict)
		}
		if res != nil && res.Job != nil {
			// The job lives in the module: only the polling stopped.
			return withCode(ExitHostVerdict, "%v: polling stopped; job %s continues in the module", hu, cleanID(res.Job.ID))
		}
		return withCode(ExitHostVerdict, "%v: the run was cancelled and its process tree killed", hu)
	}
	if err != nil {
		return o.refuse(refusalOf(&notStarted{err}))
	}
	if err := runNotContained(res); err != nil {
		r := refusalOf(err)
		r.Enforcement = &res.Enforcement
		return o.refuse(r)
	}
	if o.Detach && res.Job != nil && !runner.IsTerminalJobState(res.Job.State) && res.Code() == modproto.CodeCancelled {
		return o.writeDetached(res)
	}
	switch {
	case o.Trace && o.JSON:
		if err := writeJSON(o.IO.Out, struct {
			resultOut
			Trace traceOut `json:"trace"`
		}{resultJSON(res), buildTrace(e.host, plan, o.ModuleRef, raw, exchange)}); err != nil {
			return err
		}
	case o.JSON:
		if err := writeJSON(o.IO.Out, resultJSON(res)); err != nil {
			return err
		}
	default:
		writeResult(o.IO.Out, res, !o.Verbose, o.Verbose)
		if o.Trace {
			writeTrace(o.IO.Out, buildTrace(e.host, plan, o.ModuleRef, raw, exchange))
		}
	}
	if code := resultCode(res); code != ExitOK {
		return silentExit(code)
	}
	return nil
}

// detachedOut is the --json shape of `invoke --detach`: the run left
// polling, its job going on in the module.
type detachedOut struct {
	RunID    string   `json:"run_id"`
	Module   string   `json:"module"`
	JobID    string   `json:"job_id"`
	State    string   `json:"state"`
	Percent  *float64 `json:"percent,omitempty"`
	Detached bool     `json:"detached"`
}

// writeDetached reports a detached job: its run id alone on stdout (a
// script reads it), how to follow it on stderr; with --json one object.
func (o *InvokeOptions) writeDetached(res *runner.Result) error {
	if o.JSON {
		return writeJSON(o.IO.Out, detachedOut{RunID: res.RequestID, Module: res.Module, JobID: res.Job.ID,
			State: res.Job.State, Percent: res.Job.Percent, Detached: true})
	}
	fmt.Fprintln(o.IO.Out, res.RequestID)
	fmt.Fprintf(o.IO.ErrOut, "job %s of %s %s is %s; it goes on in the module. Follow it: %s\n",
		cleanID(res.Job.ID), cleanID(res.Module), cleanID(res.Capability), clean(res.Job.State), o.G.repeat().Line("jobs", "wait", res.RequestID))
	return nil
}

// handoffFiles resolves each --artifact ROOT=RUN:ARTIFACT_ID against the
// history: the artifact's staged bytes, to be handed to read root ROOT.
func (e *env) handoffFiles(specs []string) ([]runner.HandoffFile, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	s, err := history.OpenConfig(e.host.Config())
	if err != nil {
		return nil, err
	}
	var out []runner.HandoffFile
	for _, spec := range specs {
		root, refText, ok := strings.Cut(spec, "=")
		if !ok || root == "" {
			return nil, fmt.Errorf("%q is not ROOT=RUN:ARTIFACT_ID", spec)
		}
		ref, err := history.ParseArtifactRef(refText)
		if err != nil {
			return nil, err
		}
		f, err := s.HandoffFile(root, ref, e.host.Config().ArtifactsDir())
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// writeHandoff says where each handed file was put: the root, the path
// the input names (relative to the root) and the directory itself.
func writeHandoff(w io.Writer, files []runner.HandedFile) {
	for _, f := range files {
		fmt.Fprintf(w, "handed %s to root %s as %s (%s, read-only, removed when the run ends)\n",
			clean(f.Origin), clean(f.Root), clean(f.Rel), clean(f.Path))
	}
}

// moduleStderrPrefix starts each line of the module's stderr that
// --verbose streams, so no module line passes for one of modbay's own
// ("ok …", "containment: complete").
const moduleStderrPrefix = "│ "

// events streams the module's stderr (each line after
// moduleStderrPrefix), job progress, progress reports and log messages
// (an MCP server's notifications) to stderr when verbose, sanitized;
// nil otherwise.
func (o *InvokeOptions) events() func(runner.Event) {
	if !o.Verbose {
		return nil
	}
	w := o.IO.ErrOut
	atLineStart := true // stderr arrives in chunks, not lines
	return func(ev runner.Event) {
		if len(ev.Stderr) > 0 {
			for line := range strings.Lines(render.Sanitize(string(ev.Stderr))) {
				if atLineStart {
					io.WriteString(w, moduleStderrPrefix)
				}
				io.WriteString(w, line)
				atLineStart = strings.HasSuffix(line, "\n")
			}
		}
		if ev.Job == nil && ev.Progress == nil && ev.Log == nil {
			return
		}
		if !atLineStart {
			io.WriteString(w, "\n")
			atLineStart = true
		}
		if j := ev.Job; j != nil {
			fmt.Fprintf(w, "%s\n", jobLine(j))
		}
		if p := ev.Progress; p != nil {
			pct := ""
			if p.Percent != nil {
				pct = fmt.Sprintf(" %.0f%%", *p.Percent)
			}
			msg := ""
			if p.Message != "" {
				msg = " " + clean(p.Message)
			}
			fmt.Fprintf(w, "progress%s%s\n", pct, msg)
		}
		if l := ev.Log; l != nil {
			fmt.Fprintf(w, "log %s: %s\n", clean(l.Level), clean(l.Text))
		}
	}
}

// jobLine is a job's state as one line: "job ID: running 40% frame 4 of
// 10", its poll count when the module gives no detail; sanitized.
func jobLine(j *runner.JobStatus) string {
	parts := []string{fmt.Sprintf("job %s: %s", cleanID(j.ID), clean(j.State))}
	if j.Percent != nil {
		parts = append(parts, fmt.Sprintf("%.0f%%", *j.Percent))
	}
	if d := clean(j.Detail); d != "" {
		parts = append(parts, d)
	} else if j.Polls > 0 {
		parts = append(parts, "(poll "+strconv.Itoa(j.Polls)+")")
	}
	return strings.Join(parts, " ")
}

// progressWidth bounds the progress line invoke overwrites on a terminal,
// so it never wraps (a wrapped line is not overwritten).
const progressWidth = 79

// progress is what invoke shows without --verbose when stderr is a
// terminal: one line of the job's state or the module's progress,
// overwritten as it changes, and end, which clears it before the result
// is printed. stdout is left as it is.
func (o *InvokeOptions) progress() (events func(runner.Event), end func()) {
	w := o.IO.ErrOut
	shown := false
	show := func(line string) {
		io.WriteString(w, "\r\x1b[K"+ansi.Truncate(line, progressWidth, "..."))
		shown = true
	}
	events = func(ev runner.Event) {
		switch {
		case ev.Job != nil:
			show(jobLine(ev.Job))
		case ev.Progress != nil:
			line := "progress"
			if p := ev.Progress; p.Percent != nil {
				line += fmt.Sprintf(" %.0f%%", *p.Percent)
			}
			if m := clean(ev.Progress.Message); m != "" {
				line += " " + m
			}
			show(line)
		}
	}
	end = func() {
		if shown {
			io.WriteString(w, "\r\x1b[K")
			shown = false
		}
	}
	return events, end
}

// refuse reports an invoke that did not run, in one place: with --json as
// a refusalOut on stdout; otherwise invalid input and approval list their
// reasons on stderr, and any other refusal is the error Execute prints.
func (o *InvokeOptions) refuse(r *refusal) error {
	if o.JSON {
		reasons := r.Reasons
		if reasons == nil {
			reasons = []string{}
		}
		out := refusalOut{OK: false, Outcome: r.Outcome, Message: r.Message, Reasons: reasons, Ran: false}
		if r.Enforcement != nil {
			e := enforcementJSON(*r.Enforcement)
			out.Enforcement = &e
		}
		_ = writeJSON(o.IO.Out, out)
		return silentExit(r.Code)
	}
	w := o.IO.ErrOut
	var ie *runner.InputError
	switch {
	case r.Outcome == outcomeInputInvalid && errors.As(r.Err, &ie):
		fmt.Fprintf(w, "input is invalid against request schema %s; nothing ran\n", clean(ie.Schema))
		for _, v := range ie.Violations {
			p := v.Path
			if p == "" {
				p = "(root)"
			}
			fmt.Fprintf(w, "  %s: %s\n", clean(p), clean(v.Detail))
		}
		return silentExit(r.Code)
	case r.Outcome == outcomeApprovalRequired:
		fmt.Fprintf(w, "%s needs approval; nothing ran:\n", r.subject)
		for _, reason := range r.Reasons {
			fmt.Fprintf(w, "  - %s\n", clean(reason))
		}
		fmt.Fprintln(w, "Pass --yes to approve this call.")
		return silentExit(r.Code)
	case r.Outcome == outcomeNotContained:
		fmt.Fprintf(w, "%s. Not enforced here:\n", clean(r.Message))
		for _, reason := range r.Reasons {
			fmt.Fprintf(w, "  - %s\n", clean(reason))
		}
		fmt.Fprintln(w, notContainedHint)
		return silentExit(r.Code)
	}
	return &exitError{code: r.Code, err: r}
}

// readInput reads --input: "" → {}, "@-" → stdin, "@FILE" → the file, else
// the text itself; it must be valid JSON.
func readInput(s string, stdin io.Reader) (json.RawMessage, error) {
	if s == "" {
		return json.RawMessage(`{}`), nil
	}
	b, err := readRaw(s, stdin)
	if err != nil {
		return nil, err
	}
	if why := modproto.JSONProblem(b); why != "" {
		return nil, errors.New(why)
	}
	return json.RawMessage(b), nil
}

// readRaw is the bytes s gives: standard input for @-, the file for
// @FILE, else s itself; at most maxInputFileBytes.
func readRaw(s string, stdin io.Reader) ([]byte, error) {
	var b []byte
	switch {
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
	return b, nil
}

// refusalOut is the --json shape of an invoke that did not run: a usage
// error, invalid input, approval required, a disabled module.
type refusalOut struct {
	OK      bool     `json:"ok"`
	Outcome string   `json:"outcome"`
	Message string   `json:"message"`
	Reasons []string `json:"reasons"`
	Ran     bool     `json:"ran"`
	// Enforcement is what containment found it could apply, for a run
	// that sandbox: require refused at its first instruction (absent
	// when the refusal came before any process started).
	Enforcement *enforcementOut `json:"enforcement,omitempty"`
}

// shownCost is a cost as render.Cost says it, or the mask the host put
// in its place for the secret it held (runner.Result.Masked).
func shownCost(r *runner.Result, pointer string, v *float64) string {
	if l, ok := r.MaskedAt(pointer); ok {
		return l
	}
	return render.Cost(v)
}

// resultOut is the --json shape of an invoke outcome.
type resultOut struct {
	RequestID  string `json:"request_id"`
	Module     string `json:"module"`
	Capability string `json:"capability"`
	OK         bool   `json:"ok"`
	Code       string `json:"code,omitempty"`
	// Kind is Code's failure kind (docs/protocol.md §15), "" on success.
	Kind           string             `json:"kind,omitempty"`
	Host           *hostOut           `json:"host_error,omitempty"`
	Envelope       *modproto.Envelope `json:"envelope,omitempty"`
	EffectWarnings []violation        `json:"effect_warnings"`
	Artifacts      []artifactOut      `json:"artifacts"`
	// Refused are the reported artifacts that failed verification.
	Refused []refusedOut `json:"refused_artifacts"`
	Stderr  string       `json:"stderr"`
	// StderrTruncated is true when the module wrote more stderr than the
	// host keeps (runner.StderrCap): Stderr is then its first part only.
	StderrTruncated bool              `json:"stderr_truncated"`
	ExitCode        int               `json:"exit_code"`
	Signal          string            `json:"signal,omitempty"`
	DurationMS      int64             `json:"duration_ms"`
	Job             *runner.JobStatus `json:"job,omitempty"`
	// LikelyCause is a cause of the failure the host can see, inferred
	// from the module's own words (runner.LikelyCause).
	LikelyCause string `json:"likely_cause,omitempty"`
	// Masked are the envelope's numbers (costs) withheld, null there,
	// for the secret of the input each held (docs/protocol.md §4).
	Masked []runner.MaskedNumber `json:"masked_numbers,omitempty"`
	// Enforcement is what containment applied to the module process,
	// layer by layer, as observed when it started;
	// absent when no process was started.
	Enforcement *enforcementOut `json:"enforcement,omitempty"`
}

type hostOut struct {
	Code       string      `json:"code"`
	Detail     string      `json:"detail"`
	Violations []violation `json:"violations"`
}

type refusedOut struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

type artifactOut struct {
	modproto.Artifact
	Staged       string `json:"staged"`
	Size         int64  `json:"size"`
	Presentation string `json:"resolved_presentation"`
	// Text is an MCP text block's text, its first maxInlineText bytes
	// when Truncated (the whole of it is at Staged).
	Text      *string `json:"text,omitempty"`
	Truncated bool    `json:"truncated,omitempty"`
}

// maxInlineText bounds the text of an artifact printed inline by
// invoke (and carried in --json for an MCP text block): 64 KiB, past
// which the staged file's path says where the whole of it is.
const maxInlineText = 64 << 10

// inlineText is the text of artifact a when invoke shows it inline: an
// MCP text block, or a textual artifact (textualType), its first maxInlineText bytes
// (cut at a rune boundary) and whether that is not all of it; ok is
// false for any other artifact or one that cannot be read.
func inlineText(a runner.VerifiedArtifact) (text string, truncated, ok bool) {
	if a.Kind != mcp.KindText && !textualType(a.MediaType) {
		return "", false, false
	}
	f, err := os.Open(a.Staged)
	if err != nil {
		return "", false, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxInlineText+1))
	if err != nil {
		return "", false, false
	}
	if len(b) > maxInlineText {
		b, truncated = b[:maxInlineText], true
		// Drop a rune the cut split.
		i := len(b) - 1
		for i > 0 && len(b)-i < utf8.UTFMax && !utf8.RuneStart(b[i]) {
			i--
		}
		if !utf8.FullRune(b[i:]) {
			b = b[:i]
		}
	}
	if !utf8.Valid(b) {
		return "", false, false
	}
	return string(b), truncated, true
}

// textualType reports whether media type mt is text to print: text/*,
// JSON, XML and YAML (application/json, application/ld+json, …).
func textualType(mt string) bool {
	mt, _, _ = mime.ParseMediaType(mt)
	switch {
	case strings.HasPrefix(mt, "text/"), strings.HasSuffix(mt, "+json"), strings.HasSuffix(mt, "+xml"), strings.HasSuffix(mt, "+yaml"):
		return true
	}
	switch mt {
	case "application/json", "application/xml", "application/yaml", "application/x-yaml", "application/javascript", "application/x-ndjson":
		return true
	}
	return false
}

func resultJSON(r *runner.Result) resultOut {
	o := resultOut{RequestID: r.RequestID, Module: r.Module, Capability: r.Capability, OK: r.OK(), Code: r.Code(),
		Envelope: r.Envelope, EffectWarnings: []violation{}, Artifacts: []artifactOut{}, Refused: []refusedOut{}, Stderr: r.Stderr, StderrTruncated: r.StderrTruncated,
		ExitCode: r.ExitCode, Signal: r.Signal, DurationMS: r.Duration.Milliseconds(), Job: r.Job, LikelyCause: r.LikelyCause, Masked: r.Masked}
	if o.Code != "" {
		o.Kind = string(modproto.KindOf(o.Code))
	}
	if recorded(r.Enforcement) {
		e := enforcementJSON(r.Enforcement)
		o.Enforcement = &e
	}
	if h := r.Host; h != nil {
		o.Host = &hostOut{Code: h.Code, Detail: h.Detail, Violations: []violation{}}
		for _, v := range h.Violations {
			o.Host.Violations = append(o.Host.Violations, violation{v.Path, v.Detail})
		}
	}
	for _, v := range r.EffectWarnings {
		o.EffectWarnings = append(o.EffectWarnings, violation{v.Path, v.Detail})
	}
	for _, f := range r.Refused {
		o.Refused = append(o.Refused, refusedOut{f.ID, f.Reason})
	}
	for _, a := range r.Artifacts {
		out := artifactOut{Artifact: a.Artifact, Staged: a.Staged, Size: a.Size, Presentation: a.Presentation}
		if a.Kind == mcp.KindText {
			if t, cut, ok := inlineText(a); ok {
				out.Text, out.Truncated = &t, cut
			}
		}
		o.Artifacts = append(o.Artifacts, out)
	}
	return o
}

// writeResult prints a human account of r; showStderr adds the module's
// stderr when the run did not succeed; layers lists the containment layer
// by layer instead of its one-line summary.
func writeResult(w io.Writer, r *runner.Result, showStderr, layers bool) {
	status := "ok"
	if !r.OK() {
		status = "error " + clean(r.Code())
	}
	fmt.Fprintf(w, "%s  %s %s  %s  %s\n", status, cleanID(r.Module), cleanID(r.Capability), r.RequestID, r.Duration.Round(time.Millisecond))
	writeEnforcement(w, r.Enforcement, layers)
	if r.Host != nil {
		detail, violations := r.Verdict()
		fmt.Fprintf(w, "host verdict: %s\n", clean(detail))
		for _, v := range violations {
			fmt.Fprintf(w, "  %s\n", clean(v.Error()))
		}
	}
	if env := r.Envelope; env != nil {
		if e := env.Error; e != nil && r.Host == nil {
			fmt.Fprintf(w, "message:   %s\nretryable: %v\n", clean(e.Message), e.Retryable)
			if len(e.Details) > 0 {
				b, _ := modproto.EncodeJSONIndent(e.Details, "  ")
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
		fmt.Fprintf(w, "cost: estimated %s, actual %s\n", shownCost(r, "/execution/estimated_cost", x.EstimatedCost), shownCost(r, "/execution/actual_cost", x.ActualCost))
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
			// The id is what --artifact ROOT=RUN:ARTIFACT_ID names.
			fmt.Fprintf(w, "  %s  %s  %s  %s  %s\n    id %s\n    %s\n", clean(title), clean(a.MediaType), a.Presentation,
				render.HumanBytes(a.Size), render.ShortDigest(a.Digest), cleanID(a.ID), clean(a.Staged))
			if t, cut, ok := inlineText(a); ok && t != "" {
				fmt.Fprintf(w, "    text:\n%s\n", indentBy("      ", strings.TrimRight(render.Sanitize(t), "\n")))
				if cut {
					fmt.Fprintf(w, "    … the first %s only; the whole artifact is %s\n", render.HumanBytes(maxInlineText), clean(a.Staged))
				}
			}
		}
	}
	if len(r.Refused) > 0 {
		fmt.Fprintln(w, "artifacts refused:")
		for _, g := range runner.GroupRefused(r.Refused) {
			fmt.Fprintf(w, "  %s: %s\n", g.Names(cleanID), clean(g.Reason))
		}
	}
	if r.Job != nil {
		fmt.Fprintf(w, "job %s: %s after %s\n", cleanID(r.Job.ID), clean(r.Job.State), count(r.Job.Polls, "poll", "polls"))
	}
	if r.LikelyCause != "" {
		fmt.Fprintf(w, "cause:     %s\n", clean(r.LikelyCause))
	}
	if showStderr && !r.OK() && strings.TrimSpace(r.Stderr) != "" {
		head := "stderr:"
		if r.StderrTruncated {
			head = fmt.Sprintf("stderr (truncated: only the first %s were kept):", render.HumanBytes(int64(len(r.Stderr))))
		}
		fmt.Fprintf(w, "%s\n%s\n", head, indent(strings.TrimRight(render.Sanitize(r.Stderr), "\n")))
	}
}

func indent(s string) string { return indentBy("  ", s) }

// indentBy is s with every line prefixed by p.
func indentBy(p, s string) string { return p + strings.ReplaceAll(s, "\n", "\n"+p) }

// withAskedAgain is plan's approval reasons, led by why it is asked again
// when it was approved before (runner.Plan.AskedAgain).
func withAskedAgain(plan *runner.Plan) []string {
	if plan.AskedAgain == "" {
		return plan.Approval
	}
	return append([]string{plan.AskedAgain}, plan.Approval...)
}
