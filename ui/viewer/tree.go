package viewer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"modbay/render"
	"modbay/ui/common"
)

const (
	// maxExpandAllRows stops "expand all" once the tree shows this many
	// rows: a 20 MB document expanded whole is millions of rows nobody
	// reads, and the flattening would blow the frame budget.
	maxExpandAllRows = 200_000
	// treeIndent is the cells of indent per level.
	treeIndent = 2
	// previewCells bounds a collapsed container's inline preview.
	previewCells = 60
	// maxIndentShare bounds a row's indent to this share of the width, so
	// deep nesting at a narrow width never pushes the value off screen;
	// deeper rows show their depth as a number instead ("12›").
	maxIndentShare = 3
	// maxLeafLines bounds the lines one leaf's value wraps onto; a longer
	// value ends in "…" (enter shows it whole).
	maxLeafLines = 10
	// minLeafRoom is the fewest cells a wrapped value gets after its key;
	// with less, it wraps under the key instead.
	minLeafRoom = 12
)

// treeRow is one visible line of the tree: 16 bytes, so a tree expanded
// to maxExpandAllRows rows costs little beside the file.
type treeRow struct {
	// node points into tree.roots or a tree.children slice, which are
	// never reallocated once built.
	node   *render.JSONNode
	depth  int32
	parent int32 // index of the parent row, -1 for a top-level value
}

// tree is the JSON viewer: a collapsible tree over the source bytes. Nodes
// are byte spans (render.JSONRoots, render.JSONChildren) and a container's
// members are indexed only when it is first expanded, so a 20 MB file opens
// after one validation pass and one scan of its top level. Only visible rows
// are drawn. The cursor's jq-style path (.a.b[3]) shows in the footer and y
// copies it (the viewer's clipboard, package clipboard). Search finds text in the raw bytes and expands the
// tree down to the match.
type tree struct {
	com      *common.Common
	keys     KeyMap
	src      []byte
	lower    []byte // lower-cased src, built on the first search
	roots    []render.JSONNode
	children map[int][]render.JSONNode // by node Start
	open     map[int]bool              // expanded nodes, by Start
	rows     []treeRow
	cur, top int
	search   searchBox
	status   string
	// nodes is how many values the document holds (render.JSONCount),
	// counted when expand all first stops at its bound; 0 until then.
	nodes  int
	w, h   int
	styles treeStyles
	// detail shows the whole value of a leaf (enter on a string, number,
	// true, false or null), wrapped; nil when closed.
	detail *pager
}

// treeStyles color the tree's parts.
type treeStyles struct {
	key, str, num, lit, null, punct lipgloss.Style
}

// newTree validates src as JSON (or JSON Lines) and indexes its top level;
// it runs in the load Cmd. Invalid JSON is shown as text with the error.
func newTree(in loadInput, src []byte) (body, string, error) {
	body := bytes.TrimPrefix(src, []byte("\xEF\xBB\xBF"))
	valid := json.Valid(body)
	roots, err := render.JSONRoots(src)
	if !valid {
		// JSON Lines / concatenated values: each root must be valid.
		ok := err == nil && len(roots) > 1
		for _, r := range roots {
			ok = ok && json.Valid(src[r.Start:r.End])
		}
		if !ok {
			if render.IsBinary(src) {
				return binaryBody(in, in.meta)
			}
			// render.JSON is called for its error, which names the line
			// and column of the first fault.
			_, jerr := render.JSON(src, in.opts)
			return newText(in, src), "Invalid JSON: shown as text.", jerr
		}
		for i := range roots {
			roots[i].Index = i
		}
	}
	t := &tree{com: in.com, keys: in.keys, src: src, roots: roots,
		children: map[int][]render.JSONNode{}, open: map[int]bool{},
		search: newSearchBox(in.com, in.keys.Search, "/")}
	t.restyle()
	if len(roots) == 1 {
		t.open[roots[0].Start] = true
	}
	t.rebuild()
	return t, "", nil
}

