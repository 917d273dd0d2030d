package history

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"modbay/config"
	"modbay/modproto"
	"modbay/runner"
)

// A run begun Live writes its events beside its record as they come; a
// reader from an offset gets only what is new; the outcome removes the
// file. Without Live nothing is written.
func TestLiveEventsFollowARun(t *testing.T) {
	s := openTest(t, config.History{})
	p := secretPlan(t)
	id := p.Request.RequestID
	run, err := s.Begin(p, BeginOptions{Source: SourceMCPServe, Live: true})
	if err != nil {
		t.Fatal(err)
	}
	if l, err := s.ReadLive(id, 0); err != nil || len(l.Events) != 0 || l.Next != 0 {
		t.Fatalf("before any event: %+v %v", l, err)
	}
	if _, err := os.Stat(s.livePath(id)); !os.IsNotExist(err) {
		t.Errorf("the live file exists before any event: %v", err)
	}
	pct := 40.0
	run.Event(runner.Event{PID: 4242})
	run.Event(runner.Event{Stderr: []byte("step 1\n")})
	run.Event(runner.Event{Progress: &runner.Progress{Percent: &pct, Message: "converting"}})
	run.Event(runner.Event{Log: &runner.LogLine{Level: "info", Text: "hello"}})
	run.Event(runner.Event{Job: &runner.JobStatus{ID: "job_1", State: "running", Polls: 2}})
	l, err := s.ReadLive(id, 0)
	if err != nil || len(l.Events) != 5 {
		t.Fatalf("read %+v %v", l, err)
	}
	if l.Events[0].PID != 4242 || string(l.Events[1].Stderr) != "step 1\n" || *l.Events[2].Progress.Percent != 40 ||
		l.Events[2].Progress.Message != "converting" || l.Events[3].Log.Text != "hello" || l.Events[4].Job.Polls != 2 {
		t.Errorf("events %+v", l.Events)
	}
	if fi, err := os.Stat(s.livePath(id)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("live file: %v %v", fi, err)
	}
	run.Event(runner.Event{Stderr: []byte("step 2\n")})
	l2, err := s.ReadLive(id, l.Next)
	if err != nil || len(l2.Events) != 1 || string(l2.Events[0].Stderr) != "step 2\n" {
		t.Fatalf("from %d: %+v %v", l.Next, l2, err)
	}
	if _, err := run.Finish(&runner.Result{RequestID: id, Envelope: &modproto.Envelope{OK: true, Result: json.RawMessage(`{}`)}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.livePath(id)); !os.IsNotExist(err) {
		t.Errorf("the live file outlived the outcome: %v", err)
	}
	if l, err := s.ReadLive(id, l2.Next); err != nil || len(l.Events) != 0 {
		t.Errorf("after the end: %+v %v", l, err)
	}

	q := secretPlan(t)
	run, err = s.Begin(q, BeginOptions{Source: SourceInvoke})
	if err != nil {
		t.Fatal(err)
	}
	run.Event(runner.Event{Stderr: []byte("not live\n")})
	if _, err := os.Stat(s.livePath(q.Request.RequestID)); !os.IsNotExist(err) {
		t.Errorf("a run begun without Live wrote live events: %v", err)
	}
	run.Finish(nil, nil)
}

// The live file is bounded: past MaxLiveBytes events are dropped and a
// reader is told; a huge stderr chunk keeps its start.
func TestLiveEventsBounded(t *testing.T) {
	s := openTest(t, config.History{})
	p := secretPlan(t)
	run, err := s.Begin(p, BeginOptions{Live: true})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Finish(nil, nil)
	chunk := []byte(strings.Repeat("x", maxLiveStderr-1) + "\n")
	for range 2 * MaxLiveBytes / len(chunk) {
		run.Event(runner.Event{Stderr: chunk})
	}
	run.Event(runner.Event{Stderr: append([]byte(strings.Repeat("y", 3*maxLiveStderr)), "END"...)})
	fi, err := os.Stat(s.livePath(p.Request.RequestID))
	if err != nil || fi.Size() > MaxLiveBytes+64 {
		t.Fatalf("live file %v %v", fi, err)
	}
	var off int64
	var n int
	cut := false
	for i := 0; i < 100; i++ {
		l, err := s.ReadLive(p.Request.RequestID, off)
		if err != nil {
			t.Fatal(err)
		}
		n += len(l.Events)
		cut = cut || l.Cut
		if l.Next == off {
			break
		}
		off = l.Next
	}
	if !cut || n == 0 || off != fi.Size() {
		t.Errorf("read %d events to %d of %d, cut %v", n, off, fi.Size(), cut)
	}
}

// A live file is another process's bytes: lines that do not decode, a
// negative pid, numbers out of range and a last line without its end are
// skipped, never a panic; escapes stay as bytes for the screen's
// sanitizer.
func TestReadLiveHostile(t *testing.T) {
	s := openTest(t, config.History{})
	id := modproto.NewRequestID()
	b, err := os.ReadFile(filepath.Join("testdata", "hostile.live"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.livePath(id), b, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := s.ReadLive(id, 0)
	if err != nil {
		t.Fatal(err)
	}
	var stderr []string
	var progress, jobs, logs, pids int
	for _, ev := range l.Events {
		switch {
		case ev.Stderr != nil:
			stderr = append(stderr, string(ev.Stderr))
		case ev.Progress != nil:
			progress++
		case ev.Job != nil:
			jobs++
			if ev.Job.Polls < 0 {
				t.Errorf("negative polls %d", ev.Job.Polls)
			}
		case ev.Log != nil:
			logs++
		case ev.PID != 0:
			pids++
		}
	}
	if len(stderr) != 2 || stderr[0] != "ok line\n" || progress != 1 || jobs != 1 || logs != 1 || pids != 0 {
		t.Errorf("stderr %q, %d progress, %d jobs, %d logs, %d pids", stderr, progress, jobs, logs, pids)
	}
	if l.Next != int64(strings.LastIndexByte(string(b), '\n')+1) {
		t.Errorf("next %d: the unterminated last line was consumed", l.Next)
	}
	if _, err := s.ReadLive("../../etc/passwd", 0); err == nil {
		t.Error("a path as a run id was read")
	}
	// A line longer than one read is skipped, not waited on forever.
	long := modproto.NewRequestID()
	if err := os.WriteFile(s.livePath(long), []byte(strings.Repeat("z", maxLiveRead+10)+"\n{\"pid\":7}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var off int64
	var got []runner.Event
	for range 5 {
		l, err := s.ReadLive(long, off)
		if err != nil {
			t.Fatal(err)
		}
		got, off = append(got, l.Events...), l.Next
	}
	if len(got) != 1 || got[0].PID != 7 {
		t.Errorf("after an overlong line: %+v", got)
	}
}

// A live file whose process died is removed by maintenance; one whose
// run is still held is kept.
func TestMaintainSweepsDeadLiveFiles(t *testing.T) {
	s := openTest(t, config.History{})
	p := secretPlan(t)
	run, err := s.Begin(p, BeginOptions{Live: true})
	if err != nil {
		t.Fatal(err)
	}
	run.Event(runner.Event{Stderr: []byte("x\n")})
	dead := modproto.NewRequestID()
	if err := os.WriteFile(s.livePath(dead), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.maintain(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.livePath(dead)); !os.IsNotExist(err) {
		t.Errorf("a dead run's live file stayed: %v", err)
	}
	if _, err := os.Stat(s.livePath(p.Request.RequestID)); err != nil {
		t.Errorf("a running run's live file was removed: %v", err)
	}
	run.Finish(nil, nil)
}

// maskLabel is secretPlan's token's mask, whole or cut.
var maskLabel = regexp.MustCompile(`‹masked: writeOnly /t?o?k?e?n?›?`)

// TestLiveCutLeavesNoSecret: an oversized event is cut keeping its start,
// the cut marked, and nothing of a secret is left wherever it sits about
// either bound (the start kept, or the end an older cut kept): not whole
// (masked), not its start (dropped at the cut), not its end. The events
// here reach the writer unmasked, as if the runner's masking had not
// seen the secret whole.
func TestLiveCutLeavesNoSecret(t *testing.T) {
	s := openTest(t, config.History{})
	const secret = "s3cr3t-token" // secretPlan's writeOnly token
	for _, tc := range []struct {
		name  string
		limit int
		event func(string) runner.Event
		text  func(runner.Event) string
	}{
		{"stderr", maxLiveStderr, func(b string) runner.Event { return runner.Event{Stderr: []byte(b)} },
			func(ev runner.Event) string { return string(ev.Stderr) }},
		{"log", maxLiveText, func(b string) runner.Event { return runner.Event{Log: &runner.LogLine{Level: "info", Text: b}} },
			func(ev runner.Event) string {
				if ev.Log == nil {
					return ""
				}
				return ev.Log.Text
			}},
	} {
		for at := tc.limit - 80; at <= tc.limit+4; at++ {
			p := secretPlan(t)
			run, err := s.Begin(p, BeginOptions{Live: true})
			if err != nil {
				t.Fatal(err)
			}
			body := strings.Repeat(".", at) + secret + strings.Repeat(".", 2*tc.limit-at-len(secret))
			run.Event(tc.event(body))
			l, err := s.ReadLive(p.Request.RequestID, 0)
			run.Finish(nil, nil)
			if err != nil || len(l.Events) != 1 {
				t.Fatalf("%s at %d: %d events, %v", tc.name, at, len(l.Events), err)
			}
			got := tc.text(l.Events[0])
			// The mask names the field (/token), not the value; the
			// cut may end inside it.
			bare := maskLabel.ReplaceAllString(got, "")
			for n := 4; n <= len(secret); n++ {
				if part := secret[:n]; strings.Contains(bare, part) {
					t.Errorf("%s, secret at %d: the line keeps its start %q", tc.name, at, part)
					break
				}
				if part := secret[len(secret)-n:]; strings.Contains(bare, part) {
					t.Errorf("%s, secret at %d: the line keeps its end %q: …%q", tc.name, at, part, got[max(len(got)-80, 0):])
					break
				}
			}
			if len(got) > tc.limit || !strings.HasPrefix(got, "....") || !strings.Contains(got, "bytes cut)") {
				t.Errorf("%s, secret at %d: %d bytes, not the start with the cut marked: …%q", tc.name, at, len(got), got[max(len(got)-60, 0):])
			}
		}
	}
}
