package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"modbay/modproto"
)

func (h *Host) run(ctx context.Context, p *Plan, approved bool, events func(Event)) (*Result, error) {
	if p == nil || p.Module == nil || p.Module.Descriptor == nil {
		return nil, errors.New("run: the plan has no described module")
	}
	if p.NeedsApproval() && !approved {
		return nil, ErrApprovalRequired
	}
	if p.Module.Status == StatusDisabled {
		return nil, fmt.Errorf("%w: %s", ErrDisabled, p.Module.ID)
	}
	// The state directories may have been removed since Plan.
	for name, r := range p.Request.Roots {
		if r.Mode == modproto.RootReadWrite {
			if err := os.MkdirAll(r.Path, 0o700); err != nil {
				return nil, fmt.Errorf("root %s: %w", name, err)
			}
		}
	}
	res, err := h.invoke(ctx, p.Module, p.Request, nil, p.Request.RequestID, events)
	if err != nil {
		return nil, err
	}
	if p.Capability.LongRunning && p.Capability.PollCapability != "" && res.OK() {
		if job := parseJob(res.Envelope.Result); job != nil {
			res.Job = job
			if !terminalJobStates[job.State] {
				return h.pollJob(ctx, p, res, events), nil
			}
		}
	}
	return res, nil
}

// invoke runs one request and judges it in WIRE.md §5 order. kinds, when
// non-nil, replaces the capability's artifact_schemas for the §7 check (a
// job's poll reply carries the artifacts of the capability that started
// it). eventID is the request id events are reported under.
func (h *Host) invoke(ctx context.Context, m *Module, req modproto.Request, kinds []string, eventID string, events func(Event)) (*Result, error) {
	reqBytes, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode the request: %w", err)
	}
	capID := req.Capability
	spec := execSpec{
		exe:       m.Exe,
		args:      func(rp string) []string { return []string{"module", modproto.OperationInvoke, capID, "--input", rp} },
		request:   reqBytes,
		deadline:  time.Duration(req.DeadlineMS) * time.Millisecond,
		maxStdout: int64(req.MaxOutputBytes),
		contain:   h.containSpec(m.Dir, &req),
	}
	if events != nil {
		spec.onStart = func(pid int) { events(Event{RequestID: eventID, PID: pid}) }
		spec.onStderr = func(b []byte) { events(Event{RequestID: eventID, Stderr: b}) }
	}
	r := execute(ctx, spec)
	res := &Result{
		RequestID:       req.RequestID,
		Module:          m.ID,
		Capability:      capID,
		Stdout:          r.stdout,
		Stderr:          r.stderr,
		StderrTruncated: r.stderrTruncated,
		ExitCode:        r.exitCode,
		Started:         r.started,
		Duration:        r.duration,
		Enforcement:     r.enforcement,
	}
	hostErr := func(code, detail string, v modproto.ValidationErrors) *Result {
		res.Host = &HostError{Code: code, Detail: oneLine(detail), Violations: v}
		return res
	}
	switch {
	case r.spawnErr != nil:
		return hostErr(modproto.CodeHostSpawnFailed, "cannot start "+m.Exe+": "+r.spawnErr.Error(), nil), nil
	case r.overflow:
		return hostErr(modproto.CodeHostOutputTooLarge, fmt.Sprintf("stdout exceeded max_output_bytes (%d); the process tree was killed", req.MaxOutputBytes), nil), nil
	case r.timedOut:
		return hostErr(modproto.CodeHostTimeout, fmt.Sprintf("no answer within deadline_ms (%d); the process tree was killed", req.DeadlineMS), nil), nil
	case r.cancelled:
		return hostErr(modproto.CodeCancelled, "cancelled; the process tree was killed", nil), nil
	}
	env, err := modproto.DecodeEnvelope(r.stdout)
	if err != nil {
		var de *modproto.DecodeError
		if errors.As(err, &de) {
			return hostErr(de.Code, de.Detail, nil), nil
		}
		return hostErr(modproto.CodeHostInvalidJSON, err.Error(), nil), nil
	}
	res.Envelope = env
	if v := modproto.ValidateEnvelope(env, modproto.OperationInvoke, req.RequestID, m.ID); len(v) > 0 {
		return hostErr(modproto.CodeHostProtocolViolation, "the envelope breaks WIRE.md §6: "+summarize(v), v), nil
	}
	env.Normalize()
	d := m.Descriptor
	if kinds != nil {
		d = withArtifactKinds(d, capID, kinds)
	}
	viol, warns := modproto.CheckExecutionAgainstDeclared(d, capID, &env.Execution)
	res.EffectWarnings = warns
	if len(viol) > 0 {
		return hostErr(modproto.CodeHostProtocolViolation, "the execution breaks what the capability declared (WIRE.md §7): "+summarize(viol), viol), nil
	}
	arts, fails := h.verifyArtifacts(req.Roots, env.Execution.Artifacts)
	if len(fails) > 0 {
		code, v := failureCode(fails)
		return hostErr(code, detailOf(v), v), nil
	}
	res.Artifacts = arts
	return res, nil
}

// withArtifactKinds returns a copy of d in which capability capID declares
// kinds as its artifact_schemas.
func withArtifactKinds(d *modproto.Descriptor, capID string, kinds []string) *modproto.Descriptor {
	cp := *d
	cp.Capabilities = slices.Clone(d.Capabilities)
	if c := cp.Capability(capID); c != nil {
		c.ArtifactSchemas = kinds
	}
	return &cp
}
