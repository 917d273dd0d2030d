package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"modbay/config"
	"modbay/history"
	"modbay/modproto"
	"modbay/runner"
	"modbay/ui/internal/uitest"
)

func init() {
	helpStates[screenHistory] = []helpState{
		{"list", func(t *testing.T) *Model { return historyAt(t, 80, 24, seedHistory) }},
		{"empty", func(t *testing.T) *Model { return historyAt(t, 80, 24, nil) }},
		{"filter typing", func(t *testing.T) *Model {
			m := historyAt(t, 80, 24, seedHistory)
			press(m, "/")
			typeText(m, "status:e")
			return m
		}},
	}
}

// seedHistory records three runs of the fixture modules before the
// clock's now: a report (ok, with an artifact), an echo that failed, and a
// long-running job left detached and pinned.
func seedHistory(t *testing.T, s *history.Store) {
	t.Helper()
	at := func(d time.Duration) time.Time { return uitest.Epoch.Add(-d) }
	recs := []*history.Record{
		{RunID: "req_00000000000000000000000000000001", Module: "fake", Capability: "fake.report", Source: history.SourceCockpit,
			Status: history.StatusOK, Started: at(5 * time.Minute), DurationMS: 1234, InputRecorded: true,
			Input:    json.RawMessage(`{"title":"Quarterly","secret":"[redacted]"}`),
			Redacted: []string{"/secret"},
			Envelope: json.RawMessage(`{"protocol":"xibodev.module/v1","module":"fake","operation":"invoke","request_id":"req_00000000000000000000000000000001","ok":true,"result":{"rows":3},"warnings":[],"execution":{"local":true,"provider":"local","estimated_cost":0,"actual_cost":0,"artifacts":[]}}`),
			Artifacts: []history.Artifact{{Artifact: modproto.Artifact{ID: "r", Kind: "fake.report/v1", Path: "report.md", Root: "workspace", MediaType: "text/markdown", Title: "Report"},
				Staged: "/nonexistent/report.md", Size: 12, Presentation: "markdown"}}},
		{RunID: "req_00000000000000000000000000000002", Module: "echo", Capability: "fake.echo", Source: history.SourceInvoke,
			Status: history.StatusError, Code: "provider_failure", Started: at(2 * time.Hour), DurationMS: 80, InputRecorded: true,
			Input: json.RawMessage(`{"text":"hi"}`)},
		{RunID: "req_00000000000000000000000000000003", Module: "fake", Capability: "fake.slow", Source: history.SourceCockpit,
			Status: history.StatusDetached, Code: "cancelled", Started: at(26 * time.Hour), DurationMS: 4000, Pinned: true,
			InputRecorded: true, Input: json.RawMessage(`{}`),
			Job: &history.Job{ID: "job_7", State: "running", Percent: ptrF(40), Detail: "frame 4 of 10", Polls: 3, PollCapability: "fake.jobs.status"}},
	}
	for _, r := range recs {
		if err := s.Put(r); err != nil {
			t.Fatal(err)
		}
	}
}

func ptrF(f float64) *float64 { return &f }

// historyModel is a test model with a history store seeded by seed (nil:
// empty) and the fixture modules listed.
func historyModel(t *testing.T, b Backend, w, h int, seed func(*testing.T, *history.Store)) *Model {
	t.Helper()
	m, _ := newTest(t, b, w, h)
	s, err := history.Open(filepath.Join(t.TempDir(), "history"), config.History{})
	if err != nil {
		t.Fatal(err)
	}
	if seed != nil {
		seed(t, s)
	}
	m.history = s
	m.resumeStarted = true // no jobs taken over unless a test asks
	withModules(t, m)
	return m
}

// historyAt opens the history screen with its listing loaded.
func historyAt(t *testing.T, w, h int, seed func(*testing.T, *history.Store)) *Model {
	t.Helper()
	m := historyModel(t, nil, w, h, seed)
	_, cmd := m.Update(uitest.Key("H"))
	if m.screen() != screenHistory || cmd == nil {
		t.Fatalf("H opened %v", m.screen())
	}
	m.Update(cmd())
	return m
}

