package render

import (
	"image/color"
	"modbay/cellwidth"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

const (
	// MinWidth is the narrowest output width in cells. Below it a table has no
	// room for even two columns and a key/value block none for its values.
	MinWidth = 20
	// DefaultWidth is used when Options.Width is zero or negative: the classic
	// 80-column terminal, so a zero Options renders sensibly.
	DefaultWidth = 80
)

// Options says how to render: for which width and which terminal theme.
type Options struct {
	// Width is the number of terminal cells available per line. Every line of
	// output is at most this wide. Values below MinWidth are raised to
	// MinWidth; zero or negative means DefaultWidth.
	Width int
	// Dark selects colors for a dark terminal background (light otherwise).
	Dark bool
	// NoColor renders without any ANSI styling: the output then contains no
	// ESC byte at all. The caller decides it (NO_COLOR, a non-terminal
	// output, golden tests); this package never reads the environment.
	NoColor bool
	// Attributes, with NoColor, keeps text attributes where a renderer
	// would otherwise show markup: markdown's strong text is bold and its
	// emphasis underlined (SGR 1 and 4, never a colour), not "**x**" and
	// "*x*". For a terminal that shows attributes but no colour
	// (NO_COLOR, vt100), like the cockpit's. Ignored without NoColor.
	Attributes bool
	// ScrollCode leaves every line of a markdown code block whole, however
	// wide, for a viewer that scrolls code sideways: the code of each such
	// line is framed by [CodeStart] and [CodeEnd] (its margin and quote
	// bars before, glamour's padding after), and only those lines may be
	// wider than Width. Without it code lines are soft-wrapped to Width.
	ScrollCode bool
}

// The marks of a code line under [Options.ScrollCode]: private-use
// characters, replaced in the source with U+FFFD, so only the renderer
// writes them.
const (
	CodeStart = "\uE005"
	CodeEnd   = "\uE006"
)

// width returns o.Width clamped as documented on Options.Width.
func (o Options) width() int {
	switch {
	case o.Width <= 0:
		return DefaultWidth
	case o.Width < MinWidth:
		return MinWidth
	default:
		return o.Width
	}
}

// palette is the handful of semantic colors the renderers use, picked for the
// background. They are ANSI basic colors so the terminal's own theme decides
// the exact shade and any color profile can show them.
type palette struct {
	key, str, num, keyword, null, muted, accent color.Color
}

// colors returns the palette for o's background.
func (o Options) colors() palette {
	ld := lipgloss.LightDark(o.Dark)
	return palette{
		key:     ld(lipgloss.Blue, lipgloss.BrightBlue),
		str:     ld(lipgloss.Green, lipgloss.BrightGreen),
		num:     ld(lipgloss.Magenta, lipgloss.BrightMagenta),
		keyword: ld(lipgloss.Yellow, lipgloss.BrightYellow),
		null:    ld(lipgloss.BrightBlack, lipgloss.BrightBlack),
		muted:   ld(lipgloss.BrightBlack, lipgloss.BrightBlack),
		accent:  ld(lipgloss.Cyan, lipgloss.BrightCyan),
	}
}

// style returns a foreground style for c, or the empty style when o.NoColor,
// so callers can style unconditionally.
func (o Options) style(c color.Color) lipgloss.Style {
	if o.NoColor {
		return lipgloss.NewStyle()
	}
	return lipgloss.NewStyle().Foreground(c)
}

// cellWidth is the width of s in terminal cells (escape sequences count zero).
func cellWidth(s string) int {
	return cellwidth.String(s)
}

// widerThan reports whether a line of s is wider than width cells.
func widerThan(s string, width int) bool {
	for line := range strings.Lines(s) {
		if cellWidth(strings.TrimSuffix(line, "\n")) > width {
			return true
		}
	}
	return false
}

// fitLines hard-wraps every line of s that is wider than width cells, so no
// line of the result exceeds width. Escape sequences are kept and do not count.
func fitLines(s string, width int) string {
	if !widerThan(s, width) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/16)
	for line := range strings.Lines(s) {
		body, nl := strings.CutSuffix(line, "\n")
		if cellWidth(body) > width {
			body = ansi.Hardwrap(body, width, true)
		}
		b.WriteString(body)
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
