package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"modbay/ui/dialog"
)

// TestJumpToACapabilityForm: ":" from the module list, "rep" and tab
// complete to fake.report (two modules have one), ↓ enter opens fake's
// form over its capability list; esc walks back as if the person had gone there.
func TestJumpToACapabilityForm(t *testing.T) {
	m, _ := newTest(t, nil, 80, 24)
	withModules(t, m)
	press(m, "up", "up")
	press(m, ":")
	if len(m.dialogs) != 1 || !isJump(m.dialogs[0]) || !m.typing() {
		t.Fatalf("':' did not open the jump prompt (dialogs %d)", len(m.dialogs))
	}
	typeText(m, "rep")
	press(m, "tab")
	golden.RequireEqual(t, []byte(frame(t, m)))
	j := m.dialogs[0].(*dialog.Jump)
	if got := j.Matches(); len(got) != 2 || got[0].ID != "fake.report" || got[1].Kind != "capability of fake" {
		t.Fatalf("matches after tab: %v", got)
	}
	press(m, "down", "enter") // fake's, not echo's

	if m.screen() != screenForm || m.form() == nil {
		t.Fatalf("screen %v, want the form", m.screen())
	}
	if f, _ := find[*formScreen](m); f.cap.ID != "fake.report" {
		t.Fatalf("form of %q, want fake.report", f.cap.ID)
	}
	press(m, "esc")
	if m.screen() != screenCaps {
		t.Fatalf("esc from the jumped-to form: %v, want the capability list", m.screen())
	}
	if sel := m.modules.Selected(); sel == nil || sel.ID != "fake" {
		t.Fatalf("module list selection %v, want fake", sel)
	}
}

// TestJumpToAModuleAndCancel: a module entry selects it in the list; esc
// closes the prompt and changes nothing.
func TestJumpToAModuleAndCancel(t *testing.T) {
	m, _ := newTest(t, nil, 80, 24)
	withModules(t, m)
	before := m.modules.Selected()
	press(m, ":")
	typeText(m, "zzb")
	press(m, "esc")
	if len(m.dialogs) != 0 || m.modules.Selected() != before {
		t.Fatal("esc did not cancel the jump")
	}
	press(m, ":")
	typeText(m, "zz-broken")
	press(m, "enter")
	if m.screen() != screenModules || m.modules.Selected() == nil || m.modules.Selected().ID != "zz-broken" {
		t.Fatalf("jump to zz-broken: screen %v, selected %v", m.screen(), m.modules.Selected())
	}
	press(m, ":")
	typeText(m, "qqqqqq")
	if v := frame(t, m); !strings.Contains(v, `Nothing matches "qqqqqq".`) {
		t.Fatalf("no match is not said:\n%s", v)
	}
	press(m, "enter") // nothing to go to: the prompt stays
	if len(m.dialogs) != 1 {
		t.Fatal("enter with no match closed the prompt")
	}
}

// isJump reports whether d is the jump prompt.
func isJump(d dialog.Dialog) bool { _, ok := d.(*dialog.Jump); return ok }