// runCmd runs cmd and feeds its message back (one level).
func runCmd(m *Model, cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	_, next := m.Update(cmd())
	return next
}

func TestGoldenHistory(t *testing.T) {
	m := historyAt(t, 100, 20, seedHistory)
	golden.RequireEqual(t, []byte(frame(t, m)))
	t.Run("filtered", func(t *testing.T) {
		m := historyAt(t, 100, 20, seedHistory)
		press(m, "/")
		typeText(m, "module:fake")
		press(m, "enter")
		golden.RequireEqual(t, []byte(frame(t, m)))
	})
	t.Run("status", func(t *testing.T) {
		m := historyAt(t, 100, 20, seedHistory)
		for range 2 { // running, then detached
			press(m, "s")
		}
		golden.RequireEqual(t, []byte(frame(t, m)))
	})
	t.Run("empty", func(t *testing.T) {
		golden.RequireEqual(t, []byte(frame(t, historyAt(t, 100, 20, nil))))
	})
}

func TestHistoryNewestFirstAndFilters(t *testing.T) {
	m := historyAt(t, 100, 20, seedHistory)
	hs := m.top().(*historyScreen)
	if hs.list.Len() != 3 || hs.selected().RunID != "req_00000000000000000000000000000001" {
		t.Fatalf("newest first: %d rows, selected %+v", hs.list.Len(), hs.selected())
	}
	press(m, "/")
	typeText(m, "status:error")
	if hs.list.Len() != 1 || hs.selected().Module != "echo" {
		t.Errorf("status:error kept %d", hs.list.Len())
	}
	press(m, "esc")
	press(m, "/")
	typeText(m, "quarterly") // the input's text
	if hs.list.Len() != 1 || hs.selected().Capability != "fake.report" {
		t.Errorf("input search kept %d", hs.list.Len())
	}
	press(m, "esc")
	press(m, "s") // ok
	if hs.list.Len() != 1 || hs.selected().Capability != "fake.report" {
		t.Errorf("status ok kept %d", hs.list.Len())
	}
	press(m, "s", "s") // not ok, then in flight
	if hs.list.Len() != 1 || hs.selected().JobID != "job_7" {
		t.Errorf("in flight kept %d", hs.list.Len())
	}
}

// TestHistoryReopensResult: enter reads the record and shows its result,
// artifacts and all, as a run kept by id.
func TestHistoryReopensResult(t *testing.T) {
	m := historyAt(t, 100, 30, seedHistory)
	_, cmd := m.Update(uitest.Key("enter"))
	runCmd(m, cmd)
	if m.screen() != screenResult {
		t.Fatalf("enter opened %v", m.screen())
	}
	r := m.result()
	if r.res.RequestID != "req_00000000000000000000000000000001" || len(r.res.Artifacts) != 1 || !r.res.OK() {
		t.Errorf("result %+v", r.res)
	}
	out := frame(t, m)
	if !strings.Contains(out, "Report") {
		t.Errorf("the artifact is not listed:\n%s", out)
	}
	// esc goes back to the history, and the help bar says so.
	if !strings.Contains(out, "back to history") || strings.Contains(out, "back to form") {
		t.Errorf("the help bar does not say where esc goes:\n%s", out)
	}
	// r on a result with no form beneath re-runs it from its record.
	_, cmd = m.Update(uitest.Key("r"))
	runCmd(m, cmd)
	if m.screen() != screenForm {
		t.Fatalf("r from a reopened result opened %v", m.screen())
	}
}

