package viewer

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"modbay/render"
)

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
	s := render.SanitizeText(string(src))
	t := &text{pager: newPager(in.com, in.keys), src: splitLines(s), wrap: true, lineN: true, w: in.w}
	t.layout()
	return t
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
		width -= len(strconv.Itoa(len(t.src))) + 1
	}
	width = max(width, 4)
	lines := make([]string, 0, len(t.src))
	var nums []int
	if t.lineN {
		nums = make([]int, 0, len(t.src))
	}
	for i, l := range t.src {
		// A printable ASCII line is as wide as it is long: only others
		// are measured.
		if !t.wrap || len(l) <= width || !isPlainASCII(l) && ansi.StringWidth(l) <= width {
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

// FullHelpKeys implements fullHelper.
func (t *text) FullHelpKeys() []key.Binding {
	b := t.pager.fullHelpKeys()
	if t.pager.Typing() {
		return b
	}
	return append(b, t.keys.Text.Wrap, t.keys.Text.LineNumbers)
}
