package ui

import (
	"context"
	"encoding/json"

	"modbay/runner"
)

// Backend is what the cockpit needs from the runner; *runner.Host is one.
// Tests drive the UI with a fake.
type Backend interface {
	// Discover finds and describes every module (runner.Host.Discover).
	Discover(ctx context.Context) []*runner.Module
	// Plan builds and validates a call (runner.Host.Plan).
	Plan(m *runner.Module, capID string, input json.RawMessage) (*runner.Plan, error)
	// Run executes a plan (runner.Host.Run).
	Run(ctx context.Context, p *runner.Plan, approved bool, events func(runner.Event)) (*runner.Result, error)
}

// Approvals remembers "allow for this session" answers, keyed by module,
// capability and effects (WIRE.md §11); *runner.SessionApprovals is one.
type Approvals interface {
	Allow(p *runner.Plan)
	Covers(p *runner.Plan) bool
}

var (
	_ Backend   = (*runner.Host)(nil)
	_ Approvals = (*runner.SessionApprovals)(nil)
)
