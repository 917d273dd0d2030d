package ui

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"modbay/internal/words"
	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
	"modbay/ui/common"
	"modbay/ui/list"
	"modbay/ui/styles"
)

// ModulesKeyMap is the module list's own bindings, beside the list's.
type ModulesKeyMap struct {
	// Rediscover runs discovery again.
	Rediscover key.Binding
	// LogMore and LogLess ask the selected MCP server for the next more
	// (toward debug) or less verbose log level (logging/setLevel), kept
	// for its later sessions and processes.
	LogMore, LogLess key.Binding
	// Surface opens the selected MCP server's resources and prompts.
	Surface key.Binding
	// Skills opens the skills screen.
	Skills key.Binding
	// Quit quits (never while the filter takes the keys).
	Quit key.Binding
}

// moduleList is the start screen: every discovered module with its status,
// a filter, and the selected module's detail. It is the bottom of the
// stack: esc never leaves it.
type moduleList struct {
	// agentTools is set when the agent tools screen is offered (T).
	agentTools bool
	com        *common.Common
	keys       ModulesKeyMap
	list       *list.Model
	modules    []*runner.Module
	// sp is the root's spinner, shown while discovery runs.
	sp          *spinner.Model
	discovering bool
	// pending is how many modules discovery is still describing; -1 when
	// unknown (a discovery that lists everything at once).
	pending int
	banner  string
	// configNote says why the last r kept the previous config.yaml ("":
	// it was taken, or r was not pressed).
	configNote string
	// keep is the id of the module the person had selected when a
	// discovery emptied the list (StartDiscovery): the cursor goes back
	// to it when it is listed again, unless the person moved it since.
	keep string
	// cols are the row columns for the rows being drawn (list layout).
	cols columns
	// laidOut is what cols were fitted to: layout runs on every frame,
	// and measures every module shown only when that changed.
	laidOut layoutKey
	// owned is whether modules is the list's own slice (AddModule's),
	// which it may insert into, rather than one SetModules was given.
	owned bool
}

// layoutKey is what the columns are fitted to: the modules shown, in
// order, with the id and descriptor their name comes from, the width and
// the styles.
type layoutKey struct {
	shown  []shownModule
	w      int
	styles *styles.Styles
}

// shownModule is a module as layout measured it.
type shownModule struct {
	m    *runner.Module
	id   string
	desc *modproto.Descriptor
}

// openModulesScreen builds the module list; the root keeps it as m.modules.
func openModulesScreen(m *Model, _ any) (Screen, tea.Cmd) {
	l := &moduleList{
		com: m.com, keys: m.keys.Modules, sp: &m.spinner, banner: m.opts.Banner,
		list:        list.New(m.com, m.keys.List, "filter by name or id", "No module matches the filter."),
		discovering: true, pending: -1,
	}
	l.list.SetLayout(l.layout)
	m.modules = l
	return l, nil
}

// moduleItem is one module as a list item.
type moduleItem struct {
	l *moduleList
	m *runner.Module
	// row is the last row drawn and what it was drawn from: a keystroke
	// redraws every visible row, and most of them did not change.
	row    string
	rowKey rowKey
	// measured is what nameW and idW (the sanitized name's and id's
	// widths in cells) were measured from: layout measures a module once,
	// not on every frame.
	measured   shownModule
	nameW, idW int
}

// widths are the module's name and id widths in cells, measured again
// only when its id or descriptor changed.
func (it *moduleItem) widths() (name, id int) {
	key := shownModule{m: it.m, id: it.m.ID, desc: it.m.Descriptor}
	if it.measured != key {
		it.measured = key
		it.nameW = common.Width(render.SanitizeLine(moduleName(it.m)))
		it.idW = common.Width(render.SanitizeLine(it.m.ID))
	}
	return it.nameW, it.idW
}

// rowKey is everything a module's row is drawn from.
type rowKey struct {
	ok     bool
	sel    bool
	w      int
	cols   columns
	styles *styles.Styles
	status runner.Status
	reason string
	id     string
	desc   *modproto.Descriptor
}

// FilterValue matches the module's id and name.
func (it *moduleItem) FilterValue() string {
	name := ""
	if it.m.Descriptor != nil {
		name = it.m.Descriptor.Name
	}
	return it.m.ID + "\x00" + name
}

