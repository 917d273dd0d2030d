package ui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"modbay/render"
	"modbay/runner"
	"modbay/ui/common"
	"modbay/ui/styles"
)

// wideLayout is the width from which a list and its detail pane sit side
// by side; below it the detail goes under the list.
const wideLayout = 100

// listAction is what the module list asks of the root model.
type listAction interface{ isListAction() }

// listOpen opens a module's capabilities.
type listOpen struct{ module *runner.Module }

// listRediscover runs discovery again.
type listRediscover struct{}

func (listOpen) isListAction()       {}
func (listRediscover) isListAction() {}

// moduleList is the start screen: every discovered module with its status,
// a filter, and the selected module's detail.
type moduleList struct {
	com     *common.Common
	keys    ListKeyMap
	modules []*runner.Module
	shown   []int
	cursor  int
	// moved is set once the person moves the cursor: until then the
	// cursor stays on the first row while modules arrive, instead of
	// following whichever module happened to be described first.
	moved       bool
	filter      listFilter
	discovering bool
	// pending is how many modules discovery is still describing; -1 when
	// unknown (a discovery that lists everything at once).
	pending int
	banner  string
	width   int
	height  int
	detail  detailScroll
	// shownDetail is the selected module's detail as last built.
	shownDetail detailCache
}

func newModuleList(com *common.Common, keys ListKeyMap, banner string) *moduleList {
	return &moduleList{com: com, keys: keys, filter: newFilter(com, "filter by name or id"), banner: banner, discovering: true, pending: -1}
}

// listFilter is a list's filter ("/"): while it has the focus, keys are
// its text, except enter and esc (leave it, keeping or clearing the text)
// and the arrows and pgup/pgdn, which still move and scroll the list.
type listFilter struct {
	input  textinput.Model
	active bool
}

func newFilter(com *common.Common, placeholder string) listFilter {
	in := textinput.New()
	in.Prompt = "/"
	in.Placeholder = placeholder
	in.SetStyles(com.Styles.TextInput)
	return listFilter{input: in}
}

// Value is the filter text.
func (f *listFilter) Value() string { return f.input.Value() }

// Shown reports whether the filter line is on screen: while it has the
// focus or keeps a text.
func (f *listFilter) Shown() bool { return f.active || f.input.Value() != "" }

// SetWidth sets the input's width in cells.
func (f *listFilter) SetWidth(w int) { f.input.SetWidth(w) }

// Focus gives the filter the keys.
func (f *listFilter) Focus() tea.Cmd {
	f.active = true
	return f.input.Focus()
}

// Clear empties the filter and, if it has the focus, leaves it.
func (f *listFilter) Clear() {
	f.input.SetValue("")
	f.leave()
}

func (f *listFilter) leave() {
	f.active = false
	f.input.Blur()
}

// Update handles msg while the filter has the focus. It reports whether
// msg was the filter's (else the list handles it) and whether the text may
// have changed (the list filters again).
func (f *listFilter) Update(msg tea.Msg, k ListKeyMap) (handled, changed bool, cmd tea.Cmd) {
	kp, ok := msg.(tea.KeyPressMsg)
	switch {
	case !ok:
		f.input, cmd = f.input.Update(msg)
		return true, false, cmd
	case key.Matches(kp, k.ClearFilter):
		f.Clear()
		return true, true, nil
	case key.Matches(kp, k.Open):
		f.leave()
		return true, false, nil
	case key.Matches(kp, k.ArrowUp, k.ArrowDown, k.DetailUp, k.DetailDown):
		// j/k, g/G and q are text; the arrows and pgup/pgdn are not.
		return false, false, nil
	}
	f.input, cmd = f.input.Update(msg)
	return true, true, cmd
}

// View draws the filter line.
func (f *listFilter) View() string { return f.input.View() }

// StartDiscovery empties the list for a discovery of total modules, which
// then arrive one by one through AddModule.
func (l *moduleList) StartDiscovery(total int) {
	l.keepSelection(func() { l.modules = nil })
	l.pending = total
}

