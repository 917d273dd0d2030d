package ui

import (
	"encoding/json"
	"slices"
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

// F on the result of a job this cockpit stopped following polls it again
// here: the run view takes the result's place and the job's end is
// recorded; the result's help bar names F.
func TestFollowAStoppedJobAgain(t *testing.T) {
	b := &resumeBackend{resumed: make(chan string, 4)}
	m := historyModel(t, b, 100, 24, nil)
	id := "req_00000000000000000000000000000079"
	stoppedJob(t, m, id, history.StatusDetached, "running", 11)
	h := newHarness(t, m)
	h.do(m.open(screenResult, id))
	h.until("the result", func() bool { return m.screen() == screenResult })
	if !strings.Contains(ansi.Strip(frame(t, m)), "F follow the job again") {
		t.Errorf("the help bar does not offer F:\n%s", ansi.Strip(frame(t, m)))
	}
	h.key("F")
	h.until("the job polled again and done", func() bool { r, ok := m.runs[id]; return ok && r.done && r.result.Job.State == "succeeded" })
	if got := <-b.resumed; got != id {
		t.Errorf("resumed %s", got)
	}
	rec, err := m.history.Get(id)
	if err != nil || rec.Status != history.StatusOK {
		t.Errorf("record: %v %+v", err, rec)
	}
	h.until("the result of the job's end", func() bool {
		return m.screen() == screenResult && strings.Contains(ansi.Strip(frame(t, m)), "succeeded")
	})
}

// F on a job's row in A that no process polls follows it again; the row
// and the help bar say so.
func TestActivityFollowsAnUnpolledJob(t *testing.T) {
	b := &resumeBackend{resumed: make(chan string, 4)}
	m := historyModel(t, b, 100, 24, nil)
	id := "req_00000000000000000000000000000080"
	stoppedJob(t, m, id, history.StatusDetached, "running", 11)
	m.forgetRun(id) // an earlier cockpit's
	_, cmd := m.Update(uitest.Key("A"))
	runCmd(m, cmd)
	out := ansi.Strip(frame(t, m))
	if !strings.Contains(out, "F follows it here") || !strings.Contains(out, "F follow the job again") {
		t.Fatalf("A:\n%s", out)
	}
	h := newHarness(t, m)
	h.key("F")
	h.until("the job polled again", func() bool { r, ok := m.runs[id]; return ok && r.done })
	if got := <-b.resumed; got != id {
		t.Errorf("resumed %s", got)
	}
}

// F on a detached job's row in the history follows it again.
func TestHistoryFollowsAnUnpolledJob(t *testing.T) {
	b := &resumeBackend{resumed: make(chan string, 4)}
	m := historyModel(t, b, 100, 24, seedHistory)
	const id = "req_00000000000000000000000000000003" // detached, job_7
	_, cmd := m.Update(uitest.Key("H"))
	runCmd(m, cmd)
	press(m, "end")
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "F follows it here") || !slices.Contains(helpKeys(m), "F") {
		t.Fatalf("history lacks F (keys %v):\n%s", helpKeys(m), out)
	}
	h := newHarness(t, m)
	h.key("F")
	h.until("the job polled again", func() bool { r, ok := m.runs[id]; return ok && r.done })
	if got := <-b.resumed; got != id {
		t.Errorf("resumed %s", got)
	}
}

// Quitting says what it leaves: the jobs go on (the next cockpit resumes
// them), the plain runs in flight are cancelled; nothing when neither.
func TestQuitSaysWhatIsLeftRunning(t *testing.T) {
	m := historyModel(t, nil, 100, 24, nil)
	if n := m.leftNote(); n != "" {
		t.Errorf("nothing in flight: %q", n)
	}
	p := &runner.Plan{Capability: modproto.Capability{ID: "fake.slow"}}
	for i, j := range []*runner.JobStatus{{ID: "job_1", State: "running"}, {ID: "job_2", State: "queued"}, nil} {
		m.keepRun(&runView{com: m.com, id: "req_0000000000000000000000000000010" + string(rune('0'+i)), plan: p, cancel: func() {}, job: j})
	}
	m.keepRun(&runView{com: m.com, id: "req_00000000000000000000000000000200", plan: p, cancel: func() {}, done: true})
	want := "2 jobs left running; the next modbay resumes them (or modbay jobs list). 1 run in flight cancelled."
	if n := m.leftNote(); n != want {
		t.Errorf("note %q\nwant %q", n, want)
	}
}

