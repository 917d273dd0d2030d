package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"modbay/contain"
	"modbay/modproto"
	"modbay/runner"
	"modbay/ui/internal/uitest"
)

// containmentSection is the Containment section of the result screen's
// content, from its heading to the blank line after it.
func containmentSection(t *testing.T, r *resultView) string {
	t.Helper()
	c := r.content()
	plain := strings.Split(ansi.Strip(c), "\n")
	lines := strings.Split(c, "\n")
	for i, l := range plain {
		if strings.HasPrefix(l, "Containment") {
			end := i + 1
			for end < len(plain) && strings.TrimSpace(plain[end]) != "" {
				end++
			}
			return strings.Join(lines[i:end], "\n")
		}
	}
	return ""
}

// refusedResult is sandbox: require's refusal of the module's process at
// its first instruction, as the runner reports it.
func refusedResult() *runner.Result {
	return &runner.Result{RequestID: "req_0000000000000000000000000000fake", Module: "fake", Capability: "fake.report",
		Host: &runner.HostError{Code: modproto.CodeHostSpawnFailed,
			Detail: "cannot start /home/u/.local/share/modbay/modules/fake/fake: " + contain.ErrNotContained.Error() + ": " +
				strings.Join(uitest.Gapped.Gaps, "; ")},
		Enforcement: uitest.Gapped}
}

// TestGoldenContainment: the result shows what was enforced, layer by
// layer; a layer not enforced shows why; containment off and a refusal by
// sandbox: require are said in words.
func TestGoldenContainment(t *testing.T) {
	off := contain.Enforcement{Processes: contain.ProcessesGroup, Filesystem: "not enforced (sandbox: off)",
		Network: "not enforced (sandbox: off)", Capabilities: "kept (sandbox: off)", Terminal: "not enforced (sandbox: off)",
		Signals: "not enforced (sandbox: off)", UnixSockets: "not enforced (sandbox: off)",
		Descriptors: "not enforced (sandbox: off)", Metadata: "not enforced (sandbox: off)", Limits: "none", Gaps: []string{"containment: sandbox: off"}}
	for _, tc := range []struct {
		name  string
		res   func(*runner.Result) *runner.Result
		wants []string
		meta  string
	}{
		{"complete", func(r *runner.Result) *runner.Result { return r },
			[]string{"Containment · complete", "processes     pid namespace", "filesystem    landlock ABI 7",
				"network       namespace + no sockets (seccomp)", "capabilities  dropped", "terminal      own session"}, ""},
		{"gaps", func(r *runner.Result) *runner.Result { r.Enforcement = uitest.Gapped; return r },
			[]string{"Containment · 2 gaps", "processes     ! process group (no pid namespace)",
				"signals       ! not enforced (no landlock scope (ABI < 6) and no pid namespace)"}, "containment: 2 gaps"},
		{"off", func(r *runner.Result) *runner.Result { r.Enforcement = off; return r },
			[]string{"Containment · none", "! not contained (sandbox: off)", "capabilities  ! kept (sandbox: off)", "processes     process group\n"}, "not contained"},
		{"refused", func(*runner.Result) *runner.Result { return refusedResult() },
			[]string{"Containment · 2 gaps", "! Refused: the config says sandbox: require", "nothing ran", "modbay doctor"}, "containment: 2 gaps"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newTest(t, nil, 80, 24)
			p := uitest.Plan(t, uitest.Modules(t)[1])
			r := newResultView(m.com, m.keys.Result, p, tc.res(uitest.Result(t, p, "invoke/success-with-artifact.json")), "")
			sec := containmentSection(t, r)
			flat := strings.Join(strings.Fields(ansi.Strip(sec)), " ")
			for _, want := range tc.wants {
				if !strings.Contains(ansi.Strip(sec), want) && !strings.Contains(flat, want) {
					t.Errorf("section lacks %q:\n%s", want, ansi.Strip(sec))
				}
			}
			top := ansi.Strip(strings.SplitN(r.content(), "\n", 3)[0] + strings.SplitN(r.content(), "\n", 3)[1])
			if tc.meta != "" && !strings.Contains(top, tc.meta) {
				t.Errorf("the first lines must say %q: %q", tc.meta, top)
			}
			if tc.meta == "" && strings.Contains(top, "contain") {
				t.Errorf("a complete containment is not a warning: %q", top)
			}
			golden.RequireEqual(t, []byte(sec))
		})
	}
}

// TestRefusedRunReachesThePerson: a run sandbox: require refused ends on
// the result screen saying so, with the layers that were missing.
func TestRefusedRunReachesThePerson(t *testing.T) {
	m, _ := newTest(t, nil, 80, 40)
	openForm(t, m, 1)
	m.Update(planMsg{seq: m.flow.planSeq, plan: uitest.Plan(t, m.flow.module)})
	m.com.Now = func() time.Time { return uitest.Epoch.Add(time.Second) } // past the grace period
	press(m, "a")
	if m.screen() != screenRun {
		t.Fatalf("screen %v after approving, want run", m.screen())
	}
	m.Update(runDoneMsg{id: m.run().id, result: refusedResult()})
	if m.screen() != screenResult {
		t.Fatalf("screen %v, want result", m.screen())
	}
	out := strings.Join(strings.Fields(ansi.Strip(frame(t, m))), " ")
	for _, want := range []string{"host.spawn_failed", "containment: 2 gaps", "Refused: the config says sandbox: require",
		"nothing ran", "! process group (no pid namespace)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the refusal lacks %q:\n%s", want, out)
		}
	}
}

// TestResultShowsLikelyCause: a failed run's likely cause (a write
// containment refused, inferred by the runner) is on the result, sanitized.
func TestResultShowsLikelyCause(t *testing.T) {
	m, _ := newTest(t, nil, 80, 24)
	p := uitest.Plan(t, uitest.Modules(t)[1])
	res := refusedResult()
	res.LikelyCause = "likely refused by containment: /home/u/\x1b[31mx\x1b[0m is outside the rw roots (workspace)"
	r := newResultView(m.com, m.keys.Result, p, res, "")
	out := ansi.Strip(r.content())
	if !strings.Contains(out, "Cause") || !strings.Contains(out, "likely refused by containment: /home/u/") || strings.Contains(r.content(), "\x1b[31m") {
		t.Fatalf("no cause, or raw escapes, in:\n%s", out)
	}
}
