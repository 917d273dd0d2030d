package viewer

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"modbay/render"
	"modbay/ui/common"
)

const (
	// widthSampleRows is how many rows (from the top) size the columns: a
	// column's width is its widest cell among them. Measuring 100 000 rows
	// would cost more than the first frame's budget; a wider cell further
	// down is cut with "…" and shown whole in the row detail.
	widthSampleRows = 2000
	// maxColumnCells caps a column's width so one long text column cannot
	// push every other column off screen.
	maxColumnCells = 40
	// columnGap is the separator between columns: " │ ".
	columnGap = 3
	// tableChrome is the lines around the rows: header, rule and footer.
	tableChrome = 3
)

// table is the table viewer: a virtualized grid over render.TableData.
// Only the visible rows are drawn, so a 100 000-row CSV scrolls as fast as
// a 10-row one. A column cursor (←/→) picks the column to sort by (S cycles
// ascending, descending, source order) and scrolls sideways; / filters rows
// by a substring of any cell; enter shows the row as a key/value list.
type table struct {
	com     *common.Common
	keys    KeyMap
	td      *render.TableData
	err     error
	natural []int
	order   []int // rows shown, as indexes into td.Rows
	cur     int   // index into order
	top     int
	col     int // column cursor
	left    int // first visible column
	sortCol int
	sortDir int // 0 none, 1 ascending, -1 descending
	filter  searchBox
	detail  *pager
	w, h    int
}

// newTable parses src and measures its columns; it runs in the load Cmd.
// A file that does not parse as a table at all is shown as text.
func newTable(in loadInput, src []byte) (body, string, error) {
	td, err := render.ParseTable(src, in.art.MediaType)
	if len(td.Header) == 0 {
		if render.IsBinary(src) {
			return binaryBody(in, metaOf(in.art))
		}
		return newText(in, src), "Not a table: shown as text.", err
	}
	t := &table{com: in.com, keys: in.keys, td: td, err: err, sortCol: -1,
		filter: newSearchBox(in.com, in.keys.Search, "filter: ")}
	t.natural = make([]int, len(td.Header))
	for j, h := range td.Header {
		t.natural[j] = max(1, cellText(h, maxColumnCells))
	}
	for _, row := range td.Rows[:min(len(td.Rows), widthSampleRows)] {
		for j, c := range row {
			t.natural[j] = max(t.natural[j], cellText(c, maxColumnCells))
		}
	}
	t.order = make([]int, len(td.Rows))
	for i := range t.order {
		t.order[i] = i
	}
	note := ""
	if err != nil {
		note = fmt.Sprintf("Parsed %d rows; %s", len(td.Rows), err.Error())
	}
	return t, note, nil
}

// cellText is the width of c as a cell shows it, at most limit.
func cellText(c string, limit int) int {
	if len(c) <= limit && isPlainASCII(c) {
		return len(c)
	}
	return min(ansi.StringWidth(cell(c)), limit)
}

// isPlainASCII reports whether s is printable ASCII (its width is its length).
func isPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7F {
			return false
		}
	}
	return true
}

// cell makes a cell's text safe and one line: sanitized, newlines as ⏎,
// tabs as spaces.
func cell(c string) string {
	if isPlainASCII(c) {
		return c
	}
	c = render.Sanitize(c)
	c = strings.ReplaceAll(c, "\n", "⏎")
	return strings.ReplaceAll(c, "\t", " ")
}

// SetSize implements body.
func (t *table) SetSize(w, h int) {
	t.w, t.h = w, h
	if t.detail != nil {
		t.detail.SetSize(w, h)
	}
	t.clamp()
}

// rowsH is the number of data rows visible.
func (t *table) rowsH() int { return max(t.h-tableChrome, 1) }

func (t *table) clamp() {
	t.cur = max(0, min(t.cur, len(t.order)-1))
	if t.cur < t.top {
		t.top = t.cur
	}
	if t.cur >= t.top+t.rowsH() {
		t.top = t.cur - t.rowsH() + 1
	}
	t.top = max(0, min(t.top, len(t.order)-t.rowsH()))
	t.col = max(0, min(t.col, len(t.td.Header)-1))
	if t.col < t.left {
		t.left = t.col
	}
	for t.left < t.col && !t.fits(t.left, t.col) {
		t.left++
	}
}

// fits reports whether columns from..to all fit in the width.
func (t *table) fits(from, to int) bool {
	used := 0
	for j := from; j <= to; j++ {
		used += t.natural[j] + columnGap
	}
	return used-columnGap <= t.w
}

// Typing implements body.
func (t *table) Typing() bool {
	return t.filter.open || (t.detail != nil && t.detail.Typing())
}

