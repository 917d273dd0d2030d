package styles

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Glyphs says which characters the cockpit may draw: Unicode (box
// drawing, arrows, ellipses, checks, bullets, braille spinner frames) or
// their ASCII stand-ins, for a terminal whose locale is not UTF-8.
type Glyphs int

// Glyph sets.
const (
	// GlyphsAuto follows the environment (DetectGlyphs).
	GlyphsAuto Glyphs = iota
	// GlyphsUnicode draws the Unicode glyphs.
	GlyphsUnicode
	// GlyphsASCII draws only ASCII.
	GlyphsASCII
)

// GlyphsEnv overrides what the locale says: "unicode" for a terminal that
// can do better than its locale (SSH often forwards no locale), "ascii"
// for one that cannot.
const GlyphsEnv = "MODBAY_GLYPHS"

// DetectGlyphs picks the glyph set for the environment getenv reads:
// MODBAY_GLYPHS ("unicode" or "ascii") when set; else ASCII when TERM
// names a DEC VT terminal (DECTerm); else Unicode when the locale's
// character set is UTF-8 (the first non-empty of LC_ALL, LC_CTYPE and
// LANG, as setlocale(3) reads them) and ASCII otherwise: "C", "POSIX",
// an unset locale or another character set. TERM=linux keeps Unicode:
// the console's UTF-8 mode draws the box lines.
func DetectGlyphs(getenv func(string) string) Glyphs {
	switch strings.ToLower(strings.TrimSpace(getenv(GlyphsEnv))) {
	case "unicode", "utf8", "utf-8":
		return GlyphsUnicode
	case "ascii":
		return GlyphsASCII
	}
	if DECTerm(getenv("TERM")) {
		return GlyphsASCII
	}
	for _, v := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		loc := getenv(v)
		if loc == "" {
			continue
		}
		_, cs, _ := strings.Cut(loc, ".")
		cs, _, _ = strings.Cut(cs, "@")
		cs = strings.ToLower(strings.ReplaceAll(cs, "-", ""))
		if cs == "utf8" {
			return GlyphsUnicode
		}
		return GlyphsASCII
	}
	return GlyphsASCII
}

// DECTerm reports whether term (a TERM value) names a DEC VT terminal
// or its emulation: "vt" and a digit (vt52, vt100, vt102, vt220, vt320,
// vt100-am …). These have no UTF-8: a multi-byte glyph shows as two or
// three wrong characters and moves the cursor wrong. "vte…" (GNOME's
// library) is not one.
func DECTerm(term string) bool {
	t := strings.ToLower(strings.TrimSpace(term))
	return len(t) > 2 && strings.HasPrefix(t, "vt") && t[2] >= '0' && t[2] <= '9'
}

// asciiGlyphs is the one glyph table: every non-ASCII glyph the cockpit,
// its widgets (lipgloss borders, the help bar, the spinner) and the
// renderers it shows (render/: table borders, the JSON tree, markdown)
// draw, each with an ASCII stand-in of the same width (one cell), so a
// frame keeps its layout when it is translated. Where one cell changes
// the meaning (≤ is not <), asciiWide has the faithful stand-in, which
// FitASCII prefers.
var asciiGlyphs = []string{
	// Box drawing: lines, then corners and joints.
	"─", "-", "━", "-", "═", "=", "│", "|", "┃", "|", "║", "|",
	"╭", "+", "╮", "+", "╰", "+", "╯", "+", "┌", "+", "┐", "+", "└", "+", "┘", "+",
	"├", "+", "┤", "+", "┬", "+", "┴", "+", "┼", "+",
	"╔", "+", "╗", "+", "╚", "+", "╝", "+",
	// Arrows, cursors and folds.
	"↑", "^", "↓", "v", "←", "<", "→", ">", "›", ">", "‹", "<",
	"▲", "^", "▼", "v", "▾", "v", "▸", ">", "⇄", "=", "⇢", ">", "↩", "\\",
	// Ellipsis: one cell, like the glyph it stands for.
	"…", "~",
	// Checks, marks and bullets.
	"✓", "+", "✗", "x", "≠", "!", "•", "*", "·", ".", "●", "*", "◆", "*", "◌", "o", "⚠", "!",
	// Dashes and signs.
	"–", "-", "—", "-", "−", "-", "“", "\"", "”", "\"", "‘", "'", "’", "'", "×", "x", "≤", "<", "≥", ">", "±", "+", "≈", "~", "§", "S",
	// Blocks (progress bars, half-block images).
	"█", "#", "▀", "#", "▄", "#",
	// Spaces: glamour pads inline code with no-break spaces.
	"\u00a0", " ",
	// Control pictures the sanitizer and the text editor draw for control
	// characters, and the replacement character for bytes that are not UTF-8.
	"␛", "^", "␀", "^", "␇", "^", "␈", "^", "␉", "^", "␋", "^", "␌", "^", "␍", "^", "␡", "^",
	"␣", "_", "⏎", "$", "\ufffd", "?",
	// Spinner frames (MiniDot, Dot): a turning line.
	"⠋", "|", "⠙", "/", "⠹", "-", "⠸", "\\", "⠼", "|", "⠴", "/", "⠦", "-", "⠧", "\\", "⠇", "|", "⠏", "/",
	"⣾", "|", "⣽", "/", "⣻", "-", "⢿", "\\", "⡿", "|", "⣟", "/", "⣯", "-", "⣷", "\\",
}