// restyle builds the colors for the theme.
func (t *tree) restyle() {
	if t.com.NoColor {
		return
	}
	ld := lipgloss.LightDark(t.com.Dark)
	fg := func(light, dark string) lipgloss.Style {
		return lipgloss.NewStyle().Foreground(ld(lipgloss.Color(light), lipgloss.Color(dark)))
	}
	t.styles = treeStyles{
		key: fg("#1F6F8B", "#6FC3DF"), str: fg("#1E7D32", "#6BD178"), num: fg("#8B1F7A", "#E38BE0"),
		lit: fg("#9A6700", "#E8B949"), null: fg("#6B6B6B", "#8A8A8A"), punct: fg("#6B6B6B", "#8A8A8A"),
	}
}

// kids returns n's children, indexing them on first use.
func (t *tree) kids(n render.JSONNode) []render.JSONNode {
	if c, ok := t.children[n.Start]; ok {
		return c
	}
	c, _ := render.JSONChildren(t.src, n)
	t.children[n.Start] = c
	return c
}

// rebuild flattens the expanded tree into rows, keeping the cursor on the
// same node when it is still visible.
func (t *tree) rebuild() {
	curStart := -1
	if t.cur < len(t.rows) {
		curStart = t.rows[t.cur].node.Start
	}
	// Counted first, so the rows are allocated once at their size.
	var count func(n *render.JSONNode) int
	count = func(n *render.JSONNode) int {
		c := 1
		if n.IsContainer() && t.open[n.Start] {
			k := t.kids(*n)
			for i := range k {
				c += count(&k[i])
			}
		}
		return c
	}
	total := 0
	for i := range t.roots {
		total += count(&t.roots[i])
	}
	if cap(t.rows) < total || cap(t.rows) > 2*total+1024 {
		t.rows = make([]treeRow, 0, total)
	}
	t.rows = t.rows[:0]
	var walk func(n *render.JSONNode, depth, parent int32)
	walk = func(n *render.JSONNode, depth, parent int32) {
		idx := int32(len(t.rows))
		t.rows = append(t.rows, treeRow{node: n, depth: depth, parent: parent})
		if n.IsContainer() && t.open[n.Start] {
			k := t.kids(*n)
			for i := range k {
				walk(&k[i], depth+1, idx)
			}
		}
	}
	for i := range t.roots {
		walk(&t.roots[i], 0, -1)
	}
	if curStart >= 0 {
		for i, r := range t.rows {
			if r.node.Start == curStart {
				t.cur = i
				break
			}
		}
	}
	t.clamp()
}

// SetSize implements body.
func (t *tree) SetSize(w, h int) {
	t.w, t.h = w, h
	if t.detail != nil {
		t.openDetail() // re-wrap for the new width
	}
	t.clamp()
}

// bodyH is the rows visible (the footer takes two lines: path and status).
func (t *tree) bodyH() int { return max(t.h-2, 1) }

// clamp keeps the cursor in the rows and its row's lines on screen, and
// the screen full when the rows below allow (a row may take several
// lines: rowLines).
func (t *tree) clamp() {
	t.cur = max(0, min(t.cur, len(t.rows)-1))
	t.top = max(0, min(t.top, t.firstFitting(len(t.rows)-1)))
	if t.cur < t.top {
		t.top = t.cur
	}
	t.top = max(t.top, t.firstFitting(t.cur))
}

// firstFitting is the first row from which rows through last fill at most
// the body's lines (last itself at least): the topmost top that still
// shows last whole.
func (t *tree) firstFitting(last int) int {
	if last < 0 {
		return 0
	}
	top, used := last, t.rowHeight(last)
	for top > 0 {
		h := t.rowHeight(top - 1)
		if used+h > t.bodyH() {
			break
		}
		top, used = top-1, used+h
	}
	return top
}

// rowHeight is how many lines row i takes.
func (t *tree) rowHeight(i int) int { return len(t.rowLines(t.rows[i])) }

