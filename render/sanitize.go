package render

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Glyphs that stand in for bytes a terminal would act on. They come from the
// Unicode "Control Pictures" block (U+2400–U+243F), which exists precisely so a
// control character can be shown instead of obeyed; each is one cell wide.
const (
	// controlPictureBase is U+2400 SYMBOL FOR NULL: C0 control c (0x00–0x1F)
	// is shown as controlPictureBase+c, so ESC (0x1B) becomes ␛ (U+241B),
	// BEL (0x07) ␇ and CR (0x0D) ␍.
	controlPictureBase = '\u2400'
	// escGlyph is ␛ (U+241B), shown where an ESC byte stood.
	escGlyph = '\u241B'
	// delGlyph is ␡ (U+2421), shown where a DEL (0x7F) stood.
	delGlyph = '\u2421'
	// bidiGlyph replaces an explicit bidirectional embedding, override or
	// isolate control (see isBidiControl): U+FFFD keeps the spot visible.
	bidiGlyph = utf8.RuneError
	// c1Base..c1Last is the C1 control range (U+0080–U+009F). Code 0x80+x is
	// the 8-bit form of ESC followed by 0x40+x (ECMA-48 §5.3), so U+009B (CSI)
	// is shown as "␛[" — the same inert text its 7-bit spelling gets.
	c1Base = 0x80
	c1Last = 0x9F
	// c1ToFe maps a C1 code to the final byte of its 7-bit ESC Fe spelling.
	c1ToFe = 0x40
)

// Sanitize makes an untrusted string inert for a terminal while keeping it
// readable. The result is valid UTF-8 and contains no byte 0x1B, no C1 control
// (U+0080–U+009F) and no C0 control other than '\n' and '\t'. Rules:
//
//   - ESC becomes ␛ (U+241B) and the bytes after it are kept as ordinary text,
//     so "\x1b[2J" shows as "␛[2J" and an OSC 8 hyperlink or OSC 52 clipboard
//     write shows its payload instead of acting. CSI, OSC, DCS, APC, PM and SOS
//     all begin with ESC (or a C1 code, below), so all of them are covered
//     without parsing: no sequence can survive because its introducer cannot.
//   - every other C0 control except '\n' and '\t' becomes its Control Picture
//     (U+2400+c: BEL ␇, BS ␈, NUL ␀); DEL (0x7F) becomes ␡ (U+2421).
//   - "\r\n" becomes "\n" (Windows line ends); a lone '\r' becomes ␍, because a
//     bare carriage return lets later text overwrite earlier text on screen.
//   - a C1 control U+0080+x becomes ␛ followed by the ASCII byte 0x40+x, its
//     7-bit spelling (U+009B CSI shows as "␛[").
//   - each byte of invalid UTF-8 becomes U+FFFD.
//   - the explicit bidi embedding, override and isolate controls (U+202A–U+202E,
//     U+2066–U+2069; the "Trojan Source" set, CVE-2021-42574) become U+FFFD:
//     they are invisible yet reorder what a person reads. Implicit marks
//     (U+200E, U+200F, U+061C) are kept; they cannot hide text.
//   - the invisible format characters that can hide text or split a word
//     unseen — Unicode tag characters (U+E0000–U+E007F, which spell
//     invisible ASCII), zero width space U+200B, word joiner and invisible
//     operators U+2060–U+2064, U+FEFF, the soft hyphen U+00AD and the other
//     characters drawn as nothing (isInvisibleFormat) — show as "<U+XXXX>". The joiners
//     U+200C and U+200D are kept: scripts and emoji need them.
//
// Sanitize never drops a character silently; everything removed leaves a
// visible stand-in.
func Sanitize(s string) string {
	return sanitize(s, false)
}

// SanitizeLine is Sanitize for one-line fields such as titles: it also turns
// '\n', '\r' and '\t' into single spaces ("\r\n" into one space), so the result
// contains no control character at all.
func SanitizeLine(s string) string {
	return sanitize(s, true)
}

