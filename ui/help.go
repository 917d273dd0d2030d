package ui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/ui/common"
)

// helpView draws the help bar for what has focus.
func (m *Model) helpView() string {
	var groups [][]key.Binding
	if m.fullHelp {
		groups = m.FullHelp()
	} else {
		groups = [][]key.Binding{m.ShortHelp()}
	}
	memo := helpMemoKey(m, groups)
	if m.helpMemo.ok && m.helpMemo.key == memo {
		return m.helpMemo.text
	}
	var text string
	if m.fullHelp {
		text = m.fullHelpView(groups)
		text = m.withHelpNotes(text)
	} else {
		text = m.help.ShortHelpView(m.fitShortHelp(groups[0]))
	}
	m.helpMemo = helpMemo{ok: true, key: memo, text: text}
	return text
}

// helpMemo is the last help bar drawn and what it was drawn from: the
// bar is drawn twice a frame (its height sizes the body) and fitting it
// renders it many times; it changes only when the bindings do.
type helpMemo struct {
	ok   bool
	key  string
	text string
}

// helpMemoKey is everything helpView draws from, as one string: which
// help, the terminal and help widths, the terminal height (the full
// help's room), the styles, and each binding's keys, help and state in
// groups, with the focused screen's essentials.
func helpMemoKey(m *Model, groups [][]key.Binding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%t %d %d %d %p\x00", m.fullHelp, m.com.Width, m.com.Height, m.help.Width(), m.com.Styles)
	write := func(bs []key.Binding) {
		for _, x := range bs {
			h := x.Help()
			fmt.Fprintf(&b, "%t\x01%s\x01%s\x01%s\x02", x.Enabled(), strings.Join(x.Keys(), "\x03"), h.Key, h.Desc)
		}
		b.WriteByte('\x04')
	}
	for _, g := range groups {
		write(g)
	}
	write(m.essentialHelp())
	return b.String()
}

// fullHelpView lays groups out as columns, side by side while they fit
// the width and then on further rows, so no binding is ever cut (the
// help model alone drops the columns past the width). When the columns
// are taller than the terminal leaves (a short terminal), the bindings
// flow as lines instead; when even those do not fit, the last line says
// how many were left out and keeps the way out of the help (esc), so
// what is cut shows that it is cut.
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
	out := strings.Join(rows, "\n")
	room := m.fullHelpRoom()
	if common.Lines(out) <= room {
		return out
	}
	var flat []key.Binding
	for _, g := range groups {
		flat = append(flat, g...)
	}
	return m.flowHelp(flat, room)
}

// fullHelpRoom is the most lines the full help may take: the terminal
// less the header and one line of the screen.
func (m *Model) fullHelpRoom() int { return max(m.com.Height-2, 1) }

// flowHelp lays bindings out as "key desc" items joined by the short
// help's separator, wrapped at the width, in at most room lines. When they
// do not fit, the lines end with "… N more" and the last binding (the way
// out of the help), which is always shown.
func (m *Model) flowHelp(b []key.Binding, room int) string {
	st := m.help.Styles
	sep := st.ShortSeparator.Render(m.help.ShortSeparator)
	item := func(x key.Binding) string {
		return st.ShortKey.Render(x.Help().Key) + " " + st.ShortDesc.Render(x.Help().Desc)
	}
	var shown []key.Binding
	for _, x := range b {
		if x.Enabled() {
			shown = append(shown, x)
		}
	}
	flow := func(items []string) []string {
		var lines []string
		cur := ""
		for _, it := range items {
			switch {
			case cur == "":
				cur = it
			case common.Width(cur+sep+it) <= m.com.Width:
				cur += sep + it
			default:
				lines = append(lines, cur)
				cur = it
			}
		}
		if cur != "" {
			lines = append(lines, cur)
		}
		return lines
	}
	items := make([]string, len(shown))
	for i, x := range shown {
		items[i] = item(x)
	}
	if lines := flow(items); len(lines) <= room || len(items) < 2 {
		return strings.Join(lines, "\n")
	}
	// Keep the screen's essentials, the esc bindings and the last one
	// (close help), and as many of the others, in order, as fit with a
	// "… N more" before the last.
	must := m.essentialHelp()
	mandatory := func(i int) bool {
		x := shown[i]
		return i == len(shown)-1 || slices.Contains(x.Keys(), "esc") ||
			slices.ContainsFunc(must, func(e key.Binding) bool { return e.Help() == x.Help() })
	}
	optional := 0
	for i := range shown {
		if !mandatory(i) {
			optional++
		}
	}
	for keep := optional - 1; keep >= 0; keep-- {
		var out []string
		kept := 0
		for i := range len(items) - 1 {
			if mandatory(i) || kept < keep {
				if !mandatory(i) {
					kept++
				}
				out = append(out, items[i])
			}
		}
		more := st.Ellipsis.Render(fmt.Sprintf("%s %d more", common.Ellipsis, optional-keep))
		lines := flow(append(out, more, items[len(items)-1]))
		if len(lines) <= room || keep == 0 {
			return strings.Join(lines[max(len(lines)-room, 0):], "\n")
		}
	}
	lines := flow(items)
	return strings.Join(lines[max(len(lines)-room, 0):], "\n")
}