// TestHistoryRerunPrefills: r opens the capability's form with the input
// as it was, secrets left out, and says how it fits today's schema.
func TestHistoryRerunPrefills(t *testing.T) {
	fb := &fakeBackend{plan: func(mod *runner.Module, capID string, input json.RawMessage) (*runner.Plan, error) {
		return uitest.Plan(t, mod), nil
	}}
	m := historyModel(t, fb, 100, 30, seedHistory)
	_, cmd := m.Update(uitest.Key("H"))
	runCmd(m, cmd)
	_, cmd = m.Update(uitest.Key("r"))
	runCmd(m, cmd)
	if m.screen() != screenForm || m.flow.cap.ID != "fake.report" {
		t.Fatalf("r opened %v %s", m.screen(), m.flow.cap.ID)
	}
	out := frame(t, m)
	for _, want := range []string{"Re-run of req_00000000000000000000000000000001", "Secret fields were not recorded", "/secret", "still fits today"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("form lacks %q:\n%s", want, out)
		}
	}
	if v := m.form().Value(); !strings.Contains(string(v), `"Quarterly"`) || strings.Contains(string(v), "redacted") {
		t.Errorf("form input %s", v)
	}
	p := uitest.Plan(t, m.flow.module)
	o := m.flow.beginOptions(p, true)
	if o.Source != history.SourceRerun || o.RerunOf != "req_00000000000000000000000000000001" {
		t.Errorf("begin options %+v", o)
	}

	// A recorded input today's schema refuses: the differences are said.
	m2 := historyModel(t, fb, 100, 30, func(t *testing.T, s *history.Store) {
		s.Put(&history.Record{RunID: "req_old", Module: "fake", Capability: "fake.report", Status: history.StatusOK,
			Started: uitest.Epoch.Add(-time.Minute), InputRecorded: true, Input: json.RawMessage(`{"title":"Q","pages":3}`)})
	})
	_, cmd = m2.Update(uitest.Key("H"))
	runCmd(m2, cmd)
	_, cmd = m2.Update(uitest.Key("r"))
	runCmd(m2, cmd)
	if out := strings.Join(strings.Fields(frame(t, m2)), " "); !strings.Contains(out, "Today's schema differs") {
		t.Errorf("no difference said:\n%s", out)
	}
}

// TestHistoryPin: p pins the run and the note says so, replacing the
// note an earlier action left.
func TestHistoryPin(t *testing.T) {
	m := historyAt(t, 100, 20, seedHistory)
	m.top().(*historyScreen).note = "Copied to the tmux buffer: an earlier copy"
	_, cmd := m.Update(uitest.Key("p"))
	if hs := m.top().(*historyScreen); hs.note != "" {
		t.Errorf("an earlier note stays after p: %q", hs.note)
	}
	cmd = runCmd(m, cmd) // pinned: reload
	runCmd(m, cmd)
	hs := m.top().(*historyScreen)
	if !hs.selected().Pinned {
		t.Error("pin not shown")
	}
	if rec, _ := m.history.Get(hs.selected().RunID); !rec.Pinned {
		t.Error("pin not recorded")
	}
	if !strings.HasPrefix(hs.note, "Pinned req_") {
		t.Errorf("note after p: %q", hs.note)
	}
}

// TestJobInBackground: esc on a long-running job's run screen leaves it
// running; the header counts it; its end is kept by id for the history.
func TestJobInBackground(t *testing.T) {
	m := runInFlight(t, false)
	r := m.run()
	r.plan.Capability.LongRunning = true
	out := frame(t, m)
	if !strings.Contains(out, "run in background") || !strings.Contains(out, "esc keeps it running in the background") {
		t.Fatalf("run screen of a job:\n%s", out)
	}
	press(m, "esc")
	if m.screen() == screenRun {
		t.Fatal("esc did not leave the run screen")
	}
	if head := strings.SplitN(frame(t, m), "\n", 2)[0]; !strings.Contains(head, "1 job in background") {
		t.Errorf("header %q", head)
	}
	m.Update(runDoneMsg{id: r.id, result: &runner.Result{RequestID: r.id, Envelope: &modproto.Envelope{OK: true}}})
	if head := strings.SplitN(frame(t, m), "\n", 2)[0]; strings.Contains(head, "background") {
		t.Errorf("header after the end %q", head)
	}
	if !m.runs[r.id].done {
		t.Error("the run's end was not kept")
	}
}

// resumeBackend is a backend that resumes jobs (runner.Host.ResumeJob).
type resumeBackend struct {
	fakeBackend
	resumed chan string
}