// AddModule lists one module as soon as its describe finished, in ID
// order, keeping the selection.
func (l *moduleList) AddModule(m *runner.Module) {
	l.keepSelection(func() {
		i, _ := slices.BinarySearchFunc(l.modules, m, func(a, b *runner.Module) int {
			if c := strings.Compare(a.ID, b.ID); c != 0 {
				return c
			}
			return strings.Compare(a.Key, b.Key)
		})
		l.modules = slices.Insert(l.modules, i, m)
	})
	if l.pending > 0 {
		l.pending--
	}
}

// keepSelection runs change (which replaces or grows l.modules) and keeps
// the cursor on the module it was on, found by ID and source identity (Key).
func (l *moduleList) keepSelection(change func()) {
	var id, key string
	if m := l.Selected(); m != nil {
		id, key = m.ID, m.Key
	}
	change()
	l.refilter()
	if !l.moved {
		l.cursor = 0
		return
	}
	for i, idx := range l.shown {
		if l.modules[idx].ID == id && l.modules[idx].Key == key {
			l.cursor = i
		}
	}
}

// SetModules replaces the list, keeping the selected module when present.
func (l *moduleList) SetModules(mods []*runner.Module) {
	l.keepSelection(func() { l.modules = mods })
	l.discovering = false
	l.pending = -1
}

// SetSize sets the screen area.
func (l *moduleList) SetSize(w, h int) {
	l.width, l.height = w, h
	l.filter.SetWidth(max(w-4, 10))
}

// Selected returns the module under the cursor, or nil.
func (l *moduleList) Selected() *runner.Module {
	if l.cursor < 0 || l.cursor >= len(l.shown) {
		return nil
	}
	return l.modules[l.shown[l.cursor]]
}

// Typing reports whether keys go to the filter.
func (l *moduleList) Typing() bool { return l.filter.active }

func (l *moduleList) refilter() {
	q := strings.ToLower(strings.TrimSpace(l.filter.Value()))
	l.shown = l.shown[:0]
	for i, m := range l.modules {
		name := ""
		if m.Descriptor != nil {
			name = m.Descriptor.Name
		}
		if q == "" || strings.Contains(strings.ToLower(m.ID), q) || strings.Contains(strings.ToLower(name), q) {
			l.shown = append(l.shown, i)
		}
	}
	l.cursor = max(0, min(l.cursor, len(l.shown)-1))
}

// Update handles a key on the list.
func (l *moduleList) Update(msg tea.Msg) (listAction, tea.Cmd) {
	if l.filter.active {
		if handled, changed, cmd := l.filter.Update(msg, l.keys); handled {
			if changed {
				l.refilter()
			}
			return nil, cmd
		}
	}
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	switch {
	case key.Matches(kp, l.keys.Up):
		l.moved = true
		l.move(l.cursor - 1)
	case key.Matches(kp, l.keys.Down):
		l.moved = true
		l.move(l.cursor + 1)
	case key.Matches(kp, l.keys.Top):
		l.moved = true
		l.move(0)
	case key.Matches(kp, l.keys.Bottom):
		l.moved = true
		l.move(len(l.shown) - 1)
	case l.detail.Update(kp, l.keys):
	case key.Matches(kp, l.keys.Filter):
		return nil, l.filter.Focus()
	case key.Matches(kp, l.keys.ClearFilter) && l.filter.Value() != "":
		l.filter.Clear()
		l.refilter()
	case key.Matches(kp, l.keys.Rediscover):
		return listRediscover{}, nil
	case key.Matches(kp, l.keys.Open):
		if m := l.Selected(); m != nil {
			return listOpen{module: m}, nil
		}
	}
	return nil, nil
}

// move puts the cursor on shown row i (clamped); a new selection shows
// its detail from the top.
func (l *moduleList) move(i int) {
	i = min(max(len(l.shown)-1, 0), max(0, i))
	if i != l.cursor {
		l.detail.off = 0
	}
	l.cursor = i
}

// ShortHelp returns the bindings that apply now.
func (l *moduleList) ShortHelp() []key.Binding {
	if l.filter.active {
		return []key.Binding{l.keys.Open, l.keys.ClearFilter}
	}
	return []key.Binding{l.keys.Up, l.keys.Down, l.keys.Open, l.keys.Filter, l.keys.Rediscover}
}