// Update handles the table's keys.
func (t *table) Update(msg tea.Msg) (bool, tea.Cmd) {
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return false, nil
	}
	if t.detail != nil {
		if !t.detail.Typing() && key.Matches(kp, t.keys.Table.Close) {
			t.detail = nil
			return true, nil
		}
		return t.detail.Update(kp)
	}
	if t.filter.open {
		ev, cmd := t.filter.Update(kp)
		switch ev {
		case searchTyping:
			t.filter.query = t.filter.input.Value()
			t.apply()
		case searchClosed:
			t.filter.query = ""
			t.apply()
		case searchRun:
			t.apply()
		}
		return true, cmd
	}
	s := t.keys.Scroll
	switch {
	case key.Matches(kp, s.Up):
		t.cur--
	case key.Matches(kp, s.Down):
		t.cur++
	case key.Matches(kp, s.PageUp):
		t.cur -= t.rowsH()
		t.top -= t.rowsH()
	case key.Matches(kp, s.PageDown):
		t.cur += t.rowsH()
		t.top += t.rowsH()
	case key.Matches(kp, s.Top):
		t.cur = 0
	case key.Matches(kp, s.Bottom):
		t.cur = len(t.order) - 1
	case key.Matches(kp, s.Left):
		t.col--
	case key.Matches(kp, s.Right):
		t.col++
	case key.Matches(kp, t.keys.Table.Sort):
		t.sortBy(t.col)
	case key.Matches(kp, t.keys.Table.Filter):
		return true, t.filter.Open()
	case key.Matches(kp, t.keys.Table.Detail):
		t.openDetail()
	case key.Matches(kp, t.keys.Table.Close) && t.filter.query != "":
		t.filter.query = ""
		t.apply()
	default:
		return false, nil
	}
	t.clamp()
	return true, nil
}

// sortBy cycles column j through ascending, descending and source order.
func (t *table) sortBy(j int) {
	switch {
	case t.sortCol != j:
		t.sortCol, t.sortDir = j, 1
	case t.sortDir == 1:
		t.sortDir = -1
	default:
		t.sortCol, t.sortDir = -1, 0
	}
	t.apply()
}

// apply rebuilds the shown rows: filtered by the query (case-insensitive,
// any cell), then sorted. Numbers compare as numbers when both cells are.
func (t *table) apply() {
	rows := t.td.Rows
	q := strings.ToLower(t.filter.query)
	t.order = t.order[:0]
	for i, row := range rows {
		if q == "" || rowContains(row, q) {
			t.order = append(t.order, i)
		}
	}
	if t.sortCol >= 0 {
		j, dir := t.sortCol, t.sortDir
		nums := make([]float64, len(rows))
		numeric := true
		for _, i := range t.order {
			f, err := strconv.ParseFloat(strings.TrimSpace(rows[i][j]), 64)
			if err != nil && rows[i][j] != "" {
				numeric = false
				break
			}
			nums[i] = f
		}
		slices.SortStableFunc(t.order, func(a, b int) int {
			var c int
			if numeric {
				c = cmp.Compare(nums[a], nums[b])
			} else {
				c = strings.Compare(rows[a][j], rows[b][j])
			}
			return c * dir
		})
	}
	t.cur, t.top = 0, 0
}

// rowContains reports whether any cell of row contains q (lower-case).
func rowContains(row []string, q string) bool {
	for _, c := range row {
		if strings.Contains(strings.ToLower(c), q) {
			return true
		}
	}
	return false
}

// openDetail shows the current row as "column: value" lines.
func (t *table) openDetail() {
	if len(t.order) == 0 {
		return
	}
	i := t.order[t.cur]
	row := t.td.Rows[i]
	st := t.com.Styles
	keyW := 0
	for _, h := range t.td.Header {
		keyW = max(keyW, min(ansi.StringWidth(render.SanitizeLine(h)), 24))
	}
	var lines []string
	lines = append(lines, st.Subtitle.Render(fmt.Sprintf("Row %d of %d", i+1, len(t.td.Rows))), "")
	valW := max(t.w-keyW-2, 10)
	for j, h := range t.td.Header {
		name := ansi.Truncate(render.SanitizeLine(h), keyW, "…")
		val := render.Sanitize(row[j])
		wrapped := strings.Split(ansi.Wrap(expandTabs(val), valW, ""), "\n")
		for k, w := range wrapped {
			label := strings.Repeat(" ", keyW)
			if k == 0 {
				label = name + strings.Repeat(" ", keyW-ansi.StringWidth(name))
			}
			lines = append(lines, st.Label.Render(label)+"  "+w)
		}
	}
	p := newPager(t.com, t.keys)
	p.SetLines(lines, nil)
	p.SetSize(t.w, t.h)
	t.detail = &p
}

