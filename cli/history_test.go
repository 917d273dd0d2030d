package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modbay/history"
	"modbay/modproto"
)

// historyOf lists a home's runs as `modbay history --json` prints them.
func historyOf(t *testing.T, home string, args ...string) []historyOut {
	t.Helper()
	code, out, stderr := run(t, append([]string{"--home", home, "history", "--json"}, args...)...)
	if code != ExitOK {
		t.Fatalf("history: exit %d %s", code, stderr)
	}
	var runs []historyOut
	if err := json.Unmarshal([]byte(out), &runs); err != nil {
		t.Fatalf("history --json: %v\n%s", err, out)
	}
	return runs
}

func TestInvokeIsRecorded(t *testing.T) {
	home := demo(t)
	if code, out, stderr := run(t, "--home", home, "invoke", "notes", "notes.report", "--input", `{"pattern":"*.md"}`); code != ExitOK {
		t.Fatalf("invoke: %d %s %s", code, out, stderr)
	}
	if code, _, _ := run(t, "--home", home, "invoke", "notes", "notes.report", "--input", `{"max_files":0}`); code != ExitInputInvalid {
		t.Fatalf("invalid input: exit %d", code)
	}
	runs := historyOf(t, home)
	// An input refused before anything ran is not a run.
	if len(runs) != 1 || runs[0].Module != "notes" || runs[0].Status != "ok" || runs[0].Source != "invoke" {
		t.Fatalf("runs %+v", runs)
	}
	id := runs[0].RunID
	if got := historyOf(t, home, "--status", "error"); len(got) != 0 {
		t.Errorf("--status error: %+v", got)
	}
	if got := historyOf(t, home, "--module", "notes", "--capability", "notes.report"); len(got) != 1 {
		t.Errorf("--module: %+v", got)
	}
	if code, _, _ := run(t, "--home", home, "history", "--status", "nope"); code != ExitUsage {
		t.Errorf("unknown status: exit %d", code)
	}

	code, out, _ := run(t, "--home", home, "history", "show", id)
	if code != ExitOK || !strings.Contains(out, `input     {"pattern":"*.md"}`) || !strings.Contains(out, "artifacts (verified") || !strings.Contains(out, "contained") {
		t.Errorf("show: exit %d\n%s", code, out)
	}
	shown := out
	code, out, _ = run(t, "--home", home, "history", "show", id, "--json")
	var rec history.Record
	if code != ExitOK || json.Unmarshal([]byte(out), &rec) != nil || rec.RunID != id || len(rec.Artifacts) == 0 || rec.Roots["workspace"].Path == "" {
		t.Errorf("show --json: exit %d %+v", code, rec)
	}
	// Each artifact's id, what --artifact ROOT=RUN:ARTIFACT_ID names.
	for _, a := range rec.Artifacts {
		if !strings.Contains(shown, "id "+a.ID+"\n") {
			t.Errorf("show does not list artifact id %q:\n%s", a.ID, shown)
		}
	}
	if code, _, _ := run(t, "--home", home, "history", "show", "req_missing"); code != ExitUsage {
		t.Errorf("show of a missing run: exit %d", code)
	}

	dir := filepath.Join(t.TempDir(), "report")
	code, out, stderr := run(t, "--home", home, "history", "export", id, dir)
	if code != ExitOK || !strings.Contains(out, "artifacts/") {
		t.Fatalf("export: exit %d %s %s", code, out, stderr)
	}
	for _, f := range []string{"request.json", "envelope.json", "stderr.txt", "record.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("export: %v", err)
		}
	}
	arts, _ := os.ReadDir(filepath.Join(dir, "artifacts"))
	if len(arts) != len(rec.Artifacts) {
		t.Errorf("exported %d artifacts of %d", len(arts), len(rec.Artifacts))
	}

	if code, _, _ := run(t, "--home", home, "history", "pin", id); code != ExitOK {
		t.Errorf("pin: exit %d", code)
	}
	if got := historyOf(t, home); !got[0].Pinned {
		t.Error("pin not shown")
	}
}

