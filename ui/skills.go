package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"modbay/internal/words"
	"modbay/render"
	"modbay/runner"
	"modbay/skills"
	"modbay/ui/common"
	"modbay/ui/list"
)

// screenSkills lists the modules' skills and overlays and the skill
// folders' skills (docs/skills.md).
const screenSkills screenKind = "skills"

func init() { register(screenSkills, openSkillsScreen) }

// SkillsKeyMap is the skills screen's own bindings, beside the list's.
type SkillsKeyMap struct {
	// Back returns to the module list.
	Back key.Binding
	// Quit quits (never while the filter takes the keys).
	Quit key.Binding
	// Toggle loads the selected skill into the session, or unloads it.
	Toggle key.Binding
	// UnloadAll unloads every active skill.
	UnloadAll key.Binding
	// Agent shows what the agent sees: the catalog and the active skills.
	Agent key.Binding
	// Arguments opens the selected skill's arguments form.
	Arguments key.Binding
	// Resources lists the selected skill's resources.
	Resources key.Binding
	// Run asks to run the selected script; Approve and Deny answer.
	Run, Approve, Deny key.Binding
}

// defaultSkillsKeys are the skills screen's bindings.
func defaultSkillsKeys() SkillsKeyMap {
	return SkillsKeyMap{
		Back:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Quit:      key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		Toggle:    key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "load/unload")),
		UnloadAll: key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "unload all")),
		Agent:     key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "what the agent sees")),
		Arguments: key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "arguments")),
		Resources: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "resources")),
		Run:       key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "run script")),
		Approve:   key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "run it")),
		Deny:      key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "don't run")),
	}
}

// skillsScreen lists every skill the cockpit knows, with the selected
// one's detail; enter shows it rendered as an agent would get it, in the
// markdown viewer.
type skillsScreen struct {
	com  *common.Common
	keys SkillsKeyMap
	list *list.Model
	// loading is true until the load's answer arrives.
	loading bool
	// missing are skill folders that do not exist.
	missing []string
	// note is the last enter's refusal ("" for none).
	note string
	// session is the cockpit's active skills (it outlives the screen).
	session *skills.Session
	// renderedDir is where renderings are written (Options.RenderedDir).
	renderedDir string
	// widest are the widest name, status and source of the items, in
	// cells (measured when they are set); cols the columns fitted from
	// them for the row width colsW.
	widest skillCols
	cols   skillCols
	colsW  int
}

// skillActivatedMsg is a module document read and checked for loading,
// or why it cannot be loaded.
type skillActivatedMsg struct {
	to     *skillsScreen
	active skills.Active
	err    error
}

// skillsLoadedMsg is the skills found by load gen: the folders' catalog
// and each module document as checked.
type skillsLoadedMsg struct {
	// to is the screen that asked: an answer for another is dropped.
	to      *skillsScreen
	catalog skills.Catalog
	docs    []docState
}

// docState is a module document and what checking it found.
type docState struct {
	doc skills.Doc
	// size is the file's size (0 when unread).
	size int
	// err is why it is refused (a *skills.DriftError for a drifted file).
	err error
}

// skillOpenMsg is the file an enter rendered, ready for the viewer, or
// why it could not be.
type skillOpenMsg struct {
	to   Screen
	file fileViewerArg
	err  error
}

// openSkillsScreen lists the skills: the modules' documents (from the
// module list) and the configured folders' skills, loaded by a command.
func openSkillsScreen(m *Model, _ any) (Screen, tea.Cmd) {
	s := &skillsScreen{com: m.com, keys: m.keys.Skills, loading: true, session: &m.skillSession, renderedDir: m.opts.RenderedDir,
		list: list.New(m.com, m.keys.List, "filter by name or source", "No skill matches the filter.")}
	var mods []*runner.Module
	if m.modules != nil {
		mods = m.modules.modules
	}
	return s, loadSkills(s, mods, m.opts.SkillFolders, m.opts.SkillWritableRoots)
}

// loadSkills indexes the folders and checks every module document (their
// digests), off the UI's goroutine.
func loadSkills(to *skillsScreen, mods []*runner.Module, folders []skills.Folder, writable []string) tea.Cmd {
	return func() tea.Msg {
		msg := skillsLoadedMsg{to: to, catalog: skills.Scan(folders, writable)}
		for _, mod := range mods {
			for _, d := range skills.Docs(mod.ID, mod.Dir, mod.Descriptor) {
				b, err := d.Load()
				msg.docs = append(msg.docs, docState{doc: d, size: len(b), err: err})
			}
		}
		return msg
	}
}