// SanitizeCell is Sanitize for text shown on one line inside a widget (a
// table cell, a JSON tree's string): a line break shows as ⏎ (U+23CE) and
// a tab as a space, so the line stays one line and a break stays visible.
// Every other control shows as Sanitize's glyph (ESC as ␛).
func SanitizeCell(s string) string {
	s = Sanitize(s)
	if strings.ContainsAny(s, "\n\t") {
		s = cellReplacer.Replace(s)
	}
	return s
}

// cellReplacer turns SanitizeCell's line breaks and tabs into one cell each.
var cellReplacer = strings.NewReplacer("\n", newlineGlyph, "\t", " ")

// sanitize implements Sanitize and SanitizeLine; oneLine selects the latter.
func sanitize(s string, oneLine bool) string {
	if isClean(s, oneLine) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune(utf8.RuneError)
		case r == '\n' || r == '\t':
			if oneLine {
				b.WriteByte(' ')
			} else {
				b.WriteRune(r)
			}
		case r == '\r':
			crlf := i < len(s) && s[i] == '\n'
			switch {
			case crlf && oneLine:
				b.WriteByte(' ')
				i++
			case crlf:
				// Leave the '\n' for the next iteration.
			case oneLine:
				b.WriteByte(' ')
			default:
				b.WriteRune(controlPictureBase + r)
			}
		case r == 0x1B:
			b.WriteRune(escGlyph)
		case r < 0x20:
			b.WriteRune(controlPictureBase + r)
		case r == 0x7F:
			b.WriteRune(delGlyph)
		case r >= c1Base && r <= c1Last:
			b.WriteRune(escGlyph)
			b.WriteByte(byte(r - c1Base + c1ToFe))
		case isBidiControl(r):
			b.WriteRune(bidiGlyph)
		case isInvisibleFormat(r):
			fmt.Fprintf(&b, "<U+%04X>", r)
		default:
			b.WriteString(s[i-size : i])
		}
	}
	return b.String()
}

// isClean reports whether s needs no change, so the common case allocates
// nothing: printable ASCII (plus '\n' and '\t' unless oneLine) with valid,
// harmless multi-byte runes.
func isClean(s string, oneLine bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == 0x7F || (c < 0x20 && (oneLine || (c != '\n' && c != '\t'))) {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size <= 1) || (r >= c1Base && r <= c1Last) || isBidiControl(r) || isInvisibleFormat(r) {
			return false
		}
		i += size
	}
	return true
}

// isBidiControl reports whether r is an explicit directional embedding,
// override or isolate (Unicode UAX #9 §2.1–2.2): LRE, RLE, PDF, LRO, RLO
// (U+202A–U+202E) and LRI, RLI, FSI, PDI (U+2066–U+2069).
func isBidiControl(r rune) bool {
	return (r >= '\u202A' && r <= '\u202E') || (r >= '\u2066' && r <= '\u2069')
}

// isInvisibleFormat reports whether r is a format character Sanitize
// shows as "<U+XXXX>": a tag character, U+200B, U+2060–U+2064, U+FEFF,
// and the other characters terminals draw as nothing: the soft hyphen
// U+00AD, the combining grapheme joiner U+034F, the Hangul fillers
// (U+115F, U+1160, U+3164, U+FFA0), the Khmer inherent vowels U+17B4 and
// U+17B5 and the Mongolian vowel separator U+180E.
func isInvisibleFormat(r rune) bool {
	switch r {
	case '\u00AD', '\u034F', '\u115F', '\u1160', '\u17B4', '\u17B5', '\u180E', '\u3164', '\uFFA0':
		return true
	}
	return (r >= 0xE0000 && r <= 0xE007F) || r == '\u200B' || (r >= '\u2060' && r <= '\u2064') || r == '\uFEFF'
}

// expandTabs replaces each '\t' in s with spaces up to the next multiple of
// stop columns, counting columns per line in terminal cells. s must already be
// sanitized (no escape sequences), so cell widths are those of its text.
func expandTabs(s string, stop int) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	for line := range strings.Lines(s) {
		col := 0
		for {
			j := strings.IndexByte(line, '\t')
			if j < 0 {
				b.WriteString(line)
				break
			}
			seg := line[:j]
			b.WriteString(seg)
			col += cellWidth(seg)
			pad := stop - col%stop
			b.WriteString(strings.Repeat(" ", pad))
			col += pad
			line = line[j+1:]
		}
	}
	return b.String()
}
