package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"modbay/contain"
	"modbay/modproto"
)

func (h *Host) run(ctx context.Context, p *Plan, opts RunOptions) (*Result, error) {
	echoes := PlanEchoes(p)
	mopts, done := maskingOptions(opts, echoes)
	res, err := h.runEchoing(ctx, p, mopts)
	done(res != nil && res.StderrTruncated)
	maskResult(res, echoes)
	return res, err
}

// runEchoing is run before the secrets of the input are masked in what
// came back.
func (h *Host) runEchoing(ctx context.Context, p *Plan, opts RunOptions) (*Result, error) {
	if p == nil || p.Module == nil || p.Module.Descriptor == nil {
		return nil, errors.New("run: the plan has no described module")
	}
	// The handed files are the run's, polls included: gone when it ends
	// (or when it is refused: a plan is run once).
	if p.handoffDir != "" {
		defer removeHandoff(p.handoffDir)
	}
	if p.NeedsApproval() && !opts.Approved {
		return nil, ErrApprovalRequired
	}
	if p.Module.Status == StatusDisabled {
		return nil, fmt.Errorf("%w: %s", ErrDisabled, p.Module.ID)
	}
	// An approved run of a pre-approved capability records its effects: a
	// later change is asked again (docs/protocol.md §11). A record that
	// cannot be written only means the next change is not noticed.
	_ = h.recordApprovedEffects(p)
	// Every root must still be the directory opened at plan time (a state
	// directory removed since is made again); a plan built by hand has its
	// roots opened now.
	if p.dirs == nil {
		dirs, roots, err := h.openRoots(p.Request.Roots)
		if err == nil {
			err = h.checkStateRoots(p.Module, roots)
		}
		if err != nil {
			return nil, err
		}
		p.dirs, p.Request.Roots = dirs, roots
	} else if err := h.recheckRoots(p.Request.Roots, p.dirs); err != nil {
		return nil, err
	}
	res, err := h.invoke(ctx, p.Module, p.Request, p.dirs, nil, p.Request.RequestID, opts)
	if err != nil {
		return nil, err
	}
	if p.Capability.LongRunning && p.Capability.PollCapability != "" && res.OK() {
		if job := parseJob(res.Envelope.Result); job != nil {
			res.Job = job
			if d := jobStateProblem(job.ID, job.State); d != "" {
				res.Host = &HostError{Code: modproto.CodeHostProtocolViolation, Detail: oneLine(d)}
			} else if !terminalJobStates[job.State] {
				res = h.pollJob(ctx, p, res, opts)
			}
		}
	}
	if !res.OK() {
		limits := contain.DefaultLimits
		if h.cfg != nil {
			limits = ContainLimits(h.cfg.Limits)
		}
		res.LikelyCause = LikelyCause(p.Request.Roots, res.Stderr, failureText(res), limits)
	}
	return res, nil
}

// failureText is what a failed run said in words: the module's error
// message (and details) or the host's detail.
func failureText(res *Result) string {
	var s string
	if res.Host != nil {
		s = res.Host.Detail
	}
	if e := res.Envelope; e != nil && e.Error != nil {
		s += "\n" + e.Error.Message
		if d, err := json.Marshal(e.Error.Details); err == nil {
			s += "\n" + string(d)
		}
	}
	return s
}