func (b *resumeBackend) ResumeJob(ctx context.Context, m *runner.Module, capID, requestID string, job runner.JobStatus, opts runner.RunOptions) (*runner.Result, error) {
	b.resumed <- requestID
	opts.Events(runner.Event{RequestID: requestID, Job: &runner.JobStatus{ID: job.ID, State: "succeeded", Polls: job.Polls + 1}})
	return &runner.Result{RequestID: requestID, Module: m.ID, Capability: capID, Envelope: &modproto.Envelope{OK: true, Result: json.RawMessage(`{}`)},
		Job: &runner.JobStatus{ID: job.ID, State: "succeeded", Polls: job.Polls + 1}}, nil
}

// TestJobsResumedAtStart: a job the history left detached is polled again
// once the modules are known, in the background, and recorded done.
func TestJobsResumedAtStart(t *testing.T) {
	b := &resumeBackend{resumed: make(chan string, 4)}
	m := historyModel(t, b, 100, 30, seedHistory)
	m.resumeStarted = false
	h := newHarness(t, m)
	_, cmd := m.Update(modulesMsg{gen: m.gen, modules: uitest.Modules(t)})
	h.do(cmd)
	const id = "req_00000000000000000000000000000003"
	h.until("the job resumed and done", func() bool { r, ok := m.runs[id]; return ok && r.done })
	select {
	case got := <-b.resumed:
		if got != id {
			t.Errorf("resumed %s", got)
		}
	default:
		t.Error("ResumeJob not called")
	}
	rec, err := m.history.Get(id)
	if err != nil || rec.Status != history.StatusOK || rec.Job.State != "succeeded" || rec.Job.Polls != 4 {
		t.Errorf("record after resume: %v %+v", err, rec)
	}
	// Taken over once: a second discovery resumes nothing more.
	if cmd := m.resumeJobs(); cmd != nil {
		t.Error("jobs taken over twice")
	}
	_ = fmt.Sprint()
}

// TestHistoryColumns: each row shows how long the run took; a wide list
// shows the run id too, whole.
func TestHistoryColumns(t *testing.T) {
	narrow := ansi.Strip(frame(t, historyAt(t, 100, 20, seedHistory)))
	if !strings.Contains(narrow, "5m ago    1.2s  fake › fake.report") || strings.Contains(narrow, "fake.report  req_") {
		t.Errorf("narrow list:\n%s", narrow)
	}
	wide := ansi.Strip(frame(t, historyAt(t, 200, 30, seedHistory)))
	if !regexp.MustCompile(`5m ago    1\.2s  fake › fake\.report +req_00000000000000000000000000000001`).MatchString(wide) {
		t.Errorf("wide list lacks the duration and run id columns:\n%s", wide)
	}
}

// TestStatusGroupsCoverEveryStatus: each status is in exactly one step of
// the status filter besides "all".
func TestStatusGroupsCoverEveryStatus(t *testing.T) {
	for _, st := range history.Statuses {
		n := 0
		for _, g := range statusGroups[1:] {
			if g.keeps(st) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("status %s is in %d groups", st, n)
		}
	}
}

// TestHistoryStatusFilterCycle: s steps all → ok → not ok → in flight →
// all (skipping a step that keeps nothing), and the help bar names the
// next step.
func TestHistoryStatusFilterCycle(t *testing.T) {
	m := historyAt(t, 200, 20, seedHistory)
	hs := m.top().(*historyScreen)
	var got []string
	for range 4 {
		if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "s show "+statusGroups[hs.nextStatus()].name) {
			t.Fatalf("the help bar does not name the next step:\n%s", out)
		}
		press(m, "s")
		got = append(got, fmt.Sprintf("%s:%d", statusGroups[hs.status].name, hs.list.Len()))
	}
	if want := "ok:1 not ok:1 in flight:1 all:3"; strings.Join(got, " ") != want {
		t.Fatalf("steps %q, want %q", strings.Join(got, " "), want)
	}
	// With no run in flight the step is skipped.
	press(m, "s", "s")
	hs.sums = hs.sums[:2]
	press(m, "s")
	if name := statusGroups[hs.status].name; name != "all" {
		t.Fatalf("after not ok with nothing in flight: %s", name)
	}
}

