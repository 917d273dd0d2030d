package ui

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"modbay/modproto"
	"modbay/runner"
	"modbay/ui/internal/uitest"
)

// msgsOf runs cmd and every command batched inside it, returning the
// messages they produce (batches flattened).
func msgsOf(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, msgsOf(c)...)
		}
		return out
	}
	if msg == nil {
		return nil
	}
	return []tea.Msg{msg}
}

// rings reports whether msgs hold the bell.
func rings(msgs []tea.Msg) bool {
	for _, m := range msgs {
		if r, ok := m.(tea.RawMsg); ok && r.Msg == bell {
			return true
		}
	}
	return false
}

// backgroundRun is a run in flight sent to the background with esc.
func backgroundRun(t *testing.T) (*Model, string) {
	t.Helper()
	m := runInFlight(t, false)
	id := m.run().id
	m.run().plan.Capability.LongRunning = true // esc backgrounds a job's run
	press(m, "esc")
	if m.showsRun(id) {
		t.Fatal("esc did not send the run to the background")
	}
	return m, id
}

// TestBackgroundFinishRingsAndTitles: a run finishing in the background
// rings the bell and names itself in the window title; one finishing on
// its own screen, a cancelled one and a job whose polling merely stopped
// do neither.
func TestBackgroundFinishRingsAndTitles(t *testing.T) {
	m, id := backgroundRun(t)
	p := uitest.Plan(t, uitest.Module(t))
	res := uitest.Result(t, p, "invoke/success-with-artifact.json")
	res.RequestID = id
	_, cmd := m.Update(runDoneMsg{id: id, result: res})
	if !rings(msgsOf(cmd)) {
		t.Error("a background run finished without the bell")
	}
	if v := m.View(); v.WindowTitle != "modbay: fake fake.report done" {
		t.Errorf("window title %q", v.WindowTitle)
	}

	// On its own screen: no bell, no title.
	m = runInFlight(t, false)
	id = m.run().id
	res.RequestID = id
	_, cmd = m.Update(runDoneMsg{id: id, result: res})
	if rings(msgsOf(cmd)) || m.View().WindowTitle != "" {
		t.Error("a run finishing on screen must not ring or retitle")
	}

	for name, end := range map[string]*runner.Result{
		"cancelled": {Module: "fake", Capability: "fake.report", Host: &runner.HostError{Code: modproto.CodeCancelled, Detail: "cancelled"}},
		"polling stopped": {Module: "fake", Capability: "fake.slow", Job: &runner.JobStatus{ID: "j", State: "running"},
			Host: &runner.HostError{Code: modproto.CodeHostTimeout, Detail: "deadline"}},
	} {
		m, id := backgroundRun(t)
		end.RequestID = id
		_, cmd := m.Update(runDoneMsg{id: id, result: end})
		if rings(msgsOf(cmd)) || m.View().WindowTitle != "" {
			t.Errorf("%s: a run that did not finish rang or retitled", name)
		}
	}
	// A job that ended failed did finish: it rings, and the title says so.
	m, id = backgroundRun(t)
	failed := &runner.Result{RequestID: id, Module: "fake", Capability: "fake.slow", Job: &runner.JobStatus{ID: "j", State: "failed"},
		Envelope: &modproto.Envelope{OK: false, Error: &modproto.Error{Code: "provider_failure", Message: "x"}}}
	_, cmd = m.Update(runDoneMsg{id: id, result: failed})
	if !rings(msgsOf(cmd)) || !strings.Contains(m.View().WindowTitle, "failed: provider_failure") {
		t.Errorf("a failed job: title %q", m.View().WindowTitle)
	}
}

// TestHistoryCopyAsCommand: c copies the line that repeats the run, its
// secret masked, and the note says what became of the copy only once it
// has finished.
func TestHistoryCopyAsCommand(t *testing.T) {
	m := historyAt(t, 100, 30, seedHistory)
	hs := m.top().(*historyScreen)
	_, cmd := m.Update(uitest.Key("c"))
	var copied tea.Cmd
	for _, msg := range msgsOf(cmd) {
		_, c := m.Update(msg) // the record read
		copied = c
	}
	if strings.Contains(hs.note, "Sent") || strings.Contains(hs.note, "Copied") {
		t.Fatalf("the note claims a copy before it happened: %q", hs.note)
	}
	var text string
	for _, msg := range msgsOf(copied) {
		// tea.SetClipboard's message type is unexported: a string kind.
		if v := reflect.ValueOf(msg); fmt.Sprintf("%T", msg) == "tea.setClipboardMsg" && v.Kind() == reflect.String {
			text = v.String()
			continue
		}
		m.Update(msg)
	}
	want := `modbay invoke fake fake.report --input '{"title":"Quarterly","secret":"[redacted]"}'`
	if text != want {
		t.Fatalf("copied %q, want %q", text, want)
	}
	if !strings.HasPrefix(hs.note, "Sent to the terminal's clipboard (OSC 52, unconfirmed)") {
		t.Errorf("note %q", hs.note)
	}
}

// TestHistorySearchTokens: every word must match, in any field.
func TestHistorySearchTokens(t *testing.T) {
	m := historyAt(t, 100, 20, seedHistory)
	hs := m.top().(*historyScreen)
	for q, want := range map[string]int{
		"fake":                    3, // echo's capability is fake.echo
		"module:fake":             2,
		"fake status:ok":          1,
		"status:ok fake":          1,
		"fake quarterly":          1,
		"echo quarterly":          0,
		"module:fake pinned-none": 0,
		"job_7 fake":              1,
	} {
		press(m, "/")
		typeText(m, q)
		if hs.list.Len() != want {
			t.Errorf("%q kept %d, want %d", q, hs.list.Len(), want)
		}
		press(m, "esc")
	}
}

// TestHistoryRowShowsLivePercent: a job in flight shows its percent as
// last polled in its history row.
func TestHistoryRowShowsLivePercent(t *testing.T) {
	m := historyAt(t, 160, 20, seedHistory)
	pct := 62.0
	m.runs["req_00000000000000000000000000000003"] = &runView{com: m.com, id: "req_00000000000000000000000000000003",
		job: &runner.JobStatus{ID: "job_7", State: "running", Percent: &pct}}
	if out := frame(t, m); !strings.Contains(out, "running 62%") {
		t.Errorf("no live percent:\n%s", out)
	}
}