// Detail is everything known about the module.
func (it *moduleItem) Detail(w int) string { return moduleDetail(it.l.com, it.m, w) }

// Row draws the module as columns: the status badge (fixed width), the
// name, the id (dimmed) and, when the width allows, the reason; each cut
// with … to fit (the columns come from layout).
func (it *moduleItem) Row(sel bool, w int) string {
	k := rowKey{ok: true, sel: sel, w: w, cols: it.l.cols, styles: it.l.com.Styles,
		status: it.m.Status, reason: it.m.Reason, id: it.m.ID, desc: it.m.Descriptor}
	if it.rowKey != k {
		it.row, it.rowKey = it.drawRow(sel), k
	}
	return it.row
}

// drawRow draws Row's row for the columns laid out.
func (it *moduleItem) drawRow(sel bool) string {
	st := it.l.com.Styles
	cols, m := it.l.cols, it.m
	name := common.Trunc(render.SanitizeLine(moduleName(m)), cols.name)
	if sel {
		name = st.Selected.Render(name)
	}
	line := st.Cursor(sel) + pad(statusBadge(it.l.com, m.Status), cols.badge) + colGap + pad(name, cols.name)
	if cols.id > 0 {
		line += colGap + pad(st.ID.Render(common.Trunc(render.SanitizeLine(m.ID), cols.id)), cols.id)
	}
	if cols.reason > 0 && m.Status != runner.StatusReady && m.Reason != "" {
		line += colGap + st.Muted.Render(common.Trunc(rowReason(m, cols.reason), cols.reason))
	}
	return strings.TrimRight(line, " ")
}

// rowReason is the reason column's text in w cells: the whole reason when
// it fits; for a module that needs setup and does not fit, what it needs,
// by kind and name ("needs binary ffmpeg, env TOKEN"), which stays true
// when cut short (the detail pane has the whole reason).
func rowReason(m *runner.Module, w int) string {
	whole := render.SanitizeLine(m.Reason)
	if common.Width(whole) <= w || m.Status != runner.StatusNeedsSetup {
		return whole
	}
	var missing []string
	for _, r := range m.RequirementStates() {
		if r.State == runner.RequirementMissing {
			missing = append(missing, render.SanitizeLine(r.Kind+" "+r.Name))
		}
	}
	if len(missing) == 0 {
		return whole
	}
	return "needs " + strings.Join(missing, ", ")
}

// layout fits the columns to the modules shown in w cells.
func (l *moduleList) layout(shown []list.Item, w int) {
	key := layoutKey{shown: make([]shownModule, len(shown)), w: w, styles: l.com.Styles}
	for i, it := range shown {
		m := it.(*moduleItem).m
		key.shown[i] = shownModule{m: m, id: m.ID, desc: m.Descriptor}
	}
	if key.w == l.laidOut.w && key.styles == l.laidOut.styles && slices.Equal(key.shown, l.laidOut.shown) {
		return
	}
	l.laidOut = key
	var nameW, idW int
	for _, it := range shown {
		n, i := it.(*moduleItem).widths()
		nameW, idW = max(nameW, n), max(idW, i)
	}
	l.cols = tableColumns(w, badgeWidth(l.com), nameW, idW)
}

// setModules lists mods (in the order given), keeping the selection on the
// module it was on, found by ID and source identity (Key), else by ID
// alone (and on the module kept across a discovery, keep).
func (l *moduleList) setModules(mods []*runner.Module) {
	l.modules = mods
	// A module keeps its item while it stays listed, so the detail
	// cache (keyed by item) survives other modules arriving.
	had := map[*runner.Module]list.Item{}
	for _, it := range l.list.Items() {
		had[it.(*moduleItem).m] = it
	}
	items := make([]list.Item, len(mods))
	for i, m := range mods {
		if it, ok := had[m]; ok {
			items[i] = it
		} else {
			items[i] = &moduleItem{l: l, m: m}
		}
	}
	l.owned = false
	l.placeItems(items)
}

