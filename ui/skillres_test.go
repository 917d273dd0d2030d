package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"modbay/contain"
	"modbay/skills"
)

func init() {
	helpStates[screenSkillResources] = []helpState{
		{"list", func(t *testing.T) *Model { return openSkillResources(t, 80, 24) }},
		{"script", func(t *testing.T) *Model {
			m := openSkillResources(t, 80, 24, fakeScript(nil))
			press(m, "down", "down")
			return m
		}},
		{"asking", func(t *testing.T) *Model {
			m := openSkillResources(t, 80, 24, fakeScript(nil))
			press(m, "down", "down", "x")
			pastGrace(m)
			return m
		}},
	}
}

// pastGrace moves the model's clock past the approval's grace period.
func pastGrace(m *Model) {
	now := m.com.Now()
	m.com.Now = func() time.Time { return now.Add(time.Second) }
}

// fakeScript is a script runner that records what it ran and answers
// exit 3 with some output.
func fakeScript(ran *[]string) func(context.Context, string, string) (skills.ScriptResult, error) {
	return func(_ context.Context, dir, loc string) (skills.ScriptResult, error) {
		if ran != nil {
			*ran = append(*ran, loc)
		}
		return skills.ScriptResult{Location: loc, ExitCode: 3, Stdout: "words: 0\n", Stderr: "to stderr\n", DurationMS: 12,
			Enforcement: contain.Enforcement{Contained: true}}, nil
	}
}

// openSkillResources opens report-writer's resources with "r", scripts
// run by run (nil: off).
func openSkillResources(t *testing.T, w, h int, run ...func(context.Context, string, string) (skills.ScriptResult, error)) *Model {
	t.Helper()
	m := openSkills(t, w, h)
	if len(run) > 0 {
		m.opts.RunSkillScript = run[0]
	}
	press(m, "down", "down", "down", "r")
	if m.screen() != screenSkillResources {
		t.Fatalf("r opened %v, want the resources", m.screen())
	}
	return m
}

// TestSkillResourcesPreview: the fixture's resources are listed; enter
// reads one inside the skill's folder (the real fixture, though the
// record names a fixed location for the goldens) and opens a copy in the
// markdown viewer.
func TestSkillResourcesPreview(t *testing.T) {
	m := openSkillResources(t, 100, 30)
	golden.RequireEqual(t, []byte(frame(t, m)))
	s := m.top().(*skillResScreen)
	s.r.Key.Location, _ = filepath.Abs(filepath.Join("..", "skills", "testdata", "skills", "report-writer"))
	press(m, "down")
	_, cmd := m.Update(keyPress("enter"))
	msg := cmd().(skillOpenMsg)
	if msg.err != nil || msg.file.meta.MediaType != "text/markdown" {
		t.Fatalf("preview: %+v", msg)
	}
	if b, _ := os.ReadFile(msg.file.path); !strings.Contains(string(b), "Short sentences") {
		t.Fatalf("copy: %q", b)
	}
	_, cmd = m.Update(msg)
	runCmds(m, cmd)
	if out := ansi.Strip(frame(t, m)); m.screen() != screenViewer || !strings.Contains(out, "Short sentences") || !strings.Contains(out, "resource") {
		t.Errorf("viewer (%v):\n%s", m.screen(), out)
	}
}

// TestSkillResourcesRefusesEscape: a resource swapped for a symlink out of
// the folder after listing is refused, and says so.
func TestSkillResourcesRefusesEscape(t *testing.T) {
	m := openSkillResources(t, 100, 30)
	s := m.top().(*skillResScreen)
	dir := filepath.Join(t.TempDir(), "s")
	os.MkdirAll(filepath.Join(dir, "assets"), 0o755)
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("secret"), 0o600)
	os.Symlink(secret, filepath.Join(dir, "assets", "logo.bin"))
	s.r.Key.Location = dir
	_, cmd := m.Update(keyPress("enter"))
	m.Update(cmd())
	if out := ansi.Strip(frame(t, m)); m.screen() != screenSkillResources || !strings.Contains(out, "leads outside its folder") {
		t.Errorf("escape not refused (%v):\n%s", m.screen(), out)
	}
}

// TestSkillScriptApproval: x on a script asks first (keys in the grace
// period ignored); n cancels; y runs it and shows the exit code, the
// output's tail and that it ran contained. With scripts off, x says so.
func TestSkillScriptApproval(t *testing.T) {
	var ran []string
	m := openSkillResources(t, 100, 30, fakeScript(&ran))
	press(m, "down", "down", "x")
	out := ansi.Strip(frame(t, m))
	if !strings.Contains(out, "Run scripts/count.sh? As far as the sandbox") || !strings.Contains(out, "y run it") {
		t.Fatalf("no question:\n%s", out)
	}
	if _, cmd := m.Update(keyPress("y")); cmd != nil || len(ran) != 0 {
		t.Fatal("y in the grace period ran the script")
	}
	press(m, "n")
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "Not run.") || m.screen() != screenSkillResources {
		t.Fatalf("n:\n%s", out)
	}
	press(m, "x")
	pastGrace(m)
	_, cmd := m.Update(keyPress("y"))
	if cmd == nil {
		t.Fatal("y did not run")
	}
	m.Update(cmd())
	out = ansi.Strip(frame(t, m))
	if len(ran) != 1 || ran[0] != "scripts/count.sh" || !strings.Contains(out, "scripts/count.sh exited 3 in 12 ms · contained") || !strings.Contains(out, "words: 0") || !strings.Contains(out, "to stderr") {
		t.Errorf("after the run (%v):\n%s", ran, out)
	}
	golden.RequireEqual(t, []byte(frame(t, m)))

	m = openSkillResources(t, 100, 30)
	press(m, "down", "down", "x")
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "Running skill scripts is off") {
		t.Errorf("scripts off:\n%s", out)
	}
}
