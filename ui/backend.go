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

// streamDiscoverer is a backend that lists modules as their describes
// finish (runner.Host.DiscoverStream), so one slow module does not hold
// back the list; the UI uses it when it has a program to Send to.
type streamDiscoverer interface {
	// CountCandidates is how many modules a discovery would describe.
	CountCandidates() int
	// DiscoverStream calls each as each describe finishes (from its
	// goroutine) and returns what Discover returns.
	DiscoverStream(ctx context.Context, each func(*runner.Module)) []*runner.Module
}

// exchangeRecorder is a backend that records a run's raw exchange
// (runner.RunOptions.Record) and builds its copy lines; the cockpit keeps
// both for the result's raw exchange screen (x). A backend without it
// runs without recording, and the result offers no x.
type exchangeRecorder interface {
	// RunWith runs p with opts (runner.Host.RunWith).
	RunWith(ctx context.Context, p *runner.Plan, opts runner.RunOptions) (*runner.Result, error)
	// CopyLines builds the copy lines and saves the request file
	// (runner.Host.CopyLines): called in the run's command.
	CopyLines(p *runner.Plan, moduleRef string, input json.RawMessage, calls []runner.ExchangeCall) runner.CopyLines
}

// Approvals remembers "allow for this session" answers, keyed by the
// module as the host knows it, capability and effects (docs/protocol.md §11);
// *runner.SessionApprovals is one. Why is the one line an approval says
// when the name was allowed but this module or its effects are not.
type Approvals interface {
	Allow(p *runner.Plan)
	Covers(p *runner.Plan) bool
	Why(p *runner.Plan) string
}

var (
	_ Backend          = (*runner.Host)(nil)
	_ streamDiscoverer = (*runner.Host)(nil)
	_ exchangeRecorder = (*runner.Host)(nil)
	_ Approvals        = (*runner.SessionApprovals)(nil)
)
