package list

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"modbay/internal/words"
	"modbay/ui/common"
)

// WideLayout is the width (cells) from which a list and its detail pane
// sit side by side; below it the detail goes under the list.
const WideLayout = 100

// Filter is a list's filter ("/"): while it has the focus, keys are its
// text, except enter and esc (leave it, keeping or clearing the text) and
// the arrows and pgup/pgdn, which still move and scroll the list.
type Filter struct {
	input  textinput.Model
	active bool
}

// NewFilter returns an empty filter showing placeholder.
func NewFilter(com *common.Common, placeholder string) Filter {
	in := textinput.New()
	in.Prompt = "/"
	in.Placeholder = placeholder
	in.SetStyles(com.Styles.TextInput)
	return Filter{input: in}
}

// Value is the filter text.
func (f *Filter) Value() string { return f.input.Value() }

// Shown reports whether the filter line is on screen: while it has the
// focus or keeps a text.
func (f *Filter) Shown() bool { return f.active || f.input.Value() != "" }

// SetWidth sets the input's width in cells.
func (f *Filter) SetWidth(w int) { f.input.SetWidth(w) }

// Focus gives the filter the keys.
func (f *Filter) Focus() tea.Cmd {
	f.active = true
	return f.input.Focus()
}

// Clear empties the filter and, if it has the focus, leaves it.
func (f *Filter) Clear() {
	f.input.SetValue("")
	f.leave()
}

func (f *Filter) leave() {
	f.active = false
	f.input.Blur()
}

