package viewer

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"modbay/render"
	"modbay/ui/common"
)

const (
	// widthSampleRows is how many of the shown rows, from the top, size the
	// columns when the table opens or is filtered or sorted: a column's
	// natural width is its widest cell among them, the last widthSampleTail
	// rows and the header. Measuring 100 000 rows would cost more than the
	// first frame's budget; the rows on screen are measured as they come
	// into view (measureVisible), so a wider cell further down widens its
	// column instead of being cut.
	widthSampleRows = 2000
	// widthSampleTail is how many rows from the end join the sample: ids,
	// counters and sorted columns are widest at the end.
	widthSampleTail = 200
	// maxColumnCells caps a column's width while choosing which columns fit,
	// so one long text column cannot push every other column off screen;
	// screen width left over after that goes back to the capped columns.
	maxColumnCells = 40
	// maxMeasureCells bounds how far a cell is measured: no terminal is
	// wider, so measuring further only costs time.
	maxMeasureCells = 1024
	// cellBytesCap is the most of a cell's bytes that are sanitized and
	// measured for display (four per measured cell covers any UTF-8); a
	// megabyte cell costs a frame no more than a short one. The row detail
	// shows the whole cell.
	cellBytesCap = 4 * maxMeasureCells
	// columnGap is the separator between columns: " │ ".
	columnGap = 3
	// sortMarkCells is the room the sort indicator (" ▲" or " ▼") takes in
	// the sorted column's header; it is reserved, so the name is cut before
	// the indicator is.
	sortMarkCells = 2
	// minPartialCells is the narrowest start of a next column worth
	// showing at the right edge ("ab…"); less is left blank, and the
	// footer's "col i of n" says more columns follow.
	minPartialCells = 3
	// tableChrome is the lines around the rows: header, rule and footer.
	tableChrome = 3
)

// table is the table viewer: a virtualized grid over render.TableData.
// Only the visible rows are drawn, so a 100 000-row CSV scrolls as fast as
// a 10-row one. A column cursor (←/→) picks the column to sort by (S cycles
// ascending, descending, source order) and scrolls sideways; / filters rows
// by a substring of any cell; enter shows the row as a key/value list.
type table struct {
	com  *common.Common
	keys KeyMap
	td   *render.TableData
	err  error
	// natural is each column's widest cell (in cells, at most
	// maxMeasureCells) among the header, a sample of the shown rows and
	// every row that has been on screen since the last filter or sort.
	natural []int
	// headerW is each header's width in cells.
	headerW []int
	order   []int32 // rows shown, as indexes of td.Row (a file holds under 2³¹)
	cur     int     // index into order
	top     int
	col     int // column cursor
	left    int // first visible column
	sortCol int
	sortDir int // 0 none, 1 ascending, -1 descending
	filter  searchBox
	detail  *pager
	w, h    int
	// src is the file, kept when its TSV quoting is ambiguous (for
	// AsCSV); asCSV: it is read as CSV now; ambiguous is the reason.
	src       string
	media     string
	asCSV     bool
	ambiguous string
}

// newTable parses src and measures its columns; it runs in the load Cmd.
// A file that does not parse as a table at all is shown as text.
func newTable(in loadInput, src []byte) (body, string, error) {
	text := ownedString(src)
	td, err := render.ParseTableString(text, in.meta.MediaType)
	if len(td.Header) == 0 {
		if render.IsBinary(src) {
			return binaryBody(in, in.meta)
		}
		return newText(in, src), "Not a table: shown as text.", err
	}
	t := &table{com: in.com, keys: in.keys, sortCol: -1,
		filter: newSearchBox(in.com, in.keys.Search, "filter: ")}
	t.w, t.h = in.w, in.h
	t.setData(td, err)
	note := ""
	if err != nil {
		note = fmt.Sprintf("Parsed %d rows; %s", td.Len(), err.Error())
	}
	if td.Ambiguous != "" {
		t.src, t.media, t.ambiguous = text, in.meta.MediaType, td.Ambiguous
		note = "Ambiguous quoting: " + td.Ambiguous + ". C reads it as CSV."
	}
	return t, note, nil
}

// ownedString is src as a string, without a copy: the table's cells are
// substrings of it (render.ParseTableString), so the file is held once.
// It is sound because the viewer owns src (the buffer load read, or
// decoded) and nothing writes to it after load.
func ownedString(src []byte) string { return unsafe.String(unsafe.SliceData(src), len(src)) }

