package examples

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"modbay/modproto"
)

// farmFixture is a render-farm request with the jobs root supplied.
func farmFixture(t *testing.T, capID string, input any) *fixture {
	f := newFixture(t, "render-farm", capID, input)
	f.addRoot(farmJobsRoot)
	return f
}

// startJob runs farm.render and returns the job id.
func startJob(t *testing.T, f *fixture, input any) string {
	t.Helper()
	f.req.Capability = "farm.render"
	f.setInput(input)
	r := f.invoke()
	res := result(t, r)
	id, _ := res["job_id"].(string)
	if !jobIDPattern().MatchString(id) || res["state"] != jobRunning {
		t.Fatalf("handle %v", res)
	}
	x := r.env.Execution
	if x.ActualCost != nil || x.EstimatedCost == nil || *x.EstimatedCost != 0 || len(x.Artifacts) != 0 {
		t.Errorf("handle execution %+v: estimated 0, actual unknown until the job ends", x)
	}
	if !strings.Contains(r.stdout, `"actual_cost":null`) {
		t.Errorf("stdout %s", r.stdout)
	}
	return id
}

// poll runs farm.jobs.status for id.
func poll(t *testing.T, f *fixture, id string) mainResult {
	t.Helper()
	f.req.Capability = "farm.jobs.status"
	f.setInput(map[string]any{"job_id": id})
	return f.invoke()
}

func TestRenderFarmDescriptor(t *testing.T) {
	d := describe(t, "render-farm")
	render, status, cancel := d.Capability("farm.render"), d.Capability("farm.jobs.status"), d.Capability("farm.jobs.cancel")
	if !render.LongRunning || render.PollCapability != "farm.jobs.status" || status.LongRunning {
		t.Errorf("capabilities %+v %+v", render, status)
	}
	if render.CancelCapability != "farm.jobs.cancel" || cancel == nil || cancel.LongRunning || !cancel.Hidden {
		t.Errorf("cancel_capability: %+v %+v", render, cancel)
	}
	for _, k := range []string{kindFarmLog, kindFarmTimeline} {
		if !strings.Contains(strings.Join(render.ArtifactSchemas, " "), k) || !strings.Contains(strings.Join(status.ArtifactSchemas, " "), k) {
			t.Errorf("kind %s must be declared on both capabilities", k)
		}
	}
	if got := d.Permissions.FilesystemWrite; len(got) != 2 || got[1] != farmJobsRoot {
		t.Errorf("filesystem_write %q", got)
	}
}

// TestRenderFarmClock moves a job through its life with a fake clock.
func TestRenderFarmClock(t *testing.T) {
	t0 := time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)
	clock := t0
	now = func() time.Time { return clock }
	t.Cleanup(func() { now = time.Now })

	f := farmFixture(t, "farm.render", nil)
	id := startJob(t, f, map[string]any{"frames": 12, "scene": "fractal"})
	var job farmJob
	b, err := os.ReadFile(filepath.Join(f.req.Roots[farmJobsRoot].Path, id+".json"))
	if err != nil || json.Unmarshal(b, &job) != nil || job.Frames != 12 || job.Scene != "fractal" || !job.StartedAt.Equal(t0) {
		t.Fatalf("job file %s: %v", b, err)
	}
	d := describe(t, "render-farm")
	for _, step := range []struct {
		at      time.Duration
		percent float64
		detail  string
	}{
		{0, 0, "frame 1 of 12"},
		{1100 * time.Millisecond, 36, "frame 5 of 12"},
		{2999 * time.Millisecond, 99, "frame 12 of 12"},
	} {
		clock = t0.Add(step.at)
		r := poll(t, f, id)
		res := result(t, r)
		if res["state"] != jobRunning || res["percent"] != step.percent || res["detail"] != step.detail || len(r.env.Execution.Artifacts) != 0 {
			t.Errorf("at %v: %v", step.at, res)
		}
		validateAgainst(t, d.ResultSchemas, farmStatusResult, r.env.Result)
	}
	clock = t0.Add(3 * time.Second)
	r := poll(t, f, id)
	res := result(t, r)
	if res["state"] != jobSucceeded || res["percent"] != 100.0 || res["detail"] != "rendered 12 frames of fractal" {
		t.Errorf("done: %v", res)
	}
	if x := r.env.Execution; x.ActualCost == nil || *x.ActualCost != 0 {
		t.Errorf("a finished local job costs 0: %+v", x)
	}
	if got := artifactIDs(r.env); strings.Join(got, ",") != "log,timeline" {
		t.Fatalf("artifacts %q", got)
	}
	for _, a := range r.env.Execution.Artifacts {
		if a.Root != "workspace" || !strings.HasPrefix(a.Path, "renders/"+id+"/") {
			t.Errorf("artifact %+v", a)
		}
		if a.ID == "timeline" && (a.Presentation != "timeline" || a.Kind != kindFarmTimeline || a.MediaType != "application/json") {
			t.Errorf("timeline %+v", a)
		}
	}
	timeline := f.artifactData(r.env, "timeline")
	validateAgainst(t, d.ArtifactSchemas, kindFarmTimeline, timeline)
	var tl struct {
		DurationMS int         `json:"duration_ms"`
		Events     []farmEvent `json:"events"`
	}
	if err := json.Unmarshal(timeline, &tl); err != nil || tl.DurationMS != 3000 || len(tl.Events) != 12 || tl.Events[11].EndMS != 3000 {
		t.Errorf("timeline %s", timeline)
	}
	log := string(f.artifactData(r.env, "log"))
	if !strings.Contains(log, "# Render log: fractal") || !strings.Contains(log, "| 12 | 2750 | 3000 |") || !strings.Contains(log, "@") {
		t.Errorf("log:\n%s", log)
	}
	// Polling again reports the same artifacts, byte for byte.
	clock = t0.Add(time.Hour)
	again := poll(t, f, id)
	if again.env.Execution.Artifacts[0].Digest != r.env.Execution.Artifacts[0].Digest {
		t.Errorf("artifacts changed between polls")
	}
}