// SetLoaded lists what a load found.
func (s *skillsScreen) SetLoaded(msg skillsLoadedMsg) {
	s.loading = false
	s.missing = msg.catalog.Missing
	var items []list.Item
	for i := range msg.docs {
		items = append(items, &docItem{s: s, st: msg.docs[i]})
	}
	for i := range msg.catalog.Skills {
		items = append(items, &folderItem{s: s, r: msg.catalog.Skills[i]})
	}
	s.widest, s.colsW = skillCols{}, -1
	for _, it := range items {
		n, st, src, _ := skillCells(it)
		s.widest.name = max(s.widest.name, common.Width(n))
		s.widest.status = max(s.widest.status, common.Width(st))
		s.widest.source = max(s.widest.source, common.Width(src))
	}
	s.list.SetItems(items, nil)
}

// skillCols are the widths in cells of the skills list's columns (0
// hides one): name, status, source, description.
type skillCols struct{ name, status, source, desc int }

// Bounds of the skills list's columns, in cells: a long name or source
// gives way so the status and the description stay on the row.
const (
	maxSkillNameCol   = 32
	maxSkillSourceCol = 14
	minSkillSourceCol = 6
	minSkillDescCol   = 16
	// activeMarkWidth is the "● " column before the name.
	activeMarkWidth = 2
)

// columnsFor fits the columns into rows w cells wide: the name as wide as
// the widest (up to maxSkillNameCol, at least minNameCol), the status
// whole, the source as wide as the widest (up to maxSkillSourceCol),
// and the description what is left when there is enough of it.
func (s *skillsScreen) columnsFor(w int) skillCols {
	if w == s.colsW {
		return s.cols
	}
	gap := len(colGap)
	left := w - cursorWidth - activeMarkWidth
	var c skillCols
	c.name = max(min(s.widest.name, maxSkillNameCol, left), min(minNameCol, max(left, 0)))
	left -= c.name + gap
	if left > 0 {
		c.status = min(s.widest.status, left)
		left -= c.status + gap
	}
	if left >= minSkillSourceCol {
		c.source = min(s.widest.source, maxSkillSourceCol, left)
		left -= c.source + gap
	}
	if left >= minSkillDescCol {
		c.desc = left
	}
	s.cols, s.colsW = c, w
	return c
}

// skillCells are an item's plain cells: name, status, source and
// description, sanitized.
func skillCells(it list.Item) (name, status, source, desc string) {
	switch it := it.(type) {
	case *docItem:
		d := it.st.doc
		desc = d.Summary
		if desc == "" {
			desc = d.Title
		}
		return render.SanitizeLine(d.Name()), ansi.Strip(docStatus(it.s.com, it.st)), render.SanitizeLine("module " + d.Kind), render.SanitizeLine(desc)
	case *folderItem:
		return render.SanitizeLine(it.r.Key.Name), ansi.Strip(recordStatus(it.s.com, it.r)), render.SanitizeLine(folderSource(it.r)), render.SanitizeLine(it.r.Description)
	}
	return "", "", "", ""
}

// docItem is a module skill or overlay as a list item.
type docItem struct {
	s  *skillsScreen
	st docState
}

// FilterValue matches the document's name and module.
func (it *docItem) FilterValue() string {
	return it.st.doc.Module + "/" + it.st.doc.ID + "\x00" + it.st.doc.Title + "\x00module"
}

// Row draws "module/id  status  module skill  summary" in columns.
func (it *docItem) Row(sel bool, w int) string {
	return skillRow(it.s, it, sel, w, docStatus(it.s.com, it.st))
}

// docStatus is a document's status: its tokens, or drifted.
func docStatus(com *common.Common, st docState) string {
	switch {
	case errors.Is(st.err, skills.ErrDrifted):
		return com.Styles.Error.Render("✗ drifted")
	case st.err != nil:
		return com.Styles.Error.Render("✗ unreadable")
	}
	return com.Styles.Muted.Render(skills.TokenText(st.doc.Tokens, st.size))
}

