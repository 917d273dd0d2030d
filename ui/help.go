package ui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/ui/common"
)

// helpView draws the help bar for what has focus.
func (m *Model) helpView() string {
	if m.fullHelp {
		return m.fullHelpView(m.FullHelp())
	}
	return m.help.ShortHelpView(m.fitShortHelp(m.ShortHelp()))
}

// fullHelpView lays groups out as columns, side by side while they fit
// the width and then on further rows, so no binding is ever cut (the
// help model alone drops the columns past the width).
func (m *Model) fullHelpView(groups [][]key.Binding) string {
	h := m.help
	h.SetWidth(0) // measure unbounded; the rows are fitted here
	w := m.com.Width
	var rows []string
	var row [][]key.Binding
	for _, g := range groups {
		if len(row) > 0 && common.BlockWidth(h.FullHelpView(append(row[:len(row):len(row)], g))) > w {
			rows = append(rows, h.FullHelpView(row))
			row = nil
		}
		row = append(row, g)
	}
	if len(row) > 0 {
		rows = append(rows, h.FullHelpView(row))
	}
	return strings.Join(rows, "\n")
}

// fitShortHelp drops bindings from the end of b until the one-line bar
// fits the width, never the last one (the way to the full help, or to
// close it) nor an esc: those two keep every other key reachable.
func (m *Model) fitShortHelp(b []key.Binding) []key.Binding {
	h := m.help
	h.SetWidth(0)
	keep := func(i int) bool {
		return i == len(b)-1 || slices.Contains(b[i].Keys(), "esc")
	}
	for common.Width(h.ShortHelpView(b)) > m.com.Width {
		drop := -1
		for i := len(b) - 1; i >= 0; i-- {
			if !keep(i) {
				drop = i
				break
			}
		}
		if drop < 0 {
			break
		}
		b = slices.Delete(slices.Clone(b), drop, drop+1)
	}
	return b
}

// helpToggle is the global binding that opens (or closes) the full help
// in the current state: "?" where keys are not text, ctrl+g where they may
// be, and while open the one that opened it.
func (m *Model) helpToggle() key.Binding {
	g := m.keys.Global
	text := m.typing()
	if _, ok := m.top().(textScreen); ok {
		text = true
	}
	if m.fullHelp {
		text = !m.helpByQuestion
	}
	if text {
		return g.HelpAnywhere
	}
	return g.Help
}

// ShortHelp implements help.KeyMap: the focused screen's (or dialog's)
// bindings and the way to the full help.
func (m *Model) ShortHelp() []key.Binding {
	if len(m.dialogs) > 0 {
		return m.dialogs[len(m.dialogs)-1].ShortHelp()
	}
	b := m.withoutShadowed(m.top().ShortHelp())
	if m.fullHelp {
		return append(b, m.keys.Global.CloseHelp)
	}
	if !m.moreKeys(b) {
		// "more keys" only when the full help has more to say.
		return b
	}
	return append(b, m.helpToggle())
}

// moreKeys reports whether the full help shows a binding that short does
// not (the help toggle aside).
func (m *Model) moreKeys(short []key.Binding) bool {
	toggle := m.helpToggle().Help()
	for _, g := range m.FullHelp() {
		for _, b := range g {
			if b.Help() == toggle {
				continue
			}
			if !slices.ContainsFunc(short, func(s key.Binding) bool { return s.Help() == b.Help() }) {
				return true
			}
		}
	}
	return false
}

// FullHelp implements help.KeyMap: the focused screen's groups, then the
// global keys that apply.
func (m *Model) FullHelp() [][]key.Binding {
	g := m.keys.Global
	if len(m.dialogs) > 0 {
		return m.dialogs[len(m.dialogs)-1].FullHelp()
	}
	var groups [][]key.Binding
	for _, grp := range m.top().FullHelp() {
		if grp = m.withoutShadowed(grp); len(grp) > 0 {
			groups = append(groups, grp)
		}
	}
	var global []key.Binding
	if !m.focusBinds(g.Interrupt.Keys()...) {
		global = append(global, g.Interrupt)
	}
	global = append(global, m.helpToggle())
	if m.fullHelp {
		global = append(global, g.CloseHelp)
	}
	return append(groups, global)
}

// withoutShadowed drops the bindings whose every key the root takes
// before the screen sees it in the current state (the help keys; esc while
// the full help is open), so no help line promises what another does.
func (m *Model) withoutShadowed(b []key.Binding) []key.Binding {
	g := m.keys.Global
	taken := slices.Clone(g.HelpAnywhere.Keys())
	if m.fullHelp {
		taken = append(taken, g.CloseHelp.Keys()...)
	}
	if !m.typing() {
		taken = append(taken, g.Help.Keys()...)
	}
	return slices.DeleteFunc(slices.Clone(b), func(x key.Binding) bool {
		for _, k := range x.Keys() {
			if !slices.Contains(taken, k) {
				return false
			}
		}
		return x.Enabled()
	})
}

// focusBinds reports whether the focused dialog or screen binds one of
// keys in its current help: such a key is the screen's (ctrl+c cancels a
// run in flight instead of quitting).
func (m *Model) focusBinds(keys ...string) bool {
	var groups [][]key.Binding
	if len(m.dialogs) > 0 {
		groups = m.dialogs[len(m.dialogs)-1].FullHelp()
	} else {
		groups = m.top().FullHelp()
	}
	for _, g := range groups {
		for _, b := range g {
			if !b.Enabled() {
				continue
			}
			for _, k := range b.Keys() {
				if slices.Contains(keys, k) {
					return true
				}
			}
		}
	}
	return false
}

// keyMsgIsFocus reports whether kp is bound by the focused dialog or
// screen.
func (m *Model) keyMsgIsFocus(kp tea.KeyPressMsg) bool { return m.focusBinds(kp.String()) }

// helpHeight is the help bar's height in lines.
func (m *Model) helpHeight() int {
	return max(common.Lines(m.helpView()), 1)
}