// Typing implements body.
func (t *tree) Typing() bool { return t.search.open || (t.detail != nil && t.detail.Typing()) }

// openDetail shows the cursor's leaf whole: its path, its kind and length,
// and its value sanitized and wrapped to the width (the table's row detail
// for one value), in a pager that scrolls and searches.
func (t *tree) openDetail() {
	if t.cur >= len(t.rows) || t.rows[t.cur].node.IsContainer() {
		t.detail = nil
		return
	}
	n := *t.rows[t.cur].node
	st := t.com.Styles
	v := render.SanitizeText(render.JSONLeafValue(t.src, n))
	head := kindName(n.Kind)
	if n.Kind == render.JSONString {
		head += fmt.Sprintf(", %d characters", utf8.RuneCountInString(v))
	}
	lines := []string{
		st.Subtitle.Render(ansi.Truncate(render.SanitizeLine(t.Path(t.cur)), t.w, "…")),
		st.Muted.Render(head), "",
	}
	lines = append(lines, strings.Split(ansi.Wrap(v, max(t.w, 1), ""), "\n")...)
	p := newPager(t.com, t.keys)
	p.SetLines(lines, nil)
	p.SetSize(t.w, t.h)
	t.detail = &p
}

// kindName names a JSON kind for the value pane.
func kindName(k render.JSONKind) string {
	switch k {
	case render.JSONString:
		return "string"
	case render.JSONNumber:
		return "number"
	case render.JSONBool:
		return "boolean"
	}
	return "null"
}

// Path returns the jq-style path of row i (".a.b[3]"; "." for the root).
func (t *tree) Path(i int) string {
	var segs []string
	for i >= 0 && i < len(t.rows) {
		segs = append(segs, render.JSONPathSegment(*t.rows[i].node))
		i = int(t.rows[i].parent)
	}
	var b strings.Builder
	for k := len(segs) - 1; k >= 0; k-- {
		b.WriteString(segs[k])
	}
	if b.Len() == 0 {
		return "."
	}
	return b.String()
}

// Update handles the tree's keys.
func (t *tree) Update(msg tea.Msg) (bool, tea.Cmd) {
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return false, nil
	}
	if t.detail != nil {
		if !t.detail.Typing() && key.Matches(kp, t.keys.Tree.Close) {
			t.detail = nil
			return true, nil
		}
		if !t.detail.Typing() && key.Matches(kp, t.keys.Tree.CopyPath) {
			// The leaf's own JSON path, as y copies in the tree (not the
			// file's path).
			p := t.Path(t.cur)
			return true, func() tea.Msg { return copyMsg{text: p, what: "the JSON path " + p} }
		}
		return t.detail.Update(kp)
	}
	if t.search.open {
		ev, cmd := t.search.Update(kp)
		if ev == searchRun {
			t.find(1, true)
		}
		return true, cmd
	}
	s, k := t.keys.Scroll, t.keys.Tree
	switch {
	case cursorKey(kp, s, &t.cur, &t.top, t.bodyH(), len(t.rows)):
	case key.Matches(kp, k.Toggle) || key.Matches(kp, k.Value):
		if n := t.rows[t.cur].node; n.IsContainer() {
			t.open[n.Start] = !t.open[n.Start]
			t.rebuild()
		} else if key.Matches(kp, k.Value) {
			t.openDetail()
		}
	case key.Matches(kp, s.Right):
		if n := t.rows[t.cur].node; n.IsContainer() {
			if t.open[n.Start] {
				t.cur++
			} else {
				t.open[n.Start] = true
				t.rebuild()
			}
		}
	case key.Matches(kp, s.Left):
		if n := t.rows[t.cur].node; n.IsContainer() && t.open[n.Start] {
			t.open[n.Start] = false
			t.rebuild()
		} else if p := t.rows[t.cur].parent; p >= 0 {
			t.cur = int(p)
		}
	case key.Matches(kp, k.ExpandAll):
		t.expandAll()
	case key.Matches(kp, k.CollapseAll):
		clear(t.open)
		t.rebuild()
		t.status = "collapsed all"
	case key.Matches(kp, k.CopyPath):
		// The viewer copies it and says how (its note).
		p := t.Path(t.cur)
		return true, func() tea.Msg { return copyMsg{text: p, what: "the JSON path " + p} }
	case key.Matches(kp, t.keys.Search.Start):
		return true, t.search.Open()
	case key.Matches(kp, t.keys.Search.Next) && t.search.query != "":
		t.find(1, false)
	case key.Matches(kp, t.keys.Search.Prev) && t.search.query != "":
		t.find(-1, false)
	default:
		return false, nil
	}
	t.clamp()
	return true, nil
}

