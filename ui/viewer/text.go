package viewer

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"modbay/render"
)

// textTabStop is the terminal's tab stop, to which tabs are expanded.
const textTabStop = 8

// text shows plain text with line numbers (toggled with #), soft wrapping
// (toggled with w; off, long lines are cut at the width) and search. The
// text is sanitized and tab-expanded once, at load.
type text struct {
	pager
	src   []string // sanitized source lines
	wrap  bool
	lineN bool
	w     int
}

// newText prepares the lines; it runs in the load Cmd.
func newText(in loadInput, src []byte) *text {
	s := render.Sanitize(string(src))
	s = expandTabs(s)
	t := &text{pager: newPager(in.com, in.keys), src: splitLines(s), wrap: true, lineN: true, w: in.w}
	t.layout()
	return t
}

// expandTabs replaces tabs with spaces to the next 8-column stop.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	col := 0
	for _, r := range s {
		switch r {
		case '\t':
			n := textTabStop - col%textTabStop
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case '\n':
			b.WriteRune(r)
			col = 0
		default:
			b.WriteRune(r)
			col += ansi.StringWidth(string(r))
		}
	}
	return b.String()
}

// SetSize implements body; a new width re-wraps.
func (t *text) SetSize(w, h int) {
	changed := w != t.w
	t.w = w
	t.pager.SetSize(w, h)
	if changed && t.wrap {
		t.layout()
	}
}

// layout builds the display lines from the source for the width and modes.
func (t *text) layout() {
	width := max(t.w, 10)
	if t.lineN {
		width -= len(itoa(len(t.src))) + 1
	}
	width = max(width, 4)
	lines := make([]string, 0, len(t.src))
	var nums []int
	if t.lineN {
		nums = make([]int, 0, len(t.src))
	}
	for i, l := range t.src {
		if !t.wrap || len(l) <= width || ansi.StringWidth(l) <= width {
			lines = append(lines, l)
			if nums != nil {
				nums = append(nums, i+1)
			}
			continue
		}
		for j, part := range strings.Split(ansi.Wrap(l, width, "/,;"), "\n") {
			lines = append(lines, part)
			if nums != nil {
				n := 0
				if j == 0 {
					n = i + 1
				}
				nums = append(nums, n)
			}
		}
	}
	t.pager.SetLines(lines, nums)
}

// Update handles the toggles, then the pager's keys.
func (t *text) Update(msg tea.Msg) (bool, tea.Cmd) {
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return false, nil
	}
	if !t.pager.Typing() {
		switch {
		case key.Matches(kp, t.keys.Text.Wrap):
			t.wrap = !t.wrap
			t.layout()
			return true, nil
		case key.Matches(kp, t.keys.Text.LineNumbers):
			t.lineN = !t.lineN
			t.layout()
			return true, nil
		}
	}
	return t.pager.Update(kp)
}

// HelpKeys implements body.
func (t *text) HelpKeys() []key.Binding {
	b := t.pager.helpKeys()
	if t.pager.Typing() {
		return b
	}
	return append(b, t.keys.Text.Wrap, t.keys.Text.LineNumbers)
}

// itoa formats n.
func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var buf [20]byte
	i := len(buf)
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return string(buf[i:])
}