// Detail describes the document, with both digests when it drifted.
func (it *docItem) Detail(w int) string {
	st := it.s.com.Styles
	d := it.st.doc
	b := detailBuilder{com: it.s.com, w: w}
	b.line(st.Title.Render(render.SanitizeLine(common.TitleOr(d.Title, d.ID))))
	b.kv("Module", d.Module)
	b.kv("Kind", "module "+d.Kind)
	b.kv("ID", d.ID)
	b.kv("Summary", d.Summary)
	b.kv("Path", d.Path)
	if t := skills.TokenText(d.Tokens, it.st.size); t != "" {
		b.kv("Tokens", t)
	}
	var de *skills.DriftError
	switch {
	case errors.As(it.st.err, &de):
		b.heading("Refused: the file changed")
		b.wrapped(st.Error, "The file under the module directory is not the one the descriptor names; it is not shown.")
		b.kv("Declared", de.Declared)
		b.kv("File", de.Actual)
	case it.st.err != nil:
		b.heading("Refused")
		b.wrapped(st.Error, render.SanitizeLine(it.st.err.Error()))
	default:
		b.kv("Digest", d.Digest+" (checked)")
		b.line("")
		b.line(st.Muted.Render("enter shows it as an agent gets it"))
	}
	return b.String()
}

// folderItem is a folder skill as a list item.
type folderItem struct {
	s *skillsScreen
	r skills.Record
}

// FilterValue matches the skill's listed name and source.
func (it *folderItem) FilterValue() string { return it.r.Key.Name + "\x00" + it.r.Source }

// Row draws "name  status  source  description" in columns.
func (it *folderItem) Row(sel bool, w int) string {
	return skillRow(it.s, it, sel, w, recordStatus(it.s.com, it.r))
}

// folderSource is where a folder skill was found, flagged when modules
// may write it (who did is not known).
func folderSource(r skills.Record) string {
	if r.ModuleWritable {
		return r.Source + ", modules may write it"
	}
	return r.Source
}

// recordStatus is a folder skill's status: unusable, its warnings, or
// its tokens.
func recordStatus(com *common.Common, r skills.Record) string {
	st := com.Styles
	switch n := len(r.Warnings); {
	case !r.Usable():
		return st.Error.Render("✗ unusable")
	case n > 0:
		return st.Warning.Render(fmt.Sprintf("! %d %s", n, words.Plural(n, "warning", "warnings")))
	}
	return st.Muted.Render(skills.TokenText(0, r.Bytes))
}

// skillRow draws item it's row in the screen's columns for w cells:
// cursor, "● " when the skill is active, name, status (styled, as
// given), source (dimmed) and description (muted), each cut with … to
// its column.
func skillRow(s *skillsScreen, it list.Item, sel bool, w int, status string) string {
	st := s.com.Styles
	c := s.columnsFor(w)
	name, plainStatus, source, desc := skillCells(it)
	n := common.Trunc(name, c.name)
	if sel {
		n = st.Selected.Render(n)
	}
	mark := "  "
	if s.isActive(it) {
		mark = st.Success.Render("● ")
	}
	if common.Width(plainStatus) > c.status {
		status = common.Trunc(plainStatus, c.status)
	}
	line := st.Cursor(sel) + mark + pad(n, c.name)
	if c.status > 0 {
		line += colGap + pad(status, c.status)
	}
	if c.source > 0 {
		line += colGap + pad(st.ID.Render(common.Trunc(source, c.source)), c.source)
	}
	if c.desc > 0 && desc != "" {
		line += colGap + st.Muted.Render(common.Trunc(desc, c.desc))
	}
	return common.Trunc(strings.TrimRight(line, " "), w)
}