// placeItems gives the list items (one per l.modules, in order), keeping
// the selection on the module it was on, found by ID and source identity
// (Key), else by ID alone (and on the module kept across a discovery,
// keep).
func (l *moduleList) placeItems(items []list.Item) {
	want := l.keep
	if sel := l.Selected(); want == "" && sel != nil && l.list.Moved() {
		want = sel.ID
	}
	l.list.SetItems(items, func(a, b list.Item) bool {
		x, y := a.(*moduleItem).m, b.(*moduleItem).m
		return x.ID == y.ID && x.Key == y.Key
	})
	// The same id from another source identity (a reloaded host) is
	// still the module the person was on.
	if want == "" {
		return
	}
	if sel := l.Selected(); sel != nil && sel.ID == want ||
		l.list.SelectWhere(func(it list.Item) bool { return it.(*moduleItem).m.ID == want }) {
		l.keep = ""
	}
}

// StartDiscovery empties the list for a discovery of total modules, which
// then arrive one by one through AddModule.
func (l *moduleList) StartDiscovery(total int) {
	if sel := l.Selected(); sel != nil && l.list.Moved() {
		l.keep = sel.ID
	}
	l.setModules(nil)
	l.pending = total
}

// AddModules lists modules as soon as their describes finished, in ID
// order, keeping the selection. It inserts into the list's own slices
// (StartDiscovery began them): the other modules' items are kept as they
// are, not rebuilt, so a streamed discovery costs the same per module at
// any count.
func (l *moduleList) AddModules(mods []*runner.Module) {
	if len(mods) == 0 {
		return
	}
	if !l.owned { // another's slice (SetModules): copied before writing
		l.modules, l.owned = slices.Clone(l.modules), true
	}
	items := l.list.Items()
	for _, m := range mods {
		i, _ := slices.BinarySearchFunc(l.modules, m, runner.CompareModules)
		l.modules = slices.Insert(l.modules, i, m)
		items = slices.Insert(items, i, list.Item(&moduleItem{l: l, m: m}))
		if l.pending > 0 {
			l.pending--
		}
	}
	l.placeItems(items)
}

// SetModules replaces the list, keeping the selected module when present.
func (l *moduleList) SetModules(mods []*runner.Module) {
	l.setModules(mods)
	l.keep = ""
	l.discovering = false
	l.pending = -1
}

// Kind implements Screen.
func (l *moduleList) Kind() screenKind { return screenModules }

// SetSize implements Screen.
func (l *moduleList) SetSize(w, h int) { l.list.SetSize(w, h) }

// Selected returns the module under the cursor, or nil.
func (l *moduleList) Selected() *runner.Module {
	if it, ok := l.list.Selected().(*moduleItem); ok {
		return it.m
	}
	return nil
}

// Typing implements Screen: keys go to the filter.
func (l *moduleList) Typing() bool { return l.list.Typing() }

// Crumb implements Screen: how many modules, once discovery is done.
func (l *moduleList) Crumb(top bool) string {
	if !top || l.discovering {
		return ""
	}
	n := len(l.modules)
	return l.com.Styles.Muted.Render(fmt.Sprintf("%d %s", n, words.Plural(n, "module", "modules")))
}

// Update implements Screen.
func (l *moduleList) Update(msg tea.Msg) (Action, tea.Cmd) {
	if _, ok := msg.(tea.KeyPressMsg); ok {
		l.keep = "" // the person's own move wins
	}
	act, cmd, handled := l.list.Update(msg)
	if a, ok := act.(list.ActionOpen); ok {
		return actionOpen{kind: screenCaps, arg: a.Item.(*moduleItem).m}, cmd
	}
	kp, isKey := msg.(tea.KeyPressMsg)
	if handled || !isKey {
		return nil, cmd
	}
	switch {
	case key.Matches(kp, l.keys.Rediscover):
		return actionRediscover{}, nil
	case key.Matches(kp, l.keys.LogMore) && l.levelDriver() != nil:
		return nil, stepLogLevel(l.levelDriver(), -1)
	case key.Matches(kp, l.keys.LogLess) && l.levelDriver() != nil:
		return nil, stepLogLevel(l.levelDriver(), +1)
	case key.Matches(kp, l.keys.Surface) && hasSurface(l.Selected()):
		return actionOpen{kind: screenSurface, arg: l.Selected()}, nil
	case key.Matches(kp, openHistoryKey):
		return actionOpen{kind: screenHistory}, nil
	case key.Matches(kp, l.keys.Skills):
		return actionOpen{kind: screenSkills}, nil
	case key.Matches(kp, openAgentToolsKey) && l.agentTools:
		return actionOpen{kind: screenAgentTools}, nil
	case key.Matches(kp, l.keys.Quit):
		return actionQuit{}, nil
	}
	return nil, nil
}