// View draws the list and the detail pane.
func (l *moduleList) View(sp spinner.Model) string {
	st := l.com.Styles
	w, h := l.width, l.height
	var top []string
	if l.banner != "" {
		top = append(top, st.Warning.Render(common.Trunc(render.SanitizeLine(l.banner), w)))
	}
	if l.filter.Shown() {
		top = append(top, common.Trunc(l.filter.View(), w))
	}
	if l.discovering {
		if len(l.modules) == 0 {
			top = append(top, sp.View()+" "+st.Muted.Render("discovering modules…"))
			return strings.Join(top, "\n")
		}
		what := "describing more…"
		if l.pending > 0 {
			what = fmt.Sprintf("describing %d more…", l.pending)
		}
		top = append(top, sp.View()+" "+st.Muted.Render(what))
	}
	h -= len(top)
	if len(l.modules) == 0 {
		top = append(top, st.Muted.Render("No modules found."))
		return strings.Join(top, "\n")
	}
	var detail string
	if m := l.Selected(); m != nil {
		dw := detailWidth(l.com, w)
		detail = l.shownDetail.get(detailKey{item: m, width: dw, styles: l.com.Styles}, func() string {
			return moduleDetail(l.com, m, dw)
		})
	}
	return strings.Join(append(top, splitPane(l.com, w, h, l.rows, detail, len(l.shown), &l.detail)), "\n")
}

// rows draws the visible list rows in width w and height h, as columns:
// the status badge (fixed width), the name, the id (dimmed) and, when the
// width allows, the reason; each cut with … to fit.
func (l *moduleList) rows(w, h int) []string {
	st := l.com.Styles
	start := scrollStart(l.cursor, len(l.shown), h)
	var names, ids []string
	for _, idx := range l.shown {
		names = append(names, render.SanitizeLine(moduleName(l.modules[idx])))
		ids = append(ids, render.SanitizeLine(l.modules[idx].ID))
	}
	cols := tableColumns(w, badgeWidth(l.com), names, ids)
	var out []string
	for i := start; i < len(l.shown) && len(out) < h; i++ {
		m := l.modules[l.shown[i]]
		sel := i == l.cursor
		name := common.Trunc(names[i], cols.name)
		if sel {
			name = st.Selected.Render(name)
		}
		line := st.Cursor(sel) + pad(statusBadge(l.com, m.Status), cols.badge) + colGap + pad(name, cols.name)
		if cols.id > 0 {
			line += colGap + pad(st.ID.Render(common.Trunc(ids[i], cols.id)), cols.id)
		}
		if cols.reason > 0 && m.Status != runner.StatusReady && m.Reason != "" {
			line += colGap + st.Muted.Render(common.Trunc(render.SanitizeLine(m.Reason), cols.reason))
		}
		out = append(out, common.Trunc(strings.TrimRight(line, " "), w))
	}
	if len(l.shown) == 0 {
		out = append(out, st.Muted.Render("No module matches the filter."))
	}
	return out
}

// Table layout of the module list.
const (
	// colGap separates the list's columns.
	colGap = "  "
	// minNameCol and minReasonCol are the narrowest name and reason
	// columns worth showing (cells); maxNameCol keeps one long name from
	// pushing the ids and reasons off the row.
	minNameCol   = 8
	maxNameCol   = 28
	minReasonCol = 16
	// cursorWidth is the "› " marker before each row.
	cursorWidth = 2
)

// columns are the widths of the list's columns in cells; 0 hides one.
type columns struct{ badge, name, id, reason int }

// tableColumns fits the columns into w cells: the badge is fixed, the name
// and id as wide as their longest (within bounds), and the reason takes
// what is left when there is enough of it.
func tableColumns(w, badge int, names, ids []string) columns {
	c := columns{badge: badge}
	widest := func(v []string) int {
		n := 0
		for _, s := range v {
			n = max(n, common.Width(s))
		}
		return n
	}
	gap := len(colGap)
	left := w - cursorWidth - badge - gap
	c.name = max(min(widest(names), maxNameCol, left), min(minNameCol, max(left, 0)))
	left -= c.name + gap
	if left > 0 {
		c.id = min(widest(ids), left)
		left -= c.id + gap
	}
	if left >= minReasonCol {
		c.reason = left
	}
	return c
}

