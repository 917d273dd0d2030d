package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"modbay/modproto"
	"modbay/runner"
)

func TestResultSaysWhatIsBelowAndScrolls(t *testing.T) {
	m, _ := newTest(t, nil, 80, 24)
	resultFor(t, m, "invoke/success-with-artifact.json")
	var se []string
	for i := range 30 {
		se = append(se, fmt.Sprintf("stderr line %02d", i))
	}
	se = append(se, strings.Repeat("long ", 40)+"TAILMARK")
	m.result().res.Stderr = strings.Join(se, "\n")
	m.result().rebuild()

	out := frame(t, m)
	if !strings.Contains(out, "more lines · lines 1–") {
		t.Fatalf("no sign of the content below:\n%s", out)
	}
	press(m, "end")
	out = frame(t, m)
	if !strings.Contains(out, "end · lines") || !strings.Contains(out, "stderr line 29") {
		t.Fatalf("end did not reach the bottom:\n%s", out)
	}
	press(m, "home")
	if out := frame(t, m); !strings.Contains(out, "[ok]") {
		t.Fatalf("home did not reach the top:\n%s", out)
	}
	press(m, "pgdown")
	if out := frame(t, m); strings.Contains(out, "[ok]") || !strings.Contains(out, "lines 22–42") {
		t.Fatalf("pgdn did not page down:\n%s", out)
	}
	// Collapsed: the last lines, cut; e shows every line, wrapped.
	if c := m.result().content(); strings.Contains(c, "stderr line 00") || strings.Contains(c, "TAILMARK") {
		t.Fatal("collapsed stderr shows everything")
	}
	press(m, "e")
	c := m.result().content()
	if !strings.Contains(c, "stderr line 00") || !strings.Contains(c, "TAILMARK") {
		t.Fatalf("expanded stderr is not whole:\n%s", c)
	}
	if out := frame(t, m); !strings.Contains(out, "Stderr (31 lines)") {
		t.Fatalf("expanding does not show the stderr:\n%s", out)
	}
}

func TestLongRunningResultNamesTheCapabilityRun(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	resultFor(t, m, "invoke/success-with-artifact.json")
	res := m.result().res
	res.Capability = "fake.jobs.status" // the last poll's answer
	res.Job = &runner.JobStatus{ID: "job_fake_0001", State: "succeeded", Polls: 3}
	m.result().rebuild()
	top := strings.Split(frame(t, m), "\n")[1:3]
	if !strings.Contains(top[0], "fake.report") || strings.Contains(top[0], "fake.jobs.status") {
		t.Fatalf("result header %q does not name the capability run", top[0])
	}
	if !strings.Contains(top[1], "job job_fake_0001 · succeeded · 3 polls") {
		t.Fatalf("no job line under the header: %q", top[1])
	}
}

// TestJobResultWordIsTheJobsState: a job's state, not the last poll's ok,
// decides the word of the result header and of the activity row; stopping
// following is said as docs/protocol.md §16 says it, never as an error.
func TestJobResultWordIsTheJobsState(t *testing.T) {
	for _, c := range []struct {
		state string
		host  *runner.HostError
		head  string
		word  string
	}{
		{"cancelled", nil, "cancelled", "cancelled"},
		{"failed", nil, "failed", "failed"},
		{"succeeded", nil, "ok", "ok"},
		{"running", &runner.HostError{Code: modproto.CodeCancelled, Detail: "polling stopped; job job_1 continues in the module"},
			"stopped following; the job goes on", "detached"},
	} {
		m, _ := newTest(t, nil, 100, 30)
		resultFor(t, m, "invoke/success-with-artifact.json")
		res := m.result().res
		res.Job = &runner.JobStatus{ID: "job_1", State: c.state, Polls: 2}
		res.Host = c.host
		m.result().rebuild()
		head := strings.Split(frame(t, m), "\n")[1]
		if !strings.Contains(head, c.head) || (c.word != "ok" && strings.Contains(head, " ok ")) || strings.Contains(head, "error") {
			t.Errorf("state %s: header %q, want %q", c.state, head, c.head)
		}
		if got := resultWord(res); got != c.word {
			t.Errorf("state %s: activity word %q, want %q", c.state, got, c.word)
		}
	}
}

// TestResultHelpKeepsThePagerAt80: at 80 columns, with a pager to run,
// the result's help bar keeps O (over SSH the way to read an artifact
// outside the cockpit) among the keys it shows.
func TestResultHelpKeepsThePagerAt80(t *testing.T) {
	m, _ := newTest(t, nil, 80, 24)
	m.viewerEnv.Pager, m.viewerEnv.Editor, m.viewerEnv.TmpDir = "less", "vi", t.TempDir()
	resultFor(t, m, "invoke/success-with-artifact.json")
	out := frame(t, m)
	lines := strings.Split(ansi.Strip(out), "\n")
	if bar := lines[len(lines)-1]; !strings.Contains(bar, "O open in pager") {
		t.Fatalf("the help bar at 80 columns has no O:\n%s", out)
	}
}

// TestResultDrawsAtMostSomeWarnings: an envelope of 250 warnings shows
// maxResultWarnings of them and how many more (200,000 took 2–3 s to
// open).
func TestResultDrawsAtMostSomeWarnings(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	resultFor(t, m, "invoke/success-with-artifact.json")
	env := m.result().res.Envelope
	env.Warnings = nil
	for i := range 250 {
		env.Warnings = append(env.Warnings, fmt.Sprintf("warning number %d", i))
	}
	m.result().rebuild()
	c := ansi.Strip(m.result().content())
	if strings.Count(c, "! warning number") != maxResultWarnings || !strings.Contains(c, "… and 50 more, not shown here") {
		t.Fatalf("%d warnings drawn:\n%.2000s", strings.Count(c, "! warning number"), c)
	}
}

// TestResultNamesTheKillingSignal: a process ended by a signal shows the
// signal, not the "exit -1" Go reports for it; a process that never
// exited shows no exit at all.
func TestResultNamesTheKillingSignal(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	resultFor(t, m, "invoke/success-with-artifact.json")
	res := m.result().res
	res.ExitCode, res.Signal = -1, "SIGKILL"
	m.result().rebuild()
	if c := ansi.Strip(m.result().content()); !strings.Contains(c, "killed by SIGKILL") || strings.Contains(c, "exit -1") {
		t.Fatalf("killed run drawn:\n%.800s", c)
	}
	res.Signal = ""
	res.Host = &runner.HostError{Code: "host.timeout", Detail: "deadline"}
	m.result().rebuild()
	if c := ansi.Strip(m.result().content()); strings.Contains(c, "exit -1") {
		t.Fatalf("a process that never exited shows an exit:\n%.800s", c)
	}
}