// ShortHelp implements help.KeyMap.
func (l *moduleList) ShortHelp() []key.Binding {
	b := l.list.ShortHelp()
	if l.list.Typing() {
		return b
	}
	b = append(b, l.keys.Rediscover)
	if hasSurface(l.Selected()) {
		b = append(b, l.keys.Surface)
	}
	if l.levelDriver() != nil {
		b = append(b, l.keys.LogMore, l.keys.LogLess)
	}
	return append(b, l.keys.Quit)
}

// levelDriver is the selected module's driver when it takes a log level
// (an MCP server), else nil.
func (l *moduleList) levelDriver() logLeveler {
	m := l.Selected()
	if m == nil {
		return nil
	}
	ld, _ := m.Driver.(logLeveler)
	return ld
}

// logLeveler is a driver whose server's log level can be set
// (mcp.Driver): SetLogLevel asks the server (I/O: run it in a tea.Cmd).
type logLeveler interface {
	LogLevel() string
	SetLogLevel(ctx context.Context, level string) error
}

// logLevels are MCP's levels, most verbose first: + steps left, - right.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// logLevelTimeout bounds asking a server for its level.
const logLevelTimeout = 5 * time.Second

// logLevelMsg is the outcome of asking a server for a log level.
type logLevelMsg struct {
	level string
	err   error
}

// stepLogLevel asks ld's server for the level by steps from its current
// one (-1 more verbose, +1 less), held at debug and emergency, in a
// command (the server answers over its session).
func stepLogLevel(ld logLeveler, by int) tea.Cmd {
	i := max(slices.Index(logLevels, ld.LogLevel()), 0)
	next := logLevels[min(max(i+by, 0), len(logLevels)-1)]
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), logLevelTimeout)
		defer cancel()
		return logLevelMsg{level: next, err: ld.SetLogLevel(ctx, next)}
	}
}

// EssentialHelp is what the help bar keeps at any width: open and quit
// (the filter's own keys while it is typed).
func (l *moduleList) EssentialHelp() []key.Binding {
	return append(l.list.EssentialHelp(), l.keys.Quit)
}

// FullHelp implements help.KeyMap.
func (l *moduleList) FullHelp() [][]key.Binding {
	g := l.list.FullHelp()
	if l.list.Typing() {
		return g
	}
	keys := []key.Binding{l.keys.Rediscover, openHistoryKey, l.keys.Skills}
	if l.agentTools {
		keys = append(keys, openAgentToolsKey)
	}
	if hasSurface(l.Selected()) {
		keys = append(keys, l.keys.Surface)
	}
	if l.levelDriver() != nil {
		keys = append(keys, l.keys.LogMore, l.keys.LogLess)
	}
	return append(g, append(keys, l.keys.Quit))
}

// View implements Screen: the banner, the filter, discovery's progress,
// then the list and the detail pane.
func (l *moduleList) View() string {
	st := l.com.Styles
	w, h := l.list.Width(), l.list.Height()
	var top []string
	if l.banner != "" {
		// The banner wraps: it says why these modules are shown.
		top = append(top, strings.Split(st.Warning.Render(common.FitWidth(common.Wrap(render.SanitizeLine(l.banner), max(w, 1)), w)), "\n")...)
	}
	if l.configNote != "" {
		// The config's own text (a YAML excerpt can quote anything) is
		// sanitized like a module's.
		top = append(top, strings.Split(st.Error.Render(common.FitWidth(common.Wrap(render.SanitizeLine(l.configNote), max(w, 1)), w)), "\n")...)
	}
	if f := l.list.FilterView(); f != "" {
		top = append(top, f)
	}
	if l.discovering {
		if len(l.modules) == 0 {
			top = append(top, l.sp.View()+" "+st.Muted.Render("discovering modules…"))
			return strings.Join(top, "\n")
		}
		what := "describing more…"
		if l.pending > 0 {
			what = fmt.Sprintf("describing %d more…", l.pending)
		}
		top = append(top, l.sp.View()+" "+st.Muted.Render(what))
	}
	if len(l.modules) == 0 {
		top = append(top, st.Muted.Render("No modules found."))
		return strings.Join(top, "\n")
	}
	return strings.Join(append(top, l.list.PaneView(h-len(top))), "\n")
}