// TestHistoryRowsInColumns: at 80 and 200 columns every row's name,
// status and run id start in one column each; at 200 every run id is
// shown whole (the list is wider than 80 there), at 80 none is.
func TestHistoryRowsInColumns(t *testing.T) {
	for _, w := range []int{80, 200} {
		out := ansi.Strip(frame(t, historyAt(t, w, 30, seedHistory)))
		col := func(sub string) []int {
			var at []int
			for _, l := range strings.Split(out, "\n") {
				if j := strings.IndexAny(l, "│╭"); j >= 0 {
					l = l[:j] // the list's part of a wide screen
				}
				if i := strings.Index(l, sub); i >= 0 && strings.Contains(l, " ago ") {
					at = append(at, ansi.StringWidth(l[:i]))
				}
			}
			return at
		}
		for _, sub := range []string{"fake.report", "fake.echo", "fake.slow"} {
			if len(col(sub)) != 1 {
				t.Fatalf("%d: no row of %s:\n%s", w, sub, out)
			}
		}
		names := append(col("fake ›"), col("echo ›")...)
		if len(names) < 3 || names[0] != names[1] || names[1] != names[2] {
			t.Errorf("%d: names start at %v:\n%s", w, names, out)
		}
		if st := append(col("error"), col("detached")...); len(st) != 2 || st[0] != st[1] {
			t.Errorf("%d: statuses start at %v:\n%s", w, st, out)
		}
		ids := col("req_0000")
		switch {
		case w == 200 && (len(ids) != 3 || ids[0] != ids[1] || ids[1] != ids[2]):
			t.Errorf("200: run ids at %v:\n%s", ids, out)
		case w == 80 && len(ids) != 0:
			t.Errorf("80: a run id in a row (ragged): %v\n%s", ids, out)
		}
	}
}

// TestHistoryDelete: D deletes the selected run after asking, n keeps
// it; a pinned one after asking and saying it is pinned.
func TestHistoryDelete(t *testing.T) {
	m := historyAt(t, 100, 20, seedHistory)
	_, cmd := m.Update(uitest.Key("D"))
	if cmd != nil || len(m.dialogs) != 1 || !isConfirm(m.dialogs[0]) {
		t.Fatalf("D on an unpinned run did not ask: dialogs %d", len(m.dialogs))
	}
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "Delete run req_00000000000000000000000000000001?") || strings.Contains(out, "pinned") {
		t.Errorf("the question:\n%s", out)
	}
	press(m, "n")
	if _, err := m.history.Get("req_00000000000000000000000000000001"); err != nil {
		t.Fatal("n deleted the run")
	}
	m.Update(uitest.Key("D"))
	_, cmd = m.Update(uitest.Key("y"))
	runCmd(m, runCmd(m, cmd))
	if _, err := m.history.Get("req_00000000000000000000000000000001"); err == nil {
		t.Fatal("D, y did not delete the run")
	}
	if out := frame(t, m); !strings.Contains(out, "2 runs recorded") || !strings.Contains(out, "Deleted req_00000000000000000000000000000001") {
		t.Errorf("after D:\n%s", out)
	}
	press(m, "down") // the pinned job
	_, cmd = m.Update(uitest.Key("D"))
	if cmd != nil || len(m.dialogs) != 1 || !isConfirm(m.dialogs[0]) {
		t.Fatalf("D on a pinned run did not ask: dialogs %d", len(m.dialogs))
	}
	press(m, "n")
	if _, err := m.history.Get("req_00000000000000000000000000000003"); err != nil {
		t.Fatal("n deleted the pinned run")
	}
	m.Update(uitest.Key("D"))
	_, cmd = m.Update(uitest.Key("y"))
	runCmd(m, runCmd(m, cmd))
	if _, err := m.history.Get("req_00000000000000000000000000000003"); err == nil {
		t.Fatal("y did not delete the pinned run")
	}
}

