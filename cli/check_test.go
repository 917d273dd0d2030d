package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// installFixture copies testdata/check/fixture.sh to <dir>/<fault>/<fault>
// (its file name picks its fault) and returns the executable's path.
func installFixture(t *testing.T, fault string) string {
	t.Helper()
	return installScript(t, "fixture.sh", fault)
}

// installScript copies testdata/check/<script> to <dir>/<fault>/<fault>.
func installScript(t *testing.T, script, fault string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "check", script))
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), fault, fault)
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, src, 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

// TestCheckNamesEachDeliberateFault: each fault a new author makes is a
// fixture, and the checklist has the line that names it;
// the well-behaved fixture passes with exit 0.
func TestCheckNamesEachDeliberateFault(t *testing.T) {
	t.Parallel()
	for fault, want := range map[string]string{
		"ok":                    "10 passed, 0 warnings, 0 failed, 0 skipped",
		"log-line":              `fail    fixture.write minimal  input {"name":"a"}  — host.invalid_json`,
		"crash":                 `fail    fixture.write minimal  input {"name":"a"}  — host.no_envelope: exited with status 3 before writing an envelope; stderr ends: Traceback (most recent call last): | File "impl.py", line 3, in <module> | KeyError: 'name'`,
		"error-string":          `fail    fixture.write minimal  input {"name":"a"}  — host.`,
		"wrong-request-id":      `fail    fixture.write minimal  input {"name":"a"}  — host.protocol_violation`,
		"undeclared-kind":       `"fixture.other/v1" is not among capability "fixture.write"'s artifact_schemas`,
		"bad-digest":            `fail    fixture.write minimal  input {"name":"a"}  — host.protocol_violation`,
		"no-invalid-request":    `fail    fixture.write invalid: /name is 12345  input {"name":12345}  — answered ok to an input its schema refuses; expected an invalid_request error`,
		"no-unknown-capability": `fail    unknown capability  input {}  — answered internal (something went wrong) to capability "modbay.check.no-such-capability"`,
		"trailing-text":         `fail    fixture.write minimal  input {"name":"a"}  — host.protocol_violation: 4 bytes after the envelope, starting "done": stdout carries only the envelope; print logs and progress to stderr (docs/protocol.md §6)`,
		"no-protocol-versions":  `fail    validate  — descriptor breaks its rules (docs/modules.md#the-descriptor): protocol_versions: is missing or empty; it must list "xibodev.module/v1" (docs/protocol.md §9)`,
		"typo":                  `fail    validate  — error fixture.write.request/v1 /propertes: "propertes" is not a JSON Schema keyword`,
		"refused-write":         `fail    fixture.write minimal  input {"name":"a"}  — answered internal to a valid input: cannot write `,
	} {
		t.Run(fault, func(t *testing.T) {
			t.Parallel()
			exe := installFixture(t, fault)
			code, out, errOut := run(t, "check", "--home", t.TempDir(), exe)
			if !strings.Contains(out, want) {
				t.Fatalf("no line %q in:\n%s%s", want, out, errOut)
			}
			if wantCode := map[bool]int{true: ExitOK, false: ExitHostVerdict}[fault == "ok"]; code != wantCode {
				t.Fatalf("exit %d, want %d:\n%s", code, wantCode, out)
			}
		})
	}
}

// TestCheckDigestLine: a wrong digest is named as such.
func TestCheckDigestLine(t *testing.T) {
	t.Parallel()
	_, out, _ := run(t, "check", "--home", t.TempDir(), installFixture(t, "bad-digest"))
	if !strings.Contains(out, "digest") {
		t.Fatalf("the digest is not named:\n%s", out)
	}
}

