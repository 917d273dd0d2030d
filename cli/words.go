package cli

import (
	"fmt"
	"strings"
	"unicode"

	"modbay/internal/words"
	"modbay/render"
)

// clean makes a module-supplied string safe for one line of a terminal.
func clean(s string) string { return render.SanitizeLine(s) }

// cleanID is clean for an identifier (module, capability, job, skill):
// every character that draws nothing (zero-width spaces and joiners, word
// joiners, soft hyphens, byte-order marks, Hangul fillers) is written as
// "<U+200B>", so two ids that differ only by such a character never look
// the same on screen.
func cleanID(s string) string {
	s = clean(s)
	if strings.IndexFunc(s, invisible) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if invisible(r) {
			fmt.Fprintf(&b, "<U+%04X>", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// invisible reports whether r draws nothing: a Unicode format character
// (category Cf: U+200B–U+200F, U+2060–U+2064, U+FEFF, U+00AD, the bidi
// marks, tags), a combining grapheme joiner, a variation selector, or one
// of the Hangul fillers that render as blank.
func invisible(r rune) bool {
	switch {
	case unicode.Is(unicode.Cf, r), unicode.Is(unicode.Variation_Selector, r):
		return true
	case r == '\u034F', r == '\u115F', r == '\u1160', r == '\u3164', r == '\uFFA0':
		return true
	}
	return false
}

// count writes n with the word that fits it: "1 poll", "2 polls".
func count(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, words.Plural(n, one, many))
}
