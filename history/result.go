package history

import (
	"encoding/json"
	"time"

	"modbay/modproto"
	"modbay/runner"
)

// Result rebuilds the run's outcome as the runner reported it, for the
// screens and commands that show a result: the envelope, the host's
// verdict, the staged artifacts (their files are the store's, checked
// again when opened), stderr tail, job and enforcement. Violations come
// back as their recorded text, in Detail.
func (r *Record) Result() *runner.Result {
	res := &runner.Result{RequestID: r.RunID, Module: r.Module, Capability: r.Capability,
		Stderr: r.StderrTail, StderrTruncated: r.StderrCut, ExitCode: r.ExitCode,
		Signal: r.Signal, Started: r.Started, Duration: time.Duration(r.DurationMS) * time.Millisecond}
	if len(r.Envelope) > 0 {
		var env modproto.Envelope
		if json.Unmarshal(r.Envelope, &env) == nil {
			res.Envelope = &env
		}
	}
	if len(r.HandleEnvelope) > 0 {
		var env modproto.Envelope
		if json.Unmarshal(r.HandleEnvelope, &env) == nil {
			res.HandleEnvelope = &env
		}
	}
	res.Stdout = []byte(r.Stdout)
	res.Beside = r.Beside
	if h := r.Host; h != nil {
		he := &runner.HostError{Code: h.Code, Detail: h.Detail}
		for _, v := range h.Violations {
			he.Violations = append(he.Violations, modproto.ValidationError{Detail: v})
		}
		res.Host = he
	}
	for _, w := range r.EffectWarnings {
		res.EffectWarnings = append(res.EffectWarnings, modproto.ValidationError{Detail: w})
	}
	res.Masked = r.Masked
	if r.Enforcement != nil {
		res.Enforcement = *r.Enforcement
	}
	for _, a := range r.Artifacts {
		res.Artifacts = append(res.Artifacts, runner.VerifiedArtifact{Artifact: a.Artifact, Staged: a.Staged, Size: a.Size, Presentation: a.Presentation})
	}
	if j := r.Job; j != nil {
		res.Job = &runner.JobStatus{ID: j.ID, State: j.State, Percent: j.Percent, Detail: j.Detail, Polls: j.Polls}
	}
	return res
}

// Plan rebuilds, as far as a record allows, the plan the run was made
// from: module and capability (from mod, as described now), the request
// id, input (as recorded, redacted), roots, grants and deadline. It is
// for screens that show a finished run, never for running it again:
// a re-run plans afresh (runner.Host.Plan).
func (r *Record) Plan(mod *runner.Module) *runner.Plan {
	p := &runner.Plan{Module: mod}
	if mod != nil && mod.Descriptor != nil {
		if c := mod.Descriptor.Capability(r.Capability); c != nil {
			p.Capability = *c
		}
	}
	if p.Capability.ID == "" {
		p.Capability.ID = r.Capability
	}
	p.Request = modproto.Request{Protocol: modproto.ProtocolID, Capability: r.Capability, RequestID: r.RunID,
		Input: r.Input, Roots: r.Roots, Grants: r.Grants, Binaries: r.Binaries,
		DeadlineMS: r.DeadlineMS, MaxOutputBytes: r.MaxOutputBytes}
	p.Approval = r.Approval
	p.Unchecked = r.SentUnchecked
	return p
}