// setData shows td (parsed with err): every row in source order, columns
// measured anew.
func (t *table) setData(td *render.TableData, err error) {
	t.td, t.err = td, err
	t.sortCol, t.sortDir, t.cur, t.top, t.col, t.left = -1, 0, 0, 0, 0, 0
	t.natural = make([]int, len(td.Header))
	t.headerW = make([]int, len(td.Header))
	for j, h := range td.Header {
		t.headerW[j] = cellText(h, maxMeasureCells)
	}
	t.order = make([]int32, td.Len())
	for i := range t.order {
		t.order[i] = int32(i)
	}
	t.measureSample()
	t.measureVisible()
}

// tableReadMsg is the table's file read again, as CSV or as TSV (AsCSV).
type tableReadMsg struct {
	tag
	t     *table
	asCSV bool
	td    *render.TableData
	err   error
}

// measureSample resets the natural widths to the header and a sample of
// the shown rows: the first widthSampleRows and the last widthSampleTail.
func (t *table) measureSample() {
	for j := range t.natural {
		t.natural[j] = max(1, t.headerW[j])
	}
	head := t.order[:min(len(t.order), widthSampleRows)]
	tail := t.order[max(len(head), len(t.order)-widthSampleTail):]
	for _, part := range [][]int32{head, tail} {
		for _, i := range part {
			t.widen(t.td.Row(int(i)), 0, len(t.natural))
		}
	}
}

// measureVisible widens the columns that can be on screen to fit the rows
// that are: at most rowsH rows by the columns a screen can hold, so the
// work per key press is bounded whatever the table's size.
func (t *table) measureVisible() {
	if len(t.natural) == 0 {
		return
	}
	// Each shown column takes at least one cell and a gap.
	to := min(len(t.natural), t.left+t.w/(1+columnGap)+1)
	end := min(len(t.order), t.top+t.rowsH())
	for k := t.top; k < end; k++ {
		t.widen(t.td.Row(int(t.order[k])), t.left, to)
	}
}

// widen raises natural[from:to] to fit row's cells.
func (t *table) widen(row []string, from, to int) {
	for j := from; j < to; j++ {
		t.natural[j] = max(t.natural[j], cellText(row[j], maxMeasureCells))
	}
}

// want is the width column j asks for: its natural width, and room for the
// header with the sort indicator when it is the sorted column.
func (t *table) want(j int) int {
	w := t.natural[j]
	if j == t.sortCol {
		w = max(w, t.headerW[j]+sortMarkCells)
	}
	return w
}

// capped is column j's width while deciding which columns fit.
func (t *table) capped(j int) int { return min(t.want(j), maxColumnCells) }

// layout decides the columns shown from t.left and each one's width: the
// columns that fit at their capped width (the first always shows, cut to
// the screen if it must); then the screen width left over goes to the
// columns that were capped, shared evenly up to what each wants; what
// still remains (minPartialCells or more) shows the start of the next
// column, cut with "…".
func (t *table) layout() (cols, widths []int) {
	used := 0
	for j := t.left; j < len(t.natural); j++ {
		w, need := t.capped(j), t.capped(j)
		if len(cols) > 0 {
			need += columnGap
		}
		if used+need > t.w {
			if len(cols) == 0 {
				cols, widths, used = append(cols, j), append(widths, max(1, min(w, t.w))), t.w
			}
			break
		}
		cols, widths, used = append(cols, j), append(widths, w), used+need
	}
	spare := t.w - used
	for spare > 0 {
		var short []int // shown columns narrower than they want
		for k, j := range cols {
			if widths[k] < t.want(j) {
				short = append(short, k)
			}
		}
		if len(short) == 0 {
			break
		}
		share := max(1, spare/len(short))
		for _, k := range short {
			add := min(share, spare, t.want(cols[k])-widths[k])
			widths[k] += add
			spare -= add
			if spare == 0 {
				break
			}
		}
	}
	if next := t.left + len(cols); next < len(t.natural) && spare-columnGap >= minPartialCells {
		cols, widths = append(cols, next), append(widths, min(spare-columnGap, t.want(next)))
	}
	return cols, widths
}

