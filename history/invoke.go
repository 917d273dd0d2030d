package history

import (
	"context"

	"modbay/runner"
)

// PlanRunner runs a plan: *runner.Host is one.
type PlanRunner interface {
	RunWith(ctx context.Context, p *runner.Plan, opts runner.RunOptions) (*runner.Result, error)
}

// Invoke runs plan p on h as `modbay invoke` and `modbay mcp serve` both
// run one: recorded in s with o from just before the run starts to its
// outcome, each live event recorded before ro.Events sees it. s nil
// records nothing. A record that cannot be written never stops the run:
// warn, when non-nil, is told why in one line ("this run is not recorded
// in the history: …", "the history did not record this run's outcome: …").
// ctx ending kills a plain run's process tree, or stops following a job
// (recorded detached), as Host.RunWith does.
func Invoke(ctx context.Context, s *Store, h PlanRunner, p *runner.Plan, o BeginOptions, ro runner.RunOptions, warn func(string)) (*runner.Result, error) {
	var run *Run
	if s != nil {
		var err error
		if run, err = s.Begin(p, o); err != nil && warn != nil {
			warn("this run is not recorded in the history: " + err.Error())
		}
	}
	if run != nil {
		ro.Events = run.Events(ro.Events)
	}
	res, err := h.RunWith(ctx, p, ro)
	if run != nil {
		if _, werr := run.Finish(res, err); werr != nil && warn != nil {
			warn("the history did not record this run's outcome: " + werr.Error())
		}
	}
	return res, err
}