// invoke sends one request through m's driver and judges the reply in
// docs/protocol.md §5 order, the same for every driver. kinds, when non-nil,
// replaces the capability's artifact_schemas for the §7 check (a job's
// poll reply carries the artifacts of the capability that started it).
// eventID is the request id events are reported under; dirs are the
// request's roots as opened when the run was planned, beneath which its
// artifacts are resolved.
func (h *Host) invoke(ctx context.Context, m *Module, req modproto.Request, dirs rootDirs, kinds []string, eventID string, opts RunOptions) (*Result, error) {
	reqBytes, err := modproto.EncodeJSON(req)
	if err != nil {
		return nil, fmt.Errorf("encode the request: %w", err)
	}
	capID := req.Capability
	res := &Result{RequestID: req.RequestID, Module: m.ID, Capability: capID, ExitCode: -1}
	hostErr := func(code, detail string, v modproto.ValidationErrors) *Result {
		res.Host = &HostError{Code: code, Detail: oneLine(detail), Violations: v}
		return res
	}
	drv := m.driver()
	if st := drv.Status(); !st.Usable() {
		res.Started, res.Stderr = time.Now(), st.StderrTail
		return hostErr(modproto.CodeHostSpawnFailed, "cannot call "+m.ID+": "+lifecycleReason(st), nil), nil
	}
	call := &Call{Request: req, Encoded: reqBytes, Contain: h.moduleContainSpec(m, &req), eventID: eventID, events: opts.Events, record: opts.Record}
	call.elicit, call.echoes = hostElicitor(opts.Elicit, opts.echoes), opts.echoes
	call.Contain.WriteFrom = opts.writeFrom // a job's polls: one budget
	r := drv.Invoke(ctx, call)
	res.writeStart = r.WriteStart
	res.Stdout = r.Envelope
	res.Beside = r.Beside
	res.Stderr = r.Stderr
	res.StderrTruncated = r.StderrTruncated
	res.ExitCode, res.Signal = r.ExitCode, r.Signal
	res.Started = r.Started
	res.Duration = r.Duration
	res.Enforcement = r.Enforcement
	if r.Failure != nil {
		return hostErr(r.Failure.Code, r.Failure.Detail, r.Failure.Violations), nil
	}
	if n := replySize(r); req.MaxOutputBytes > 0 && n > int64(req.MaxOutputBytes) {
		where := "max_output_bytes in config.yaml"
		if _, ok := drv.(ReplyLimiter); ok {
			where = "limits.max_output_bytes in the server's mcp_servers entry, docs/protocol.md §14"
		}
		return hostErr(modproto.CodeHostOutputTooLarge, fmt.Sprintf("the reply (%d bytes with its content blocks) exceeded max_output_bytes (%d; set with %s)", n, req.MaxOutputBytes, where), nil), nil
	}
	env, err := modproto.DecodeEnvelopeContext(ctx, r.Envelope)
	if err != nil {
		var de *modproto.DecodeError
		if ctx.Err() != nil {
			return hostErr(modproto.CodeCancelled, "the run was cancelled while its envelope was decoded", nil), nil
		}
		if errors.As(err, &de) {
			return hostErr(decodeCode(de, r.Envelope, r.ExitCode), explainDecode(de, r.Envelope, r.Stderr, r.ExitCode), nil), nil
		}
		return hostErr(modproto.CodeHostInvalidJSON, err.Error(), nil), nil
	}
	res.Envelope = env
	// Content blocks join the module's artifacts here, so every rule from
	// §6 on judges them as it judges files.
	nFiles := len(env.Execution.Artifacts)
	for i, b := range r.Blocks {
		if b.HostWritten && len(opts.echoes) > 0 {
			r.Blocks[i].Data = maskBytes(b.Data, opts.echoes)
		}
	}
	env.Execution.Artifacts = append(env.Execution.Artifacts, blockArtifacts(r.Blocks)...)
	if v := modproto.ValidateEnvelope(env, modproto.OperationInvoke, req.RequestID, m.ID); len(v) > 0 {
		return hostErr(modproto.CodeHostProtocolViolation, "the envelope breaks its rules (docs/modules.md#the-envelope): "+summarize(v), v), nil
	}
	env.Normalize()
	d := m.Descriptor
	if kinds != nil {
		d = withArtifactKinds(d, capID, kinds)
	}
	viol, warns := modproto.CheckExecutionAgainstDeclared(d, capID, &env.Execution)
	res.EffectWarnings = warns
	if len(viol) > 0 {
		return hostErr(modproto.CodeHostProtocolViolation, "the execution breaks what the capability declared (docs/modules.md#effects-and-approval): "+summarize(viol), viol), nil
	}
	// The host's own phases close the raw exchange: verify
	// ends once the envelope is judged, stage once the artifacts are.
	call.Record(Frame{Direction: FrameReceived, Kind: FramePhase, Data: []byte(PhaseVerify)})
	// Staging runs under the run's deadline, counted from the start, and
	// stops with the run's context (docs/protocol.md §14).
	stageCtx, cancelStage := ctx, context.CancelFunc(func() {})
	if req.DeadlineMS > 0 {
		stageCtx, cancelStage = context.WithDeadline(ctx, r.Started.Add(time.Duration(req.DeadlineMS)*time.Millisecond))
	}
	defer cancelStage()
	budget := h.newStageBudget(stageCtx)
	defer budget.close(res)
	if n := len(env.Execution.Artifacts); n > 0 {
		call.Emit(Event{Staging: &n})
	}
	arts, fails := h.verifyArtifacts(budget, opts.echoes, req.Roots, dirs, r.Started, env.Execution.Artifacts[:nFiles], 0)
	if len(r.Blocks) > 0 && stageCtx.Err() == nil {
		blockArts, blockFails := h.stageBlocks(budget, opts.echoes, r.Blocks, env.Execution.Artifacts[nFiles:], nFiles)
		arts, fails = append(arts, blockArts...), append(fails, blockFails...)
	}
	if len(env.Execution.Artifacts) > 0 {
		res.Duration = time.Since(r.Started) // the header's time includes staging
	}
	switch {
	case ctx.Err() != nil:
		return hostErr(modproto.CodeCancelled, "the run was cancelled while its artifacts were staged", nil), nil
	case stageCtx.Err() != nil:
		return hostErr(modproto.CodeHostTimeout, fmt.Sprintf("staging the artifacts did not finish within deadline_ms (%d)", req.DeadlineMS), nil), nil
	}
	call.Record(Frame{Direction: FrameReceived, Kind: FramePhase, Data: []byte(PhaseStage)})
	// The verified artifacts stay listed (and open) beside the refused
	// ones, whose failure is still the run's verdict (docs/protocol.md §8).
	res.Artifacts = arts
	if len(fails) > 0 {
		for _, f := range fails {
			id := ""
			if f.index < len(env.Execution.Artifacts) {
				id = env.Execution.Artifacts[f.index].ID
			}
			res.Refused = append(res.Refused, RefusedArtifact{ID: id, Reason: f.v.Detail})
		}
		code, v := failureCode(fails)
		return hostErr(code, detailOf(v), v), nil
	}
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