// cellText is the width of c as a cell shows it, at most limit.
func cellText(c string, limit int) int {
	if len(c) <= limit && isPlainASCII(c) {
		return len(c)
	}
	return min(common.Width(cell(c)), limit)
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

// cell makes a cell's text safe and one line: at most cellBytesCap bytes
// of it, sanitized, newlines as ⏎, tabs as spaces (render.SanitizeCell).
func cell(c string) string {
	if len(c) > cellBytesCap {
		c = strings.ToValidUTF8(c[:cellBytesCap], "")
	}
	if isPlainASCII(c) {
		return c
	}
	return render.SanitizeCell(c)
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
	t.measureVisible()
}

// fits reports whether columns from..to all fit in the width at their
// capped widths.
func (t *table) fits(from, to int) bool {
	used := 0
	for j := from; j <= to; j++ {
		used += t.capped(j) + columnGap
	}
	return used-columnGap <= t.w
}

// Typing implements body.
func (t *table) Typing() bool {
	return t.filter.open || (t.detail != nil && t.detail.Typing())
}

// Update handles the table's keys.
func (t *table) Update(msg tea.Msg) (bool, tea.Cmd) {
	if m, ok := msg.(tableReadMsg); ok && m.t == t {
		t.asCSV = m.asCSV
		t.setData(m.td, m.err)
		return true, nil
	}
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
	case cursorKey(kp, s, &t.cur, &t.top, t.rowsH(), len(t.order)):
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
	case key.Matches(kp, t.keys.Table.AsCSV) && t.src != "":
		// Parsed in a Cmd: a table can be large.
		src, media, asCSV := t.src, t.media, !t.asCSV
		if asCSV {
			media = "text/csv"
		}
		return true, func() tea.Msg {
			td, err := render.ParseTableString(src, media)
			return tableReadMsg{t: t, asCSV: asCSV, td: td, err: err}
		}
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
	n := t.td.Len()
	q := strings.ToLower(t.filter.query)
	t.order = t.order[:0]
	for i := range n {
		if q == "" || rowContains(t.td.Row(i), q) {
			t.order = append(t.order, int32(i))
		}
	}
	if t.sortCol >= 0 {
		j, dir := t.sortCol, t.sortDir
		// The sorted column's cells, cut out once (Row may cut each row
		// out of the text anew).
		col := make([]string, n)
		for _, i := range t.order {
			col[i] = t.td.Row(int(i))[j]
		}
		nums := make([]float64, n)
		numeric := true
		for _, i := range t.order {
			f, err := strconv.ParseFloat(strings.TrimSpace(col[i]), 64)
			if err != nil && col[i] != "" {
				numeric = false
				break
			}
			nums[i] = f
		}
		slices.SortStableFunc(t.order, func(a, b int32) int {
			var c int
			if numeric {
				c = cmp.Compare(nums[a], nums[b])
			} else {
				c = strings.Compare(col[a], col[b])
			}
			return c * dir
		})
	}
	t.cur, t.top = 0, 0
	t.measureSample()
}

// isNumber reports whether cell c is a number as the sort reads one.
func isNumber(c string) bool {
	c = strings.TrimSpace(c)
	if c == "" {
		return false
	}
	_, err := strconv.ParseFloat(c, 64)
	return err == nil
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
	row := t.td.Row(int(i))
	st := t.com.Styles
	keyW := 0
	for _, h := range t.td.Header {
		keyW = max(keyW, min(common.Width(render.SanitizeLine(h)), 24))
	}
	var lines []string
	head := fmt.Sprintf("Row %d of %d", i+1, t.td.Len())
	if t.cur != int(i) || len(t.order) != t.td.Len() {
		// Sorted or filtered: the row's place as shown, and in the file.
		head = fmt.Sprintf("Row %d of %d as shown (row %d of %d in the file)", t.cur+1, len(t.order), i+1, t.td.Len())
	}
	lines = append(lines, st.Subtitle.Render(head), "")
	valW := max(t.w-keyW-2, 10)
	for j, h := range t.td.Header {
		name := common.TruncTail(render.SanitizeLine(h), keyW, "…")
		wrapped := strings.Split(ansi.Wrap(render.SanitizeText(row[j]), valW, ""), "\n")
		for k, w := range wrapped {
			label := strings.Repeat(" ", keyW)
			if k == 0 {
				label = name + strings.Repeat(" ", keyW-common.Width(name))
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
	cols, widths := t.layout()
	used := -columnGap
	for _, w := range widths {
		used += w + columnGap
	}
	sep := st.Muted.Render(" │ ")
	line := func(cells func(j, w int) string, right func(j int) bool, style func(j int, s string) string) string {
		var b strings.Builder
		for k, j := range cols {
			if k > 0 {
				b.WriteString(sep)
			}
			w := widths[k]
			c := common.TruncTail(cells(j, w), w, "…")
			if pad := strings.Repeat(" ", max(0, w-common.Width(c))); right(j) {
				c = pad + c
			} else {
				c += pad
			}
			b.WriteString(style(j, c))
		}
		return ansiTrunc(b.String(), t.w)
	}
	var b strings.Builder
	hdr := func(j, w int) string {
		h := render.SanitizeLine(t.td.Header[j])
		if j != t.sortCol || t.sortDir == 0 {
			return h
		}
		mark := map[int]string{1: " ▲", -1: " ▼"}[t.sortDir]
		if w <= sortMarkCells {
			return mark[1:] // the indicator alone
		}
		// The name is cut, never the indicator.
		return common.TruncTail(h, w-sortMarkCells, "…") + mark
	}
	b.WriteString(line(hdr, func(int) bool { return false }, func(j int, s string) string {
		if j == t.col {
			return st.Selected.Reverse(true).Render(s)
		}
		return st.Subtitle.Render(s)
	}))
	b.WriteByte('\n')
	b.WriteString(st.Muted.Render(strings.Repeat("─", max(0, min(t.w, used)))))
	b.WriteByte('\n')
	end := min(len(t.order), t.top+t.rowsH())
	// A column whose cells shown are all numbers is right-aligned, so its
	// digits line up.
	numeric := make(map[int]bool, len(cols))
	for _, j := range cols {
		num, any := true, false
		for k := t.top; k < end && num; k++ {
			c := t.td.Row(int(t.order[k]))[j]
			if strings.TrimSpace(c) == "" {
				continue
			}
			num, any = isNumber(c), true
		}
		numeric[j] = num && any
	}
	for k := t.top; k < end; k++ {
		row := t.td.Row(int(t.order[k]))
		sel := k == t.cur
		b.WriteString(line(func(j, _ int) string { return cell(row[j]) }, func(j int) bool { return numeric[j] }, func(j int, s string) string {
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
	if len(t.order) != t.td.Len() {
		pos += fmt.Sprintf(" (filtered from %d)", t.td.Len())
	}
	parts := []string{pos, fmt.Sprintf("col %d of %d", t.col+1, len(t.td.Header))}
	if t.filter.query != "" {
		parts = append(parts, fmt.Sprintf("filter %q", render.SanitizeLine(t.filter.query)))
	}
	if len(t.td.Preamble) > 0 {
		parts = append(parts, "preamble: "+render.SanitizeLine(t.td.Preamble[0]))
	}
	switch {
	case t.asCSV:
		parts = append(parts, "read as CSV (C: as TSV)")
	case t.src != "":
		parts = append(parts, "ambiguous quoting (C: read as CSV)")
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
	keys := []key.Binding{k.Scroll.Up, k.Scroll.Down, k.Scroll.Left, k.Scroll.Right, k.Table.Sort, k.Table.Filter, k.Table.Detail}
	if t.src != "" {
		keys = append(keys, k.Table.AsCSV)
	}
	return keys
}

// FullHelpKeys implements fullHelper: HelpKeys with every move.
func (t *table) FullHelpKeys() []key.Binding {
	if t.detail != nil || t.filter.open {
		return t.HelpKeys()
	}
	k := t.keys
	s := k.Scroll
	keys := []key.Binding{s.Up, s.Down, s.PageUp, s.PageDown, s.Top, s.Bottom, s.Left, s.Right, k.Table.Sort, k.Table.Filter, k.Table.Detail}
	if t.src != "" {
		keys = append(keys, k.Table.AsCSV)
	}
	return keys
}

// ansiTrunc cuts styled s to w cells.
func ansiTrunc(s string, w int) string {
	if common.Width(s) <= w {
		return s
	}
	// Truncate and StringWidth can disagree by a cell on some grapheme
	// clusters (keycap emoji); cut further until the line truly fits.
	out := common.TruncTail(s, w, "…")
	for k := w - 1; k > 0 && common.Width(out) > w; k-- {
		out = common.TruncTail(s, k, "…")
	}
	return out
}
