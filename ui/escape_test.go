package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestSplitEscape: esc read together with the next key as alt+key comes
// back as esc then the key, with its text; bound chords and keys from a
// terminal that disambiguates stay as they are.
func TestSplitEscape(t *testing.T) {
	tests := []struct {
		name          string
		in            tea.KeyPressMsg
		disambiguated bool
		split         bool
		next          string
		text          string
	}{
		{"letter", tea.KeyPressMsg{Code: 'd', Mod: tea.ModAlt}, false, true, "d", "d"},
		{"capital", tea.KeyPressMsg{Code: 'd', ShiftedCode: 'D', Mod: tea.ModAlt | tea.ModShift}, false, true, "D", "D"},
		{"esc esc", tea.KeyPressMsg{Code: tea.KeyEscape, Mod: tea.ModAlt}, false, true, "esc", ""},
		{"ctrl", tea.KeyPressMsg{Code: 's', Mod: tea.ModAlt | tea.ModCtrl}, false, true, "ctrl+s", ""},
		{"alt+n is bound", tea.KeyPressMsg{Code: 'n', Mod: tea.ModAlt}, false, false, "", ""},
		{"alt+enter is bound", tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModAlt}, false, false, "", ""},
		{"alt+up is bound", tea.KeyPressMsg{Code: tea.KeyUp, Mod: tea.ModAlt}, false, false, "", ""},
		{"a real alt+d", tea.KeyPressMsg{Code: 'd', Mod: tea.ModAlt}, true, false, "", ""},
		{"no alt", tea.KeyPressMsg{Code: 'd', Text: "d"}, false, false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			esc, next, ok := splitEscape(tt.in, tt.disambiguated)
			if ok != tt.split {
				t.Fatalf("split %v, want %v", ok, tt.split)
			}
			if !ok {
				return
			}
			if esc.String() != "esc" || next.String() != tt.next || next.Text != tt.text {
				t.Fatalf("got %q then %q (text %q), want esc then %q (text %q)", esc.String(), next.String(), next.Text, tt.next, tt.text)
			}
		})
	}
}

// TestEscThenKeyTypedAheadBothAct: esc then j arriving as alt+j leaves the
// capability list and moves the module list's cursor.
func TestEscThenKeyTypedAheadBothAct(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	withModules(t, m)
	press(m, "enter")
	if m.screen() != screenCaps {
		t.Fatalf("screen %v", m.screen())
	}
	m.Update(tea.KeyPressMsg{Code: 'j', Mod: tea.ModAlt})
	if m.screen() != screenModules || m.modules.Selected().ID != "zz-broken" {
		t.Fatalf("screen %v, selected %s: esc or j was lost", m.screen(), m.modules.Selected().ID)
	}
}
