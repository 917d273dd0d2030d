package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

func init() {
	helpStates[screenSkillResources] = []helpState{
		{"list", func(t *testing.T) *Model { return openSkillResources(t, 80, 24) }},
	}
}

// openSkillResources opens report-writer's resources with "r".
func openSkillResources(t *testing.T, w, h int) *Model {
	t.Helper()
	m := openSkills(t, w, h)
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
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
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