// badgeWidth is the width of the widest status badge.
func badgeWidth(com *common.Common) int {
	n := 0
	for _, s := range []runner.Status{runner.StatusReady, runner.StatusNeedsSetup, runner.StatusBroken, runner.StatusDisabled} {
		n = max(n, common.Width(statusBadge(com, s)))
	}
	return n
}

// pad fills s (which may be styled) with spaces to w cells.
func pad(s string, w int) string {
	return s + strings.Repeat(" ", max(w-common.Width(s), 0))
}

// scrollStart returns the first visible row keeping cursor in h rows.
func scrollStart(cursor, n, h int) int {
	if h <= 0 || n <= h {
		return 0
	}
	return max(0, min(cursor-h/2, n-h))
}

// detailWidth is the detail pane's text width in a w-cell screen.
func detailWidth(com *common.Common, w int) int {
	if w >= wideLayout {
		return w - listWidth(w) - com.Styles.Pane.GetHorizontalFrameSize() - 1
	}
	return w
}

// listWidth is the list column's width in the wide layout.
func listWidth(w int) int { return max(40, w*2/5) }

// splitPane lays out a list and its detail: side by side from wideLayout
// cells, else the list on top (at most half the height) and the detail
// under a rule. rows draws n list rows for a given size.
func splitPane(com *common.Common, w, h int, rows func(w, h int) []string, detail string, n int, ds *detailScroll) string {
	st := com.Styles
	if w >= wideLayout {
		lw := listWidth(w)
		left := strings.Join(rows(lw, h), "\n")
		left = lipgloss.NewStyle().Width(lw).Height(h).MaxHeight(h).Render(left)
		pw := w - lw - 1
		inner := pw - st.Pane.GetHorizontalFrameSize()
		ih := h - st.Pane.GetVerticalFrameSize()
		body := common.FitWidth(ds.view(com, detail, ih), inner)
		pane := st.Pane.Width(pw).Height(h).MaxHeight(h).Render(body)
		return lipgloss.JoinHorizontal(lipgloss.Top, left, " ", pane)
	}
	lh := min(max(n, 1), max(h/2-1, 3))
	list := rows(w, lh)
	for len(list) < lh {
		list = append(list, "")
	}
	rule := st.Muted.Render(strings.Repeat("─", w))
	dh := h - lh - 1
	body := common.FitWidth(ds.view(com, detail, dh), w)
	return strings.Join(list, "\n") + "\n" + rule + "\n" + body
}

// detailKey is what a list's detail pane is built from: the selected item
// (a module, or a capability's index), the text width and the styles.
type detailKey struct {
	item   any
	width  int
	styles *styles.Styles
}

// detailCache keeps the last detail pane built. A list is drawn on every
// frame (the spinner, each key), and a capability's detail compiles its
// request schema: it is built again only when what it shows changed.
type detailCache struct {
	key  detailKey
	text string
	ok   bool
}

// get returns the detail for key, building it when key is not the last.
func (c *detailCache) get(key detailKey, build func() string) string {
	if !c.ok || c.key != key {
		c.key, c.text, c.ok = key, build(), true
	}
	return c.text
}

// detailScroll is the scroll position of a list's detail pane: pgup/pgdn
// scroll it from the list, and the pane says what is above and below.
type detailScroll struct {
	// off is the first detail line shown; page how many lines a pgdn
	// moves; above and below what the last view could not show.
	off, page, above, below int
}

// Update scrolls on DetailUp/DetailDown and reports whether kp was one.
func (d *detailScroll) Update(kp tea.KeyPressMsg, k ListKeyMap) bool {
	switch {
	case key.Matches(kp, k.DetailUp):
		d.off = max(d.off-max(d.page, 1), 0)
	case key.Matches(kp, k.DetailDown):
		d.off += max(d.page, 1)
	default:
		return false
	}
	return true
}

