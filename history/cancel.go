package history

import (
	"encoding/json"
	"errors"
	"fmt"

	"modbay/modproto"
	"modbay/runner"
)

// ErrNoCancel is what cancelling a job whose capability declares no
// cancel_capability returns: modbay can only stop watching, and the job
// goes on in the module (docs/protocol.md §16).
var ErrNoCancel = errors.New("the capability declares no cancel_capability: only watching can stop")

// CancelCapability is the capability that cancels rec's job
// (docs/protocol.md §16): as m declares it now, else as recorded when the
// job started; "" when there is none.
func CancelCapability(m *runner.Module, rec *Record) string {
	if m != nil && m.Descriptor != nil {
		if c := m.Descriptor.Capability(rec.Capability); c != nil {
			return c.CancelCapability
		}
	}
	if rec.Job != nil {
		return rec.Job.CancelCapability
	}
	return ""
}

// Planner plans a call (runner.Host.Plan).
type Planner interface {
	Plan(m *runner.Module, capID string, input json.RawMessage) (*runner.Plan, error)
}

// PlanCancel plans the call that cancels rec's job through m's
// cancel_capability with {"job_id": ...} on h, to be approved and run like
// any call (docs/protocol.md §16). Without a cancel_capability it records
// that only watching could stop and returns ErrNoCancel. A masked job is
// cancelled by its handle (JobStatus), its secrets masked in the answer.
func (s *Store) PlanCancel(h Planner, m *runner.Module, rec *Record) (*runner.Plan, error) {
	if rec.Job == nil {
		return nil, fmt.Errorf("run %s has no job", rec.RunID)
	}
	via := CancelCapability(m, rec)
	if via == "" {
		outcome := &CancelOutcome{At: s.now(), Detail: ErrNoCancel.Error()}
		_, _ = s.Update(rec.RunID, func(r *Record) error { r.Cancel = outcome; return nil })
		return nil, ErrNoCancel
	}
	js, err := s.JobStatus(rec)
	if err != nil {
		return nil, err
	}
	input, _ := json.Marshal(map[string]string{"job_id": js.PollID()})
	p, err := h.Plan(m, via, input)
	if p != nil {
		// The cancel masks what the handle holds, as the polls do.
		p.Echoes = js.Secrets
	}
	return p, err
}

// FinishCancel records res, the answer of the cancel call p (PlanCancel),
// on run id and returns the outcome and the job state the answer reports
// ("" when none). A recorded outcome (ok, error, failed, cancelled,
// denied) stands: only the cancel's outcome is added. On a job in flight,
// an accepted cancel sets the job's state; a "cancelled" answer ends a
// record no poller holds as cancelled, its words then saying the job was
// cancelled, not that it goes on. An answer with another end state
// (succeeded, failed, ...) means the cancel came too late: the outcome
// says so (LateCancel) and that state, not a cancel, ends the record.
func (s *Store) FinishCancel(id string, p *runner.Plan, res *runner.Result) (*CancelOutcome, string, error) {
	outcome := &CancelOutcome{At: s.now(), Via: p.Capability.ID, OK: res.OK(), Code: res.Code()}
	if res.Host != nil {
		outcome.Detail = res.Host.Detail
	} else if res.Envelope != nil && res.Envelope.Error != nil {
		outcome.Detail = res.Envelope.Error.Message
	}
	state := CancelState(res)
	late := outcome.OK && runner.IsTerminalJobState(state) && state != "cancelled"
	if late {
		outcome.Detail = LateCancel(state)
	}
	if outcome.OK && runner.IsTerminalJobState(state) {
		s.removeJobState(id) // the job ended: no poll needs its handle
	}
	_, err := s.Update(id, func(r *Record) error {
		r.Cancel = outcome
		if !outcome.OK || r.Job == nil || !r.inFlight() {
			return nil
		}
		if state != "" {
			r.Job.State = state
		}
		// The cancel's answer is the job's latest word: its percent and
		// detail replace the last poll's.
		if pct, detail, ok := cancelProgress(res); ok {
			if pct != nil {
				r.Job.Percent = pct
			}
			if detail != "" {
				r.Job.Detail = detail
			}
			r.Job.Updated = outcome.At
		}
		if late {
			// No poller holds it: the job's own end is its outcome, and
			// the stop-following verdict no longer holds. A poller that
			// does records that end on its next poll.
			if r.Status != StatusRunning {
				r.Status = StatusOK
				if state == "failed" || state == "error" {
					r.Status = StatusError
				}
				if r.Host != nil && r.Host.Code == modproto.CodeCancelled {
					r.Host = nil
				}
			}
			return nil
		}
		words := fmt.Sprintf("job %s cancelled through %s", r.Job.ID, outcome.Via)
		if state != "" {
			words += " (state " + state + ")"
		}
		if !runner.IsTerminalJobState(state) {
			words = fmt.Sprintf("cancel of job %s accepted by %s", r.Job.ID, outcome.Via)
			if state != "" {
				words += " (state " + state + ")"
			}
		}
		// The record's words are the cancel's now: the stop-following
		// verdict said the job goes on, and it no longer does.
		if r.Host == nil || r.Host.Code == modproto.CodeCancelled {
			r.Host = &Verdict{Code: modproto.CodeCancelled, Detail: words}
		}
		// No poller holds it: the cancel's answer is its end. A poller
		// that does sees the terminal state on its next poll.
		if runner.IsTerminalJobState(state) && r.Status != StatusRunning {
			r.Status = StatusCancelled
			// The job's time: from its start to the cancel that ended it.
			r.Finished = outcome.At
			r.DurationMS = r.Finished.Sub(r.Started).Milliseconds()
		}
		return nil
	})
	return outcome, state, err
}

// LateCancel is the note of a cancel answered with state, an end state
// other than cancelled: "cancel came too late: the job had succeeded".
func LateCancel(state string) string {
	return "cancel came too late: the job had " + state
}

// inFlight reports whether r has no outcome yet: running, detached or
// interrupted.
func (r *Record) inFlight() bool {
	switch r.Status {
	case StatusRunning, StatusDetached, StatusInterrupted:
		return true
	}
	return false
}

// CancelState is the job state a cancel's answer reports ("state" at the
// top level or under "job"), "" when it reports none.
func CancelState(res *runner.Result) string {
	if res.Envelope == nil || !res.Envelope.OK {
		return ""
	}
	var top struct {
		State string `json:"state"`
		Job   struct {
			State string `json:"state"`
		} `json:"job"`
	}
	if json.Unmarshal(res.Envelope.Result, &top) != nil {
		return ""
	}
	if top.Job.State != "" {
		return top.Job.State
	}
	return top.State
}

// cancelProgress is the percent (0–100, nil when absent) and detail a
// cancel's answer reports, at the top level or under "job"; ok false when
// it reports neither.
func cancelProgress(res *runner.Result) (*float64, string, bool) {
	if res.Envelope == nil || !res.Envelope.OK {
		return nil, "", false
	}
	type progress struct {
		Percent *float64 `json:"percent"`
		Detail  string   `json:"detail"`
	}
	var top struct {
		progress
		Job *progress `json:"job"`
	}
	if json.Unmarshal(res.Envelope.Result, &top) != nil {
		return nil, "", false
	}
	p := top.progress
	if top.Job != nil && (top.Job.Percent != nil || top.Job.Detail != "") {
		p = *top.Job
	}
	if p.Percent != nil && (*p.Percent < 0 || *p.Percent > 100) {
		p.Percent = nil // not a percent: the last one stands
	}
	return p.Percent, p.Detail, p.Percent != nil || p.Detail != ""
}
