package runner

import (
	"context"
	"fmt"
	"time"

	"modbay/modproto"
)

// ResumeJob polls again a job that capability capID of m started in an
// earlier run (request requestID), whose polling stopped before a terminal
// state: a quit cockpit, ctrl+c, a host that died (docs/protocol.md §12).
// job is its handle and last known state; its Polls count on. The polls
// get a fresh budget of the configured deadline (deadline_ms), since the
// job went on meanwhile; the original approval covers them, as it covers
// every poll. A job whose handle is masked is polled by job.Handle, and
// the secrets it holds (job.Secrets) are masked in what the polls send
// back (docs/protocol.md §12). The Result is the run's as Run would have returned it,
// without the handle's envelope (it is the earlier run's). Errors, when
// nothing could be polled: ErrDisabled, ErrBroken, ErrUnknownCapability
// (wrapped), or a capability that is not long-running.
func (h *Host) ResumeJob(ctx context.Context, m *Module, capID, requestID string, job JobStatus, opts RunOptions) (*Result, error) {
	if m == nil || m.Descriptor == nil {
		return nil, fmt.Errorf("%w: %s is not described", ErrBroken, capID)
	}
	switch m.Status {
	case StatusDisabled:
		return nil, fmt.Errorf("%w: %s", ErrDisabled, m.ID)
	case StatusBroken:
		return nil, fmt.Errorf("%w: %s: %s", ErrBroken, m.ID, m.Reason)
	}
	c := m.Descriptor.Capability(capID)
	if c == nil {
		return nil, fmt.Errorf("%w: %s has no capability %s", ErrUnknownCapability, m.ID, capID)
	}
	if !c.LongRunning || c.PollCapability == "" {
		return nil, fmt.Errorf("%s of %s is not long-running: there is no job to poll", capID, m.ID)
	}
	deadline := h.cfg.DeadlineMS
	if deadline <= 0 {
		deadline = modproto.DefaultDeadlineMS
	}
	p := &Plan{Module: m, Capability: *c, Request: modproto.Request{
		Protocol: modproto.ProtocolID, Capability: capID, RequestID: requestID, DeadlineMS: deadline,
	}}
	j := job
	first := &Result{RequestID: requestID, Module: m.ID, Capability: capID, Started: time.Now(), Job: &j}
	// The input is gone: what the polls mask is what the handle holds.
	mopts, done := maskingOptions(opts, job.Secrets)
	res := h.pollJob(ctx, p, first, mopts)
	done(res != nil && res.StderrTruncated)
	maskResult(res, job.Secrets)
	return res, nil
}