// expandAll opens containers breadth-first until the tree shows
// maxExpandAllRows rows: the rows of containers already open count, and a
// container is opened only when all its members fit.
func (t *tree) expandAll() {
	queue := make([]*render.JSONNode, 0, len(t.roots))
	for i := range t.roots {
		queue = append(queue, &t.roots[i])
	}
	rows := len(t.roots)
	capped := false
	for head := 0; head < len(queue); head++ {
		n := queue[head]
		if !n.IsContainer() {
			continue
		}
		k := t.kids(*n)
		if !t.open[n.Start] {
			if rows+len(k) > maxExpandAllRows {
				capped = true
				break
			}
			t.open[n.Start] = true
		}
		rows += len(k)
		for i := range k {
			queue = append(queue, &k[i])
		}
	}
	t.rebuild()
	t.status = "expanded all"
	if capped {
		if t.nodes == 0 {
			t.nodes = render.JSONCount(t.src)
		}
		t.status = fmt.Sprintf("expanded %d of %d nodes (the bound is %d rows); expand deeper nodes one by one",
			len(t.rows), t.nodes, maxExpandAllRows)
	}
}

// find moves to the next (dir 1) or previous (-1) byte match of the query
// after (or before) the cursor's node, case-insensitively, expanding the
// tree down to it; from the top when restart.
func (t *tree) find(dir int, restart bool) {
	q := []byte(strings.ToLower(t.search.query))
	if len(q) == 0 {
		return
	}
	if t.lower == nil {
		t.lower = bytes.ToLower(t.src)
	}
	from := 0
	if !restart && t.cur < len(t.rows) {
		from = t.rows[t.cur].node.Start
		if k := t.rows[t.cur].node.KeyStart; k >= 0 {
			from = k
		}
	}
	var off int
	if dir > 0 {
		start := from
		if !restart {
			start = from + 1
		}
		off = bytes.Index(t.lower[min(start, len(t.lower)):], q)
		if off >= 0 {
			off += start
		} else {
			off = bytes.Index(t.lower, q) // wrap
		}
	} else {
		off = bytes.LastIndex(t.lower[:from], q)
		if off < 0 {
			off = bytes.LastIndex(t.lower, q)
		}
	}
	if off < 0 {
		t.status = fmt.Sprintf("no match for %q", t.search.query)
		return
	}
	t.reveal(off)
	t.status = fmt.Sprintf("match at byte %d for %q", off, t.search.query)
}

// reveal expands the tree down to the deepest node holding byte off and
// puts the cursor on it.
func (t *tree) reveal(off int) {
	var target render.JSONNode
	found := false
	nodes := t.roots
	for !found || target.IsContainer() {
		var next *render.JSONNode
		for i := range nodes {
			n := nodes[i]
			lo := n.Start
			if n.KeyStart >= 0 {
				lo = n.KeyStart
			}
			if off >= lo && off < n.End {
				next = &nodes[i]
				break
			}
		}
		if next == nil {
			break
		}
		target, found = *next, true
		if off < target.Start || !target.IsContainer() {
			break // in the key, or a scalar
		}
		t.open[target.Start] = true
		nodes = t.kids(target)
	}
	t.rebuild()
	for i, r := range t.rows {
		if r.node.Start == target.Start {
			t.cur = i
			t.top = max(0, i-3)
			break
		}
	}
	t.clamp()
}