// TestJobsResumeAfterPollingStopped: a job whose polling stopped (here:
// the deadline passed while it rendered) is listed by `modbay jobs`, and
// `modbay jobs wait` polls it to its end.
func TestJobsResumeAfterPollingStopped(t *testing.T) {
	home := demo(t)
	// The deadline must end the polling, not the first call: on a busy
	// machine the first call may itself outlast a short deadline (then the
	// run is a timeout with no job), so a longer deadline and a longer job
	// are tried in turn, the job always outlasting the deadline.
	var runs []historyOut
	for _, try := range []struct{ frames, deadline string }{{"16", "1500ms"}, {"40", "5s"}, {"90", "12s"}} {
		code, out, stderr := run(t, "--home", home, "invoke", "render-farm", "farm.render", "--input", `{"frames":`+try.frames+`}`, "--deadline", try.deadline)
		if code != ExitHostVerdict {
			t.Fatalf("short deadline: exit %d %s %s", code, out, stderr)
		}
		runs = historyOf(t, home)
		if len(runs) == 1 && runs[0].Status == "detached" && runs[0].JobID != "" {
			break
		}
		t.Logf("deadline %s ended the first call (busy machine?): %+v; trying longer", try.deadline, runs)
		if err := os.RemoveAll(filepath.Join(home, "history")); err != nil {
			t.Fatal(err)
		}
	}
	if len(runs) != 1 || runs[0].Status != "detached" || runs[0].JobID == "" {
		t.Fatalf("runs %+v", runs)
	}
	id := runs[0].RunID
	code, out, stderr := run(t, "--home", home, "jobs")
	if code != ExitOK || !strings.Contains(out, id) || !strings.Contains(out, "jobs wait") {
		t.Errorf("jobs: exit %d %s", code, out)
	}
	code, out, stderr = run(t, "--home", home, "jobs", "wait", id)
	if code != ExitOK || !strings.Contains(out, "succeeded") || !strings.Contains(out, "Render log") {
		t.Fatalf("jobs wait: exit %d %s %s", code, out, stderr)
	}
	runs = historyOf(t, home)
	if len(runs) != 1 || runs[0].Status != "ok" || runs[0].JobState != "succeeded" {
		t.Errorf("after wait: %+v", runs)
	}
	code, out, _ = run(t, "--home", home, "jobs")
	if code != ExitOK || !strings.Contains(out, "no jobs in flight") {
		t.Errorf("jobs after: %s", out)
	}
	// Waiting on a finished job prints its result at once.
	if code, out, _ = run(t, "--home", home, "jobs", "wait", id); code != ExitOK || !strings.Contains(out, "succeeded") {
		t.Errorf("second wait: exit %d %s", code, out)
	}
}

// cancelModule is a long-running module whose job never ends by itself
// and which declares cancel_capability (docs/protocol.md §12).
func cancelModule(t *testing.T) string { return jobModule(t, true) }

// jobModule is cancelModule, declaring its cancel_capability only when
// cancellable.
func jobModule(t *testing.T, cancellable bool) string {
	caps := []modproto.Capability{
		{ID: "j.start", Title: "Start", Summary: "Starts a job", Effects: localEffects, LongRunning: true, PollCapability: "j.poll", CancelCapability: "j.cancel"},
		{ID: "j.poll", Title: "Poll", Summary: "Polls", Effects: localEffects},
		{ID: "j.cancel", Title: "Cancel", Summary: "Cancels", Effects: localEffects},
	}
	if !cancellable {
		caps[0].CancelCapability, caps = "", caps[:2]
	}
	d := modproto.Descriptor{Module: "canceller", Name: "Canceller", Version: "1", ProtocolVersions: []string{modproto.ProtocolID}, Capabilities: caps}
	env := `{"protocol":"` + modproto.ProtocolID + `","module":"canceller","operation":"invoke","request_id":"'"$r"'","ok":true,"result":RESULT,"warnings":[],"execution":{"local":true,"provider":"local","estimated_cost":0,"actual_cost":0,"artifacts":[]}}`
	script := `read -r line < "$5"; r=${line#*\"request_id\":\"}; r=${r%%\"*}; case "$3" in ` +
		`j.cancel) echo '` + strings.Replace(env, "RESULT", `{"job_id":"job_1","state":"cancelled"}`, 1) + `';; ` +
		`*) echo '` + strings.Replace(env, "RESULT", `{"job_id":"job_1","state":"running"}`, 1) + `';; esac`
	return scriptModule(t, d, script)
}