// Update handles msg while the filter has the focus. It reports whether
// msg was the filter's (else the list handles it) and whether the text may
// have changed (the list filters again).
func (f *Filter) Update(msg tea.Msg, k KeyMap) (handled, changed bool, cmd tea.Cmd) {
	kp, ok := msg.(tea.KeyPressMsg)
	switch {
	case !ok:
		f.input, cmd = f.input.Update(msg)
		return true, false, cmd
	case key.Matches(kp, k.ClearFilter):
		f.Clear()
		return true, true, nil
	case key.Matches(kp, k.AcceptFilter):
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
func (f *Filter) View() string { return f.input.View() }

// DetailWidth is the detail pane's text width in a w-cell screen with
// the default list share.
func DetailWidth(com *common.Common, w int) int { return detailWidth(com, w, 0) }

// detailWidth is the detail pane's text width in a w-cell screen whose
// list takes share fifths of the wide layout (0: the default).
func detailWidth(com *common.Common, w, share int) int {
	if w >= WideLayout {
		return w - listWidth(w, share) - com.Styles.Pane.GetHorizontalFrameSize() - 1
	}
	return w
}

// listWidth is the list column's width in the wide layout: share fifths
// of w (2 when share is 0), at least 40 cells; a share above the default
// leaves the detail at least detailMin cells.
func listWidth(w, share int) int {
	if share <= 0 {
		share = 2
	}
	if share <= 2 {
		return max(40, w*share/5)
	}
	return max(40, w*2/5, min(w*share/5, w-detailMin))
}

// detailMin is the detail pane's width a larger list share keeps.
const detailMin = 60

// splitPane lays out a list and its detail in w × h cells: side by side
// from WideLayout cells (the list taking share fifths, listWidth), else the list on top (at most half the height)
// and the detail under a rule. rows draws the list's rows for a given
// size (with marks: lines saying how many rows are out of view), and
// hidden how many the last call left out; n is how many rows there are;
// ds keeps the detail's scroll. In the stacked layout the rule under the
// list says how many rows are out of view.
func splitPane(com *common.Common, w, h, share int, rows func(w, h int, marks bool) []string, hidden func() (int, int), detail string, n int, ds *detailScroll) string {
	st := com.Styles
	if w >= WideLayout {
		lw := listWidth(w, share)
		left := padBlock(rows(lw, h, true), lw, h)
		pw := w - lw - 1
		inner := pw - st.Pane.GetHorizontalFrameSize()
		ih := h - st.Pane.GetVerticalFrameSize()
		body := common.FitWidth(ds.view(com, detail, ih), inner)
		pane := st.Pane.Width(pw).Height(h).MaxHeight(h).Render(body)
		return joinPanes(left, pane)
	}
	lh := min(max(n, 1), max(h/2-1, 3))
	if n == 0 {
		// The line saying why nothing is listed wraps (common.Note).
		lh = max(h/2-1, 3)
	}
	list := rows(w, lh, false)
	if n == 0 {
		lh = len(list)
	}
	for len(list) < lh {
		list = append(list, "")
	}
	rule := st.Muted.Render(strings.Repeat("─", w))
	if above, below := hidden(); moreMark(com, above, below) != "" {
		mark := moreMark(com, above, below)
		// "── ↓ 2 more ─────": the rows cut are counted on the rule.
		lead := strings.Repeat("─", 2) + " "
		tail := max(w-common.Width(lead+mark)-1, 0)
		rule = common.Trunc(st.Muted.Render(lead)+st.Warning.Render(mark)+" "+st.Muted.Render(strings.Repeat("─", tail)), w)
	}
	dh := h - lh - 1
	body := common.FitWidth(ds.view(com, detail, dh), w)
	return strings.Join(list, "\n") + "\n" + rule + "\n" + body
}

// padBlock is lines as lipgloss.NewStyle().Width(w).Height(h).MaxHeight(h)
// renders them, each line padded with spaces to w cells and the block
// to h lines, without lipgloss's wrapping and measuring every line again:
// the rows are already cut to w. Lines it cannot pass through as they are
// (wider than w, holding a tab or a newline) go through lipgloss.
func padBlock(lines []string, w, h int) string {
	widths := make([]int, len(lines))
	for i, l := range lines {
		widths[i] = common.Width(l)
		if widths[i] > w || strings.ContainsAny(l, "\t\n\r") {
			return lipgloss.NewStyle().Width(w).Height(h).MaxHeight(h).Render(strings.Join(lines, "\n"))
		}
	}
	if h <= 0 || w <= 0 {
		return lipgloss.NewStyle().Width(w).Height(h).MaxHeight(h).Render(strings.Join(lines, "\n"))
	}
	var b strings.Builder
	for i := range h {
		if i > 0 {
			b.WriteByte('\n')
		}
		n := 0
		if i < len(lines) {
			b.WriteString(lines[i])
			n = widths[i]
		}
		b.WriteString(strings.Repeat(" ", w-n))
	}
	return b.String()
}

// joinPanes is lipgloss.JoinHorizontal(lipgloss.Top, left, " ", pane) for
// two blocks of as many lines, each line of a block as wide as the others
// (what padBlock and a Width/Height style draw): line by line, without
// measuring every line again. Blocks of unequal heights go through
// lipgloss.
func joinPanes(left, pane string) string {
	l, p := strings.Split(left, "\n"), strings.Split(pane, "\n")
	if len(l) != len(p) {
		return lipgloss.JoinHorizontal(lipgloss.Top, left, " ", pane)
	}
	var b strings.Builder
	b.Grow(len(left) + len(pane) + 2*len(l))
	for i := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l[i])
		b.WriteByte(' ')
		b.WriteString(p[i])
	}
	return b.String()
}

// detailScroll is the scroll position of a list's detail pane: pgup/pgdn
// scroll it from the list, and the pane says what is above and below.
type detailScroll struct {
	// off is the first detail line shown; page how many lines a pgdn
	// moves; above and below what the last view could not show.
	off, page, above, below int
}

// Update scrolls on DetailUp/DetailDown and reports whether kp was one.
func (d *detailScroll) Update(kp tea.KeyPressMsg, k KeyMap) bool {
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
		out = append(out, st.Muted.Render(fmt.Sprintf("↑ %d more %s (pgup)", d.above, words.Plural(d.above, "line", "lines"))))
	}
	out = append(out, lines[d.off:d.off+show]...)
	if d.below > 0 {
		out = append(out, st.Warning.Render(fmt.Sprintf("↓ %d more %s (pgdn)", d.below, words.Plural(d.below, "line", "lines"))))
	}
	return strings.Join(out, "\n")
}
