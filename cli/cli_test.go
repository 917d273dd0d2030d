package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"modbay/config"
	"modbay/examples"
	"modbay/modproto"
	"modbay/runner"
)

// TestMain lets the test binary stand in for the modbay binary: the example
// modules' launchers re-execute it as `<exe> example-module <id> ...`.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "example-module" {
		os.Exit(examples.Main(os.Args[2:], os.Stdout, os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == readerMarker {
		os.Exit(readerMain(os.Args[2:]))
	}
	// The hangup tests run the binary as modbay itself, with real
	// standard streams.
	if os.Getenv(asModbayEnv) == "1" {
		os.Exit(Execute(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// demo installs the example modules into a fresh home and returns it.
func demo(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	if err := examples.InstallDemoHome(home, exe); err != nil {
		t.Fatal(err)
	}
	return home
}

// run executes modbay with args and returns the exit code and output.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Execute(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// countLaunches wraps the launcher of module id so each start appends a line
// to a file, and returns that file: proof of whether a process started.
func countLaunches(t *testing.T, home, id string) string {
	t.Helper()
	exe := filepath.Join(home, "modules", id, id)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The module is contained: it can write only its rw roots,
	// so the log lives in the workspace, which every invoke here is
	// granted (a describe's line is refused and not counted).
	log := filepath.Join(home, "workspace", ".launches")
	// The module gets no PATH, so only shell builtins are used.
	script := fmt.Sprintf("#!/bin/sh\necho \"$*\" >> '%s' 2>/dev/null\nexec '%s' example-module '%s' \"$@\"\n", log, self, id)
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return log
}

func launches(t *testing.T, log string, verb string) int {
	b, _ := os.ReadFile(log)
	return strings.Count(string(b), "module "+verb)
}

func TestInvokeNetworkNeedsApproval(t *testing.T) {
	home := demo(t)
	log := countLaunches(t, home, "fetch")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		fmt.Fprint(w, "# hello from loopback\n")
	}))
	defer srv.Close()
	input := fmt.Sprintf(`{"url":%q}`, srv.URL+"/doc.md")

	code, _, stderr := run(t, "--home", home, "invoke", "fetch", "fetch.url", "--input", input)
	if code != ExitApprovalRequired {
		t.Fatalf("without --yes: exit %d, want %d; stderr %s", code, ExitApprovalRequired, stderr)
	}
	if !strings.Contains(stderr, "needs approval") || !strings.Contains(stderr, "network") {
		t.Fatalf("reasons not shown: %s", stderr)
	}
	if n := launches(t, log, "invoke"); n != 0 {
		t.Fatalf("a process started without approval (%d invokes)", n)
	}

	code, out, stderr := run(t, "--home", home, "invoke", "fetch", "fetch.url", "--input", input, "--yes", "--json")
	if code != ExitOK {
		t.Fatalf("with --yes: exit %d; stdout %s stderr %s", code, out, stderr)
	}
	if n := launches(t, log, "invoke"); n != 1 {
		t.Fatalf("want exactly one invoke, got %d", n)
	}
	var res struct {
		OK        bool `json:"ok"`
		Artifacts []struct {
			Digest string `json:"digest"`
			Staged string `json:"staged"`
		} `json:"artifacts"`
		Envelope struct {
			Execution struct {
				ActualCost *float64 `json:"actual_cost"`
			} `json:"execution"`
		} `json:"envelope"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	if !res.OK || len(res.Artifacts) != 1 {
		t.Fatalf("result: %s", out)
	}
	a := res.Artifacts[0]
	staged, err := os.ReadFile(a.Staged)
	if err != nil {
		t.Fatalf("staged artifact: %v", err)
	}
	if modproto.Digest(staged) != a.Digest || string(staged) != "# hello from loopback\n" {
		t.Fatalf("staged artifact does not match: %q", staged)
	}
	if fi, _ := os.Stat(a.Staged); fi.Mode().Perm()&0o222 != 0 {
		t.Fatalf("staged artifact is writable: %v", fi.Mode())
	}
	if !strings.HasPrefix(a.Staged, filepath.Join(home, "artifacts")) {
		t.Fatalf("staged outside the store: %s", a.Staged)
	}
	if res.Envelope.Execution.ActualCost != nil {
		t.Fatal("an unknown cost must stay null")
	}
}

func TestInvokeExitCodes(t *testing.T) {
	home := demo(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	}))
	defer srv.Close()

	code, out, stderr := run(t, "--home", home, "invoke", "notes", "notes.report")
	if code != ExitOK {
		t.Fatalf("notes.report: exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(out, "text/markdown") {
		t.Fatalf("artifacts not listed: %s", out)
	}

	code, _, stderr = run(t, "--home", home, "invoke", "notes", "notes.report", "--input", `{"max_files":0}`)
	if code != ExitInputInvalid || !strings.Contains(stderr, "/max_files") {
		t.Fatalf("invalid input: exit %d, stderr %s", code, stderr)
	}

	code, out, _ = run(t, "--home", home, "invoke", "fetch", "fetch.url", "--yes", "--input", fmt.Sprintf(`{"url":%q}`, srv.URL))
	if code != ExitModuleError || !strings.Contains(out, "provider_failure") {
		t.Fatalf("module error: exit %d, out %s", code, out)
	}

	if code, _, _ = run(t, "--home", home, "invoke", "nope", "x"); code != ExitUsage {
		t.Fatalf("unknown module: exit %d", code)
	}
	if code, _, _ = run(t, "--home", home, "invoke", "notes"); code != ExitUsage {
		t.Fatalf("missing argument: exit %d", code)
	}
	if code, _, _ = run(t, "--home", home, "invoke", "notes", "notes.report", "--input", "{"); code != ExitUsage {
		t.Fatalf("bad --input JSON: exit %d", code)
	}
	// Where and why, in plain words (modproto.JSONProblem).
	code, _, stderr = run(t, "--home", home, "invoke", "notes", "notes.report", "--input", "{message:hi}")
	if want := `--input: not valid JSON — strings need quotes: write "message", not message (line 1, column 2)`; code != ExitUsage || !strings.Contains(stderr, want) {
		t.Errorf("--input '{message:hi}': exit %d, stderr %q, want %q", code, stderr, want)
	}
	if code, _, _ = run(t, "--home", home, "list", "--bogus"); code != ExitUsage {
		t.Fatalf("bad flag: exit %d", code)
	}
}

// scriptModule writes a /bin/sh module that answers describe with d (as a
// valid describe envelope) and every invoke by running invoke (shell
// builtins only: a module gets no PATH), and returns its path.
func scriptModule(t *testing.T, d modproto.Descriptor, invoke string) string {
	t.Helper()
	d.Normalize()
	desc, err := json.Marshal(map[string]any{"protocol": modproto.ProtocolID, "module": d.Module, "operation": "describe",
		"request_id": "", "ok": true, "result": d, "warnings": []string{},
		"execution": map[string]any{"local": true, "provider": "local", "estimated_cost": 0, "actual_cost": 0, "artifacts": []any{}}})
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), d.Module)
	script := fmt.Sprintf("#!/bin/sh\nif [ \"$2\" = describe ]; then echo '%s'; else %s; fi\n", desc, invoke)
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

// localEffects are the effects of a module that only runs locally, free.
var localEffects = modproto.Effects{Local: true, Provider: "local", CostKnown: true}

// hostileModule writes a module that describes itself properly but answers
// every invoke with garbage after the envelope.
func hostileModule(t *testing.T) string {
	return scriptModule(t, modproto.Descriptor{Module: "liar", Name: "Liar", Version: "1", ProtocolVersions: []string{modproto.ProtocolID},
		Capabilities: []modproto.Capability{{ID: "liar.say", Title: "Say", Summary: "Says something, then more", Effects: localEffects}}},
		`echo '{"not":"an envelope"} and trailing garbage'`)
}

func TestHostVerdictAndValidate(t *testing.T) {
	home := t.TempDir()
	exe := hostileModule(t)
	code, out, stderr := run(t, "--home", home, "--module", exe, "invoke", "liar", "liar.say")
	if code != ExitHostVerdict || !strings.Contains(out, modproto.CodeHostProtocolViolation) {
		t.Fatalf("garbage: exit %d\n%s\n%s", code, out, stderr)
	}
	code, out, _ = run(t, "--home", home, "validate", exe)
	if code != ExitOK || !strings.Contains(out, "valid") {
		t.Fatalf("validate liar: exit %d %s", code, out)
	}
	bad := filepath.Join(t.TempDir(), "bad")
	if err := os.WriteFile(bad, []byte("#!/bin/sh\necho nope\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run(t, "--home", home, "validate", bad)
	if code != ExitHostVerdict || !strings.Contains(out, "refused") {
		t.Fatalf("validate bad: exit %d %s", code, out)
	}
}

func TestListDescribeRender(t *testing.T) {
	home := demo(t)
	code, out, _ := run(t, "--home", home, "list")
	if code != ExitOK {
		t.Fatalf("list: %d", code)
	}
	for _, want := range []string{"notes", "fetch", "needs setup", "render-farm"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, "--home", home, "list", "--json")
	var mods []moduleJSON
	if code != ExitOK || json.Unmarshal([]byte(out), &mods) != nil || len(mods) != len(examples.IDs()) {
		t.Fatalf("list --json: %d %s", code, out)
	}
	code, out, _ = run(t, "--home", home, "describe", "fetch")
	if code != ExitOK || !strings.Contains(out, "cost unknown") || !strings.Contains(out, "network") {
		t.Fatalf("describe: %d %s", code, out)
	}
	code, out, _ = run(t, "--home", home, "describe", "transcode")
	if code != ExitOK || !strings.Contains(out, "needs setup") || !strings.Contains(out, "not probed") {
		t.Fatalf("describe transcode: %d %s", code, out)
	}
	md := filepath.Join(t.TempDir(), "x.md")
	os.WriteFile(md, []byte("# Title\n\nSome *text* \x1b]52;c;ZXZpbA==\x07 here.\n"), 0o644)
	code, out, _ = run(t, "render", md, "--width", "40", "--no-color")
	if code != ExitOK || !strings.Contains(out, "Title") || strings.Contains(out, "\x1b") {
		t.Fatalf("render: %d %q", code, out)
	}
	if code, _, _ = run(t, "render", "/nonexistent"); code != ExitUsage {
		t.Fatalf("render missing: %d", code)
	}
}

// brokenSchemaModule writes a module whose one request schema does not
// compile ("type": 12).
func brokenSchemaModule(t *testing.T) string {
	return scriptModule(t, modproto.Descriptor{Module: "badschema", Name: "Bad schema", Version: "1", ProtocolVersions: []string{modproto.ProtocolID},
		Capabilities: []modproto.Capability{{ID: "bad.run", Title: "Run", Summary: "Has a schema that does not compile",
			RequestSchema: "bad.request/v1", Effects: localEffects}},
		RequestSchemas: map[string]json.RawMessage{"bad.request/v1": json.RawMessage(`{"type":12}`)}}, "exit 1")
}

func TestSchemaThatDoesNotCompile(t *testing.T) {
	home, exe := t.TempDir(), brokenSchemaModule(t)
	code, out, _ := run(t, "--home", home, "validate", exe)
	if code != ExitHostVerdict || !strings.Contains(out, "refused") || !strings.Contains(out, "does not compile") {
		t.Fatalf("validate: exit %d\n%s", code, out)
	}
	if strings.Contains(out, "modbay:///") {
		t.Fatalf("an internal schema URL leaked: %s", out)
	}
	code, _, stderr := run(t, "--home", home, "--module", exe, "invoke", "badschema", "bad.run")
	if code != ExitHostVerdict || !strings.Contains(stderr, "does not compile") || strings.Contains(stderr, "modbay:///") {
		t.Fatalf("invoke: exit %d\n%s", code, stderr)
	}
}

func TestRenderToAPipeIsPlain(t *testing.T) {
	md := filepath.Join(t.TempDir(), "x.md")
	os.WriteFile(md, []byte("# Title\n\n*emphasis* and `code`\n"), 0o644)
	code, out, _ := run(t, "render", md) // a bytes.Buffer, not a terminal
	if code != ExitOK || strings.Contains(out, "\x1b") || !strings.Contains(out, "Title") {
		t.Fatalf("render to a pipe: %d %q", code, out)
	}
	code, out, _ = run(t, "render", md, "--color")
	if code != ExitOK || !strings.Contains(out, "\x1b[") {
		t.Fatalf("render --color: %d %q", code, out)
	}
	if code, _, _ = run(t, "render", md, "--presentation", "hologram"); code != ExitUsage {
		t.Fatalf("unknown presentation: exit %d", code)
	}
	if code, _, _ = run(t, "render", md, "--width", "-3"); code != ExitUsage {
		t.Fatalf("negative width: exit %d", code)
	}
}

func TestDeadlineMustBePositive(t *testing.T) {
	home := demo(t)
	for _, d := range []string{"0", "-5s"} {
		if code, _, _ := run(t, "--home", home, "invoke", "notes", "notes.echo", "--deadline", d); code != ExitUsage {
			t.Errorf("--deadline %s: exit %d, want usage", d, code)
		}
	}
	code, out, _ := run(t, "--home", home, "invoke", "fetch", "fetch.url", "--json", "--input", `{"url":"http://127.0.0.1:9/"}`)
	var refusal struct {
		OK      bool     `json:"ok"`
		Outcome string   `json:"outcome"`
		Reasons []string `json:"reasons"`
		Ran     bool     `json:"ran"`
	}
	if code != ExitApprovalRequired || json.Unmarshal([]byte(out), &refusal) != nil || refusal.Outcome != "approval_required" || refusal.Ran || len(refusal.Reasons) == 0 {
		t.Fatalf("--json refusal: exit %d %q", code, out)
	}
}

// TestInvokeBrokenModuleIsAHostVerdict: a module whose descriptor breaks
// docs/protocol.md §9 is refused like validate refuses it (exit 4), never "usage".
func TestInvokeBrokenModuleIsAHostVerdict(t *testing.T) {
	exe := scriptModule(t, modproto.Descriptor{Module: "idless", Name: "Bad id", Version: "1", ProtocolVersions: []string{modproto.ProtocolID},
		Capabilities:   []modproto.Capability{{ID: "x.run", Title: "Run", Summary: "s", RequestSchema: "x.request/v1", Effects: localEffects}},
		RequestSchemas: map[string]json.RawMessage{"x.request/v1": json.RawMessage(`{"$id":"http://my/other.json","type":"object"}`)}}, "exit 1")
	home := t.TempDir()
	if code, out, _ := run(t, "--home", home, "validate", exe); code != ExitHostVerdict {
		t.Fatalf("validate: exit %d %s", code, out)
	}
	code, out, _ := run(t, "--home", home, "--module", exe, "invoke", "idless", "x.run", "--json")
	if code != ExitHostVerdict || !strings.Contains(out, `"outcome": "broken"`) {
		t.Fatalf("invoke: exit %d %s", code, out)
	}
	code, out, _ = run(t, "--home", home, "invoke", "notes", "x", "--deadline", "0", "--json")
	if code != ExitUsage || !strings.Contains(out, `"outcome": "usage"`) {
		t.Fatalf("--deadline 0 --json: exit %d %q", code, out)
	}
}

// TestBuiltinExamplesPathsStable checks that the built-in examples shown
// for an empty home are listed at paths under the home that outlive the
// command, the same in list --json, describe --json and describe, and the
// same from one command to the next.
func TestBuiltinExamplesPathsStable(t *testing.T) {
	home := t.TempDir()
	list := func() []moduleJSON {
		code, out, stderr := run(t, "--home", home, "list", "--json")
		var mods []moduleJSON
		if code != ExitOK || json.Unmarshal([]byte(out), &mods) != nil || len(mods) != len(examples.IDs()) {
			t.Fatalf("list --json: %d %s %s", code, out, stderr)
		}
		return mods
	}
	first, second := list(), list()
	for i, m := range first {
		if m.Exe != second[i].Exe {
			t.Errorf("%s: path changed between runs: %s then %s", m.ID, m.Exe, second[i].Exe)
		}
		if !strings.HasPrefix(m.Exe, filepath.Join(home, examples.BuiltinsDir)+"/") {
			t.Errorf("%s: path %s is not under the home's %s/", m.ID, m.Exe, examples.BuiltinsDir)
		}
		// The command has ended: the path must still be a working module.
		if st, err := os.Stat(m.Exe); err != nil || st.Mode().Perm()&0o111 == 0 {
			t.Errorf("%s: %s after the command: %v", m.ID, m.Exe, err)
		}
		code, out, _ := run(t, "--home", home, "describe", m.ID, "--json")
		var d moduleJSON
		if code != ExitOK || json.Unmarshal([]byte(out), &d) != nil || d.Exe != m.Exe {
			t.Errorf("describe --json %s: exe %q, list said %q (exit %d)", m.ID, d.Exe, m.Exe, code)
		}
		if code, out, _ = run(t, "--home", home, "describe", m.ID); !strings.Contains(out, "executable: "+m.Exe+"\n") {
			t.Errorf("describe %s (exit %d) does not name %s:\n%s", m.ID, code, m.Exe, out)
		}
	}
}

// TestExamplesDescribedInProcess: the host answers the built-in examples'
// describes in this process (Host.DescribeExample); each module, status
// and descriptor is what describing its launcher (this binary re-executed)
// gives.
func TestExamplesDescribedInProcess(t *testing.T) {
	dirs, err := installExamples(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	discover := func(inProcess bool) []*runner.Module {
		h := runner.NewHost(cfg)
		h.AddExampleModules(dirs...)
		if inProcess {
			h.DescribeExample = examples.Describe
		}
		return h.Discover(ctx)
	}
	launched, here := discover(false), discover(true)
	if len(here) != len(dirs) || len(launched) != len(here) {
		t.Fatalf("%d modules in process, %d launched, %d examples", len(here), len(launched), len(dirs))
	}
	for i, m := range here {
		l := launched[i]
		if m.ID != l.ID || m.Status != l.Status || m.Reason != l.Reason || !reflect.DeepEqual(m.Descriptor, l.Descriptor) || !reflect.DeepEqual(m.Warnings, l.Warnings) {
			t.Errorf("%s: in process %s %q %v, launched %s %q %v", m.ID, m.Status, m.Reason, m.Warnings, l.Status, l.Reason, l.Warnings)
		}
	}
}

// TestExampleFoundByIDBesideInstalledModules: a home with a module of its
// own hides the built-in examples from the list (without --examples), yet
// `modbay invoke notes …` — the line modbay copies to repeat a run of an
// example — still finds the example by id.
func TestExampleFoundByIDBesideInstalledModules(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "modules", "mine")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mine"), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run(t, "--home", home, "list"); strings.Contains(out, "notes") {
		t.Fatalf("the examples are listed beside an installed module (exit %d):\n%s", code, out)
	}
	code, out, stderr := run(t, "--home", home, "invoke", "notes", "notes.report", "--input", "{}")
	if code != ExitOK || !strings.Contains(out, "ok") {
		t.Fatalf("invoke notes beside an installed module: exit %d\n%s\n%s", code, out, stderr)
	}
}

// --help gives the home default that applies here: $XDG_DATA_HOME/modbay
// when it is set, else ~/.local/share/modbay, with the rule.
func TestHelpShowsTheHomeThatApplies(t *testing.T) {
	t.Setenv("MODBAY_HOME", "")
	t.Setenv("FACET_STUDIO_HOME", "")
	user := t.TempDir()
	t.Setenv("HOME", user)
	xdg := t.TempDir()
	t.Setenv("XDG_DATA_HOME", xdg)
	code, out, _ := run(t, "--help")
	if code != 0 || !strings.Contains(out, "here "+filepath.Join(xdg, "modbay")+")") || !strings.Contains(out, "$XDG_DATA_HOME/modbay") {
		t.Errorf("with XDG_DATA_HOME: exit %d\n%s", code, out)
	}
	t.Setenv("XDG_DATA_HOME", "")
	if _, out, _ := run(t, "list", "--help"); !strings.Contains(out, "here "+filepath.Join(user, ".local", "share", "modbay")+")") {
		t.Errorf("without XDG_DATA_HOME:\n%s", out)
	}
	t.Setenv("MODBAY_HOME", "/srv/mb")
	if _, out, _ := run(t, "--help"); !strings.Contains(out, "here /srv/mb)") {
		t.Errorf("with MODBAY_HOME:\n%s", out)
	}
}

// TestExamplesHiddenNoteOnce: the first cockpit start without the
// examples in a home that showed them says why they are gone; the next
// does not, nor a home that never showed them, nor one that shows them.
func TestExamplesHiddenNoteOnce(t *testing.T) {
	home := t.TempDir()
	if got := examplesHiddenNote(home, false); got != "" {
		t.Fatalf("a home that never showed the examples: %q", got)
	}
	if err := os.MkdirAll(filepath.Join(home, "examples"), 0o700); err != nil {
		t.Fatal(err)
	}
	if got := examplesHiddenNote(home, true); got != "" {
		t.Fatalf("examples shown: %q", got)
	}
	if got := examplesHiddenNote(home, false); !strings.Contains(got, "only in an empty home or with --examples") {
		t.Fatalf("first start without them: %q", got)
	}
	if got := examplesHiddenNote(home, false); got != "" {
		t.Fatalf("said twice: %q", got)
	}
}
