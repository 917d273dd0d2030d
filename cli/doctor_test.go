//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"modbay/config"
	"modbay/contain"
)

// unappliableLimits is a config whose descriptor limit the kernel refuses
// to set (above fs.nr_open: refused even for root), so no run can be fully
// contained on any machine: a real gap, not a faked probe.
func unappliableLimits(t *testing.T, sandbox string) string {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/fs/nr_open")
	if err != nil {
		t.Skipf("no fs.nr_open: %v", err)
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("sandbox: %s\nlimits: {open_files: %d}\n", sandbox, n+1)
}

// writeConfig writes config.yaml text into home.
func writeConfig(t *testing.T, home, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(home, config.FileName), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// doctorJSON runs `modbay doctor --json` in home and decodes the report.
func doctorJSON(t *testing.T, home string) (int, doctorReport) {
	t.Helper()
	code, out, stderr := run(t, "--home", home, "doctor", "--json")
	var rep doctorReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor --json: exit %d, not JSON: %v\n%s\n%s", code, err, out, stderr)
	}
	return code, rep
}

// TestDoctorAgreesWithItsTrial: the exit code, "full" and
// "require_would_run" follow the trial's enforcement, whatever this
// machine supports; on CI (which must have every mechanism) it is full.
func TestDoctorAgreesWithItsTrial(t *testing.T) {
	home := t.TempDir()
	code, rep := doctorJSON(t, home)
	if rep.Trial == nil {
		t.Fatalf("no trial: %s", rep.TrialError)
	}
	if rep.Full != rep.Trial.Complete || rep.RequireWouldRun != rep.Full || (code == ExitOK) != rep.Full {
		t.Fatalf("exit %d, full %v, require %v, trial complete %v", code, rep.Full, rep.RequireWouldRun, rep.Trial.Complete)
	}
	if rep.Sandbox != config.SandboxAuto || len(rep.Mechanisms) == 0 || rep.Support != contain.Probe() {
		t.Fatalf("report: %+v", rep)
	}
	if rep.Full && (rep.Trial.Processes != contain.ProcessesPIDNamespace || !strings.HasPrefix(rep.Trial.Filesystem, "landlock ABI")) {
		t.Fatalf("full, yet:\n%s", rep.Trial.Enforcement)
	}
	if os.Getenv("CI") == "true" && !rep.Full {
		t.Fatalf("CI must have full containment: %s\n%v", rep.Verdict, rep.Trial.Gaps)
	}
	code, out, _ := run(t, "--home", home, "doctor")
	if (code == ExitOK) != rep.Full || !strings.Contains(out, "verdict: "+rep.Verdict) || !strings.Contains(out, "processes: ") {
		t.Fatalf("text: exit %d\n%s", code, out)
	}
}

// TestDoctorNamesTheGap: with a limit the kernel refuses, doctor exits 1,
// names the layer and says sandbox: require would refuse.
func TestDoctorNamesTheGap(t *testing.T) {
	home := t.TempDir()
	writeConfig(t, home, unappliableLimits(t, "require"))
	code, rep := doctorJSON(t, home)
	if code != 1 || rep.Full || rep.RequireWouldRun || rep.Sandbox != config.SandboxRequire {
		t.Fatalf("exit %d, report %+v", code, rep)
	}
	if rep.Trial == nil || !hasPrefixIn(rep.Trial.Gaps, "limits: ") || !strings.Contains(rep.Verdict, "require would refuse") {
		t.Fatalf("the gap must be named: %+v", rep.Trial)
	}
	code, out, _ := run(t, "--home", home, "doctor")
	if code != 1 || !strings.Contains(out, "! limits: ") {
		t.Fatalf("text: exit %d\n%s", code, out)
	}
}

func TestDoctorBadConfigIsUsage(t *testing.T) {
	home := t.TempDir()
	writeConfig(t, home, "sandbox: maybe\n")
	if code, _, stderr := run(t, "--home", home, "doctor"); code != ExitUsage || !strings.Contains(stderr, "sandbox") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

func TestDoctorOptions(t *testing.T) {
	var got *DoctorOptions
	g := &globals{io: systemStreams(nil, nil)}
	cmd := newDoctorCommand(g, func(_ context.Context, o *DoctorOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--json"})
	if err := cmd.Execute(); err != nil || got == nil || !got.JSON {
		t.Fatalf("doctor --json: %v %+v", err, got)
	}
	cmd = newDoctorCommand(g, func(context.Context, *DoctorOptions) error { return nil })
	cmd.SetArgs([]string{"extra"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	if err := cmd.Execute(); err == nil {
		t.Fatal("doctor takes no arguments")
	}
}

func hasPrefixIn(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// TestRequireRefusalReachesThePerson: sandbox: require with a layer that
// cannot be enforced refuses the module with outcome not_contained, exit
// 4, the gap named and nothing run, whether the refusal came at its
// describe (fresh) or at the invoke itself (a cached describe).
func TestRequireRefusalReachesThePerson(t *testing.T) {
	home := demo(t)
	invoke := []string{"--home", home, "invoke", "notes", "notes.report"}

	// Fresh: the describe is refused, so the module cannot be planned.
	writeConfig(t, home, unappliableLimits(t, "require"))
	code, out, stderr := run(t, append(invoke, "--json")...)
	var ref refusalOut
	if err := json.Unmarshal([]byte(out), &ref); err != nil {
		t.Fatalf("exit %d, not JSON: %s\n%s", code, out, stderr)
	}
	if code != ExitHostVerdict || ref.Outcome != outcomeNotContained || ref.Ran || !hasPrefixIn(ref.Reasons, "limits: ") ||
		!strings.Contains(ref.Message, "sandbox: require") {
		t.Fatalf("describe refused: exit %d %+v", code, ref)
	}
	code, out, stderr = run(t, invoke...)
	if code != ExitHostVerdict || !strings.Contains(stderr, "cannot be fully contained") || !strings.Contains(stderr, "  - limits: ") ||
		!strings.Contains(stderr, "modbay doctor") {
		t.Fatalf("text: exit %d\n%s\n%s", code, out, stderr)
	}

	// Cached: an auto run describes (and caches) it; then require refuses
	// the invoke's own process at its first instruction.
	writeConfig(t, home, "sandbox: auto\n")
	if code, out, stderr := run(t, append(invoke, "--json")...); code != ExitOK ||
		!strings.Contains(out, `"enforcement": {`) {
		t.Fatalf("auto: exit %d\n%s\n%s", code, out, stderr)
	}
	writeConfig(t, home, unappliableLimits(t, "require"))
	code, out, stderr = run(t, append(invoke, "--json")...)
	ref = refusalOut{}
	if err := json.Unmarshal([]byte(out), &ref); err != nil {
		t.Fatalf("exit %d, not JSON: %s\n%s", code, out, stderr)
	}
	if code != ExitHostVerdict || ref.Outcome != outcomeNotContained || ref.Ran || !hasPrefixIn(ref.Reasons, "limits: ") {
		t.Fatalf("invoke refused: exit %d %+v", code, ref)
	}
	if ref.Enforcement == nil || ref.Enforcement.Complete || !hasPrefixIn(ref.Enforcement.Gaps, "limits: ") {
		t.Fatalf("a refused process's enforcement is reported: %+v", ref.Enforcement)
	}

	// auto with the same gap runs it and says so.
	writeConfig(t, home, unappliableLimits(t, "auto"))
	code, out, stderr = run(t, invoke...)
	if code != ExitOK || !strings.Contains(out, "containment: ") || !strings.Contains(out, "limits: ") {
		t.Fatalf("auto with a gap: exit %d\n%s\n%s", code, out, stderr)
	}
}

// TestDoctorSaysWhenThereIsNoConfig: without a config.yaml doctor does
// not name one as if it were read; with one it names it.
func TestDoctorSaysWhenThereIsNoConfig(t *testing.T) {
	home := t.TempDir()
	_, out, _ := run(t, "--home", home, "doctor")
	if !strings.Contains(out, "config: sandbox: auto (the default: there is no "+filepath.Join(home, config.FileName)+")") {
		t.Fatalf("no config:\n%s", out)
	}
	writeConfig(t, home, "sandbox: auto\n")
	_, out, _ = run(t, "--home", home, "doctor")
	if !strings.Contains(out, "config: sandbox: auto ("+filepath.Join(home, config.FileName)+")") {
		t.Fatalf("with a config:\n%s", out)
	}
}
