package viewer

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"modbay/ui/common"
)

// searchBox is the `/` prompt shared by the bodies that search: while open
// it takes the keys; enter runs the search, esc closes it.
type searchBox struct {
	keys  SearchKeyMap
	input textinput.Model
	open  bool
	// query is the last search run (lower-cased for matching).
	query string
	// fresh is set while the prompt shows the last query untouched: the
	// first text typed replaces it.
	fresh bool
}

// newSearchBox returns a closed search prompt.
func newSearchBox(com *common.Common, keys SearchKeyMap, prompt string) searchBox {
	in := textinput.New()
	in.Prompt = prompt
	var s textinput.Styles
	if !com.NoColor {
		s = textinput.DefaultStyles(com.Dark)
	}
	s.Cursor.Blink = false
	in.SetStyles(s)
	return searchBox{keys: keys, input: in}
}

// Open shows the prompt with the last query, as if selected: enter
// searches it again, typing replaces it (a new search), and a key that
// edits (backspace, the arrows) keeps it to change.
func (s *searchBox) Open() tea.Cmd {
	s.open = true
	s.input.SetValue(s.query)
	s.input.CursorEnd()
	s.fresh = s.query != ""
	return s.input.Focus()
}

// searchEvent is what a key in the open prompt did.
type searchEvent int

const (
	searchTyping searchEvent = iota
	searchRun
	searchClosed
)

// Update feeds a key to the open prompt.
func (s *searchBox) Update(kp tea.KeyPressMsg) (searchEvent, tea.Cmd) {
	switch {
	case key.Matches(kp, s.keys.Accept):
		s.open = false
		s.input.Blur()
		s.query = s.input.Value()
		return searchRun, nil
	case key.Matches(kp, s.keys.Cancel):
		s.open = false
		s.input.Blur()
		return searchClosed, nil
	}
	if s.fresh {
		s.fresh = false
		if kp.Text != "" {
			s.input.SetValue("")
		}
	}
	var cmd tea.Cmd
	s.input, cmd = s.input.Update(kp)
	return searchTyping, cmd
}

// View is the prompt line.
func (s *searchBox) View(w int) string {
	s.input.SetWidth(max(w-len(s.input.Prompt)-1, 1))
	return common.Trunc(s.input.View(), w)
}

// pager shows pre-rendered lines with scrolling, an optional line-number
// gutter and `/` search with n/N, drawing only the visible lines.
type pager struct {
	com  *common.Common
	keys KeyMap
	// lines are the display lines, styled, each at most the width.
	lines []string
	// nums are the source line numbers of lines for the gutter (0 marks a
	// continuation line); nil means no gutter.
	nums    []int
	numW    int
	plain   []string
	top     int
	w, h    int
	search  searchBox
	matches []int
	cur     int
	// status is shown in the footer line (search results, progress).
	status string
}

// newPager returns an empty pager.
func newPager(com *common.Common, keys KeyMap) pager {
	return pager{com: com, keys: keys, search: newSearchBox(com, keys.Search, "/")}
}

// SetSize sets the area, the footer line included.
func (p *pager) SetSize(w, h int) {
	p.w, p.h = w, h
	p.clamp()
}

// SetLines replaces the content, keeping the scroll position, and re-runs
// the search so matches follow new text.
func (p *pager) SetLines(lines []string, nums []int) {
	p.lines, p.nums, p.plain = lines, nums, nil
	p.numW = 0
	if nums != nil {
		hi := 0
		for _, n := range nums {
			hi = max(hi, n)
		}
		p.numW = len(fmt.Sprint(hi)) + 1
	}
	if p.search.query != "" {
		p.find(false)
	}
	p.clamp()
}

// bodyH is the lines available for content (one is the footer).
func (p *pager) bodyH() int { return max(p.h-1, 1) }

func (p *pager) clamp() {
	p.top = max(0, min(p.top, len(p.lines)-p.bodyH()))
}

// ScrollBy moves the view n lines (negative is up).
func (p *pager) ScrollBy(n int) {
	p.top += n
	p.clamp()
}

// Typing reports whether the search prompt has the keys.
func (p *pager) Typing() bool { return p.search.open }

