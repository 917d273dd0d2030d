package styles

import (
	"strings"
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
// frame keeps its layout when it is translated.
var asciiGlyphs = []string{
	// Box drawing: lines, then corners and joints.
	"─", "-", "━", "-", "═", "=", "│", "|", "┃", "|", "║", "|",
	"╭", "+", "╮", "+", "╰", "+", "╯", "+", "┌", "+", "┐", "+", "└", "+", "┘", "+",
	"├", "+", "┤", "+", "┬", "+", "┴", "+", "┼", "+",
	"╔", "+", "╗", "+", "╚", "+", "╝", "+",
	// Arrows, cursors and folds.
	"↑", "^", "↓", "v", "←", "<", "→", ">", "›", ">", "‹", "<",
	"▲", "^", "▼", "v", "▾", "v", "▸", ">", "⇄", "=",
	// Ellipsis: one cell, like the glyph it stands for.
	"…", "~",
	// Checks, marks and bullets.
	"✓", "+", "✗", "x", "≠", "!", "•", "*", "·", ".", "●", "*", "◆", "*",
	// Dashes and signs.
	"–", "-", "—", "-", "×", "x", "≤", "<", "≥", ">", "±", "+",
	// Blocks (progress bars, half-block images).
	"█", "#", "▀", "#", "▄", "#",
	// Spaces: glamour pads inline code with no-break spaces.
	"\u00a0", " ",
	// Control pictures the sanitizer draws for control characters.
	"␛", "^", "␀", "^", "␇", "^", "␈", "^", "␋", "^", "␌", "^", "␍", "^", "␡", "^",
	"␣", "_", "⏎", "$", "␉", "^",
	// Marks: a job not followed (history), a warning, a handed artifact.
	"◌", "o", "⚠", "!", "⇢", ">",
	// Spinner frames (MiniDot, Dot): a turning line.
	"⠋", "|", "⠙", "/", "⠹", "-", "⠸", "\\", "⠼", "|", "⠴", "/", "⠦", "-", "⠧", "\\", "⠇", "|", "⠏", "/",
	"⣾", "|", "⣽", "/", "⣻", "-", "⢿", "\\", "⡿", "|", "⣟", "/", "⣯", "-", "⣷", "\\",
}

// asciiReplacer applies asciiGlyphs; a Replacer is safe for concurrent
// use and never changes.
var asciiReplacer = strings.NewReplacer(asciiGlyphs...)

// ToASCII translates the glyphs of the table in s (which may hold ANSI
// styling, left as is) to their ASCII stand-ins; other text is kept.
func ToASCII(s string) string { return asciiReplacer.Replace(s) }