func TestJobsCancelThroughCancelCapability(t *testing.T) {
	home := t.TempDir()
	exe := cancelModule(t)
	code, out, stderr := run(t, "--home", home, "--module", exe, "invoke", "canceller", "j.start", "--detach")
	if code != ExitOK {
		t.Fatalf("start: exit %d %s %s", code, out, stderr)
	}
	runs := historyOf(t, home)
	if len(runs) != 1 || runs[0].Status != "detached" {
		t.Fatalf("runs %+v", runs)
	}
	code, out, stderr = run(t, "--home", home, "--module", exe, "jobs", "cancel", runs[0].RunID)
	if code != ExitOK || !strings.Contains(out, "cancel accepted by j.cancel (state cancelled)") {
		t.Fatalf("cancel: exit %d %s %s", code, out, stderr)
	}
	runs = historyOf(t, home)
	if runs[0].Status != "cancelled" || runs[0].JobState != "cancelled" {
		t.Errorf("after cancel: %+v", runs)
	}
	code, out, _ = run(t, "--home", home, "history", "show", runs[0].RunID)
	if code != ExitOK || !strings.Contains(out, "cancel    via j.cancel: ok true") {
		t.Errorf("show: %s", out)
	}
	// The record's words are the cancel's: the job no longer goes on.
	if strings.Contains(out, "continues in the module") || strings.Contains(out, "goes on") || !strings.Contains(out, "cancelled through j.cancel") {
		t.Errorf("after jobs cancel, show must say the job was cancelled, not that it goes on:\n%s", out)
	}
}

// TestJobsCancelWithoutCancelCapability: a job whose capability declares
// no cancel_capability cannot be cancelled, and jobs cancel says so.
func TestJobsCancelWithoutCancelCapability(t *testing.T) {
	home := t.TempDir()
	exe := jobModule(t, false)
	if code, out, stderr := run(t, "--home", home, "--module", exe, "invoke", "canceller", "j.start", "--detach"); code != ExitOK {
		t.Fatalf("start: exit %d %s %s", code, out, stderr)
	}
	runs := historyOf(t, home)
	code, _, stderr := run(t, "--home", home, "--module", exe, "jobs", "cancel", runs[0].RunID)
	if code != ExitModuleError || !strings.Contains(stderr, "no cancel_capability") || !strings.Contains(stderr, "job goes on") {
		t.Errorf("cancel without cancel_capability: exit %d %s", code, stderr)
	}
}

// TestHistoryRm: rm deletes a run's record and frees the staged artifacts
// no other kept run references; a pinned run only with --pinned.
func TestHistoryRm(t *testing.T) {
	home := demo(t)
	for range 2 {
		if code, out, errOut := run(t, "--home", home, "invoke", "notes", "notes.report", "--input", `{}`); code != ExitOK {
			t.Fatalf("invoke: %d %s %s", code, out, errOut)
		}
	}
	runs := historyOf(t, home)
	staged, _ := filepath.Glob(filepath.Join(home, "artifacts", "sha256", "*", "*"))
	if len(runs) != 2 || len(staged) == 0 {
		t.Fatalf("runs %d, staged %v", len(runs), staged)
	}
	// Deleting one run frees only what the other does not reference.
	if code, out, errOut := run(t, "--home", home, "history", "rm", runs[1].RunID); code != ExitOK || !strings.Contains(out, "deleted "+runs[1].RunID) {
		t.Fatalf("rm: %d %s %s", code, out, errOut)
	}
	_, out, _ := run(t, "--home", home, "history", "show", runs[0].RunID, "--json")
	var kept history.Record
	if err := json.Unmarshal([]byte(out), &kept); err != nil || len(kept.Artifacts) == 0 {
		t.Fatalf("show --json: %v %s", err, out)
	}
	for _, a := range kept.Artifacts {
		if _, err := os.Stat(a.Staged); err != nil {
			t.Errorf("an artifact the kept run references was removed: %v", err)
		}
	}
	run(t, "--home", home, "history", "pin", runs[0].RunID)
	if code, _, errOut := run(t, "--home", home, "history", "rm", runs[0].RunID); code != ExitUsage || !strings.Contains(errOut, "--pinned") {
		t.Fatalf("rm of a pinned run: %d %s", code, errOut)
	}
	if code, out, errOut := run(t, "--home", home, "history", "rm", runs[0].RunID, "--pinned"); code != ExitOK || !strings.Contains(out, "deleted "+runs[0].RunID+"; freed ") {
		t.Fatalf("rm --pinned: %d %s %s", code, out, errOut)
	}
	if len(historyOf(t, home)) != 0 {
		t.Fatalf("after deleting every run: runs %d", len(historyOf(t, home)))
	}
}