// Update handles scrolling and search keys; handled is false for keys the
// pager does not use.
func (p *pager) Update(kp tea.KeyPressMsg) (bool, tea.Cmd) {
	if p.search.open {
		ev, cmd := p.search.Update(kp)
		if ev == searchRun {
			p.find(true)
		}
		return true, cmd
	}
	switch {
	case scrollKey(kp, p.keys.Scroll, &p.top, p.bodyH(), len(p.lines)):
		p.clamp()
	case key.Matches(kp, p.keys.Search.Start):
		return true, p.search.Open()
	case key.Matches(kp, p.keys.Search.Next) && p.search.query != "":
		p.step(1)
	case key.Matches(kp, p.keys.Search.Prev) && p.search.query != "":
		p.step(-1)
	case key.Matches(kp, p.keys.Search.Next, p.keys.Search.Prev):
		p.status = noSearchYet
	default:
		return false, nil
	}
	return true, nil
}

// find collects the lines matching the query (case-insensitive) and, when
// jump, shows the first match at or below the top.
func (p *pager) find(jump bool) {
	p.matches = p.matches[:0]
	q := strings.ToLower(p.search.query)
	if q == "" {
		p.status = ""
		return
	}
	if p.plain == nil {
		p.plain = make([]string, len(p.lines))
		for i, l := range p.lines {
			p.plain[i] = strings.ToLower(ansi.Strip(l))
		}
	}
	for i, l := range p.plain {
		if strings.Contains(l, q) {
			p.matches = append(p.matches, i)
		}
	}
	if len(p.matches) == 0 {
		p.status = fmt.Sprintf("no match for %q", p.search.query)
		return
	}
	if jump {
		p.cur = 0
		for i, m := range p.matches {
			if m >= p.top {
				p.cur = i
				break
			}
		}
		p.show()
	}
	p.status = fmt.Sprintf("match %d/%d for %q", p.cur+1, len(p.matches), p.search.query)
}

// step moves to the next (+1) or previous (-1) match, wrapping around.
func (p *pager) step(d int) {
	if len(p.matches) == 0 {
		p.find(true)
		return
	}
	p.cur = (p.cur + d + len(p.matches)) % len(p.matches)
	p.show()
	p.status = fmt.Sprintf("match %d/%d for %q", p.cur+1, len(p.matches), p.search.query)
}

// show scrolls the current match into view, a few lines below the top.
func (p *pager) show() {
	line := p.matches[p.cur]
	if line < p.top || line >= p.top+p.bodyH() {
		p.top = line - min(3, p.bodyH()/4)
	}
	p.clamp()
}

// View draws the visible lines and the footer.
func (p *pager) View() string {
	st := p.com.Styles
	cur := -1
	if len(p.matches) > 0 && p.search.query != "" {
		cur = p.matches[p.cur]
	}
	var b strings.Builder
	drawWindow(&b, p.top, p.bodyH(), len(p.lines), p.w, cur, func(i int) string {
		line := p.lines[i]
		if p.nums != nil {
			n := ""
			if i < len(p.nums) && p.nums[i] > 0 {
				n = fmt.Sprint(p.nums[i])
			}
			line = st.Muted.Render(fmt.Sprintf("%*s ", p.numW-1, n)) + line
		}
		return line
	})
	b.WriteString(p.footer())
	return b.String()
}

// drawWindow writes the lines top..top+bh of a body of total lines, line(i)
// giving each, cut to w cells; line match (-1 for none) is shown reversed,
// and blank lines fill the area below the last line. Each line ends in a
// newline, so the footer follows.
func drawWindow(b *strings.Builder, top, bh, total, w, match int, line func(i int) string) {
	end := min(total, top+bh)
	for i := top; i < end; i++ {
		l := line(i)
		if i == match {
			l = lipgloss.NewStyle().Reverse(true).Render(ansi.Strip(l))
		}
		b.WriteString(common.Trunc(l, w))
		b.WriteByte('\n')
	}
	for n := max(end-top, 0); n < bh; n++ {
		b.WriteByte('\n')
	}
}

// position is a scrolled body's place for its footer: "all 3 lines" when
// the total fits the bh lines shown, else "11–30 of 120 lines".
func position(top, bh, total int) string {
	if total <= bh {
		return allLines(total)
	}
	return fmt.Sprintf("%d–%d of %d lines", top+1, min(total, top+bh), total)
}