// Table layout of the module list.
const (
	// colGap separates the list's columns.
	colGap = "  "
	// minNameCol and minReasonCol are the narrowest name and reason
	// columns worth showing (cells); maxNameCol keeps one long name from
	// pushing the ids and reasons off the row.
	minNameCol   = 8
	minIDCol     = 16
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
func tableColumns(w, badge, nameW, idW int) columns {
	c := columns{badge: badge}
	gap := len(colGap)
	left := w - cursorWidth - badge - gap
	// The id is what a person types on the command line: the name gives
	// way (down to minNameCol) so that ids up to minIDCol cells stay whole.
	wantID := min(idW, minIDCol)
	c.name = max(min(nameW, maxNameCol, left-wantID-gap), min(minNameCol, max(left, 0)))
	left -= c.name + gap
	if left > 0 {
		c.id = min(idW, left)
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
	if k, v, ok := launchOf(m); ok {
		b.kv(k, v)
	} else {
		b.kv("Executable", m.Exe)
	}
	status := statusBadge(com, m.Status)
	if m.Reason != "" {
		status += " " + render.SanitizeLine(m.Reason)
	}
	b.kvBadge("Status", status)
	if m.Origin == "mcp" && m.Cached && !m.DescribedAt.IsZero() && com.Now != nil {
		// An MCP server's tool list read from the cache: how old it is.
		b.kvStyled("Tools", st.Muted.Render("as of "+words.Ago(com.Now(), m.DescribedAt)+" (r lists them again)"))
	}
	if d == nil {
		if m.Stderr != "" {
			b.heading("Describe stderr")
			b.text(lastLines(render.Sanitize(m.Stderr), 6))
		}
		b.violations(m)
		return b.String()
	}
	listed := d.Listed()
	head := fmt.Sprintf("Capabilities (%d)", len(listed))
	if n := len(d.Capabilities) - len(listed); n > 0 {
		head = fmt.Sprintf("Capabilities (%d + %d hidden)", len(listed), n)
	}
	b.heading(head)
	for _, c := range listed {
		b.line("• " + st.Text.Bold(true).Render(render.SanitizeLine(common.TitleOr(c.Title, c.ID))) + " " + st.ID.Render(render.SanitizeLine(c.ID)))
		b.indented(render.SanitizeLine(c.Summary))
		b.indented(strings.Join(render.EffectBadges(c.Effects, c.LongRunning), " · "))
	}
	catalog(&b, m)
	serverLog(&b, m)
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
			if r.State == runner.RequirementMissing && r.Kind == "binary" && slices.Contains(d.Permissions.Subprocess, r.Name) {
				// The host resolves declared binaries itself (config
				// binaries: first, then PATH): say how, and that r on
				// this list reads the edited config.
				b.indented(st.Muted.Render("fix: in the home's config.yaml, binaries: { " + render.SanitizeLine(r.Name) +
					": /path/to/it }, then press r here (reloads config.yaml)"))
			}
		}
	}
	b.heading("Permissions")
	p := d.Permissions
	if m.Origin != "mcp" {
		// Not requested but real: every module run gets the workspace
		// root read-write (docs/protocol.md §4, roots), so what a module may write
		// is not only its Write list.
		b.kv("Workspace", "rw, always supplied (the person's working folder)")
	}
	if sr, ok := m.Driver.(runner.ServerRooted); ok {
		// An MCP server touches its config entry's folders, not
		// declared roots.
		var read, write []string
		roots := sr.ServerRoots()
		for _, path := range slices.Sorted(maps.Keys(roots)) {
			if roots[path] == "ro" {
				read = append(read, render.SanitizeLine(path))
			} else {
				write = append(write, render.SanitizeLine(path)+" ("+render.SanitizeLine(roots[path])+")")
			}
		}
		b.kv("Read", listOrNone(read)+" (its config entry's roots: and needs:)")
		b.kv("Write", listOrNone(write))
	} else {
		b.kv("Read", listOrNone(p.FilesystemRead))
		b.kv("Write", listOrNone(p.FilesystemWrite))
	}
	b.kv("Network", listOrNone(p.Network))
	b.kv("Credentials", listOrNone(p.Credentials))
	b.kv("Paid", listOrNone(p.PaidProviders))
	b.kv("Publish", yesNo(p.Publish))
	b.kv("Subprocess", listOrNone(p.Subprocess))
	if len(d.Skills) > 0 {
		b.heading("Skills")
		for _, s := range d.Skills {
			b.line(fmt.Sprintf("• %s %s", render.SanitizeLine(common.TitleOr(s.Title, s.ID)), st.Muted.Render(tokens(s.Tokens))))
		}
	}
	if len(d.AgentOverlays) > 0 {
		b.heading("Overlays")
		for _, o := range d.AgentOverlays {
			b.line(fmt.Sprintf("• %s %s", render.SanitizeLine(common.TitleOr(o.Title, o.ID)), st.Muted.Render(tokens(o.Tokens))))
		}
	}
	b.violations(m)
	return b.String()
}

