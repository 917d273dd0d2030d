package ui

import (
	"os"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

func init() {
	helpStates[screenSkillArgs] = []helpState{
		{"first field", func(t *testing.T) *Model { return openSkillArgs(t, 80, 24) }},
		{"typed", func(t *testing.T) *Model {
			m := openSkillArgs(t, 80, 24)
			typeText(m, "cats")
			return m
		}},
	}
}

// openSkillArgs opens report-writer's arguments form from the skills
// screen with "a".
func openSkillArgs(t *testing.T, w, h int) *Model {
	t.Helper()
	m := openSkills(t, w, h)
	press(m, "down", "down", "down", "a")
	if m.screen() != screenSkillArgs {
		t.Fatalf("a opened %v, want the arguments form", m.screen())
	}
	return m
}

// TestSkillArgsLive: the form is built from the declared arguments (the
// default shown), and the rendering below follows every key; ctrl+s opens
// the rendering in the viewer.
func TestSkillArgsLive(t *testing.T) {
	m := openSkillArgs(t, 100, 30)
	out := ansi.Strip(frame(t, m))
	for _, want := range []string{"topic", "tone", "audience", "# Report on", "unknown placeholders: $ARGUMENTS {{ unknown_thing }}"} {
		if !strings.Contains(out, want) {
			t.Errorf("form lacks %q:\n%s", want, out)
		}
	}
	typeText(m, "cats")
	out = ansi.Strip(frame(t, m))
	if !strings.Contains(out, "# Report on cats") {
		t.Errorf("the rendering did not follow the typing:\n%s", out)
	}
	golden.RequireEqual(t, []byte(frame(t, m)))
	_, cmd := m.Update(keyPress("ctrl+s"))
	var open skillOpenMsg
	for _, msg := range collect(cmd) {
		if o, ok := msg.(skillOpenMsg); ok {
			open = o
		}
	}
	b, err := os.ReadFile(open.file.path)
	if err != nil || !strings.Contains(string(b), "# Report on cats") || !strings.Contains(string(b), "Write in a plain tone") {
		t.Fatalf("ctrl+s rendered (%v): %s", err, b)
	}
	m.Update(open)
	if m.screen() != screenViewer {
		t.Errorf("screen %v, want the viewer", m.screen())
	}
	press(m, "esc", "esc")
	if m.screen() != screenSkills {
		t.Errorf("esc esc: screen %v, want skills", m.screen())
	}
}

// TestSkillArgsOnlyWithArguments: "a" does nothing on a skill without
// arguments, and is not offered there.
func TestSkillArgsOnlyWithArguments(t *testing.T) {
	m := openSkills(t, 100, 30)
	press(m, "a")
	if m.screen() != screenSkills {
		t.Fatalf("a on a module skill opened %v", m.screen())
	}
	for _, b := range m.top().ShortHelp() {
		if b.Help().Desc == "arguments" {
			t.Error("arguments offered for a skill without any")
		}
	}
}

// collect runs cmd and returns the messages it yields, batches opened.
func collect(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, collect(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}