// TestHistoryDeleteOwnRun: D on a run this cockpit is polling says so
// (not "another modbay process"), names the run once and asks nothing.
func TestHistoryDeleteOwnRun(t *testing.T) {
	m := historyAt(t, 100, 20, seedHistory)
	const id = "req_00000000000000000000000000000001"
	m.runs[id] = &runView{com: m.com, id: id, cancel: func() {}, job: &runner.JobStatus{ID: "j1"}}
	_, cmd := m.Update(uitest.Key("D"))
	if cmd != nil || len(m.dialogs) != 0 {
		t.Fatalf("D on the cockpit's own job: cmd %v, dialogs %d", cmd != nil, len(m.dialogs))
	}
	hs, _ := find[*historyScreen](m)
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "this cockpit is following its job") || strings.Contains(out, "another modbay") || strings.Count(hs.note, id) != 1 {
		t.Errorf("after D (note %q):\n%s", hs.note, out)
	}
	if _, err := m.history.Get(id); err != nil {
		t.Fatal("the polled run was deleted")
	}
}

// TestDeniedApprovalIsRecorded: a call denied at the approval dialog is
// in the history as not run: denied, not approved.
func TestDeniedApprovalIsRecorded(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	s, err := history.Open(filepath.Join(t.TempDir(), "history"), config.History{})
	if err != nil {
		t.Fatal(err)
	}
	m.history, m.resumeStarted = s, true
	openForm(t, m, 1)
	typeText(m, "Quarterly")
	press(m, "ctrl+s")
	p := uitest.Plan(t, m.flow.module)
	m.Update(planMsg{seq: m.flow.planSeq, plan: p})
	m.com.Now = func() time.Time { return uitest.Epoch.Add(time.Second) }
	_, cmd := m.Update(uitest.Key("d"))
	if cmd == nil {
		t.Fatal("deny recorded nothing")
	}
	cmd()
	rec, err := m.history.Get(p.Request.RequestID)
	if err != nil || rec.Approved || rec.Host == nil || rec.Host.Detail != history.DeniedDetail || rec.Status != history.StatusDenied {
		t.Fatalf("denied call recorded as %+v (%v)", rec, err)
	}
}

// seedErrors records two failed runs: a module's error (its envelope's
// message, with an escape in it) and a host verdict.
func seedErrors(t *testing.T, s *history.Store) {
	t.Helper()
	for _, r := range []*history.Record{
		{RunID: "req_00000000000000000000000000000011", Module: "fetch", Capability: "fetch.url", Source: history.SourceCockpit,
			Status: history.StatusError, Code: "provider_failure", Started: uitest.Epoch.Add(-time.Minute),
			Envelope: json.RawMessage(`{"protocol":"xibodev.module/v1","module":"fetch","operation":"invoke","request_id":"req_00000000000000000000000000000011","ok":false,"error":{"code":"provider_failure","message":"HTTP 404 \u001b[31mNot Found\u001b[0m for http://example.test/page.md","retryable":false},"warnings":[]}`)},
		{RunID: "req_00000000000000000000000000000012", Module: "notes", Capability: "notes.read", Source: history.SourceCockpit,
			Status: history.StatusError, Code: "host.artifact_missing", Started: uitest.Epoch.Add(-2 * time.Minute),
			Host: &history.Verdict{Code: "host.artifact_missing", Detail: "File not found: notes/q3.md"}},
	} {
		if err := s.Put(r); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHistorySearchesAndShowsTheErrorMessage: / finds a run by the words
// of its error (a module's message, a host verdict's detail), and the
// detail pane shows the message, sanitized.
func TestHistorySearchesAndShowsTheErrorMessage(t *testing.T) {
	m := historyAt(t, 120, 30, seedErrors)
	hs := m.top().(*historyScreen)
	for q, want := range map[string]string{"404": "fetch.url", "file not found": "notes.read"} {
		press(m, "/")
		typeText(m, q)
		if hs.list.Len() != 1 || hs.selected().Capability != want {
			t.Errorf("%q kept %d rows", q, hs.list.Len())
		}
		press(m, "esc")
	}
	out := ansi.Strip(frame(t, m))
	if !strings.Contains(out, "error    HTTP 404") || !strings.Contains(out, "Not Found") {
		t.Errorf("the detail does not show the error message:\n%s", out)
	}
	if strings.Contains(m.View().Content, "\x1b[31m") {
		t.Error("the module's escape reached the frame")
	}
}