// View draws the visible rows and the footer.
func (t *tree) View() string {
	if t.detail != nil {
		return t.detail.View()
	}
	st := t.com.Styles
	var b strings.Builder
	n := 0
	for i := t.top; i < len(t.rows) && n < t.bodyH(); i++ {
		for _, line := range t.rowLines(t.rows[i]) {
			if n == t.bodyH() {
				break
			}
			if i == t.cur {
				line = lipgloss.NewStyle().Reverse(true).Render(ansi.Strip(line))
			}
			b.WriteString(ansiTrunc(line, t.w))
			b.WriteByte('\n')
			n++
		}
	}
	for ; n < t.bodyH(); n++ {
		b.WriteByte('\n')
	}
	// Labelled, so the line reads as where the cursor is, not as data.
	b.WriteString(ansiTrunc(st.Muted.Render("path ")+st.ID.Render(render.SanitizeLine(t.Path(t.cur))), t.w))
	b.WriteByte('\n')
	if t.search.open {
		b.WriteString(t.search.View(t.w))
	} else {
		info := fmt.Sprintf("%d of %d rows", t.cur+1, len(t.rows))
		if t.status != "" {
			info += " · " + t.status
		}
		b.WriteString(ansiTrunc(st.Muted.Render(info), t.w))
	}
	return b.String()
}

// rowLines draws one row on as many lines as its value needs: a leaf
// too wide for the width wraps (at spaces where it can) onto lines under
// its value's column, or, when that leaves under minLeafRoom cells, under
// its key one level in; the key is never split. A value past
// maxLeafLines (or the body's height) ends in "…". A container's row is
// one line.
func (t *tree) rowLines(r treeRow) []string {
	head := t.rowHead(r)
	if r.node.IsContainer() {
		return []string{head + t.rowValue(r)}
	}
	val, style := t.leafValue(*r.node)
	hw := common.Width(head)
	if hw+common.Width(val) <= t.w {
		return []string{head + style.Render(val)}
	}
	col, lines := hw, []string{}
	if t.w-col < minLeafRoom {
		col = common.Width(treeIndentFor(int(r.depth), t.w)) + 2 + treeIndent
		lines = append(lines, head)
	}
	room := t.w - col
	if room < 1 {
		return []string{head + style.Render(val)}
	}
	limit := max(1, min(maxLeafLines, t.bodyH()-len(lines)))
	if cells := (limit + 1) * room; len(val) > 4*cells {
		val = common.TruncTail(val, cells, "") // more than the lines shown
	}
	pieces := strings.Split(ansi.Wrap(val, room, ""), "\n")
	if len(pieces) > limit {
		pieces = pieces[:limit]
		if last := pieces[limit-1]; common.Width(last) < room {
			pieces[limit-1] = last + "…"
		} else {
			pieces[limit-1] = common.TruncTail(last, room, "…")
		}
	}
	pad := strings.Repeat(" ", col)
	for i, p := range pieces {
		if i == 0 && len(lines) == 0 {
			lines = append(lines, head+style.Render(p))
			continue
		}
		lines = append(lines, pad+style.Render(p))
	}
	return lines
}

// leafValue is a leaf's text as shown and its style.
func (t *tree) leafValue(n render.JSONNode) (string, lipgloss.Style) {
	s := t.styles
	switch n.Kind {
	case render.JSONString:
		return render.JSONScalar(t.src, n), s.str
	case render.JSONNumber:
		return render.JSONScalar(t.src, n), s.num
	case render.JSONBool:
		return render.JSONScalar(t.src, n), s.lit
	default:
		return render.JSONScalar(t.src, n), s.null
	}
}

