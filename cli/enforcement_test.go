package cli

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"modbay/contain"
	"modbay/modproto"
	"modbay/runner"
)

var (
	completeEnf = contain.Enforcement{Contained: true, Processes: contain.ProcessesPIDNamespace, Filesystem: "landlock ABI 7",
		Network: "namespace + no sockets (seccomp)", Capabilities: contain.CapabilitiesDropped, Terminal: contain.TerminalOwnSession,
		Signals: "landlock scope + pid namespace", UnixSockets: contain.UnixSocketsRefused, Descriptors: contain.DescriptorsClosed,
		Limits: "open files 1024"}
	noNetNS = "network: not enforced (no network namespace; no seccomp)"
)

func gapped() contain.Enforcement {
	e := completeEnf
	e.Network = "not enforced (no network namespace; no seccomp)"
	e.Gaps = []string{noNetNS, "limits: open files 1024; not applied: rlimit 7: operation not permitted"}
	return e
}

// TestEnforcementSummary: one line for every state, and -v's layers.
func TestEnforcementSummary(t *testing.T) {
	off := contain.Enforcement{Processes: contain.ProcessesGroup, Gaps: []string{"containment: sandbox: off"}}
	for _, tt := range []struct {
		e    contain.Enforcement
		want string
	}{
		{contain.Enforcement{}, ""},
		{completeEnf, "containment: complete (pid namespace, landlock ABI 7, network namespace + no sockets (seccomp))"},
		{gapped(), "containment: 2 gaps: " + noNetNS + "; limits: "},
		{off, "containment: none (sandbox: off): the module ran as a plain process"},
	} {
		got := enforcementSummary(tt.e)
		if (tt.want == "") != (got == "") || !strings.HasPrefix(got, tt.want) {
			t.Errorf("summary = %q, want prefix %q", got, tt.want)
		}
	}
	var buf bytes.Buffer
	writeEnforcement(&buf, gapped(), true)
	for _, want := range []string{"containment (2 gaps):\n", "  processes: pid namespace\n", "  limits: open files 1024\n", "  ! " + noNetNS + "\n"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("layers lack %q:\n%s", want, buf.String())
		}
	}
}

// TestResultJSONHasEnforcement: --json carries the layers, "complete" and
// "gaps" (an array even when empty); a run that started nothing has none.
func TestResultJSONHasEnforcement(t *testing.T) {
	res := &runner.Result{RequestID: "r", Module: "m", Capability: "m.c", Envelope: &modproto.Envelope{OK: true}, Enforcement: completeEnf}
	var buf bytes.Buffer
	if err := writeJSON(&buf, resultJSON(res)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"enforcement": {`, `"processes": "pid namespace"`, `"unix_sockets": "refused (seccomp)"`,
		`"complete": true`, `"gaps": []`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("--json lacks %s:\n%s", want, buf.String())
		}
	}
	res.Enforcement = contain.Enforcement{}
	buf.Reset()
	writeJSON(&buf, resultJSON(res))
	if strings.Contains(buf.String(), "enforcement") {
		t.Errorf("nothing started, yet:\n%s", buf.String())
	}
}

// TestSplitGaps: a reason holding "; " stays one gap.
func TestSplitGaps(t *testing.T) {
	in := noNetNS + "; limits: none; not applied: rlimit 7: x; processes: process group (no pid namespace)"
	want := []string{noNetNS, "limits: none; not applied: rlimit 7: x", "processes: process group (no pid namespace)"}
	if got := splitGaps(in); !reflect.DeepEqual(got, want) {
		t.Errorf("splitGaps = %q", got)
	}
}

// TestNotContainedIsRecognisedOnlyFromTheHost: the refusal is read from
// the host's own texts (a describe refused, an invoke refused at its
// first instruction), never from a module's words.
func TestNotContainedIsRecognisedOnlyFromTheHost(t *testing.T) {
	refused := "describe: cannot start: " + contain.ErrNotContained.Error() + ": " + noNetNS
	m := &runner.Module{ID: "m", Status: runner.StatusBroken, Reason: refused}
	err := describeNotContained(m)
	if !errors.Is(err, contain.ErrNotContained) {
		t.Fatalf("describe refused: %v", err)
	}
	if r := refusalOf(err); r.Outcome != outcomeNotContained || r.Code != ExitHostVerdict || !reflect.DeepEqual(r.Reasons, []string{noNetNS}) ||
		!strings.HasSuffix(r.Message, "; nothing ran") {
		t.Fatalf("refusal = %+v", r)
	}
	m.Reason = "describe: host.invalid_json: " + refused // the module's bytes quoted
	if describeNotContained(m) != nil {
		t.Fatal("a module's words are not the host's refusal")
	}
	m.Status, m.Reason = runner.StatusReady, refused
	if describeNotContained(m) != nil {
		t.Fatal("a ready module is not refused")
	}

	res := &runner.Result{Module: "m", Enforcement: gapped(), Host: &runner.HostError{Code: modproto.CodeHostSpawnFailed,
		Detail: "cannot start /x/m: " + contain.ErrNotContained.Error() + ": " + strings.Join(gapped().Gaps, "; ")}}
	var nc *notContainedError
	if err := runNotContained(res); !errors.As(err, &nc) || !reflect.DeepEqual(nc.Gaps, gapped().Gaps) {
		t.Fatalf("invoke refused: %v", err)
	}
	res.Host.Code = modproto.CodeHostProtocolViolation
	if runNotContained(res) != nil {
		t.Fatal("only a spawn failure is the host's refusal")
	}
}