// launchDriver is a driver reached without an executable of its own
// (mcp.Driver.Launch): it says how, a stdio server's command line or a
// remote server's URL.
type launchDriver interface {
	Launch() string
}

// launchOf is what stands for m's executable when m has none: ("Command",
// line) for a stdio server, ("URL", url) for a remote one; ok is false
// for a process module (or a driver that cannot say).
func launchOf(m *runner.Module) (label, value string, ok bool) {
	ld, isLaunch := m.Driver.(launchDriver)
	if m.Exe != "" || !isLaunch {
		return "", "", false
	}
	v := ld.Launch()
	if strings.HasPrefix(v, "https://") || strings.HasPrefix(v, "http://") {
		return "URL", v, true
	}
	return "Command", v, true
}

// catalogDriver is a driver that lists what its module offers beside
// its capabilities, read-only: an MCP server's resources and prompts
// (mcp.Driver.Catalog), as lines, held in memory (no I/O).
type catalogDriver interface {
	Catalog() (resources, prompts, problems []string)
}

// logDriver is a driver that keeps its server's log messages between
// calls (mcp.Driver): the last n as lines, raw, and the level asked for.
// Neither does I/O.
type logDriver interface {
	LogLines(n int) []string
	LogLevel() string
}

// logsDeclarer is a log driver that knows whether its server declared
// MCP's logging capability (known once connected). No I/O.
type logsDeclarer interface {
	LogsDeclared() (declared, known bool)
}

// serverLogLines is how many of a server's log messages the detail pane
// shows.
const serverLogLines = 12

// serverLog shows the newest log messages of m's server, kept between
// calls, with the level they were asked at.
func serverLog(b *detailBuilder, m *runner.Module) {
	ld, ok := m.Driver.(logDriver)
	if !ok {
		return
	}
	lines := ld.LogLines(serverLogLines)
	b.heading("Log (level " + render.SanitizeLine(ld.LogLevel()) + " and above, newest first)")
	if dd, ok := m.Driver.(logsDeclarer); ok {
		if declared, known := dd.LogsDeclared(); known && !declared {
			b.wrapped(b.com.Styles.Warning, "the server does not declare MCP's logging capability: it is not asked for a level and sends no log messages")
		}
	}
	if len(lines) == 0 {
		b.line(b.com.Styles.Muted.Render("no log messages yet"))
		return
	}
	for _, l := range lines {
		b.wrapped(b.com.Styles.Text, render.SanitizeLine(l))
	}
}

// catalog lists m's resources and prompts when its driver has them.
func catalog(b *detailBuilder, m *runner.Module) {
	cd, ok := m.Driver.(catalogDriver)
	if !ok {
		return
	}
	res, prompts, problems := cd.Catalog()
	for _, sec := range []struct {
		title string
		lines []string
	}{{"Resources", res}, {"Prompts", prompts}} {
		if len(sec.lines) == 0 {
			continue
		}
		head := sec.title + " (read-only)"
		if hasSurface(m) {
			// R on the module list and on its capabilities.
			head = sec.title + " (R opens them)"
		}
		b.heading(head)
		for _, l := range sec.lines {
			b.wrapped(b.com.Styles.Text, "• "+render.SanitizeLine(l))
		}
	}
	for _, p := range problems {
		b.wrapped(b.com.Styles.Warning, "! "+render.SanitizeLine(p))
	}
}

// requirementLine draws a requirement as discovery judged it: ✓
// available, ✗ needs setup, or not probed (docs/protocol.md §9: never call an
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

// tokens is a skill's or overlay's size, "(1 token)", "(120 tokens)".
func tokens(n int) string {
	return fmt.Sprintf("(%d %s)", n, words.Plural(n, "token", "tokens"))
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
