package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"modbay/internal/jsonptr"
	"modbay/modproto"
	"modbay/runner"
	"modbay/schema"
)

// Recorder is what the cockpit and `modbay invoke` call around a run, so
// neither knows how the history is kept and the runner knows nothing of
// it: Begin before Host.Run, the returned Run's Event for each live event,
// Finish with the result. *Store is one.
type Recorder interface {
	Begin(p *runner.Plan, o BeginOptions) (*Run, error)
}

var _ Recorder = (*Store)(nil)

// BeginOptions say where a run comes from.
type BeginOptions struct {
	// Source is SourceCockpit, SourceInvoke or SourceRerun.
	Source string
	// RerunOf is the run a re-run repeats.
	RerunOf string
	// Approved says a plan that needs approval was approved (by a person,
	// --yes, a session's allow); ignored for a plan that needs none.
	Approved bool
	// ApprovedBy and Client are recorded as given (Record.ApprovedBy,
	// Record.Client).
	ApprovedBy, Client string
	// Live writes the run's live events beside its record while it runs
	// (Store.ReadLive), for a cockpit of the home to follow.
	Live bool
}

// Run is a run being recorded: it holds the run's lock until Finish.
type Run struct {
	s    *Store
	lock *RunLock
	mu   sync.Mutex
	rec  *Record
	done bool
	// pollCap and cancelCap are the capability's (docs/protocol.md §12), recorded
	// with the job once its handle arrives.
	pollCap, cancelCap string
	// resumed is set for a job taken over (Resume): Finish gives its
	// result the job's time.
	resumed bool
	// live writes the live events (BeginOptions.Live), nil without.
	live *liveWriter
}

// Begin records p as running and takes its lock (held until Finish). The
// input is recorded redacted against the capability's request schema, or
// not at all when config history.record_inputs is false.
func (s *Store) Begin(p *runner.Plan, o BeginOptions) (*Run, error) {
	if p == nil || p.Module == nil {
		return nil, errors.New("history: the plan has no module")
	}
	lock, err := s.LockRun(p.Request.RequestID)
	if err != nil {
		return nil, err
	}
	rec := &Record{
		RunID: p.Request.RequestID, Module: p.Module.ID, Capability: p.Capability.ID, ModuleExe: p.Module.Exe, ModuleRef: runner.ModuleRef(p.Module),
		Repeat: s.repeat.For(p.Module),
		Source: o.Source, RerunOf: o.RerunOf, Status: StatusRunning, Started: s.now(), SentUnchecked: p.Unchecked,
		Roots: p.Request.Roots, Grants: p.Request.Grants, Binaries: p.Request.Binaries,
		DeadlineMS: p.Request.DeadlineMS, MaxOutputBytes: p.Request.MaxOutputBytes,
		Approval: p.Approval, Approved: o.Approved && p.NeedsApproval(), ApprovedBy: o.ApprovedBy, Client: o.Client,
	}
	if p.ServerRoots != nil {
		// What the module touched: an MCP server's own folders, not the
		// request's roots it never received.
		rec.Roots = p.ServerRoots
	}
	for _, f := range p.Handoff {
		rec.Handoff = append(rec.Handoff, Handed{Root: f.Root, Rel: f.Rel, Origin: f.Origin, Digest: f.Digest})
	}
	if s.RecordInputs() {
		rec.Input, rec.Redacted = RedactedInput(p)
		rec.InputRecorded = true
	}
	if err := s.putRunning(rec); err != nil {
		lock.Release()
		return nil, err
	}
	run := &Run{s: s, lock: lock, rec: rec, pollCap: p.Capability.PollCapability, cancelCap: p.Capability.CancelCapability}
	if o.Live {
		run.live = &liveWriter{path: s.livePath(rec.RunID), echoes: runner.PlanEchoes(p)}
	}
	return run, nil
}

// FormInput is the input a person gave for p: the request's input, or for
// a whole-request schema (docs/protocol.md §4) the object the input and the extra
// root fields were split from.
func FormInput(p *runner.Plan) json.RawMessage {
	if !p.WholeRequest {
		return p.Request.Input
	}
	m := map[string]json.RawMessage{}
	for k, v := range p.Request.Extra {
		m[k] = v
	}
	if len(p.Request.Input) > 0 && string(p.Request.Input) != "{}" {
		m["input"] = p.Request.Input
	}
	b, err := json.Marshal(m)
	if err != nil {
		return p.Request.Input
	}
	return b
}

