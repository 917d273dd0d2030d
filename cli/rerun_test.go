package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modbay/history"
)

// TestRerunWithRecordedInput: rerun repeats a run with its input as
// recorded, says it still fits today's schema, and is recorded as a
// re-run; history show prints the line that repeats the run; an input
// today's schema refuses is shown and runs nothing.
func TestRerunWithRecordedInput(t *testing.T) {
	home := demo(t)
	if code, out, stderr := run(t, "--home", home, "invoke", "notes", "notes.report", "--input", `{"pattern":"*.md"}`); code != ExitOK {
		t.Fatalf("invoke: %d %s %s", code, out, stderr)
	}
	id := historyOf(t, home)[0].RunID
	code, out, stderr := run(t, "--home", home, "rerun", id)
	if code != ExitOK || !strings.Contains(stderr, `with its input as recorded: {"pattern":"*.md"}`) || !strings.Contains(stderr, "still fits today's request schema") {
		t.Fatalf("rerun: exit %d\n%s\n%s", code, out, stderr)
	}
	runs := historyOf(t, home)
	if len(runs) != 2 || runs[0].Source != history.SourceRerun || runs[0].Status != "ok" {
		t.Fatalf("runs %+v", runs)
	}
	_, out, _ = run(t, "--home", home, "history", "show", runs[0].RunID, "--json")
	var rec history.Record
	var in bytes.Buffer
	if json.Unmarshal([]byte(out), &rec) != nil || rec.RerunOf != id || json.Compact(&in, rec.Input) != nil || in.String() != `{"pattern":"*.md"}` {
		t.Fatalf("re-run record: rerun_of %s input %s", rec.RerunOf, rec.Input)
	}
	_, out, _ = run(t, "--home", home, "history", "show", id)
	if !strings.Contains(out, `repeat    modbay --home `+home+` invoke notes notes.report --input '{"pattern":"*.md"}'`) {
		t.Errorf("show must print the line that repeats the run:\n%s", out)
	}
	code, _, stderr = run(t, "--home", home, "rerun", id, "--input", `{"max_files":0}`)
	if code != ExitInputInvalid || !strings.Contains(stderr, "today's request schema differs") || !strings.Contains(stderr, "max_files") {
		t.Errorf("rerun with an input today's schema refuses: exit %d\n%s", code, stderr)
	}
	if n := len(historyOf(t, home)); n != 2 {
		t.Errorf("a refused re-run is not a run: %d runs", n)
	}
	if code, _, _ := run(t, "--home", home, "rerun", "req_00000000000000000000000000000000"); code != ExitUsage {
		t.Errorf("rerun of an unknown run: exit %d", code)
	}
}

// TestInvokeDetach: --detach prints the run id as soon as the job's
// handle arrives; the job is recorded detached, `jobs` lists it and `jobs
// wait` polls it to its end. A capability that is not long-running
// refuses --detach.
func TestInvokeDetach(t *testing.T) {
	home := demo(t)
	code, out, stderr := run(t, "--home", home, "invoke", "render-farm", "farm.render", "--input", `{"frames":16}`, "--detach")
	if code != ExitOK {
		t.Fatalf("detach: exit %d %s %s", code, out, stderr)
	}
	id := strings.TrimSpace(out)
	if history.CheckID(id) != nil || !strings.Contains(stderr, "modbay --home "+home+" jobs wait "+id) {
		t.Fatalf("stdout must be the run id alone (%q); stderr: %s", out, stderr)
	}
	runs := historyOf(t, home)
	if len(runs) != 1 || runs[0].RunID != id || runs[0].Status != "detached" || runs[0].JobID == "" {
		t.Fatalf("runs %+v", runs)
	}
	if code, out, _ := run(t, "--home", home, "jobs"); code != ExitOK || !strings.Contains(out, id) {
		t.Errorf("jobs: %s", out)
	}
	code, out, stderr = run(t, "--home", home, "jobs", "wait", id)
	if code != ExitOK || !strings.Contains(out, "succeeded") {
		t.Fatalf("jobs wait: exit %d %s %s", code, out, stderr)
	}
	code, out, _ = run(t, "--home", home, "invoke", "render-farm", "farm.render", "--input", `{"frames":16}`, "--detach", "--json")
	var d detachedOut
	if code != ExitOK || json.Unmarshal([]byte(out), &d) != nil || !d.Detached || d.JobID == "" || d.RunID == "" {
		t.Errorf("detach --json: exit %d %s", code, out)
	}
	if code, _, stderr := run(t, "--home", home, "invoke", "notes", "notes.report", "--detach"); code != ExitUsage || !strings.Contains(stderr, "not long-running") {
		t.Errorf("detach of a capability that is not long-running: exit %d %s", code, stderr)
	}
}

// TestRerunOfAPathModuleRunsThatPath: a run of a module loaded by path
// whose id an installed module has too is re-run from its path, never
// by the installed module (docs/protocol.md §13).
func TestRerunOfAPathModuleRunsThatPath(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	path := installFixture(t, "ok")
	installed := filepath.Join(home, "modules", "ok", "ok")
	if err := os.MkdirAll(filepath.Dir(installed), 0o755); err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile(path)
	if err := os.WriteFile(installed, src, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := run(t, "--home", home, "invoke", path, "fixture.write", "--input", `{"name":"a"}`); code != ExitOK {
		t.Fatalf("invoke: %d %s %s", code, out, stderr)
	}
	id := historyOf(t, home)[0].RunID
	if _, out, _ := run(t, "--home", home, "history", "show", id); !strings.Contains(out, "repeat    modbay --home "+home+" invoke "+path+" fixture.write") {
		t.Errorf("the repeat line does not name the path:\n%s", out)
	}
	if code, out, stderr := run(t, "--home", home, "rerun", id); code != ExitOK {
		t.Fatalf("rerun: %d %s %s", code, out, stderr)
	}
	_, out, _ := run(t, "--home", home, "history", "show", historyOf(t, home)[0].RunID, "--json")
	var rec history.Record
	if err := json.Unmarshal([]byte(out), &rec); err != nil || rec.ModuleExe != path {
		t.Errorf("the re-run ran %s, want %s (%v)", rec.ModuleExe, path, err)
	}
}