// view shows h lines of detail from d.off (clamped), with a line saying
// how much is above and below when it does not fit.
func (d *detailScroll) view(com *common.Common, detail string, h int) string {
	st := com.Styles
	lines := strings.Split(detail, "\n")
	d.page = max(h-2, 1)
	if h <= 0 || len(lines) <= h {
		d.off, d.above, d.below = 0, 0, 0
		return detail
	}
	// Everything but the marker lines shows the detail: one marker at the
	// top once scrolled, one at the bottom while more is below.
	d.off = max(0, min(d.off, len(lines)-(h-1)))
	show := h
	if d.off > 0 {
		show--
	}
	if d.off+show < len(lines) {
		show--
	}
	show = max(show, 1)
	d.above, d.below = d.off, max(len(lines)-d.off-show, 0)
	var out []string
	if d.above > 0 {
		out = append(out, st.Muted.Render(fmt.Sprintf("↑ %d more %s (pgup)", d.above, common.Plural(d.above, "line", "lines"))))
	}
	out = append(out, lines[d.off:d.off+show]...)
	if d.below > 0 {
		out = append(out, st.Warning.Render(fmt.Sprintf("↓ %d more %s (pgdn)", d.below, common.Plural(d.below, "line", "lines"))))
	}
	return strings.Join(out, "\n")
}

// statusBadge draws a module status.
func statusBadge(com *common.Common, s runner.Status) string {
	st := com.Styles
	switch s {
	case runner.StatusReady:
		return st.Badge(st.BadgeOK, string(s))
	case runner.StatusNeedsSetup:
		return st.Badge(st.BadgeWarn, string(s))
	case runner.StatusBroken:
		return st.Badge(st.BadgeError, string(s))
	default:
		return st.Badge(st.BadgeNeutral, string(s))
	}
}

// moduleDetail is everything known about a module, wrapped to w cells.
func moduleDetail(com *common.Common, m *runner.Module, w int) string {
	st := com.Styles
	b := detailBuilder{com: com, w: w}
	d := m.Descriptor
	b.line(st.Title.Render(render.SanitizeLine(moduleName(m))))
	if d != nil {
		b.kv("Version", d.Version)
	}
	b.kv("ID", m.ID)
	b.kv("Executable", m.Exe)
	status := statusBadge(com, m.Status)
	if m.Reason != "" {
		status += " " + render.SanitizeLine(m.Reason)
	}
	b.kvStyled("Status", status)
	if d == nil {
		if m.Stderr != "" {
			b.heading("Describe stderr")
			b.text(lastLines(render.Sanitize(m.Stderr), 6))
		}
		b.violations(m)
		return b.String()
	}
	b.heading(fmt.Sprintf("Capabilities (%d)", len(d.Capabilities)))
	for _, c := range d.Capabilities {
		b.line("• " + st.Text.Bold(true).Render(render.SanitizeLine(common.TitleOr(c.Title, c.ID))) + " " + st.ID.Render(render.SanitizeLine(c.ID)))
		b.indented(render.SanitizeLine(c.Summary))
		b.indented(strings.Join(render.EffectBadges(c.Effects, c.LongRunning), " · "))
	}
	if reqs := m.RequirementStates(); len(reqs) > 0 {
		b.heading("Requirements")
		for _, r := range reqs {
			b.line(requirementLine(com, r))
			switch {
			case r.By != "":
				b.indented(render.SanitizeLine(r.By))
			case r.Detail != "" && r.State != runner.RequirementMet:
				b.indented(render.SanitizeLine(r.Detail))
			}
		}
	}
	b.heading("Permissions")
	p := d.Permissions
	b.kv("Read", listOrNone(p.FilesystemRead))
	b.kv("Write", listOrNone(p.FilesystemWrite))
	b.kv("Network", listOrNone(p.Network))
	b.kv("Credentials", listOrNone(p.Credentials))
	b.kv("Paid", listOrNone(p.PaidProviders))
	b.kv("Publish", yesNo(p.Publish))
	b.kv("Subprocess", listOrNone(p.Subprocess))
	if len(d.Skills) > 0 {
		b.heading("Skills")
		for _, s := range d.Skills {
			b.line(fmt.Sprintf("• %s %s", render.SanitizeLine(common.TitleOr(s.Title, s.ID)), st.Muted.Render(fmt.Sprintf("(%d tokens)", s.Tokens))))
		}
	}
	if len(d.AgentOverlays) > 0 {
		b.heading("Overlays")
		for _, o := range d.AgentOverlays {
			b.line(fmt.Sprintf("• %s %s", render.SanitizeLine(common.TitleOr(o.Title, o.ID)), st.Muted.Render(fmt.Sprintf("(%d tokens)", o.Tokens))))
		}
	}
	b.violations(m)
	return b.String()
}