// footer is the search prompt, or the position and status.
func (p *pager) footer() string {
	if p.search.open {
		return p.search.View(p.w)
	}
	st := p.com.Styles
	parts := []string{position(p.top, p.bodyH(), len(p.lines))}
	if p.status != "" {
		parts = append(parts, p.status)
	}
	return common.Trunc(st.Muted.Render(strings.Join(parts, " · ")), p.w)
}

// allLines is the position of a body that fits the screen: "all 3 lines".
func allLines(n int) string {
	if n == 1 {
		return "all 1 line"
	}
	return fmt.Sprintf("all %d lines", n)
}

// helpKeys are the pager's bindings for the help bar: the scroll keys
// only while the content is taller than the view (else they do nothing).
func (p *pager) helpKeys() []key.Binding {
	return p.search.helpKeys(scrollHelp(p.keys.Scroll, len(p.lines), p.bodyH())...)
}

// fullHelpKeys are every binding of the pager ("?" lists them all).
func (p *pager) fullHelpKeys() []key.Binding {
	return p.search.fullHelpKeys(scrollFullHelp(p.keys.Scroll, len(p.lines), p.bodyH())...)
}

// noSearchYet is what n or N says before any search has run.
const noSearchYet = "no search yet: / searches, then n/N step through the matches"

// scrollFullHelp is every vertical scroll key for n lines in a page of h:
// none when everything fits.
func scrollFullHelp(k ScrollKeyMap, n, h int) []key.Binding {
	if n <= h {
		return nil
	}
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}
}

// scrollHelp is the vertical scroll keys worth showing for n lines in a
// page of h: none when everything fits.
func scrollHelp(k ScrollKeyMap, n, h int) []key.Binding {
	if n <= h {
		return nil
	}
	return []key.Binding{k.Up, k.Down, k.PageDown}
}

// fullHelpKeys are helpKeys with n and N before a search too (they say
// how to start one).
func (s *searchBox) fullHelpKeys(nav ...key.Binding) []key.Binding {
	k := s.keys
	if s.open {
		return []key.Binding{k.Accept, k.Cancel}
	}
	return append(nav[:len(nav):len(nav)], k.Start, k.Next, k.Prev)
}

// helpKeys are the bindings of a body that searches with s: the prompt's
// own while it is open, else the body's nav keys, / and, once a search
// has run, n and N.
func (s *searchBox) helpKeys(nav ...key.Binding) []key.Binding {
	k := s.keys
	if s.open {
		return []key.Binding{k.Accept, k.Cancel}
	}
	b := append(nav[:len(nav):len(nav)], k.Start)
	if s.query != "" {
		b = append(b, k.Next, k.Prev)
	}
	return b
}

// scrollKey applies a vertical scroll key to a body's first visible line
// *top, for n lines shown page at a time: ↑/↓ one line, the page keys a
// page, g/G the ends. It reports whether kp was one; the caller clamps.
func scrollKey(kp tea.KeyPressMsg, s ScrollKeyMap, top *int, page, n int) bool {
	switch {
	case key.Matches(kp, s.Up):
		*top--
	case key.Matches(kp, s.Down):
		*top++
	case key.Matches(kp, s.PageUp):
		*top -= page
	case key.Matches(kp, s.PageDown):
		*top += page
	case key.Matches(kp, s.Top):
		*top = 0
	case key.Matches(kp, s.Bottom):
		*top = n
	default:
		return false
	}
	return true
}

// cursorKey applies a vertical scroll key to a list's cursor *cur over n
// rows shown page at a time from *top: ↑/↓ move the cursor a row, the page
// keys move the cursor and the view a page, g/G go to the ends. It reports
// whether kp was one; the caller clamps.
func cursorKey(kp tea.KeyPressMsg, s ScrollKeyMap, cur, top *int, page, n int) bool {
	switch {
	case key.Matches(kp, s.Up):
		*cur--
	case key.Matches(kp, s.Down):
		*cur++
	case key.Matches(kp, s.PageUp):
		*cur -= page
		*top -= page
	case key.Matches(kp, s.PageDown):
		*cur += page
		*top += page
	case key.Matches(kp, s.Top):
		*cur = 0
	case key.Matches(kp, s.Bottom):
		*cur = n - 1
	default:
		return false
	}
	return true
}

// splitLines splits rendered text into lines, dropping one trailing newline.
func splitLines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