// TestRenderFarmCancel: farm.jobs.cancel stops a running job where it is
// and answers like a poll (docs/protocol.md §16); later polls say
// cancelled and write no artifacts; a job already done is reported done.
func TestRenderFarmCancel(t *testing.T) {
	t0 := time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)
	clock := t0
	now = func() time.Time { return clock }
	t.Cleanup(func() { now = time.Now })
	d := describe(t, "render-farm")
	cancel := func(f *fixture, id string) mainResult {
		f.req.Capability = "farm.jobs.cancel"
		f.setInput(map[string]any{"job_id": id})
		return f.invoke()
	}

	f := farmFixture(t, "farm.render", nil)
	id := startJob(t, f, map[string]any{"frames": 12})
	clock = t0.Add(1100 * time.Millisecond)
	r := cancel(f, id)
	res := result(t, r)
	if res["state"] != jobCancelled || res["detail"] != "cancelled at frame 5 of 12" || res["percent"] != 36.0 {
		t.Fatalf("cancel: %v", res)
	}
	validateAgainst(t, d.ResultSchemas, farmStatusResult, r.env.Result)
	clock = t0.Add(time.Hour)
	r = poll(t, f, id)
	if res := result(t, r); res["state"] != jobCancelled || res["detail"] != "cancelled at frame 5 of 12" || len(r.env.Execution.Artifacts) != 0 {
		t.Fatalf("poll after cancel: %v %v", res, r.env.Execution.Artifacts)
	}
	if res := result(t, cancel(f, id)); res["state"] != jobCancelled || res["detail"] != "cancelled at frame 5 of 12" {
		t.Fatalf("a second cancel: %v", res)
	}

	clock = t0
	done := startJob(t, f, map[string]any{"frames": 1})
	clock = t0.Add(time.Second)
	if res := result(t, cancel(f, done)); res["state"] != jobSucceeded {
		t.Fatalf("cancel of a finished job: %v", res)
	}
	if r := cancel(f, "job_"+strings.Repeat("cd", 16)); r.env.OK || r.env.Error.Code != codeUnknownJob {
		t.Fatalf("cancel of an unknown job: %+v", r.env)
	}
}

// TestRenderFarmRealTime polls a one-frame job to completion on the real
// clock, as modbay would.
func TestRenderFarmRealTime(t *testing.T) {
	f := farmFixture(t, "farm.render", nil)
	id := startJob(t, f, map[string]any{"frames": 1, "scene": "teapot"})
	deadline := time.Now().Add(3 * time.Second)
	for {
		res := result(t, poll(t, f, id))
		if res["state"] == jobSucceeded {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job never finished: %v", res)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestRenderFarmErrors(t *testing.T) {
	f := farmFixture(t, "farm.jobs.status", nil)
	unknown := "job_" + strings.Repeat("ab", 16)
	r := poll(t, f, unknown)
	wantError(t, r, codeUnknownJob, "")
	if r.env.Error.Retryable || r.env.Error.Details["job_id"] != unknown {
		t.Errorf("error %+v", r.env.Error)
	}
	for _, bad := range []string{"job_1", "../../etc/passwd", "job_" + strings.Repeat("AB", 16)} {
		wantError(t, poll(t, f, bad), modproto.CodeInvalidRequest, "job_id")
	}
	f.setInput(map[string]any{})
	wantError(t, f.invoke(), modproto.CodeInvalidRequest, "job_id")

	for _, tc := range []struct {
		input map[string]any
		field string
	}{
		{map[string]any{"frames": 0}, "frames"},
		{map[string]any{"frames": 101}, "frames"},
		{map[string]any{"scene": "sphere"}, "scene"},
		{map[string]any{"duration_ms": 5}, "duration_ms"},
	} {
		f := farmFixture(t, "farm.render", tc.input)
		wantError(t, f.invoke(), modproto.CodeInvalidRequest, tc.field)
	}
	f = newFixture(t, "render-farm", "farm.render", map[string]any{})
	r = f.invoke()
	wantError(t, r, codeMissingRoot, "")
	if r.env.Error.Details["root"] != farmJobsRoot {
		t.Errorf("details %v", r.env.Error.Details)
	}
}

func TestFarmPreview(t *testing.T) {
	for _, s := range farmScenes {
		p := farmPreview(s)
		if !strings.HasSuffix(p, "\n") || strings.Count(p, "\n") < 5 || strings.Contains(p, "```") {
			t.Errorf("preview %s:\n%s", s, p)
		}
	}
}