// activityBarWidth is the narrowest help bar that keeps the activity key
// among a list's essentials: at 40 columns the screen's own come first.
const activityBarWidth = 60

// essentialHelp is the focused screen's essential bindings (none for a
// dialog: its choices are in its box), and on a list at least
// activityBarWidth wide the activity key: the way to what is running.
func (m *Model) essentialHelp() []key.Binding {
	if len(m.dialogs) > 0 {
		return nil
	}
	var b []key.Binding
	if e, ok := m.top().(essentials); ok {
		b = e.EssentialHelp()
	}
	if m.opensActivity() && m.com.Width >= activityBarWidth {
		b = append(slices.Clone(b), m.keys.Global.Activity)
	}
	return b
}

// helpNotes is a screen whose full help states rules in words under its
// keys (the form's defaults rule): plain text, not bindings.
type helpNotes interface{ HelpNotes() []string }

// withHelpNotes adds the focused screen's notes under the full help,
// wrapped to the width and muted, while they fit the full help's room;
// a dialog's help has none.
func (m *Model) withHelpNotes(text string) string {
	hn, ok := m.top().(helpNotes)
	if !ok || len(m.dialogs) > 0 {
		return text
	}
	var lines []string
	for _, n := range hn.HelpNotes() {
		lines = append(lines, strings.Split(common.Wrap(n, max(m.com.Width, 10)), "\n")...)
	}
	if len(lines) == 0 || common.Lines(text)+len(lines) > m.fullHelpRoom() {
		return text
	}
	for i, l := range lines {
		lines[i] = m.com.Styles.Muted.Render(l)
	}
	return text + "\n" + strings.Join(lines, "\n")
}

// essentials is a screen whose help bar must keep some bindings at any
// width: what a person cannot do without there (a form's submit, a
// result's open). They are the key map's priority: the fitter drops every
// other binding first, then shortens descriptions, and drops an essential
// only when nothing else is left to give.
type essentials interface{ EssentialHelp() []key.Binding }

// fitShortHelp fits the one-line bar to the width. It never drops the
// last binding (the way to the full help, or to close it) nor an esc:
// those two keep every other key reachable. First it drops, from the end,
// the bindings that are not essential to the focused screen; then it
// shortens every description to its first word ("more keys" -> "more");
// then it drops essentials from the end. What still does not fit is cut
// by the help model with "…".
func (m *Model) fitShortHelp(b []key.Binding) []key.Binding {
	h := m.help
	h.SetWidth(0)
	must := m.essentialHelp()
	fits := func() bool { return common.Width(h.ShortHelpView(b)) <= m.com.Width }
	always := func(i int) bool {
		return i == len(b)-1 || slices.Contains(b[i].Keys(), "esc")
	}
	essential := func(i int) bool {
		return slices.ContainsFunc(must, func(e key.Binding) bool { return e.Help() == b[i].Help() })
	}
	dropWhile := func(keep func(int) bool) {
		for !fits() {
			drop := -1
			for i := len(b) - 1; i >= 0; i-- {
				if !keep(i) {
					drop = i
					break
				}
			}
			if drop < 0 {
				return
			}
			b = slices.Delete(slices.Clone(b), drop, drop+1)
		}
	}
	dropWhile(func(i int) bool { return always(i) || essential(i) })
	if !fits() {
		b = shortDescs(b)
	}
	dropWhile(always)
	return b
}

// shortDescs returns b with every description cut to its first word, for
// a bar too narrow for the full ones.
func shortDescs(b []key.Binding) []key.Binding {
	out := make([]key.Binding, len(b))
	for i, x := range b {
		desc, _, _ := strings.Cut(x.Help().Desc, " ")
		opts := []key.BindingOpt{key.WithKeys(x.Keys()...), key.WithHelp(x.Help().Key, desc)}
		if !x.Enabled() {
			opts = append(opts, key.WithDisabled())
		}
		out[i] = key.NewBinding(opts...)
	}
	return out
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
	if m.opensActivity() {
		b = append(b, m.keys.Global.Activity)
	}
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
		groups := m.dialogs[len(m.dialogs)-1].FullHelp()
		if m.fullHelp {
			// esc closes the help before the dialog sees it.
			groups = append(slices.Clone(groups), []key.Binding{g.CloseHelp})
		}
		return groups
	}
	var groups [][]key.Binding
	for _, grp := range m.top().FullHelp() {
		if grp = m.withoutShadowed(grp); len(grp) > 0 {
			groups = append(groups, grp)
		}
	}
	if m.opensActivity() {
		groups = append(groups, []key.Binding{m.keys.Global.Activity, m.keys.Global.Jump})
	}
	var global []key.Binding
	if !m.focusBinds(g.Interrupt.Keys()...) {
		global = append(global, m.interruptHelp())
	}
	global = append(global, g.Suspend, m.helpToggle())
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

// interruptHelp is ctrl+c as it acts now (interrupt): over a form with
// typed input and no dialog, the first press keeps the draft and only a
// second quits.
func (m *Model) interruptHelp() key.Binding {
	b := m.keys.Global.Interrupt
	if fs, ok := m.top().(*formScreen); ok && fs.form != nil && len(m.dialogs) == 0 && !m.quitArmed && fs.form.Dirty() {
		b.SetHelp(b.Help().Key, "keep the draft (again: quit)")
	}
	return b
}
