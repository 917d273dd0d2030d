package conform

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modbay/modproto"
	"modbay/runner"
)

// TestNormalizerPlaceholders: what varies between two runs of the same
// request becomes a placeholder: request ids and runs of their hex, run
// ids, the host's run and MCP session directories, timestamps, and the
// paths the caller names.
func TestNormalizerPlaceholders(t *testing.T) {
	tmp := filepath.Clean(os.TempDir())
	n := newNormalizer(map[string]string{"/home/u/ws": "<workspace>"}).forRun("req_0123456789abcdef0123456789abcdef")
	for in, want := range map[string]string{
		"reports/789abcdef012/report.md":              "reports/<request_id>/report.md",
		"id req_0123456789abcdef0123456789abcdef":     "id <request_id>",
		"req_ffffffffffffffffffffffffffffffff":        "<request_id>",
		"run_abc123def456":                            "<run_id>",
		tmp + "/modbay-run-123456/work":               "<run_dir>/work",
		tmp + "/modbay-run-42.806644-1948208136/work": "<run_dir>/work",
		tmp + "/modbay-mcp-everything-3713413893/tmp": "<run_dir>/tmp",
		"at 2026-12-01T19:16:57.123Z":                 "at <time>",
		"/home/u/ws/notes/a.md":                       "<workspace>/notes/a.md",
		"abcdef0":                                     "abcdef0",
	} {
		if got := n.str(in); got != want {
			t.Errorf("%q → %q, want %q", in, got, want)
		}
	}
}

// TestDiffOutcomesIgnore: differences are named by JSON pointer, an
// ignored pointer's subtree left out.
func TestDiffOutcomesIgnore(t *testing.T) {
	fc := FixtureCase{Name: "c", Capability: "m.c", Outcome: []byte(`{"envelope":{"result":{"a":1,"at":"x","list":[1]}}}`)}
	now := []byte(`{"envelope":{"result":{"a":2,"at":"y","list":[1,2]}}}`)
	got := map[string]string{}
	for _, d := range diffOutcomes(fc, now, []string{"/envelope/result/at"}) {
		got[d.Path] = d.Recorded + " → " + d.Now
	}
	if len(got) != 2 || got["/envelope/result/a"] != "1 → 2" || got["/envelope/result/list/1"] != " → 2" {
		t.Fatalf("diffs %q", got)
	}
}

// TestFixtureHoldsNoSecrets: a writeOnly value is left out of the recorded
// input and replaced where the module echoed it (result, stderr).
func TestFixtureHoldsNoSecrets(t *testing.T) {
	d := &modproto.Descriptor{Capabilities: []modproto.Capability{{ID: "m.c", RequestSchema: "s"}},
		RequestSchemas: map[string]json.RawMessage{"s": json.RawMessage(`{"type":"object","properties":{"token":{"type":"string","writeOnly":true},"n":{"type":"integer"}}}`)}}
	res := &runner.Result{RequestID: "req_0123456789abcdef0123456789abcdef", Stderr: "using s3cretvalue\n",
		Envelope: &modproto.Envelope{OK: true, Result: json.RawMessage(`{"echo":"s3cretvalue"}`)}}
	rep := &Report{Module: "m", descriptor: d, Items: []Item{{Status: Pass, Name: "m.c minimal", Capability: "m.c", plan: "m.c", valid: true,
		Input: json.RawMessage(`{"token":"s3cretvalue","n":1}`), Result: res}}}
	f := NewFixture(rep, nil)
	raw, _ := json.Marshal(f)
	if strings.Contains(string(raw), "s3cretvalue") || f.Cases[0].Withheld != 1 || string(f.Cases[0].Input) != `{"n":1}` ||
		!strings.Contains(string(f.Cases[0].Outcome), `"echo":"\u003csecret\u003e"`) || f.Cases[0].Stderr != "using <secret>\n" {
		t.Fatalf("fixture %s", raw)
	}
}
