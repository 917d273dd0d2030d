package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"modbay/modproto"
)

// terminalJobStates end polling (docs/protocol.md §12).
var terminalJobStates = map[string]bool{
	"succeeded": true, "failed": true, "cancelled": true, "completed": true, "error": true,
}

// workingJobStates are the states of a job still at work: polling goes on
// (docs/protocol.md §12). A handle without a state counts as working.
var workingJobStates = map[string]bool{"": true, "queued": true, "running": true}

// jobStateProblem says why state is not a job state, naming the documented
// ones, or "" when it is one: an unknown state ("done") is a protocol
// violation at once, not a poll until the deadline.
func jobStateProblem(jobID, state string) string {
	if workingJobStates[state] || terminalJobStates[state] {
		return ""
	}
	return fmt.Sprintf("job %s has state %s, which is not a job state: send \"queued\" or \"running\" while it works, or one of \"succeeded\", \"completed\", \"failed\", \"error\", \"cancelled\" when it ends (docs/protocol.md §12)", cutWord(jobID, false), cutWord(state, true))
}

// maxQuotedWord bounds a job id or state a verdict quotes, in runes: the
// module may send megabytes.
const maxQuotedWord = 40

// cutWord is s (quoted when quote is set) cut to maxQuotedWord runes,
// marked "…" after the quote when cut.
func cutWord(s string, quote bool) string {
	cut := ""
	if utf8.RuneCountInString(s) > maxQuotedWord {
		s, cut = string([]rune(s)[:maxQuotedWord]), "…"
	}
	if quote {
		s = strconv.Quote(s)
	}
	return s + cut
}

// IsTerminalJobState reports whether state ends a long-running job
// (docs/protocol.md §12: succeeded, failed, cancelled, completed, error).
func IsTerminalJobState(state string) bool { return terminalJobStates[state] }

// parseJob reads a job handle or status from a result: job_id (with state,
// percent, detail) under "job" or at the top level. nil when there is none.
func parseJob(result json.RawMessage) *JobStatus {
	var top map[string]json.RawMessage
	if json.Unmarshal(result, &top) != nil {
		return nil
	}
	src, raw := top, result
	if j, ok := top["job"]; ok {
		var jm map[string]json.RawMessage
		if json.Unmarshal(j, &jm) == nil && jsonString(jm["job_id"]) != "" {
			src, raw = jm, j
		}
	}
	id := jsonString(src["job_id"])
	if id == "" {
		return nil
	}
	js := &JobStatus{ID: id, State: jsonString(src["state"]), Detail: jsonString(src["detail"]), Raw: raw}
	if js.State == "" {
		js.State = jsonString(top["state"])
	}
	if p := bytes.TrimSpace(src["percent"]); len(p) > 0 && !bytes.Equal(p, []byte("null")) {
		var f float64
		if json.Unmarshal(p, &f) == nil && 0 <= f && f <= 100 {
			js.Percent = &f // past 0–100 it is no percent: the raw status keeps it
		}
	}
	return js
}

// jsonString is raw as a string, or "" when it is not one.
func jsonString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// pollingStopped is the detail of a run cancelled after its job handle
// arrived: the host stops polling, but nothing stops the job itself (that
// takes the capability's cancel_capability, docs/protocol.md §12), so the detail
// says it goes on.
func pollingStopped(jobID string) string {
	return fmt.Sprintf("polling stopped; job %s continues in the module", jobID)
}

