package runner

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"modbay/modproto"
)

// TestResumeJob stops polling a job at its handle (the person quit), then
// resumes it as a later process would: the polls go on from the handle
// to the job's end, under the original request id, with its artifacts.
func TestResumeJob(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("jobs", "good")
	f.host.PollInterval, f.host.PollMaxInterval = 1e6, 1e6 // 1 ms
	m := f.load("jobs")
	p, err := f.host.Plan(m, "t.job", json.RawMessage(`{"polls":2}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctxGuard(t))
	res, err := f.host.Run(ctx, p, false, func(e Event) {
		if e.Job != nil && e.Job.Polls == 0 {
			cancel() // stop watching once the handle is known
		}
	})
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	wantHost(t, res, modproto.CodeCancelled)
	if res.Job == nil || IsTerminalJobState(res.Job.State) {
		t.Fatalf("job after the stop: %+v", res.Job)
	}
	var seen []string
	got, err := f.host.ResumeJob(ctxGuard(t), m, "t.job", p.Request.RequestID, *res.Job, RunOptions{Events: func(e Event) {
		if e.RequestID != p.Request.RequestID {
			t.Errorf("event under %s", e.RequestID)
		}
		if e.Job != nil {
			seen = append(seen, e.Job.State)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !got.OK() || got.Job == nil || got.Job.State != "succeeded" || got.RequestID != p.Request.RequestID || got.Capability != "t.job" {
		t.Fatalf("resumed: ok %v job %+v id %s host %+v", got.OK(), got.Job, got.RequestID, got.Host)
	}
	if len(got.Artifacts) != 1 || got.Artifacts[0].Kind != "t.report" {
		t.Errorf("artifacts %+v", got.Artifacts)
	}
	if len(seen) == 0 || seen[len(seen)-1] != "succeeded" {
		t.Errorf("events %q", seen)
	}
	if _, err := f.host.ResumeJob(ctxGuard(t), m, "t.echo", "req_x", *res.Job, RunOptions{}); err == nil {
		t.Error("resuming a capability that is not long-running was accepted")
	}
	if _, err := f.host.ResumeJob(ctxGuard(t), m, "t.nope", "req_x", *res.Job, RunOptions{}); !errors.Is(err, ErrUnknownCapability) {
		t.Errorf("unknown capability: %v", err)
	}
}