// requirementLine draws a requirement as discovery judged it: ✓
// available, ✗ needs setup, or not probed (WIRE.md §9: never call an
// unprobed requirement missing).
func requirementLine(com *common.Common, r runner.RequirementState) string {
	st := com.Styles
	what := render.SanitizeLine(r.Kind) + " " + render.SanitizeLine(r.Name)
	switch r.State {
	case runner.RequirementNotProbed:
		return "? " + what + " " + st.Muted.Render("not probed")
	case runner.RequirementMet:
		return st.Success.Render("✓") + " " + what + " " + st.Muted.Render("available")
	default:
		return st.Error.Render("✗") + " " + what + " " + st.Warning.Render("needs setup")
	}
}

// detailBuilder collects wrapped detail lines.
type detailBuilder struct {
	com   *common.Common
	w     int
	lines []string
}

func (b *detailBuilder) line(s string) { b.lines = append(b.lines, s) }

func (b *detailBuilder) heading(s string) {
	b.lines = append(b.lines, "", b.com.Styles.Subtitle.Render(s))
}

// kv writes an untrusted value under a label, wrapped.
func (b *detailBuilder) kv(k, v string) { b.kvStyled(k, render.SanitizeLine(v)) }

// kvStyled writes an already sanitized (possibly styled) value.
func (b *detailBuilder) kvStyled(k, v string) {
	const kw = 12
	lab := b.com.Styles.Label.Render(fmt.Sprintf("%-*s", kw, k))
	vw := max(b.w-kw, 8)
	for i, l := range strings.Split(common.Wrap(v, vw), "\n") {
		if i == 0 {
			b.lines = append(b.lines, lab+l)
		} else {
			b.lines = append(b.lines, strings.Repeat(" ", kw)+l)
		}
	}
}

func (b *detailBuilder) indented(s string) {
	for _, l := range strings.Split(common.Wrap(s, max(b.w-2, 8)), "\n") {
		b.lines = append(b.lines, "  "+b.com.Styles.Muted.Render(l))
	}
}

func (b *detailBuilder) text(s string) {
	for _, l := range strings.Split(s, "\n") {
		b.lines = append(b.lines, l)
	}
}

func (b *detailBuilder) violations(m *runner.Module) {
	st := b.com.Styles
	if len(m.Violations) > 0 {
		b.heading(fmt.Sprintf("Violations (%d)", len(m.Violations)))
		for _, v := range m.Violations {
			for _, l := range strings.Split(common.Wrap("✗ "+render.SanitizeLine(v.Error()), b.w), "\n") {
				b.lines = append(b.lines, st.Error.Render(l))
			}
		}
	}
	if len(m.Warnings) > 0 {
		b.heading(fmt.Sprintf("Warnings (%d)", len(m.Warnings)))
		for _, w := range m.Warnings {
			for _, l := range strings.Split(common.Wrap("! "+render.SanitizeLine(w), b.w), "\n") {
				b.lines = append(b.lines, st.Warning.Render(l))
			}
		}
	}
}

// String returns the lines, each cut to the width.
func (b *detailBuilder) String() string {
	out := make([]string, len(b.lines))
	for i, l := range b.lines {
		out[i] = common.Trunc(l, b.w)
	}
	return strings.Join(out, "\n")
}

func listOrNone(v []string) string {
	if len(v) == 0 {
		return "none"
	}
	return strings.Join(v, ", ")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// lastLines keeps the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
