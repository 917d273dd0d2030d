package ui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"modbay/history"
	"modbay/modproto"
	"modbay/runner"
	"modbay/ui/internal/uitest"
)

// stoppedJob keeps in m a job of fake.slow this cockpit stopped following
// (ctrl+c on its run view: polling stopped, the job goes on) and writes
// its record as another process left it: status and job state given.
func stoppedJob(t *testing.T, m *Model, id string, status history.Status, state string, pct float64) {
	t.Helper()
	var mod *runner.Module
	for _, x := range m.modules.modules {
		if x.ID == "fake" {
			mod = x
		}
	}
	p := &runner.Plan{Module: mod, Capability: *mod.Descriptor.Capability("fake.slow"),
		Request: modproto.Request{RequestID: id, Capability: "fake.slow", Input: json.RawMessage(`{}`)}}
	eleven := 11.0
	m.keepRun(&runView{com: m.com, id: id, plan: p, cancel: func() {}, started: uitest.Epoch.Add(-time.Minute), done: true,
		result: &runner.Result{RequestID: id, Module: "fake", Capability: "fake.slow", Started: uitest.Epoch.Add(-time.Minute),
			Host: &runner.HostError{Code: modproto.CodeCancelled, Detail: "stopped following"},
			Job:  &runner.JobStatus{ID: "job_9", State: "running", Percent: &eleven, Polls: 2}}})
	rec := &history.Record{RunID: id, Module: "fake", Capability: "fake.slow", Source: history.SourceCockpit,
		Status: status, Started: uitest.Epoch.Add(-time.Minute), DurationMS: 15000, InputRecorded: true, Input: json.RawMessage(`{}`),
		Job: &history.Job{ID: "job_9", State: state, Percent: &pct, Polls: 5, PollCapability: "fake.jobs.status"}}
	if status == history.StatusOK {
		rec.Envelope = json.RawMessage(`{"protocol":"xibodev.module/v1","module":"fake","operation":"invoke","request_id":"` + id + `","ok":true,"result":{"frames":40},"warnings":[],"execution":{"local":true,"provider":"local","estimated_cost":0,"actual_cost":0,"artifacts":[]}}`)
	}
	if err := m.history.Put(rec); err != nil {
		t.Fatal(err)
	}
}

// A job this cockpit stopped following that another process (modbay jobs
// wait) then finished shows in A as its record says, not "detached", and
// enter opens the recorded outcome, not the stale stop.
func TestActivityStoppedJobFinishedElsewhere(t *testing.T) {
	m := historyModel(t, nil, 100, 24, nil)
	id := "req_00000000000000000000000000000077"
	stoppedJob(t, m, id, history.StatusOK, "succeeded", 100)
	_, cmd := m.Update(uitest.Key("A"))
	runCmd(m, cmd)
	out := ansi.Strip(frame(t, m))
	if strings.Contains(out, "detached") || !strings.Contains(out, "› ok") {
		t.Fatalf("A shows the stale stop, not the record:\n%s", out)
	}
	_, cmd = m.Update(uitest.Key("enter"))
	runCmd(m, cmd)
	if m.screen() != screenResult {
		t.Fatalf("enter opened %s", m.screen())
	}
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "succeeded") || strings.Contains(out, "cancelled") {
		t.Errorf("enter opened the stale stop:\n%s", out)
	}
}

// The same job polled now by another process (its record "running") is
// followed, not shown as an error or a stop.
func TestActivityStoppedJobPolledElsewhereIsFollowed(t *testing.T) {
	m := historyModel(t, nil, 100, 24, nil)
	id := "req_00000000000000000000000000000078"
	stoppedJob(t, m, id, history.StatusRunning, "running", 40)
	lock, err := m.history.LockRun(id) // another process polls it
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	_, cmd := m.Update(uitest.Key("A"))
	runCmd(m, cmd)
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "job running 40%") {
		t.Fatalf("A:\n%s", out)
	}
	_, cmd = m.Update(uitest.Key("enter"))
	runCmd(m, cmd)
	out := ansi.Strip(frame(t, m))
	if m.screen() != screenRun || !strings.Contains(out, "running 40%") || strings.Contains(out, "error") {
		t.Errorf("enter opened %s:\n%s", m.screen(), out)
	}
}
