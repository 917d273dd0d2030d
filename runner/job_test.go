package runner

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"modbay/modproto"
)

func TestJobPolledToCompletion(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("jobs", "good")
	m := f.load("jobs")
	p, err := f.host.Plan(m, "t.job", json.RawMessage(`{"polls":3}`))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var states []string
	res, err := f.host.Run(ctxGuard(t), p, false, func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		if e.RequestID != p.Request.RequestID {
			t.Errorf("event under request id %s", e.RequestID)
		}
		if e.Job != nil {
			states = append(states, e.Job.State)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() {
		t.Fatalf("job failed: %+v %s", res.Host, res.Stderr)
	}
	if res.Job == nil || res.Job.State != "succeeded" || res.Job.Polls != 3 || res.Job.Percent == nil || *res.Job.Percent != 100 {
		t.Fatalf("job %+v", res.Job)
	}
	if res.Capability != "t.job" {
		t.Errorf("the result names %q, want the capability that was run", res.Capability)
	}
	mu.Lock()
	if len(states) != 4 || states[0] != "running" || states[3] != "succeeded" {
		t.Errorf("job events %q", states)
	}
	mu.Unlock()
	// The final reply's artifact is of a kind the poll capability does not
	// declare but the job's capability does.
	if len(res.Artifacts) != 1 || res.Artifacts[0].Kind != "t.report" {
		t.Errorf("artifacts %+v", res.Artifacts)
	}
	if res.RequestID != p.Request.RequestID || res.Envelope.RequestID == p.Request.RequestID {
		t.Errorf("request ids: result %s envelope %s", res.RequestID, res.Envelope.RequestID)
	}
	if res.HandleEnvelope == nil || res.HandleEnvelope.RequestID != p.Request.RequestID {
		t.Error("the handle's envelope was not kept")
	}
}

func TestJobUnknown(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("jobs", "good")
	m := f.load("jobs")
	res := f.run(m, "t.job", `{"lost":true}`, nil)
	if res.Host != nil || res.Code() != "unknown_job" {
		t.Fatalf("code %q host %+v", res.Code(), res.Host)
	}
	if res.Job == nil || res.Job.ID != "job_lost" || res.Job.State != "queued" || res.Job.Polls != 1 {
		t.Errorf("job %+v", res.Job)
	}
}

func TestJobBoundedByTheDeadline(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("jobs", "good")
	f.host.PollInterval, f.host.PollMaxInterval = 100, 100 // ns: poll as fast as runs go
	m := f.load("jobs")
	// The deadline leaves room for the first call (which returns the
	// handle) on a loaded machine; the polls then run into it.
	res := f.run(m, "t.job", `{"polls":1000000}`, func(p *Plan) { p.Request.DeadlineMS = 3000 })
	wantHost(t, res, modproto.CodeHostTimeout)
	if res.Job == nil || res.Job.Polls == 0 || res.Job.State != "running" {
		t.Errorf("job %+v", res.Job)
	}
}

func TestParseJob(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, id, state string
		pct           *float64
	}{
		{`{"job_id":"j1","state":"running"}`, "j1", "running", nil},
		{`{"job":{"job_id":"j2","state":"succeeded","percent":100}}`, "j2", "succeeded", ptr(100.0)},
		{`{"job":{"job_id":"j3","percent":null},"state":"failed"}`, "j3", "failed", nil},
		{`{"report":"done"}`, "", "", nil},
		{`[1]`, "", "", nil},
		{`{"job_id":7}`, "", "", nil},
	}
	for _, c := range cases {
		js := parseJob(json.RawMessage(c.in))
		if c.id == "" {
			if js != nil {
				t.Errorf("%s: got a job %+v", c.in, js)
			}
			continue
		}
		if js == nil || js.ID != c.id || js.State != c.state || (js.Percent == nil) != (c.pct == nil) || (c.pct != nil && *js.Percent != *c.pct) {
			t.Errorf("%s: %+v", c.in, js)
		}
	}
	for _, s := range []string{"succeeded", "failed", "cancelled", "completed", "error"} {
		if !IsTerminalJobState(s) {
			t.Errorf("%s is terminal", s)
		}
	}
	if IsTerminalJobState("running") {
		t.Error("running is not terminal")
	}
}

func ptr[T any](v T) *T { return &v }

// TestJobCancelSaysPollingStopped: cancelling a run once its job handle
// has arrived stops the polling, whether it lands between polls or during
// one; the job lives in the module, so the verdict says it goes on instead
// of calling the job cancelled.
func TestJobCancelSaysPollingStopped(t *testing.T) {
	t.Parallel()
	for _, fast := range []bool{false, true} {
		f := newFixture(t)
		f.addModule("jobs", "good")
		if fast {
			f.host.PollInterval, f.host.PollMaxInterval = 100, 100 // ns: mostly inside a poll
		}
		m := f.load("jobs")
		p, err := f.host.Plan(m, "t.job", json.RawMessage(`{"polls":1000000}`))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(ctxGuard(t))
		var once sync.Once
		res, err := f.host.Run(ctx, p, false, func(e Event) {
			if e.Job != nil && (!fast || e.Job.Polls >= 2) {
				once.Do(cancel)
			}
		})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		wantHost(t, res, modproto.CodeCancelled)
		if res.Job == nil {
			t.Fatal("no job on the result")
		}
		if want := "polling stopped; job " + res.Job.ID + " continues in the module"; res.Host.Detail != want {
			t.Errorf("fast %v: detail %q, want %q", fast, res.Host.Detail, want)
		}
	}
}

// TestJobStateProblemCutsTheState: a state of a megabyte is quoted in the
// verdict cut to maxQuotedWord runes, marked, as is a long job id.
func TestJobStateProblemCutsTheState(t *testing.T) {
	d := jobStateProblem(strings.Repeat("j", 5000), strings.Repeat("s", 1<<20))
	if len(d) > 600 || !strings.Contains(d, `"`+strings.Repeat("s", maxQuotedWord)+`"…`) || !strings.Contains(d, strings.Repeat("j", maxQuotedWord)+"… has") {
		t.Errorf("jobStateProblem = %.700s (%d bytes)", d, len(d))
	}
	if d := jobStateProblem("j1", "sleeping"); !strings.Contains(d, `job j1 has state "sleeping", which`) {
		t.Errorf("a short state: %s", d)
	}
}