// asciiWide are the stand-ins wider than one cell for the glyphs whose
// one-cell stand-in says something else: comparisons, the ellipsis ("~"
// reads as a home folder in a path), and control pictures in caret
// notation (␉ is ^I, a tab). Every other glyph keeps its asciiGlyphs
// stand-in.
var asciiWide = map[string]string{
	"≤": "<=", "≥": ">=", "≠": "!=", "±": "+-", "…": "...",
	"␛": "^[", "␀": "^@", "␇": "^G", "␈": "^H", "␉": "^I", "␋": "^K", "␌": "^L", "␍": "^M", "␡": "^?", "⏎": "^J",
}

// asciiReplacer applies asciiGlyphs; asciiWideReplacer applies asciiWide
// first, then asciiGlyphs. A Replacer is safe for concurrent use and
// never changes.
var (
	asciiReplacer     = strings.NewReplacer(asciiGlyphs...)
	asciiWideReplacer = strings.NewReplacer(wideFirst()...)
)

// wideFirst is asciiGlyphs with asciiWide's stand-ins in their place.
func wideFirst() []string {
	out := make([]string, len(asciiGlyphs))
	copy(out, asciiGlyphs)
	for i := 0; i < len(out); i += 2 {
		if w, ok := asciiWide[out[i]]; ok {
			out[i+1] = w
		}
	}
	return out
}

// ToASCII translates the glyphs of the table in s (which may hold ANSI
// styling, left as is) to their one-cell ASCII stand-ins; other text is kept.
func ToASCII(s string) string { return asciiReplacer.Replace(s) }

// WideASCII translates the glyphs of s to their faithful ASCII stand-ins
// (asciiWide first, then the table): for text measured after it is
// translated, such as a form field's constraints ("<= 8192 chars"), which
// then never falls back to a one-cell stand-in that changes its meaning.
func WideASCII(s string) string { return asciiWideReplacer.Replace(s) }

// FitASCII translates a frame of lines at most width cells wide: each
// line takes the faithful stand-ins (asciiWide: "<=" for ≤) when what
// they add fits, eating the line's trailing spaces; a line they would
// push past width takes the one-cell stand-ins (ToASCII), so the layout
// never breaks.
func FitASCII(frame string, width int) string {
	lines := strings.Split(frame, "\n")
	for i, l := range lines {
		lines[i] = fitASCIILine(l, width)
	}
	return strings.Join(lines, "\n")
}

// fitASCIILine is FitASCII for one line.
func fitASCIILine(l string, width int) string {
	wide := asciiWideReplacer.Replace(l)
	if wide == l || ansi.StringWidth(wide) <= width {
		return wide
	}
	if ansi.StringWidth(strings.TrimRight(ansi.Strip(wide), " ")) <= width {
		// Only trailing spaces pass width: cut them (styling kept).
		return ansi.Truncate(wide, width, "")
	}
	return asciiReplacer.Replace(l)
}
