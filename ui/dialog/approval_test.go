package dialog

import (
	"strings"
	"testing"
	"time"

	"modbay/ui/common"
	"modbay/ui/internal/uitest"
)

func newTestApproval(t *testing.T) (*Approval, *uitest.Clock) {
	t.Helper()
	clock := uitest.NewClock()
	com := common.New(true)
	com.Now = clock.Now
	return NewApproval(com, uitest.Plan(t, uitest.Module(t))), clock
}

func TestApprovalIgnoresKeysDuringGrace(t *testing.T) {
	for _, k := range []string{"a", "s", "d", "esc", "enter"} {
		a, clock := newTestApproval(t)
		clock.Advance(GracePeriod - time.Millisecond)
		if act, _ := a.Update(uitest.Key(k)); act != nil {
			t.Errorf("%q at %v after opening: got %#v, want nothing", k, GracePeriod-time.Millisecond, act)
		}
	}
}

func TestApprovalActionsAfterGrace(t *testing.T) {
	tests := []struct {
		key  string
		want Action
	}{
		{"a", ActionApprove{Scope: ScopeOnce}},
		{"s", ActionApprove{Scope: ScopeSession}},
		{"d", ActionDeny{}},
		{"esc", ActionDeny{}},
		{"enter", nil},
		{"y", nil},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			a, clock := newTestApproval(t)
			clock.Advance(GracePeriod)
			act, _ := a.Update(uitest.Key(tt.key))
			if act != tt.want {
				t.Fatalf("%q: got %#v, want %#v", tt.key, act, tt.want)
			}
		})
	}
}

func TestApprovalShowsWhatWillBeGranted(t *testing.T) {
	a, clock := newTestApproval(t)
	clock.Advance(GracePeriod)
	view := a.View(100, 40)
	for _, want := range []string{
		"Fake Module (fake)", "Report (fake.report)", "capability declares external_writes",
		"local · writes · provider:local · cost known", "workspace rw /home/u/.local/share/modbay/workspace",
		"ffmpeg → /usr/bin/ffmpeg", "read root seed_in: not mapped in the config", "allow once", "deny",
	} {
		if !strings.Contains(view, want) {
			t.Errorf("approval view lacks %q:\n%s", want, view)
		}
	}
}

func TestApprovalUnknownCostIsNeverFree(t *testing.T) {
	a, _ := newTestApproval(t)
	a.plan.Capability.Effects.CostKnown = false
	view := a.View(100, 40)
	if !strings.Contains(view, "unknown") || strings.Contains(view, "free") || strings.Contains(view, "$0") {
		t.Fatalf("unknown cost shown wrongly:\n%s", view)
	}
}

func TestApprovalScrollsWhenItDoesNotFit(t *testing.T) {
	a, clock := newTestApproval(t)
	const w, h = 60, 13 // a 60×15 terminal less the header and help lines
	view := a.View(w, h)
	if n := len(strings.Split(view, "\n")); n > h {
		t.Fatalf("dialog is %d lines, more than %d:\n%s", n, h, view)
	}
	if !strings.Contains(view, "↓") || !strings.Contains(view, "more") {
		t.Fatalf("no sign that more is below:\n%s", view)
	}
	if !strings.Contains(view, "allow once") || !strings.Contains(view, "(wait…)") {
		t.Fatalf("the choice line is not shown whole:\n%s", view)
	}
	if !a.Scrollable() {
		t.Fatal("Scrollable is false for a body that does not fit")
	}
	// Scrolling works during the grace period and answers nothing; every
	// line of the body can be reached.
	seen := view
	for range 20 {
		if act, _ := a.Update(uitest.Key("j")); act != nil {
			t.Fatalf("j answered %#v", act)
		}
		v := a.View(w, h)
		if !strings.Contains(v, "allow once") {
			t.Fatalf("the choice line scrolled away:\n%s", v)
		}
		seen += v
	}
	for _, want := range []string{"Est. cost", "Roots", "workspace rw", "Subprocess", "Not supplied", "↑"} {
		if !strings.Contains(seen, want) {
			t.Errorf("scrolling never showed %q", want)
		}
	}
	a.Update(uitest.Key("pgup"))
	a.Update(uitest.Key("pgup"))
	a.Update(uitest.Key("up"))
	a.Update(uitest.Key("k"))
	if v := a.View(w, h); !strings.Contains(v, "Fake Module (fake)") {
		t.Fatalf("scrolling back up did not reach the top:\n%s", v)
	}
	a.Update(uitest.Key("pgdown"))
	clock.Advance(GracePeriod)
	if act, _ := a.Update(uitest.Key("down")); act != nil {
		t.Fatalf("down after the grace period answered %#v", act)
	}
	if act, _ := a.Update(uitest.Key("a")); act != (ActionApprove{Scope: ScopeOnce}) {
		t.Fatalf("a after scrolling: %#v", act)
	}
}