// TestGrantWordsNameOnlyWhatWasGranted: history show lists the kinds of
// grant a run had, not an empty slot for each kind.
func TestGrantWordsNameOnlyWhatWasGranted(t *testing.T) {
	if got := grantWords(modproto.Grants{Subprocess: []string{"ffmpeg"}}); got != "subprocess ffmpeg" {
		t.Fatalf("got %q", got)
	}
	if got := grantWords(modproto.Grants{Network: []string{"a.example", "b.example"}, Publish: true}); got != "network a.example,b.example; publish" {
		t.Fatalf("got %q", got)
	}
	if got := grantWords(modproto.Grants{}); got != "" {
		t.Fatalf("no grants: %q", got)
	}
}

// TestHistoryLineSaysAStatusOnce: a run whose code is its status
// (cancelled) says it once; an error says its code.
func TestHistoryLineSaysAStatusOnce(t *testing.T) {
	if l := historyLine(history.Summary{RunID: "r", Status: "cancelled", Code: "cancelled"}); strings.Contains(l, "cancelled cancelled") {
		t.Fatalf("line %q", l)
	}
	if l := historyLine(history.Summary{RunID: "r", Status: history.StatusError, Code: "provider_failure"}); !strings.Contains(l, "error provider_failure") {
		t.Fatalf("line %q", l)
	}
}

// TestQuotaRefusalThenRmFrees: a run the artifact store's quota refuses
// is host.store_quota (exit 4), saying how to free space; deleting a run
// then frees its artifacts at once (no run is staging), and the next run
// passes.
func TestQuotaRefusalThenRmFrees(t *testing.T) {
	home := demo(t)
	writeConfig(t, home, "artifacts:\n  max_files: 3\n")
	invoke := func() (int, string) {
		code, out, errb := run(t, "--home", home, "invoke", "notes", "notes.report", "--input", `{"pattern":"*.md"}`)
		return code, out + errb
	}
	if code, out := invoke(); code != ExitOK {
		t.Fatalf("the first run: exit %d\n%s", code, out)
	}
	first := historyOf(t, home)[0].RunID
	code, out := invoke()
	if code != ExitHostVerdict || !strings.Contains(out, "host.store_quota") || !strings.Contains(out, "artifacts.max_files (3) would be passed") ||
		!strings.Contains(out, "modbay history rm RUN") {
		t.Fatalf("the second run: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, "--home", home, "history", "rm", first)
	if code != ExitOK || !strings.Contains(out, "freed 3 artifacts") {
		t.Fatalf("history rm: exit %d\n%s", code, out)
	}
	if code, out := invoke(); code != ExitOK {
		t.Fatalf("after rm: exit %d\n%s", code, out)
	}
}

// TestFailureKindPrinted: a failed run's failure kind (docs/protocol.md
// §15) stands beside its code in invoke --json, history --json and the
// record.
func TestFailureKindPrinted(t *testing.T) {
	home := demo(t)
	code, out, _ := run(t, "--home", home, "invoke", "notes", "notes.report", "--json", "--input", `{"pattern":"/etc/*"}`)
	var res struct{ Code, Kind string }
	if err := json.Unmarshal([]byte(out), &res); err != nil || code == ExitOK || res.Code == "" || res.Kind != string(modproto.KindOf(res.Code)) {
		t.Fatalf("invoke --json: exit %d, code %q kind %q (%v)\n%s", code, res.Code, res.Kind, err, out)
	}
	runs := historyOf(t, home)
	if len(runs) != 1 || runs[0].Kind != res.Kind {
		t.Errorf("history --json: %+v, want kind %q", runs, res.Kind)
	}
	_, out, _ = run(t, "--home", home, "history", "show", runs[0].RunID, "--json")
	if !strings.Contains(out, `"kind": "`+res.Kind+`"`) {
		t.Errorf("the record has no kind:\n%.600s", out)
	}
}
