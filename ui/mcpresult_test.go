package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"modbay/ui/internal/uitest"
)

// TestResultOfASessionCall: the result of a call that ran no process (an
// MCP server's tools/call) shows no exit code and its real duration, and
// its effects table says the actual effects are not reported (the
// execution block is the host's), never a "no" with a mismatch. A process
// call keeps its exit code.
func TestResultOfASessionCall(t *testing.T) {
	m, _ := newTest(t, nil, 100, 40)
	p := uitest.Plan(t, uitest.Modules(t)[1])
	mod := *p.Module
	mod.Exe, mod.Driver, mod.EffectsAreHints = "", catalogFake{}, true
	sp := *p
	sp.Module = &mod
	res := uitest.Result(t, &sp, "invoke/success-with-artifact.json")
	res.ExitCode, res.Duration = -1, 12*time.Millisecond
	out := ansi.Strip(newResultView(m.com, m.keys.Result, &sp, res, "").content())
	head := strings.SplitN(out, "\n", 2)[0]
	if strings.Contains(head, "exit") || !strings.Contains(head, "12 ms") {
		t.Errorf("session call header: %q", head)
	}
	eff := out[strings.Index(out, "\nEffects"):]
	eff = eff[:strings.Index(eff, "\nCost")]
	if strings.Contains(eff, "≠") || strings.Contains(eff, " no\n") || !strings.Contains(eff, "local           yes       not reported") {
		t.Errorf("session call effects:\n%s", eff)
	}
	if !strings.Contains(strings.Join(strings.Fields(eff), " "), "An MCP server reports no execution") {
		t.Errorf("effects table does not say why:\n%s", eff)
	}

	// The same result from a process keeps its exit code and table.
	res = uitest.Result(t, p, "invoke/success-with-artifact.json")
	res.Duration = 12 * time.Millisecond
	out = ansi.Strip(newResultView(m.com, m.keys.Result, p, res, "").content())
	if head := strings.SplitN(out, "\n", 2)[0]; !strings.Contains(head, "exit 0") {
		t.Errorf("process call header: %q", head)
	}
	if strings.Contains(out, notReported) {
		t.Errorf("a process's effects called not reported:\n%s", out)
	}
}

func TestCallDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "<1 ms", 400 * time.Microsecond: "<1 ms", 12 * time.Millisecond: "12 ms",
		99 * time.Millisecond: "99 ms", 420 * time.Millisecond: "0.4s", 2500 * time.Millisecond: "2.5s",
	} {
		if got := callDuration(d); got != want {
			t.Errorf("callDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestResultShowsBesideStructured: an MCP result with structuredContent
// shows that as the result and, beside it, the content entries and the
// result's _meta, pretty-printed in the order sent.
func TestResultShowsBesideStructured(t *testing.T) {
	m, _ := newTest(t, nil, 100, 40)
	p := uitest.Plan(t, uitest.Modules(t)[1])
	res := uitest.Result(t, p, "invoke/success-with-artifact.json")
	res.Envelope.Result = []byte(`{"zone":"B","temp":21.5}`)
	res.Beside = []byte(`{"content":[{"type":"text","annotations":{"priority":1},"artifact":"content-0"}],"_meta":{"zz":"first","aa":2}}`)
	out := ansi.Strip(newResultView(m.com, m.keys.Result, p, res, "").content())
	i, j := strings.Index(out, "Result (structuredContent)"), strings.Index(out, "Content and _meta")
	if i < 0 || j < i {
		t.Fatalf("no result and beside sections in order:\n%s", out)
	}
	flat := strings.Join(strings.Fields(out[j:]), " ")
	for _, w := range []string{`"type": "text"`, `"priority": 1`, `"artifact": "content-0"`, `"zz": "first"`} {
		if !strings.Contains(flat, w) {
			t.Errorf("beside section lacks %s:\n%s", w, out[j:])
		}
	}
	if strings.Index(flat, `"zz"`) > strings.Index(flat, `"aa"`) || strings.Index(flat, `"type"`) > strings.Index(flat, `"annotations"`) {
		t.Errorf("beside section re-orders keys:\n%s", out[j:])
	}
	if !strings.Contains(strings.Join(strings.Fields(out[i:j]), " "), `"zone": "B"`) {
		t.Errorf("result section lacks structuredContent:\n%s", out[i:j])
	}
}