// RedactedInput is FormInput(p) with the values the capability's request
// schema marks secret replaced by schema.Mask (schema.Redact, the one
// redaction rule), and the JSON pointers of those values.
func RedactedInput(p *runner.Plan) (json.RawMessage, []string) {
	in := FormInput(p)
	var doc json.RawMessage
	if d := p.Module.Descriptor; d != nil && p.Capability.RequestSchema != "" {
		doc = d.RequestSchemas[p.Capability.RequestSchema]
	}
	if len(doc) == 0 {
		return in, nil
	}
	h, err := schema.Compile(doc)
	if err != nil {
		return in, nil
	}
	out, n := schema.Redact(h, in, schema.RedactMask)
	if n == 0 {
		return in, nil
	}
	var a, b any
	if json.Unmarshal(in, &a) != nil || json.Unmarshal(out, &b) != nil {
		return out, []string{""} // the whole input was withheld
	}
	return out, maskedPaths(a, b, "", nil)
}

// maskedPaths lists the JSON pointers at which masked holds schema.Mask
// where orig held something else: the values Redact withheld.
func maskedPaths(orig, masked any, at string, out []string) []string {
	if s, ok := masked.(string); ok && s == schema.Mask {
		if o, ok := orig.(string); !ok || o != schema.Mask {
			return append(out, at)
		}
		return out
	}
	switch m := masked.(type) {
	case map[string]any:
		o, _ := orig.(map[string]any)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			tok := jsonptr.Escape(k)
			out = maskedPaths(o[k], m[k], at+"/"+tok, out)
		}
	case []any:
		o, _ := orig.([]any)
		for i := range m {
			var ov any
			if i < len(o) {
				ov = o[i]
			}
			out = maskedPaths(ov, m[i], at+"/"+strconv.Itoa(i), out)
		}
	}
	return out
}

// ID is the run's id (its request_id).
func (r *Run) ID() string { return r.rec.RunID }

// Event records what a live event changes: a job's handle and state are
// written at once, so a process killed while it polls leaves a job that
// `modbay jobs wait` can resume; with BeginOptions.Live every event is
// appended to the run's live events too. Safe to call from the run's
// goroutines.
func (r *Run) Event(ev runner.Event) {
	if ev.Job == nil && r.live == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	r.live.write(ev)
	if ev.Job != nil {
		r.rec.Job = r.jobOf(ev.Job)
		_ = r.s.putJobState(r.rec.RunID, ev.Job)
		_ = r.s.Put(r.rec)
	}
}

// Events wraps next (which may be nil) so each event is recorded first.
func (r *Run) Events(next func(runner.Event)) func(runner.Event) {
	return func(ev runner.Event) {
		r.Event(ev)
		if next != nil {
			next(ev)
		}
	}
}

// Finish records the run's outcome, releases its lock and returns the
// record as written. A nil res with err records a run that could not be
// attempted (err says why). A resumed job's res is given the job's start and time.
func (r *Run) Finish(res *runner.Result, err error) (*Record, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	defer r.lock.Release()
	if r.done {
		return r.rec, nil
	}
	r.done = true
	if res == nil {
		res = &runner.Result{RequestID: r.rec.RunID, Host: &runner.HostError{Code: "host.not_started", Detail: errText(err)}}
	}
	apply(r.rec, res, r.s.now())
	if res.Job != nil {
		r.rec.Job = r.jobOf(res.Job)
		if runner.IsTerminalJobState(res.Job.State) {
			r.s.removeJobState(r.rec.RunID)
		} else {
			_ = r.s.putJobState(r.rec.RunID, res.Job)
		}
	}
	if r.resumed {
		// The job's time, not this poller's: a job taken over after a
		// restart or a reconnect ran since the record's start.
		res.Started, res.Duration = r.rec.Started, r.rec.Finished.Sub(r.rec.Started)
	}
	werr := r.s.putFinal(r.rec)
	if werr == nil {
		res.ReleaseStaged() // the record names them now
	}
	r.live.close() // after the outcome: a follower reads it next
	return r.rec, werr
}

func errText(err error) string {
	if err == nil {
		return "the run returned no result"
	}
	return err.Error()
}

// Resume takes over a job recorded by an earlier run to poll it again: it
// takes the run's lock (wrapping ErrBusy when another process polls it)
// and returns the run to Finish with the polling's result. The record
// must be Resumable.
func (s *Store) Resume(id string) (*Run, error) {
	lock, err := s.LockRun(id)
	if err != nil {
		return nil, err
	}
	rec, err := s.Get(id) // lock held: a running record reads as interrupted
	if err == nil && !rec.Resumable() {
		err = fmt.Errorf("run %s is not a job in flight (status %s)", id, rec.Status)
	}
	if err != nil {
		lock.Release()
		return nil, err
	}
	rec.Status = StatusRunning
	if err := s.Put(rec); err != nil {
		lock.Release()
		return nil, err
	}
	run := &Run{s: s, lock: lock, rec: rec, resumed: true}
	if rec.Job != nil {
		run.pollCap, run.cancelCap = rec.Job.PollCapability, rec.Job.CancelCapability
	}
	return run, nil
}

// Record returns a copy of the record as it stands.
func (r *Run) Record() Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return *r.rec
}