// esc on an ordinary run's screen sends it to the background: it goes on
// here, the header counts it as a run, A lists it, and its end rings the
// bell. A and : on the run screen say why they do nothing there.
func TestPlainRunGoesToTheBackground(t *testing.T) {
	m := runInFlight(t, false)
	id := m.run().id
	if m.run().plan.Capability.LongRunning || m.run().job != nil {
		t.Fatal("want a plain run")
	}
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "esc keeps it running in the background") {
		t.Errorf("the run screen does not offer esc:\n%s", out)
	}
	press(m, "A")
	if out := ansi.Strip(frame(t, m)); m.screen() != screenRun || !strings.Contains(out, "A opens from a list: esc first") {
		t.Errorf("A on the run screen:\n%s", out)
	}
	press(m, "esc")
	if m.showsRun(id) {
		t.Fatal("esc did not send the run to the background")
	}
	if head := ansi.Strip(strings.SplitN(frame(t, m), "\n", 2)[0]); !strings.Contains(head, "1 run in background") {
		t.Errorf("header %q", head)
	}
	cmd := m.open(screenActivity, nil) // the fixture's stack is the form alone
	if m.screen() != screenActivity {
		t.Fatalf("A opened %s", m.screen())
	}
	runCmd(m, cmd)
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "› running") || !strings.Contains(out, "from this cockpit") {
		t.Errorf("A does not list the run:\n%s", out)
	}
	p := uitest.Plan(t, uitest.Module(t))
	res := uitest.Result(t, p, "invoke/success-with-artifact.json")
	res.RequestID = id
	_, cmd = m.Update(runDoneMsg{id: id, result: res})
	if !rings(msgsOf(cmd)) {
		t.Error("the background run ended without the bell")
	}
}

// A run of this cockpit deleted with D is dropped: A no longer lists it,
// whatever the cockpit kept of it.
func TestDeletedRunLeavesTheActivity(t *testing.T) {
	m := historyAt(t, 100, 20, seedHistory)
	const id = "req_00000000000000000000000000000001"
	p := &runner.Plan{Module: m.modules.modules[0], Capability: modproto.Capability{ID: "fake.report"}}
	m.keepRun(&runView{com: m.com, id: id, plan: p, cancel: func() {}, done: true, started: uitest.Epoch.Add(-5 * time.Minute),
		result: &runner.Result{RequestID: id, Module: "fake", Capability: "fake.report", Envelope: &modproto.Envelope{OK: true}}})
	m.Update(uitest.Key("D"))
	_, cmd := m.Update(uitest.Key("y"))
	runCmd(m, runCmd(m, cmd))
	if _, err := m.history.Get(id); err == nil {
		t.Fatal("not deleted")
	}
	_, cmd = m.Update(uitest.Key("A"))
	runCmd(m, cmd)
	if out := ansi.Strip(frame(t, m)); strings.Contains(out, "fake.report") {
		t.Errorf("A lists the deleted run:\n%s", out)
	}
}

// g/home and G/end go to A's first and last entry; ? lists them.
func TestActivityTopAndBottom(t *testing.T) {
	m := activityAt(t, nil, 100, 20)
	as := m.top().(*activityScreen)
	if len(as.entries) < 2 {
		t.Fatalf("want two entries, have %d", len(as.entries))
	}
	first, last := as.entries[0].RunID, as.entries[len(as.entries)-1].RunID
	for _, k := range []string{"end", "G"} {
		press(m, "home")
		press(m, k)
		if as.sel != last {
			t.Errorf("%s: selected %s, want %s", k, as.sel, last)
		}
	}
	for _, k := range []string{"home", "g"} {
		press(m, "end")
		press(m, k)
		if as.sel != first {
			t.Errorf("%s: selected %s, want %s", k, as.sel, first)
		}
	}
	press(m, "?")
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "home/g") || !strings.Contains(out, "end/G") {
		t.Errorf("? does not list them:\n%s", out)
	}
}

// The open history reads the index again: a run another process records
// shows without reopening it, the selection kept.
func TestHistoryRefreshesWhileOpen(t *testing.T) {
	m := historyModel(t, nil, 100, 20, seedHistory)
	_, cmd := m.Update(uitest.Key("H"))
	tick := runCmd(m, cmd)
	if tick == nil {
		t.Fatal("the history schedules no re-read")
	}
	press(m, "down")
	sel := m.top().(*historyScreen).selected().RunID
	if err := m.history.Put(&history.Record{RunID: "req_00000000000000000000000000000090", Module: "fake", Capability: "fake.report",
		Source: history.SourceInvoke, Status: history.StatusOK, Started: uitest.Epoch, DurationMS: 10}); err != nil {
		t.Fatal(err)
	}
	hs := m.top().(*historyScreen)
	_, read := m.Update(historyTickMsg{s: hs}) // the tick fired
	if read == nil {
		t.Fatal("the tick reads nothing")
	}
	if next := runCmd(m, read); next == nil {
		t.Error("the reading stops after one re-read")
	}
	out := ansi.Strip(frame(t, m))
	if !strings.Contains(out, "4 runs recorded") {
		t.Errorf("the new run does not show:\n%s", out)
	}
	if got := hs.selected().RunID; got != sel {
		t.Errorf("selection moved from %s to %s", sel, got)
	}
	// Off top, it reads nothing; closed, the chain ends.
	m.Update(uitest.Key("A"))
	if _, c := m.Update(historyTickMsg{s: hs}); c == nil {
		t.Error("the chain ends while the history is under A")
	}
	m.pop()
	m.pop()
	if _, c := m.Update(historyTickMsg{s: hs}); c != nil {
		t.Error("a closed history is still read")
	}
}