// Detail describes the folder skill: its frontmatter fields, resources,
// warnings, or why it is unusable.
func (it *folderItem) Detail(w int) string {
	st := it.s.com.Styles
	r := it.r
	b := detailBuilder{com: it.s.com, w: w}
	b.line(st.Title.Render(render.SanitizeLine(common.TitleOr(r.DisplayName, r.Name))))
	b.kv("Name", r.Key.Name)
	b.kv("Source", folderSource(r))
	b.kv("Folder", r.Key.Location)
	if !r.Usable() {
		b.heading("Unusable")
		b.wrapped(st.Error, render.SanitizeLine(r.Err))
		return b.String()
	}
	b.kv("Description", r.Description)
	b.kv("Insert", r.Insert)
	b.kv("Tokens", skills.TokenText(0, r.Bytes))
	b.kv("Digest", r.Digest)
	if len(r.Arguments) > 0 {
		b.heading(fmt.Sprintf("Arguments (%d)", len(r.Arguments)))
		for _, a := range r.Arguments {
			line := "• " + render.SanitizeLine(a.Name)
			if a.Default != "" {
				line += st.Muted.Render(" = " + render.SanitizeLine(a.Default))
			}
			if a.Description != "" {
				line += st.Muted.Render(" — " + render.SanitizeLine(a.Description))
			}
			b.line(line)
		}
	}
	if ri := r.Resources; ri.HasResources {
		b.heading(fmt.Sprintf("Resources (%d)", ri.TotalCount))
		for _, l := range ri.Locations[:min(len(ri.Locations), maxDetailResources)] {
			b.line("• " + render.SanitizeLine(l))
		}
		if more := ri.TotalCount - min(len(ri.Locations), maxDetailResources); more > 0 {
			b.line(st.Muted.Render(fmt.Sprintf("… %d more", more)))
		}
	}
	if len(r.RawFrontmatter) > 0 {
		b.heading("Frontmatter")
		for _, k := range slices.Sorted(maps.Keys(r.RawFrontmatter)) {
			v, err := json.Marshal(r.RawFrontmatter[k])
			text := string(v)
			if str, ok := r.RawFrontmatter[k].(string); ok {
				text = str
			} else if err != nil {
				text = fmt.Sprint(r.RawFrontmatter[k])
			}
			b.kv(common.Trunc(render.SanitizeLine(k), frontmatterKeyWidth), text)
		}
	}
	if len(r.Warnings) > 0 {
		b.heading(fmt.Sprintf("Warnings (%d)", len(r.Warnings)))
		for _, wn := range r.Warnings {
			b.wrapped(st.Warning, "! "+render.SanitizeLine(wn))
		}
	}
	b.line("")
	b.line(st.Muted.Render("enter shows it as an agent gets it"))
	return b.String()
}

// frontmatterKeyWidth is the widest frontmatter key shown whole in the
// detail's table (the label column).
const frontmatterKeyWidth = 11

// maxDetailResources is how many resources the detail pane lists.
const maxDetailResources = 12

// Kind implements Screen.
func (s *skillsScreen) Kind() screenKind { return screenSkills }

// SetSize implements Screen.
func (s *skillsScreen) SetSize(w, h int) { s.list.SetSize(w, h) }

// Typing implements Screen: keys go to the filter.
func (s *skillsScreen) Typing() bool { return s.list.Typing() }

// Crumb implements Screen.
func (s *skillsScreen) Crumb(bool) string { return "skills" }

// Update implements Screen.
func (s *skillsScreen) Update(msg tea.Msg) (Action, tea.Cmd) {
	switch msg := msg.(type) {
	case skillsLoadedMsg:
		if msg.to == s {
			s.SetLoaded(msg)
		}
		return nil, nil
	case skillOpenMsg:
		if msg.to != Screen(s) {
			return nil, nil
		}
		if msg.err != nil {
			s.note = msg.err.Error()
			return nil, nil
		}
		return actionOpen{kind: screenViewer, arg: msg.file}, nil
	case skillActivatedMsg:
		if msg.to != s {
			return nil, nil
		}
		if msg.err != nil {
			s.note = msg.err.Error()
			return nil, nil
		}
		s.session.Load([]skills.Active{msg.active}, skills.LoadAdd)
		return nil, nil
	}
	act, cmd, handled := s.list.Update(msg)
	if a, ok := act.(list.ActionOpen); ok {
		s.note = ""
		return nil, s.openItem(a.Item)
	}
	kp, isKey := msg.(tea.KeyPressMsg)
	if handled || !isKey {
		return nil, cmd
	}
	switch {
	case key.Matches(kp, s.keys.Back):
		return actionPop{}, nil
	case key.Matches(kp, s.keys.Quit):
		return actionQuit{}, nil
	case key.Matches(kp, s.keys.Toggle):
		s.note = ""
		return nil, s.toggle(s.list.Selected())
	case key.Matches(kp, s.keys.UnloadAll) && len(s.session.Handles()) > 0:
		s.session.Unload(nil, true)
	case key.Matches(kp, s.keys.Agent):
		return nil, s.whatTheAgentSees()
	case key.Matches(kp, s.keys.Arguments):
		if r, ok := s.withArguments(); ok {
			return actionOpen{kind: screenSkillArgs, arg: r}, nil
		}
	case key.Matches(kp, s.keys.Resources):
		if r, ok := s.withResources(); ok {
			return actionOpen{kind: screenSkillResources, arg: r}, nil
		}
	}
	return nil, nil
}