// rowHead is a row's indent, marker and key (or index).
func (t *tree) rowHead(r treeRow) string {
	s := t.styles
	n := *r.node
	var b strings.Builder
	b.WriteString(treeIndentFor(int(r.depth), t.w))
	switch {
	case n.IsContainer() && t.open[n.Start]:
		b.WriteString(s.punct.Render("▾ "))
	case n.IsContainer():
		b.WriteString(s.punct.Render("▸ "))
	default:
		b.WriteString("  ")
	}
	switch {
	case n.KeyStart >= 0:
		b.WriteString(s.key.Render(render.QuoteInert(n.Key)))
		b.WriteString(s.punct.Render(": "))
	case n.Index >= 0:
		b.WriteString(s.punct.Render(fmt.Sprintf("[%d] ", n.Index)))
	}
	return b.String()
}

// rowValue is a row's value: a leaf's, or a container's member count
// (and, collapsed, its preview).
func (t *tree) rowValue(r treeRow) string {
	s := t.styles
	n := *r.node
	var b strings.Builder
	switch n.Kind {
	case render.JSONObject, render.JSONArray:
		open, close, unit := "{", "}", "keys"
		if n.Kind == render.JSONArray {
			open, close, unit = "[", "]", "items"
		}
		k := t.kids(n)
		if len(k) == 1 {
			unit = strings.TrimSuffix(unit, "s")
		}
		if t.open[n.Start] {
			b.WriteString(s.punct.Render(fmt.Sprintf("%s %d %s", open, len(k), unit)))
		} else {
			b.WriteString(s.punct.Render(open+"…"+close) + " " + s.null.Render(fmt.Sprintf("%d %s", len(k), unit)))
			if n.End-n.Start < previewCells*2 {
				var c bytes.Buffer
				if json.Compact(&c, t.src[n.Start:n.End]) == nil {
					b.WriteString(" " + s.null.Render(ansi.Truncate(render.SanitizeLine(c.String()), previewCells, "…")))
				}
			}
		}
	default:
		v, style := t.leafValue(n)
		b.WriteString(style.Render(v))
	}
	return b.String()
}

// treeIndentFor is the indent of a row depth levels deep in a tree w cells
// wide: treeIndent cells a level, at most w/maxIndentShare; a deeper row
// fills that bound with its depth, right-aligned ("12›"), so the value
// keeps two thirds of the width however deep it sits.
func treeIndentFor(depth, w int) string {
	n := depth * treeIndent
	limit := max(treeIndent, w/maxIndentShare)
	if n <= limit {
		return strings.Repeat(" ", n)
	}
	mark := fmt.Sprintf("%d› ", depth)
	return strings.Repeat(" ", max(0, limit-ansi.StringWidth(mark))) + mark
}

// HelpKeys implements body.
func (t *tree) HelpKeys() []key.Binding {
	k := t.keys
	if t.detail != nil {
		return append(t.detail.helpKeys(), k.Tree.CopyPath, k.Tree.Close)
	}
	open := k.Tree.Toggle
	if t.cur < len(t.rows) && !t.rows[t.cur].node.IsContainer() {
		open = k.Tree.Value
	}
	return t.search.helpKeys(k.Scroll.Up, k.Scroll.Down, open, k.Tree.ExpandAll, k.Tree.CollapseAll, k.Tree.CopyPath)
}

// FullHelpKeys implements fullHelper: HelpKeys with every move.
func (t *tree) FullHelpKeys() []key.Binding {
	k := t.keys
	if t.detail != nil {
		return t.HelpKeys()
	}
	open := k.Tree.Toggle
	if t.cur < len(t.rows) && !t.rows[t.cur].node.IsContainer() {
		open = k.Tree.Value
	}
	s := k.Scroll
	return t.search.fullHelpKeys(s.Up, s.Down, s.PageUp, s.PageDown, s.Top, s.Bottom, s.Left, s.Right,
		open, k.Tree.ExpandAll, k.Tree.CollapseAll, k.Tree.CopyPath)
}