// TestCheckExamplesPass: the built-in notes example passes its own
// check, and --json says so item by item; nothing is written to the
// home's workspace (a temporary one is used).
func TestCheckExamplesPass(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	code, out, errOut := run(t, "check", "--home", home, "--examples", "--json", "notes")
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	var rep struct {
		OK    bool `json:"ok"`
		Items []struct {
			Status, Name, Detail string
			Input                json.RawMessage
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, it := range rep.Items {
		names[it.Name] = it.Status
	}
	for _, n := range []string{"describe", "describe twice", "validate", "notes.report minimal", "notes.echo minimal", "unknown capability"} {
		if names[n] != "pass" {
			t.Errorf("%s: %q", n, names[n])
		}
	}
	if !rep.OK || len(rep.Items) < 8 {
		t.Fatalf("ok %v, %d items", rep.OK, len(rep.Items))
	}
	if entries, _ := os.ReadDir(filepath.Join(home, "workspace")); len(entries) > 0 {
		t.Fatalf("the home's workspace was written: %v", entries)
	}
}

// TestInvokeTrace: --trace shows the raw exchange and both copy lines;
// --json carries them; the saved request file is the one sent, 0600, and
// the module call line names it.
func TestInvokeTrace(t *testing.T) {
	t.Parallel()
	exe := installFixture(t, "ok")
	home := t.TempDir()
	code, out, errOut := run(t, "invoke", "--home", home, exe, "fixture.write", "--input", `{"name":"x"}`, "--trace")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"argv:     module invoke fixture.write --input /", "env:      TMPDIR=", "exit:     status 0",
		"timings:  spawn ", "request file (", `"input":{"name":"x"}`, "stdout (", "repeat with modbay:\n  modbay --home " + home + " invoke " + exe + ` fixture.write --input '{"name":"x"}'`,
		"without modbay's containment", `env -i TMPDIR="$(mktemp -d)" ` + exe + " module invoke fixture.write --input " + filepath.Join(home, "requests")} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	code, out, _ = run(t, "invoke", "--home", home, exe, "fixture.write", "--input", `{"name":"x"}`, "--trace", "--json")
	var j struct {
		RequestID string `json:"request_id"`
		Trace     struct {
			Calls []struct {
				Request string           `json:"request"`
				Stdout  string           `json:"stdout"`
				Timings map[string]int64 `json:"timings_us"`
			} `json:"calls"`
			Copy struct {
				Invoke      string `json:"invoke"`
				ModuleCall  string `json:"module_call"`
				RequestFile string `json:"request_file"`
			} `json:"copy"`
		} `json:"trace"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil || code != ExitOK {
		t.Fatalf("%v %d\n%s", err, code, out)
	}
	if len(j.Trace.Calls) != 1 || len(j.Trace.Calls[0].Timings) != 5 || !strings.Contains(j.Trace.Calls[0].Stdout, j.RequestID) {
		t.Fatalf("%+v", j.Trace)
	}
	saved, err := os.ReadFile(j.Trace.Copy.RequestFile)
	if err != nil || string(saved) != j.Trace.Calls[0].Request {
		t.Fatalf("saved %q (%v), sent %q", saved, err, j.Trace.Calls[0].Request)
	}
	if fi, _ := os.Stat(j.Trace.Copy.RequestFile); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
}

// TestLauncherEditIsSeen: a module run through a launcher (`exec sh
// impl.sh`) is described afresh after impl.sh changes, since the describe
// cache keys on the module directory's files (docs/protocol.md §18); without
// a change the cache answers, and --no-cache bypasses it. "cached" in
// validate --json says which it was.
func TestLauncherEditIsSeen(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := filepath.Join(home, "modules", "fixture")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	impl, err := os.ReadFile(filepath.Join("testdata", "check", "fixture.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "impl.sh"), impl, 0o644); err != nil {
		t.Fatal(err)
	}
	launcher := "#!/bin/sh\nexec /bin/sh \"${0%/*}/impl.sh\" \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "fixture"), []byte(launcher), 0o755); err != nil {
		t.Fatal(err)
	}
	validate := func(extra ...string) (version string, cached bool) {
		t.Helper()
		code, out, errOut := run(t, append([]string{"validate", "--home", home, "--json", "fixture"}, extra...)...)
		var j struct {
			Cached     bool `json:"cached"`
			Descriptor struct {
				Version string `json:"version"`
			} `json:"descriptor"`
			Version string `json:"version"`
		}
		if err := json.Unmarshal([]byte(out), &j); err != nil || code != ExitOK {
			t.Fatalf("exit %d %v\n%s%s", code, err, out, errOut)
		}
		v := j.Version
		if v == "" {
			v = j.Descriptor.Version
		}
		return v, j.Cached
	}
	if v, cached := validate(); v != "1.0.0" || cached {
		t.Fatalf("first: %s cached %v", v, cached)
	}
	if _, cached := validate(); !cached {
		t.Fatal("an unchanged module was described again")
	}
	if _, cached := validate("--no-cache"); cached {
		t.Fatal("--no-cache read the cache")
	}
	edited := strings.Replace(string(impl), `"version":"1.0.0"`, `"version":"1.0.1"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "impl.sh"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, cached := validate(); v != "1.0.1" || cached {
		t.Fatalf("after editing impl.sh: %s cached %v", v, cached)
	}
}

// TestValidateAndCheckRefuseAClaimedID: a module loaded by path that
// declares an id other than its executable's name ("../..") is refused by
// validate and check with exit 4, naming the rule; nothing runs.
func TestValidateAndCheckRefuseAClaimedID(t *testing.T) {
	t.Parallel()
	exe := filepath.Join(t.TempDir(), "climber", "climber")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	script := `#!/bin/sh
printf '%s\n' '{"protocol":"xibodev.module/v1","module":"../..","operation":"describe","request_id":"","ok":true,"warnings":[],"execution":{"local":true,"network":false,"external_writes":false,"provider":"local","estimated_cost":0,"actual_cost":0,"artifacts":[]},"result":{"module":"../..","name":"C","version":"1","protocol_versions":["xibodev.module/v1"],"capabilities":[{"id":"c.run","summary":"s","effects":{"local":true,"network":false,"external_writes":false,"provider":"local","cost_known":true}}],"permissions":{"filesystem_write":["etc"]}}}'
`
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	for _, cmd := range [][]string{{"validate", exe}, {"check", exe}, {"invoke", exe, "c.run"}} {
		code, out, errOut := run(t, append([]string{"--home", home}, cmd...)...)
		if code != ExitHostVerdict || !strings.Contains(out+errOut, `must declare the id its executable is named, "climber" (docs/protocol.md §13)`) {
			t.Errorf("%s: exit %d\n%s%s", cmd[0], code, out, errOut)
		}
	}
}

// TestCheckNamesRefusedWrite: a write outside the rw roots, refused by
// containment, is named as such beside the module's own error, in check
// and in invoke (text and --json).
func TestCheckNamesRefusedWrite(t *testing.T) {
	t.Parallel()
	exe := installFixture(t, "refused-write")
	want := "likely refused by containment: " + filepath.Join(filepath.Dir(exe), "cache.txt") + " is outside the rw roots (workspace)"
	_, out, _ := run(t, "check", "--home", t.TempDir(), exe)
	if !strings.Contains(out, want) {
		t.Fatalf("check: no %q in:\n%s", want, out)
	}
	home := t.TempDir()
	code, out, errOut := run(t, "invoke", "--home", home, exe, "fixture.write", "--input", `{"name":"x"}`)
	if code != ExitModuleError || !strings.Contains(out, "cause:     "+want) {
		t.Fatalf("invoke: exit %d, no cause %q in:\n%s%s", code, want, out, errOut)
	}
	_, out, _ = run(t, "invoke", "--home", home, exe, "fixture.write", "--input", `{"name":"x"}`, "--json")
	var j struct {
		LikelyCause string `json:"likely_cause"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil || !strings.HasPrefix(j.LikelyCause, want) {
		t.Fatalf("invoke --json: %v %q", err, j.LikelyCause)
	}
}

// TestValidateExitsOnRefusedCapability: a capability no input can reach
// (a "propertes" typo) refuses: exit 4, the capability named, the typo an
// error.
func TestValidateExitsOnRefusedCapability(t *testing.T) {
	t.Parallel()
	code, out, _ := run(t, "validate", "--home", t.TempDir(), installFixture(t, "typo"))
	if code != ExitHostVerdict || !strings.Contains(out, "1 capability refused, as no input satisfies its request schema: fixture.write") ||
		!strings.Contains(out, `schema:    error fixture.write.request/v1 /propertes: "propertes"`) {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// TestCheckUnknownJobState: a poll answering "done" is named at once with
// the documented states, not polled until the deadline; a well-behaved
// job passes.
func TestCheckUnknownJobState(t *testing.T) {
	t.Parallel()
	_, out, _ := run(t, "check", "--home", t.TempDir(), "--deadline", "30s", installScript(t, "jobs.sh", "done-state"))
	want := `fail    jobs.start minimal  input {}  — host.protocol_violation: job job-1 has state "done", which is not a job state: send "queued" or "running" while it works`
	if !strings.Contains(out, want) {
		t.Fatalf("no %q in:\n%s", want, out)
	}
	code, out, _ := run(t, "check", "--home", t.TempDir(), installScript(t, "jobs.sh", "jobs"))
	if code != ExitOK || !strings.Contains(out, "pass    jobs.start minimal  input {}  — ok, 0 artifacts verified, job succeeded after 1 polls") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// TestCheckDeadlineFlag: --deadline must be positive and is listed with
// its default; --yes is in the usage line.
func TestCheckDeadlineFlag(t *testing.T) {
	t.Parallel()
	if code, _, errOut := run(t, "check", "--deadline", "0s", "notes"); code != ExitUsage || !strings.Contains(errOut, "--deadline must be positive") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	_, out, _ := run(t, "check", "--help")
	for _, w := range []string{"check MODULE|PATH [--yes]", "--deadline duration", "(default 1m0s)"} {
		if !strings.Contains(out, w) {
			t.Errorf("no %q in:\n%s", w, out)
		}
	}
}

// TestDescribeShowsJobLinks: describe names the poll and cancel links both
// ways and marks the job capabilities hidden; invoke still runs a hidden
// capability (docs/protocol.md §17).
func TestDescribeShowsJobLinks(t *testing.T) {
	t.Parallel()
	exe := installScript(t, "jobs.sh", "jobs")
	home := t.TempDir()
	_, out, _ := run(t, "describe", "--home", home, exe)
	for _, w := range []string{"polled by: jobs.poll", "cancelled by: jobs.cancel", "polls the jobs of: jobs.start",
		"cancels the jobs of: jobs.start", "jobs.poll — Poll a job (hidden: no form, no agent tool; docs/protocol.md §17)"} {
		if !strings.Contains(out, w) {
			t.Errorf("no %q in:\n%s", w, out)
		}
	}
	if strings.Contains(out, "jobs.start — Start a job (hidden") {
		t.Errorf("jobs.start is marked hidden:\n%s", out)
	}
	if code, out, errOut := run(t, "invoke", "--home", home, exe, "jobs.cancel", "--input", `{"job_id":"job-1"}`); code != ExitOK || !strings.Contains(out, "cancelled") {
		t.Fatalf("invoke of a hidden capability: exit %d\n%s%s", code, out, errOut)
	}
}

// TestCheckUnknownCapabilityWithNoCarrier: with no capability to carry
// the unknown-capability call, the skip says so, not "pass --yes".
func TestCheckUnknownCapabilityWithNoCarrier(t *testing.T) {
	t.Parallel()
	_, out, errOut := run(t, "check", "--home", t.TempDir(), installScript(t, "nocap.sh", "nocap"))
	if !strings.Contains(out, "skipped unknown capability  — the module declares no capability to carry the call") || strings.Contains(out, "--yes") {
		t.Fatalf("unknown capability line:\n%s%s", out, errOut)
	}
}
