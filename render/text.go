package render

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

const (
	// textTabStop is the terminal's own tab stop: tabs in plain text are
	// expanded to the columns a terminal would have put them at.
	textTabStop = 8
	// binarySniffBytes is how much of a file IsBinary looks at, as git and
	// file(1) do: enough to see a header, cheap for a huge file.
	binarySniffBytes = 8 << 10
	// binaryInvalidRatio is the share of bytes in the sniffed prefix that may
	// be invalid UTF-8 before the file counts as binary. Text in a legacy
	// 8-bit encoding has a few such bytes; compressed or media data has about
	// half.
	binaryInvalidRatio = 0.10
	// wrapBreakpoints are the characters besides space where Text may break a
	// long line (ansi.Wrap always breaks at '-' and at spaces too).
	wrapBreakpoints = "/,;"
)

// Text renders plain text: sanitized ([Sanitize]), tabs expanded to 8-column
// stops, and every line word-wrapped to o.Width cells (a word longer than a
// line is broken). Line ends are kept; "\r\n" becomes "\n". Text has no
// colors, so o.Dark and o.NoColor do not change it.
func Text(src []byte, o Options) string {
	width := o.width()
	s := SanitizeText(string(src))
	var b strings.Builder
	b.Grow(len(s) + len(s)/16)
	for line := range strings.Lines(s) {
		body, nl := strings.CutSuffix(line, "\n")
		if cellWidth(body) > width {
			body = ansi.Wrap(body, width, wrapBreakpoints)
		}
		b.WriteString(body)
		if nl {
			b.WriteByte('\n')
		}
	}
	return fitLines(b.String(), width)
}

// SanitizeText is [Sanitize] with every tab expanded to the terminal's
// 8-column stops, counted in cells: plain text as [Text] shows it before
// wrapping, for a viewer that lays the lines out itself.
func SanitizeText(s string) string {
	return expandTabs(Sanitize(s), textTabStop)
}

// IsBinary reports whether src looks like binary data rather than text: its
// first 8 KiB contain a NUL byte, or more than 10% of those bytes are invalid
// UTF-8. A multi-byte character cut off by the 8 KiB limit is not counted as
// invalid. Empty input is not binary.
func IsBinary(src []byte) bool {
	head := src[:min(len(src), binarySniffBytes)]
	truncated := len(head) < len(src)
	invalid := 0
	for i := 0; i < len(head); {
		c := head[i]
		if c == 0 {
			return true
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && size <= 1 {
			if truncated && !utf8.FullRune(head[i:]) {
				break
			}
			invalid++
		}
		i += size
	}
	return float64(invalid) > binaryInvalidRatio*float64(len(head))
}