// jobOf merges a polled status into the recorded job.
func (r *Run) jobOf(js *runner.JobStatus) *Job {
	j := &Job{}
	if prev := r.rec.Job; prev != nil {
		*j = *prev
	}
	j.ID, j.State, j.Percent, j.Detail, j.Updated = js.ID, js.State, js.Percent, js.Detail, r.s.now()
	j.Masked = j.Masked || js.Handle != ""
	// A resumed job's polls count on from the earlier ones.
	j.Polls = max(j.Polls, js.Polls)
	if r.pollCap != "" {
		j.PollCapability, j.CancelCapability = r.pollCap, r.cancelCap
	}
	return j
}

// apply writes res's outcome into rec.
func apply(rec *Record, res *runner.Result, now time.Time) {
	rec.Finished = now
	if !res.Started.IsZero() && (rec.Started.IsZero() || res.Started.Before(rec.Started)) {
		rec.Started = res.Started
	}
	rec.DurationMS = rec.Finished.Sub(rec.Started).Milliseconds()
	rec.Code, rec.Kind = res.Code(), ""
	if rec.Code != "" {
		rec.Kind = string(modproto.KindOf(rec.Code))
	}
	rec.ExitCode, rec.Signal = res.ExitCode, res.Signal
	if res.Envelope != nil {
		if b, err := modproto.EncodeJSON(res.Envelope); err == nil {
			rec.Envelope = b
		}
	} else if len(res.Stdout) > 0 {
		rec.Stdout = string(res.Stdout[:min(len(res.Stdout), StdoutKeepBytes)])
	}
	if json.Valid(res.Beside) {
		rec.Beside = res.Beside
	}
	if res.HandleEnvelope != nil {
		if b, err := modproto.EncodeJSON(res.HandleEnvelope); err == nil {
			rec.HandleEnvelope = b
		}
	}
	rec.Host = nil
	if h := res.Host; h != nil {
		v := &Verdict{Code: h.Code, Detail: h.Detail}
		for _, e := range h.Violations {
			v.Violations = append(v.Violations, e.Error())
		}
		rec.Host = v
	}
	rec.Masked = res.Masked
	rec.EffectWarnings = nil
	for _, w := range res.EffectWarnings {
		rec.EffectWarnings = append(rec.EffectWarnings, w.Error())
	}
	if !reflect.ValueOf(res.Enforcement).IsZero() {
		e := res.Enforcement
		rec.Enforcement = &e
	}
	rec.StderrTail, rec.StderrCut = res.Stderr, res.StderrTruncated
	if len(rec.StderrTail) > StderrTailBytes {
		rec.StderrTail, rec.StderrCut = rec.StderrTail[len(rec.StderrTail)-StderrTailBytes:], true
	}
	rec.Artifacts = nil
	for _, a := range res.Artifacts {
		rec.Artifacts = append(rec.Artifacts, Artifact{Artifact: a.Artifact, Staged: a.Staged, Size: a.Size, Presentation: a.Presentation})
	}
	rec.Status = statusOf(res)
}

// statusOf is the history status of a finished run.
func statusOf(res *runner.Result) Status {
	if j := res.Job; j != nil && !runner.IsTerminalJobState(j.State) && res.Host != nil &&
		(res.Host.Code == modproto.CodeCancelled || res.Host.Code == modproto.CodeHostTimeout) {
		// Polling stopped; the job goes on in the module.
		return StatusDetached
	}
	switch {
	case res.Host != nil && res.Host.Code == modproto.CodeCancelled:
		return StatusCancelled
	case res.Host != nil && res.Host.Code == "host.not_started" && strings.HasPrefix(res.Host.Detail, DeniedDetail):
		return StatusDenied
	case res.Host != nil:
		return StatusFailed
	case res.Envelope == nil || !res.Envelope.OK:
		return StatusError
	}
	if j := res.Job; j != nil {
		switch j.State {
		case "failed", "error":
			return StatusError
		case "cancelled":
			return StatusCancelled
		}
	}
	return StatusOK
}

// Abandon lets the run go without recording an outcome (a resumed job
// whose module is no longer installed): its record stays as it was and
// reads as interrupted, resumable by whoever can.
func (r *Run) Abandon() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done = true
	r.live.close()
	r.lock.Release()
}

// DeniedDetail is the verdict of a call whose approval was denied.
const DeniedDetail = "not run: denied"

// RecordDenied records p as a call that was not run because its approval
// was denied: a run with the verdict host.not_started (docs/protocol.md
// §15 kind not_run) and DeniedDetail, approved false.
func (s *Store) RecordDenied(p *runner.Plan, o BeginOptions) error {
	o.Approved = false
	run, err := s.Begin(p, o)
	if err != nil {
		return err
	}
	_, err = run.Finish(&runner.Result{RequestID: p.Request.RequestID, Module: p.Module.ID, Capability: p.Capability.ID,
		Host: &runner.HostError{Code: "host.not_started", Detail: DeniedDetail}}, nil)
	return err
}