// withArguments is the selected skill when it is a usable folder skill
// that declares arguments.
func (s *skillsScreen) withArguments() (skills.Record, bool) {
	if it, ok := s.list.Selected().(*folderItem); ok && it.r.Usable() && len(it.r.Arguments) > 0 {
		return it.r, true
	}
	return skills.Record{}, false
}

// withResources is the selected skill when it is a usable folder skill
// with resources.
func (s *skillsScreen) withResources() (skills.Record, bool) {
	if it, ok := s.list.Selected().(*folderItem); ok && it.r.Usable() && it.r.Resources.HasResources {
		return it.r, true
	}
	return skills.Record{}, false
}

// handleOf is the session handle of a list item.
func handleOf(it list.Item) (skills.Handle, bool) {
	switch it := it.(type) {
	case *folderItem:
		return skills.Handle{Name: it.r.Key.Name, Location: it.r.Key.Location}, true
	case *docItem:
		return skills.Handle{Name: it.st.doc.Name(), Location: it.st.doc.Dir}, true
	}
	return skills.Handle{}, false
}

// isActive reports whether the item is loaded in the session.
func (s *skillsScreen) isActive(it list.Item) bool {
	h, ok := handleOf(it)
	return ok && s.session.IsActive(h)
}

// toggle unloads the item when active, else loads it (added to the
// session): a folder skill rendered with its defaults at once, a module
// document read and checked again by a command.
func (s *skillsScreen) toggle(it list.Item) tea.Cmd {
	h, ok := handleOf(it)
	if !ok {
		return nil
	}
	if s.session.IsActive(h) {
		s.session.Unload([]skills.Handle{h}, false)
		return nil
	}
	to := s
	switch it := it.(type) {
	case *folderItem:
		if !it.r.Usable() {
			s.note = it.r.Key.Name + " is unusable: " + it.r.Err
			return nil
		}
		a, _ := skills.ActivateRecord(it.r, nil)
		s.session.Load([]skills.Active{a}, skills.LoadAdd)
	case *docItem:
		d := it.st.doc
		return func() tea.Msg {
			b, err := d.Load()
			if err != nil {
				return skillActivatedMsg{to: to, err: err}
			}
			return skillActivatedMsg{to: to, active: d.Activate(b)}
		}
	}
	return nil
}

// whatTheAgentSees composes the catalog (usable folder skills and
// checked module skills) and the active skills into one markdown file
// and opens it in the viewer, where it can be saved.
func (s *skillsScreen) whatTheAgentSees() tea.Cmd {
	var catalog []skills.CatalogEntry
	for _, it := range s.list.Items() {
		switch it := it.(type) {
		case *folderItem:
			if it.r.Usable() {
				catalog = append(catalog, skills.CatalogOf(it.r))
			}
		case *docItem:
			if it.st.err == nil && it.st.doc.Kind == skills.KindSkill {
				catalog = append(catalog, it.st.doc.Catalog())
			}
		}
	}
	text := skills.WhatTheAgentSees(catalog, s.session)
	dir := s.renderedDir
	to, n := s, len(s.session.Handles())
	return func() tea.Msg {
		meta := render.Meta{Title: fmt.Sprintf("What the agent sees: %d available, %d active", len(catalog), n), MediaType: "text/markdown"}
		return writeRendered(dir, to, "what-the-agent-sees", text, meta)
	}
}

// openItem renders the item as an agent would get it into a file for the
// markdown viewer: a folder skill's body with its arguments' defaults, a
// module document's body after checking its digest again (a file that
// drifted since the list was made is refused).
func (s *skillsScreen) openItem(it list.Item) tea.Cmd {
	to, dir := s, s.renderedDir
	switch it := it.(type) {
	case *folderItem:
		r := it.r
		if !r.Usable() {
			return func() tea.Msg { return skillOpenMsg{to: to, err: fmt.Errorf("%s is unusable: %s", r.Key.Name, r.Err)} }
		}
		return func() tea.Msg {
			res := skills.Render(r.Body, r.Arguments, nil)
			meta := render.Meta{Title: "Skill " + r.Key.Name, MediaType: "text/markdown", Digest: r.Digest}
			return writeRendered(dir, to, r.Key.Name, res.Text, meta)
		}
	case *docItem:
		d := it.st.doc
		return func() tea.Msg {
			b, err := d.Load()
			if err != nil {
				return skillOpenMsg{to: to, err: err}
			}
			meta := render.Meta{Title: fmt.Sprintf("Module %s %s %s", d.Module, d.Kind, d.ID), MediaType: "text/markdown", Digest: d.Digest}
			return writeRendered(dir, to, d.Module+"-"+d.ID, d.Body(b), meta)
		}
	}
	return nil
}

