package ui

import (
	"slices"
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/ui/formview"
)

// altChords are the alt chords the cockpit binds (the form's alt+enter,
// alt+n, alt+↑/↓): without the terminal's keyboard protocol, esc then
// one of these keys within the input reader's wait reads as the chord,
// and the chord wins.
var altChords = func() []string {
	k := formview.DefaultKeyMap()
	var out []string
	for _, b := range []key.Binding{k.Newline, k.MoveUp, k.MoveDown, k.NextProblem} {
		for _, s := range b.Keys() {
			if strings.HasPrefix(s, "alt+") {
				out = append(out, s)
			}
		}
	}
	return out
}()

// splitEscape undoes the input reader's reading of esc followed closely by
// a key (typed ahead, or arriving in one read over SSH) as alt+key: an
// alt+key the cockpit does not bind comes back as esc then the key, so
// neither is lost. disambiguated is set when the terminal reports keys by
// its keyboard protocol (esc is then never merged: an alt+key is one).
func splitEscape(kp tea.KeyPressMsg, disambiguated bool) (esc, next tea.KeyPressMsg, ok bool) {
	if disambiguated || kp.Mod&tea.ModAlt == 0 || slices.Contains(altChords, kp.String()) {
		return kp, kp, false
	}
	next = kp
	next.Mod &^= tea.ModAlt
	if next.Mod&^tea.ModShift == 0 && unicode.IsPrint(next.Code) {
		// The reader dropped the text with the esc; a printable key types
		// what it did alone.
		r := next.Code
		if next.Mod&tea.ModShift != 0 && next.ShiftedCode != 0 {
			r = next.ShiftedCode
		} else if next.Mod&tea.ModShift != 0 {
			r = unicode.ToUpper(r)
		}
		next.Text = string(r)
	}
	return tea.KeyPressMsg{Code: tea.KeyEscape}, next, true
}