// pollJob polls the capability's poll_capability with {"job_id": ...}
// until a terminal state or an error envelope, backing off from
// h.PollInterval to h.PollMaxInterval, within the original deadline
// (docs/protocol.md §12). Each poll is a normal run in the same sandbox; the
// original approval covers it. The returned Result carries the final
// reply's envelope and artifacts (kinds checked against the original
// capability), the last JobStatus, and the original request id.
func (h *Host) pollJob(ctx context.Context, p *Plan, first *Result, opts RunOptions) *Result {
	m := p.Module
	origID := p.Request.RequestID
	job := first.Job
	// The job is one run: its polls share the write bound the call that
	// returned the handle started counting (docs/protocol.md §14).
	opts.writeFrom = first.writeStart
	deadline := first.Started.Add(time.Duration(p.Request.DeadlineMS) * time.Millisecond)
	interval, maxInterval := h.PollInterval, h.PollMaxInterval
	if interval <= 0 {
		interval = DefaultPollInterval
	}
	if maxInterval < interval {
		maxInterval = interval
	}
	emit := func() {
		if opts.Events != nil {
			c := *job
			opts.Events(Event{RequestID: origID, Job: &c})
		}
	}
	last := first
	finish := func(r *Result) *Result {
		// The result is of the capability the person ran; the poll
		// capability is an implementation detail shown with the job.
		r.Capability = p.Capability.ID
		r.RequestID = origID
		r.Job = job
		r.HandleEnvelope = first.Envelope
		r.Started = first.Started
		r.Duration = time.Since(first.Started)
		return r
	}
	stop := func(code, detail string) *Result {
		r := &Result{Module: m.ID, Capability: p.Capability.ID, Envelope: last.Envelope,
			Host: &HostError{Code: code, Detail: detail}, Enforcement: last.Enforcement}
		return finish(r)
	}
	emit()
	input, _ := json.Marshal(map[string]string{"job_id": job.PollID()})
	for {
		wait := min(interval, time.Until(deadline))
		if wait <= 0 {
			return stop(modproto.CodeHostTimeout, fmt.Sprintf("job %s did not finish within deadline_ms (%d)", job.ID, p.Request.DeadlineMS))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return stop(modproto.CodeCancelled, pollingStopped(job.ID))
		case <-t.C:
		}
		remaining := time.Until(deadline)
		if remaining <= 0 {
			return stop(modproto.CodeHostTimeout, fmt.Sprintf("job %s did not finish within deadline_ms (%d)", job.ID, p.Request.DeadlineMS))
		}
		pp, err := h.plan(m, p.Capability.PollCapability, input, PlanOptions{})
		if err != nil {
			return stop(modproto.CodeHostProtocolViolation, fmt.Sprintf("cannot poll job %s with %s: %v", job.ID, p.Capability.PollCapability, err))
		}
		pp.Request.DeadlineMS = max(1, min(pp.Request.DeadlineMS, int(remaining/time.Millisecond)))
		// The poll works in the roots opened for the original run; a job
		// resumed by a later process (ResumeJob) has none of them, and
		// polls in the roots its poll plans today.
		dirs := p.dirs
		if dirs != nil {
			pp.Request.Roots = p.Request.Roots
		} else {
			dirs = pp.dirs
		}
		pr, err := h.invoke(ctx, m, pp.Request, dirs, p.Capability.ArtifactSchemas, origID, opts)
		if ctx.Err() != nil {
			// Cancelled during a poll: the poll's process was killed, the
			// job was not (it lives in the module).
			return stop(modproto.CodeCancelled, pollingStopped(job.ID))
		}
		if err != nil {
			return stop(modproto.CodeHostProtocolViolation, err.Error())
		}
		job.Polls++
		last = pr
		if pr.Host != nil || !pr.Envelope.OK {
			return finish(pr)
		}
		js := parseJob(pr.Envelope.Result)
		if js == nil {
			return finish(pr) // a final answer without a handle
		}
		js.Polls = job.Polls
		job = js
		emit()
		if d := jobStateProblem(js.ID, js.State); d != "" {
			r := stop(modproto.CodeHostProtocolViolation, oneLine(d))
			r.Envelope, r.Stdout, r.Stderr, r.ExitCode, r.Signal = pr.Envelope, pr.Stdout, pr.Stderr, pr.ExitCode, pr.Signal
			return r
		}
		if terminalJobStates[js.State] {
			return finish(pr)
		}
		interval = min(interval*2, maxInterval)
	}
}
