package examples

import (
	"fmt"
	"modbay/internal/words"
	"strings"
	"unicode"
	"unicode/utf8"
)

// cleanText removes control characters (terminal escapes included) and
// collapses the rest onto one line.
func cleanText(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || r == '\r' {
			return ' '
		}
		if unicode.IsControl(r) || r == utf8.RuneError {
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// mdEscape backslash-escapes the markdown punctuation that could change
// inline formatting.
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]<>|#", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mdCode returns s as an inline code span, with a backtick fence longer
// than any backtick run inside it.
func mdCode(s string) string {
	s = cleanText(s)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + s + pad + fence
}

// mdFence returns a code fence longer than any backtick run in s (at least
// three backticks).
func mdFence(s string) string { return strings.Repeat("`", max(3, longestRun(s, '`')+1)) }

// mdCell escapes the pipes of a table cell (inside code spans too, as GFM
// requires).
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// humanBytes formats n as "812 bytes", "3.4 KiB" or "1.2 MiB".
func humanBytes(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d %s", n, words.Plural(int(n), "byte", "bytes"))
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
}
