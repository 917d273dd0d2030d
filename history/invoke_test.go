package history

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"modbay/config"
	"modbay/modproto"
	"modbay/runner"
)

// runnerFunc is a PlanRunner made of a function.
type runnerFunc func(ctx context.Context, p *runner.Plan, o runner.RunOptions) (*runner.Result, error)

func (f runnerFunc) RunWith(ctx context.Context, p *runner.Plan, o runner.RunOptions) (*runner.Result, error) {
	return f(ctx, p, o)
}

// Invoke records the run as running while it runs, each event before the
// caller sees it, then the outcome; a store that cannot record warns and
// the run still runs; no store records nothing.
func TestInvokeRecordsAroundTheRun(t *testing.T) {
	s := openTest(t, config.History{})
	p := secretPlan(t)
	var seen []string
	h := runnerFunc(func(_ context.Context, p *runner.Plan, o runner.RunOptions) (*runner.Result, error) {
		if rec, err := s.Get(p.Request.RequestID); err != nil || rec.Status != StatusRunning {
			t.Errorf("not recorded running during the run: %v %v", rec, err)
		}
		o.Events(runner.Event{Job: &runner.JobStatus{ID: "job_1", State: "running"}})
		return &runner.Result{RequestID: p.Request.RequestID, Module: "vault", Capability: "vault.open",
			Envelope: &modproto.Envelope{OK: true, Result: json.RawMessage(`{}`)}}, nil
	})
	events := func(ev runner.Event) {
		if rec, _ := s.Get(p.Request.RequestID); rec == nil || rec.Job == nil || rec.Job.ID != "job_1" {
			t.Errorf("the event reached the caller before the record: %+v", rec)
		}
		seen = append(seen, ev.Job.ID)
	}
	res, err := Invoke(context.Background(), s, h, p, BeginOptions{Source: SourceInvoke, Approved: true}, runner.RunOptions{Events: events}, func(w string) { t.Errorf("warned: %s", w) })
	if err != nil || res == nil || len(seen) != 1 {
		t.Fatalf("Invoke: %v %v, events %v", res, err, seen)
	}
	if rec, err := s.Get(p.Request.RequestID); err != nil || rec.Status != StatusOK {
		t.Errorf("outcome: %+v %v", rec, err)
	}

	// A request id the history refuses: Begin fails, warn says so, and
	// the run runs anyway.
	var warned []string
	ran := false
	h2 := runnerFunc(func(context.Context, *runner.Plan, runner.RunOptions) (*runner.Result, error) {
		ran = true
		return &runner.Result{}, nil
	})
	bad := secretPlan(t)
	bad.Request.RequestID = "not an id"
	if _, err := Invoke(context.Background(), s, h2, bad, BeginOptions{}, runner.RunOptions{}, func(w string) { warned = append(warned, w) }); err != nil || !ran {
		t.Fatalf("a run the history cannot record did not run: %v", err)
	}
	if len(warned) != 1 || !strings.HasPrefix(warned[0], "this run is not recorded in the history: ") {
		t.Errorf("warnings: %q", warned)
	}
	ran = false
	if _, err := Invoke(context.Background(), nil, h2, secretPlan(t), BeginOptions{}, runner.RunOptions{}, nil); err != nil || !ran {
		t.Errorf("without a store: %v ran %v", err, ran)
	}
}