// errNoRenderedDir is why a rendering cannot be opened when the cockpit
// was given no directory for it (Options.RenderedDir).
var errNoRenderedDir = errors.New("no directory to write the rendering into (the cockpit has no home)")

// writeRendered writes text as <dir>/<name>.md (name made safe for a file
// name, one file per name, overwritten on every open) for the viewer; dir
// is Options.RenderedDir, under the home.
func writeRendered(dir string, to Screen, name, text string, meta render.Meta) tea.Msg {
	if dir == "" {
		return skillOpenMsg{to: to, err: errNoRenderedDir}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return skillOpenMsg{to: to, err: err}
	}
	p := filepath.Join(dir, safeFileName(name)+skills.HashSuffix(name)[1:]+".md")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		return skillOpenMsg{to: to, err: err}
	}
	meta.Path, meta.Bytes = p, int64(len(text))
	return skillOpenMsg{to: to, file: fileViewerArg{meta: meta, path: p, crumb: "skill"}}
}

// safeFileName keeps letters, digits, '-', '_' and '.' of s, each other
// character becoming '-'.
func safeFileName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			return r
		}
		return '-'
	}, s) + "-"
}

// ShortHelp implements help.KeyMap.
func (s *skillsScreen) ShortHelp() []key.Binding {
	b := s.list.ShortHelp()
	if s.list.Typing() {
		return b
	}
	if s.list.FilterValue() == "" {
		b = append(b, s.keys.Back)
	}
	if s.list.DetailScrolls() {
		b = append(b, s.list.KeyMap().DetailDown)
	}
	return append(b, s.ownKeys()...)
}

// ownKeys are the screen's bindings that apply now, after back: load,
// unload all (when something is active), what the agent sees, quit.
func (s *skillsScreen) ownKeys() []key.Binding {
	var b []key.Binding
	if len(s.list.Items()) > 0 {
		b = append(b, s.keys.Toggle)
	}
	if _, ok := s.withArguments(); ok {
		b = append(b, s.keys.Arguments)
	}
	if _, ok := s.withResources(); ok {
		b = append(b, s.keys.Resources)
	}
	if len(s.session.Handles()) > 0 {
		b = append(b, s.keys.UnloadAll)
	}
	return append(b, s.keys.Agent, s.keys.Quit)
}

// EssentialHelp is what the help bar keeps at any width: open.
func (s *skillsScreen) EssentialHelp() []key.Binding { return s.list.EssentialHelp() }

// FullHelp implements help.KeyMap.
func (s *skillsScreen) FullHelp() [][]key.Binding {
	g := s.list.FullHelp()
	if s.list.Typing() {
		return g
	}
	var own []key.Binding
	if s.list.FilterValue() == "" {
		own = append(own, s.keys.Back)
	}
	return append(g, append(own, s.ownKeys()...))
}

// View implements Screen: the filter, then the list and the detail, or
// what is being loaded.
func (s *skillsScreen) View() string {
	st := s.com.Styles
	w := s.list.Width()
	if s.loading {
		return st.Muted.Render("reading skills…")
	}
	var top []string
	if h := s.session.Handles(); len(h) > 0 {
		top = append(top, st.Success.Render(common.Trunc(fmt.Sprintf("● %d active %s · %s", len(h), words.Plural(len(h), "skill", "skills"), s.session.TokenTotal()), w)))
	}
	if s.note != "" {
		top = append(top, st.Error.Render(common.Trunc("✗ "+render.SanitizeLine(s.note), w)))
	}
	if len(s.list.Items()) == 0 {
		msg := "No skills: no module declares one, and no skill folder holds one."
		if len(s.missing) > 0 {
			msg += " Looked for " + strings.Join(s.missing, ", ") + "."
		}
		return strings.Join(append(top, st.Muted.Render(common.FitWidth(common.Wrap(render.SanitizeLine(msg), max(w, 1)), w))), "\n")
	}
	if f := s.list.FilterView(); f != "" {
		top = append(top, f)
	}
	return strings.Join(append(top, s.list.PaneView(s.list.Height()-len(top))), "\n")
}

// fileViewerArg opens a file outside any run (a rendered skill) in the
// viewers (viewer.NewFile), with its render metadata and the crumb the
// header shows.
type fileViewerArg struct {
	meta  render.Meta
	path  string
	crumb string
}
