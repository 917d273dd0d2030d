package common

import (
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"modbay/cellwidth"
	"modbay/ui/styles"
)

// Ellipsis marks text cut to fit the width.
const Ellipsis = "…"

// Common is shared, by pointer, by the root model and every child.
type Common struct {
	// Width and Height are the terminal size in cells.
	Width, Height int
	// Styles is rebuilt when the background color is learned.
	Styles *styles.Styles
	// NoColor is true when colors are off (NO_COLOR).
	NoColor bool
	// ASCII is true when the terminal draws only ASCII (a non-UTF-8
	// locale, or MODBAY_GLYPHS=ascii): the root translates every frame
	// through the glyph table (styles.ToASCII).
	ASCII bool
	// Dark is the terminal background as last reported.
	Dark bool
	// Now is the clock; tests inject a fixed one so frames are stable.
	Now func() time.Time
	// FixedBackground keeps Dark as the theme set it (theme dark or
	// light): the terminal's report of its background is not followed.
	FixedBackground bool
	// Colors are the theme's palette overrides (styles.NewWith).
	Colors map[string]string
}

// New returns a Common for an 80×24 terminal with dark styles and the wall
// clock; the root model updates it as the terminal reports.
func New(noColor bool) *Common {
	return &Common{
		Width: 80, Height: 24,
		Styles:  styles.New(true, noColor),
		NoColor: noColor,
		Dark:    true,
		Now:     time.Now,
	}
}

// SetDark rebuilds the styles for a dark or light background.
func (c *Common) SetDark(dark bool) {
	if !c.FixedBackground {
		c.Dark = dark
	}
	c.Styles = styles.NewWith(c.Dark, c.NoColor, c.Colors)
}

// Trunc cuts s (which may hold ANSI styling) to at most w cells, ending
// in "…" when cut.
func Trunc(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return cellwidth.Truncate(s, w, Ellipsis)
}

// TruncTail cuts s to at most w cells, ending in tail when cut.
func TruncTail(s string, w int, tail string) string { return cellwidth.Truncate(s, w, tail) }

// FitWidth truncates every line of block to w cells.
func FitWidth(block string, w int) string {
	lines := strings.Split(block, "\n")
	for i, l := range lines {
		lines[i] = Trunc(l, w)
	}
	return strings.Join(lines, "\n")
}

// FitHeight keeps at most h lines of block; when lines are dropped the last
// kept line becomes "…".
func FitHeight(block string, h int) string {
	if h <= 0 {
		return ""
	}
	lines := strings.Split(block, "\n")
	if len(lines) <= h {
		return block
	}
	return strings.Join(append(lines[:h-1], Ellipsis), "\n")
}

// MaxNoteLines bounds a note (one sentence for the person: what was
// copied, why nothing is offered) wrapped to the width; the full help
// (?) shows a longer one whole.
const MaxNoteLines = 3

// Note wraps plain note s to w cells in at most MaxNoteLines lines; a
// note cut there ends "… (? shows it whole)".
func Note(s string, w int) string {
	lines := strings.Split(Wrap(s, max(w, 1)), "\n")
	if len(lines) <= MaxNoteLines {
		return strings.Join(lines, "\n")
	}
	lines = lines[:MaxNoteLines]
	lines[MaxNoteLines-1] = TruncTail(lines[MaxNoteLines-1]+" ", max(w-Width(noteCut), 1), "") + noteCut
	return FitWidth(strings.Join(lines, "\n"), w)
}

// NoteCut reports whether Note(s, w) cuts s: only then does the full
// help repeat the note whole (shown twice otherwise).
func NoteCut(s string, w int) bool {
	return len(strings.Split(Wrap(s, max(w, 1)), "\n")) > MaxNoteLines
}

// noteCut ends a note Note cut.
const noteCut = "… (? shows it whole)"

// Lines returns the number of lines of block ("" counts as 0).
func Lines(block string) int {
	if block == "" {
		return 0
	}
	return strings.Count(block, "\n") + 1
}

// Wrap wraps plain text s to w cells, breaking long words.
func Wrap(s string, w int) string {
	if w <= 0 {
		return s
	}
	return ansi.Wrap(s, w, "")
}

// WrapWords wraps s (which may hold ANSI styling) to w cells at spaces
// only: a path or a flag is never broken at its hyphens or slashes; a
// word wider than w alone is cut into lines of w cells. Each line of s
// wraps on its own.
func WrapWords(s string, w int) string {
	if w <= 0 {
		return s
	}
	var out []string
	for line := range strings.SplitSeq(s, "\n") {
		cur, cw := "", 0
		flush := func() {
			out = append(out, cur)
			cur, cw = "", 0
		}
		for _, word := range strings.Split(line, " ") {
			ww := Width(word)
			switch {
			case cw == 0 && ww <= w:
				cur, cw = word, ww
				if word == "" {
					cw = 0
				}
			case cw > 0 && cw+1+ww <= w:
				cur, cw = cur+" "+word, cw+1+ww
			case ww <= w:
				flush()
				cur, cw = word, ww
			default:
				if cw > 0 {
					flush()
				}
				parts := strings.Split(ansi.Hardwrap(word, w, false), "\n")
				out = append(out, parts[:len(parts)-1]...)
				cur = parts[len(parts)-1]
				cw = Width(cur)
			}
		}
		flush()
	}
	return strings.Join(out, "\n")
}

// Width is the display width of s in cells, ignoring ANSI styling.
func Width(s string) int { return cellwidth.String(s) }

// BlockWidth is the cells the widest line of a multi-line block takes.
func BlockWidth(block string) int {
	w := 0
	for l := range strings.SplitSeq(block, "\n") {
		w = max(w, ansi.StringWidth(l))
	}
	return w
}

// TitleOr is title, or fallback (an id) when title is blank.
func TitleOr(title, fallback string) string {
	if strings.TrimSpace(title) != "" {
		return title
	}
	return fallback
}

// OrDash shows "—" for an empty value.
func OrDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
