package ui

import (
	"strings"
	"testing"

	"modbay/runner"
	"modbay/ui/internal/uitest"
)

// TestDetailShowsTheResolvedBinary: the cockpit's detail shows how
// discovery judged each requirement (docs/protocol.md §9): a declared binary the
// host resolved through config binaries is available, with its path, and
// the status is the one list shows.
func TestDetailShowsTheResolvedBinary(t *testing.T) {
	m, _ := newTest(t, nil, 120, 40)
	mods := uitest.Modules(t)
	fake := mods[2]
	fake.Status, fake.Reason = runner.StatusReady, ""
	fake.Requirements = fake.RequirementStates()
	for i := range fake.Requirements {
		if fake.Requirements[i].Kind == "binary" {
			fake.Requirements[i].State = runner.RequirementMet
			fake.Requirements[i].By = "/bin/true (config binaries)"
		}
	}
	m.Update(modulesMsg{gen: m.gen, modules: mods})
	press(m, "down", "down")
	out := frame(t, m)
	if !strings.Contains(out, "/bin/true (config binaries)") || !strings.Contains(out, "✓ binary ffmpeg available") {
		t.Fatalf("detail lacks the resolved binary:\n%s", out)
	}
	if strings.Contains(out, "needs setup") {
		t.Fatalf("a resolved module still shows needs setup:\n%s", out)
	}
}

// TestFormSaysTheModuleNeedsSetup: the form of a module that needs setup
// says, above the fields, that a run fails until it is set up; a ready
// module's form has no such line.
func TestFormSaysTheModuleNeedsSetup(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	openForm(t, m, 0) // fake needs setup
	if out := frame(t, m); !strings.Contains(out, "⚠ needs setup: a run fails until it is set up (binary ffmpeg") {
		t.Fatalf("form lacks the setup banner:\n%s", out)
	}
	m, _ = newTest(t, nil, 100, 30)
	mods := uitest.Modules(t)
	mods[2].Status, mods[2].Reason = runner.StatusReady, ""
	m.Update(modulesMsg{gen: m.gen, modules: mods})
	press(m, "down", "down", "enter", "enter")
	if m.screen() != screenForm {
		t.Fatalf("screen %v", m.screen())
	}
	if out := frame(t, m); strings.Contains(out, "needs setup") {
		t.Fatalf("a ready module's form shows the banner:\n%s", out)
	}
}

// TestDetailSaysHowToMapAMissingBinary: a declared binary the host could
// not resolve gets the host's fix (config.yaml binaries:, then a restart,
// since the config is read at start), not only the module's own words.
func TestDetailSaysHowToMapAMissingBinary(t *testing.T) {
	m, _ := newTest(t, nil, 240, 50) // the module list takes 3/5: the detail as wide as at 160 before
	mods := uitest.Modules(t)
	fake := mods[2]
	d := *fake.Descriptor
	d.Permissions.Subprocess = append(d.Permissions.Subprocess, "ffmpeg")
	fake.Descriptor = &d
	fake.Requirements = fake.RequirementStates()
	m.Update(modulesMsg{gen: m.gen, modules: mods})
	press(m, "down", "down")
	out := strings.Join(strings.Fields(frame(t, m)), " ")
	if !strings.Contains(out, "binaries: { ffmpeg: /path/to/it }, then press r here") {
		t.Fatalf("detail lacks the host's fix:\n%s", frame(t, m))
	}
}
