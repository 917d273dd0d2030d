package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modbay/conform"
)

// TestReplayRoundTripsExamples: the built-in notes example (artifacts
// under a folder named after the request id) and a long-running job,
// recorded and replayed at once, have no difference (request ids, job ids,
// paths and timestamps normalized, poll counts left out), and the fixture
// names no home path. (render-farm round-trips too, measured by hand: its
// check takes 43 s, too long for a unit test.)
func TestReplayRoundTripsExamples(t *testing.T) {
	t.Parallel()
	for name, ref := range map[string][]string{
		"notes": {"--examples", "notes"},
		"jobs":  {installScript(t, "jobs.sh", "jobs")},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			home, dir := t.TempDir(), filepath.Join(t.TempDir(), "fixture")
			args := append([]string{"check", "--home", home}, ref...)
			if code, out, errOut := run(t, append(args, "--record", dir)...); code != ExitOK {
				t.Fatalf("record: exit %d\n%s%s", code, out, errOut)
			}
			raw, err := os.ReadFile(filepath.Join(dir, conform.FixtureFile))
			if err != nil || strings.Contains(string(raw), home) || strings.Contains(string(raw), "req_") {
				t.Fatalf("fixture (%v) holds the home or a request id:\n%.2000s", err, raw)
			}
			code, out, errOut := run(t, append(args, "--replay", dir)...)
			if code != ExitOK || !strings.Contains(out, "no difference from the fixture") {
				t.Fatalf("replay: exit %d\n%s%s", code, out, errOut)
			}
		})
	}
}

// TestReplayNamesDrift: a module whose output changed since its fixture
// differs: the diff names the capability's case and the JSON path, a
// changed artifact shows both digests, the exit is ExitReplayDiff; an
// --ignore'd pointer does not count.
func TestReplayNamesDrift(t *testing.T) {
	t.Parallel()
	exe := installFixture(t, "ok")
	home, dir := t.TempDir(), filepath.Join(t.TempDir(), "fixture")
	if code, out, errOut := run(t, "check", "--home", home, exe, "--record", dir); code != ExitOK {
		t.Fatalf("record: exit %d\n%s%s", code, out, errOut)
	}
	var f conform.Fixture
	raw, _ := os.ReadFile(filepath.Join(dir, conform.FixtureFile))
	if err := json.Unmarshal(raw, &f); err != nil || len(f.Cases) == 0 {
		t.Fatalf("fixture: %v", err)
	}
	oldDigest := ""
	for _, c := range f.Cases {
		if c.Name == "fixture.write minimal" {
			var o struct{ Artifacts []struct{ Digest string } }
			_ = json.Unmarshal(c.Outcome, &o)
			oldDigest = o.Artifacts[0].Digest
		}
	}
	src, _ := os.ReadFile(exe)
	changed := strings.Replace(string(src), `printf '# %s\n' "$name"`, `printf '## %s\n' "$name"`, 1)
	changed = strings.Replace(changed, `"result":{"name":"'"$name"'"}`, `"result":{"name":"'"$name"'","v":2}`, 1)
	if changed == string(src) {
		t.Fatal("the fixture module did not change")
	}
	if err := os.WriteFile(exe, []byte(changed), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "check", "--home", home, exe, "--replay", dir)
	if code != ExitReplayDiff {
		t.Fatalf("replay: exit %d, want %d\n%s%s", code, ExitReplayDiff, out, errOut)
	}
	for _, w := range []string{"differs  fixture.write minimal\n", `  /envelope/result/v: recorded (absent), now 2`,
		`  /artifacts/0/digest: recorded "` + oldDigest + `", now "sha256:`, "(artifact 0 changed: its digest differs)",
		// The last line says what to do about it.
		"record the fixture again (--record DIR); a field that varies on every run: --ignore POINTER\n"} {
		if !strings.Contains(out, w) {
			t.Errorf("no %q in:\n%s", w, out)
		}
	}
	code, out, _ = run(t, "check", "--home", home, exe, "--replay", dir, "--ignore", "/envelope/result/v", "--ignore", "/artifacts", "--json")
	var rep struct {
		Equal bool
		Diffs []conform.Diff
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != ExitOK || !rep.Equal {
		t.Fatalf("ignored: exit %d %v %+v\n%s", code, err, rep, out)
	}
}

// TestReplayRefusesWithheldSecrets: a case whose input had secret values
// left out is not sent without --input giving them; with it, it is.
func TestReplayRefusesWithheldSecrets(t *testing.T) {
	t.Parallel()
	exe := installFixture(t, "ok")
	home, dir := t.TempDir(), filepath.Join(t.TempDir(), "fixture")
	if code, _, _ := run(t, "check", "--home", home, exe, "--record", dir); code != ExitOK {
		t.Fatal("record failed")
	}
	p := filepath.Join(dir, conform.FixtureFile)
	f, err := conform.ReadFixture(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Cases {
		if f.Cases[i].Name == "fixture.write minimal" {
			f.Cases[i].Withheld, f.Cases[i].Input = 1, json.RawMessage(`{}`)
		}
	}
	if err := conform.WriteFixture(dir, f); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, "check", "--home", home, exe, "--replay", dir)
	if code != ExitUsage || !strings.Contains(errOut, "the fixture withholds secret values") || !strings.Contains(errOut, "fixture.write minimal (1 withheld)") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, out, errOut := run(t, "check", "--home", home, exe, "--replay", dir, "--input", `fixture.write={"name":"a"}`)
	if code != ExitOK {
		t.Fatalf("with --input: exit %d\n%s%s (%s)", code, out, errOut, p)
	}
}

// TestHistoryExportFixture: a run exported with --fixture replays with no
// difference against the same workspace, and differs once the workspace's
// notes change (the run's result counts them).
func TestHistoryExportFixture(t *testing.T) {
	home := demo(t)
	if code, out, errOut := run(t, "--home", home, "invoke", "notes", "notes.report", "--input", `{"pattern":"*.md"}`); code != ExitOK {
		t.Fatalf("invoke: %d %s %s", code, out, errOut)
	}
	id := historyOf(t, home)[0].RunID
	dir := filepath.Join(t.TempDir(), "bug")
	code, out, errOut := run(t, "--home", home, "history", "export", id, dir, "--fixture")
	if code != ExitOK || !strings.Contains(out, "fixture.json (replay: modbay --home "+home+" check notes --replay ") {
		t.Fatalf("export: exit %d\n%s%s", code, out, errOut)
	}
	ws := filepath.Join(home, "workspace")
	if code, out, errOut := run(t, "--home", home, "--workspace", ws, "check", "notes", "--replay", dir); code != ExitOK {
		t.Fatalf("replay: exit %d\n%s%s", code, out, errOut)
	}
	if err := os.WriteFile(filepath.Join(ws, "zz-new.md"), []byte("# new\nmore words here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run(t, "--home", home, "--workspace", ws, "check", "notes", "--replay", dir)
	if code != ExitReplayDiff || !strings.Contains(out, "/envelope/result/files: recorded ") {
		t.Fatalf("replay after a change: exit %d\n%s", code, out)
	}
}
