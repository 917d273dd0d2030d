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
	src, err := os.ReadFile(filepath.Join("testdata", "check", "fixture.sh"))
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
// fixture, and the checklist has the line that names it (issue 11 §4);
// the well-behaved fixture passes with exit 0.
func TestCheckNamesEachDeliberateFault(t *testing.T) {
	t.Parallel()
	for fault, want := range map[string]string{
		"ok":                    "10 passed, 0 warnings, 0 failed, 0 skipped",
		"log-line":              `fail    fixture.write minimal  input {"name":"a"}  — host.invalid_json`,
		"crash":                 `fail    fixture.write minimal  input {"name":"a"}  — host.invalid_json: stdout is empty; expected one JSON envelope (exited with status 3); stderr: KeyError: 'name'`,
		"error-string":          `fail    fixture.write minimal  input {"name":"a"}  — host.`,
		"wrong-request-id":      `fail    fixture.write minimal  input {"name":"a"}  — host.protocol_violation`,
		"undeclared-kind":       `"fixture.other/v1" is not among capability "fixture.write"'s artifact_schemas`,
		"bad-digest":            `fail    fixture.write minimal  input {"name":"a"}  — host.protocol_violation`,
		"no-invalid-request":    `fail    fixture.write invalid: /name is 12345  input {"name":12345}  — accepted an input its schema refuses`,
		"no-unknown-capability": `fail    unknown capability  input {}  — answered internal (something went wrong) to capability "modbay.check.no-such-capability"`,
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