// View draws the header, the visible rows and the footer.
func (t *table) View() string {
	if t.detail != nil {
		return t.detail.View()
	}
	st := t.com.Styles
	// The visible columns from t.left, as many as fit; the last may be cut.
	var cols []int
	used := 0
	for j := t.left; j < len(t.td.Header) && used < t.w; j++ {
		cols = append(cols, j)
		used += t.natural[j] + columnGap
	}
	sep := st.Muted.Render(" │ ")
	line := func(cells func(j int) string, style func(j int, s string) string) string {
		var b strings.Builder
		for k, j := range cols {
			if k > 0 {
				b.WriteString(sep)
			}
			w := t.natural[j]
			c := ansi.Truncate(cells(j), w, "…")
			c += strings.Repeat(" ", w-ansi.StringWidth(c))
			b.WriteString(style(j, c))
		}
		return ansiTrunc(b.String(), t.w)
	}
	var b strings.Builder
	hdr := func(j int) string {
		h := render.SanitizeLine(t.td.Header[j])
		if j == t.sortCol {
			h += map[int]string{1: " ↑", -1: " ↓"}[t.sortDir]
		}
		return h
	}
	b.WriteString(line(hdr, func(j int, s string) string {
		if j == t.col {
			return st.Selected.Reverse(true).Render(s)
		}
		return st.Subtitle.Render(s)
	}))
	b.WriteByte('\n')
	b.WriteString(st.Muted.Render(strings.Repeat("─", max(0, min(t.w, used-columnGap)))))
	b.WriteByte('\n')
	end := min(len(t.order), t.top+t.rowsH())
	for k := t.top; k < end; k++ {
		row := t.td.Rows[t.order[k]]
		sel := k == t.cur
		b.WriteString(line(func(j int) string { return cell(row[j]) }, func(j int, s string) string {
			if sel {
				return st.Selected.Reverse(true).Render(s)
			}
			return s
		}))
		b.WriteByte('\n')
	}
	for n := end - t.top; n < t.rowsH(); n++ {
		b.WriteByte('\n')
	}
	b.WriteString(t.footer())
	return b.String()
}

// footer is the filter prompt, or the position, sort, filter and any parse
// problems.
func (t *table) footer() string {
	if t.filter.open {
		return t.filter.View(t.w)
	}
	st := t.com.Styles
	pos := fmt.Sprintf("row %d of %d", min(t.cur+1, len(t.order)), len(t.order))
	if len(t.order) != len(t.td.Rows) {
		pos += fmt.Sprintf(" (filtered from %d)", len(t.td.Rows))
	}
	parts := []string{pos, fmt.Sprintf("col %d of %d", t.col+1, len(t.td.Header))}
	if t.filter.query != "" {
		parts = append(parts, fmt.Sprintf("filter %q", render.SanitizeLine(t.filter.query)))
	}
	if len(t.td.Preamble) > 0 {
		parts = append(parts, "preamble: "+render.SanitizeLine(t.td.Preamble[0]))
	}
	out := st.Muted.Render(strings.Join(parts, " · "))
	if t.td.Skipped > 0 {
		w := t.td.Warnings[0]
		out += " " + st.Warning.Render(fmt.Sprintf("· %d malformed skipped, first at line %d: %s", t.td.Skipped, w.Line, render.SanitizeLine(w.Message)))
	}
	return ansiTrunc(out, t.w)
}

// HelpKeys implements body.
func (t *table) HelpKeys() []key.Binding {
	k := t.keys
	switch {
	case t.detail != nil:
		return append(t.detail.helpKeys(), k.Table.Close)
	case t.filter.open:
		return []key.Binding{k.Search.Accept, k.Search.Cancel}
	}
	return []key.Binding{k.Scroll.Up, k.Scroll.Down, k.Scroll.Left, k.Scroll.Right, k.Table.Sort, k.Table.Filter, k.Table.Detail}
}

// ansiTrunc cuts styled s to w cells.
func ansiTrunc(s string, w int) string {
	if ansi.StringWidth(s) <= w {
		return s
	}
	// Truncate and StringWidth can disagree by a cell on some grapheme
	// clusters (keycap emoji); cut further until the line truly fits.
	out := ansi.Truncate(s, w, "…")
	for k := w - 1; k > 0 && ansi.StringWidth(out) > w; k-- {
		out = ansi.Truncate(s, k, "…")
	}
	return out
}
