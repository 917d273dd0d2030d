package render

import "bytes"

// MaxMarkdownWork bounds the styling work a document may ask of glamour,
// in the units markdownWork counts. Glamour's cost grows with the square of
// a line's container depth (each list level re-wraps what it holds) and
// of a list's length (each item counts its earlier siblings): one line of
// 800 nested list markers took 90 s and 1.6 GB, 50 KB of lines 12 levels
// deep 20 s. A unit costs glamour 25–90 µs, so the bound keeps a render
// under about ten seconds of CPU (BenchmarkMarkdownWorstWithinBound); a
// 2 MiB document of prose and 512 KiB of list items stay under it
// (docs/protocol.md §14). A document may
// use MaxMarkdownWork plus one unit per 32 of its bytes, what prose costs,
// so a long document of prose is styled however long it is.
const MaxMarkdownWork = 100_000

// MarkdownWorkWithin reports whether styling src stays within
// MaxMarkdownWork (plus its bytes' allowance); past it, Markdown shows
// plain text with a note, and the cockpit's viewer does the same.
func MarkdownWorkWithin(src []byte) bool {
	limit := int64(MaxMarkdownWork) + int64(len(src))/32
	return markdownWork(src, limit) <= limit
}

// markdownWork estimates glamour's work for src, stopping once it passes
// limit: each line costs (1+d)·((1+d) + len/64) units, d its container
// depth, plus 2 per '|' (a table's cells: 155,000 short rows took over
// 60 s and 2 GB). d is an upper bound read from the line's prefix alone — each
// blockquote marker and list marker (with the space after it) and two
// columns of other indentation count one —
// and a line with no prefix of its own carries the depth of the line before
// it until a blank line (a lazy continuation stays in its containers).
// Code fences are not followed: what the parser takes for one (an info
// string with a backtick is not, an HTML block hides one) is not for a
// scan to guess, and a scan that guessed wrong would count a deep list as
// code. Deeply indented code costs budget instead.
func markdownWork(src []byte, limit int64) int64 {
	var work int64
	carry := 0
	for len(src) > 0 {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		d, rest := containerPrefix(line)
		if len(rest) == 0 {
			carry = 0
		} else {
			d = max(d, carry)
			carry = d
		}
		// A table row costs glamour's table about 0.3 ms: 2 units a cell.
		work += int64(1+d)*int64(1+d+len(line)/64) + 2*int64(bytes.Count(line, []byte{'|'}))
		if work > limit {
			break
		}
	}
	return work
}

// containerPrefix counts the container markers and indentation of line's
// prefix (see markdownWork) and returns what follows it.
func containerPrefix(line []byte) (depth int, rest []byte) {
	cols, i := 0, 0
	for i < len(line) {
		switch c := line[i]; {
		case c == ' ':
			cols++
			i++
		case c == '\t':
			cols += markdownTabStop - cols%markdownTabStop
			i++
		case c == '>':
			depth++
			i = skipSeparator(line, i+1)
		case (c == '-' || c == '+' || c == '*') && markerEnds(line, i+1):
			depth++
			i = skipSeparator(line, i+1)
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j < len(line) && (line[j] == '.' || line[j] == ')') && markerEnds(line, j+1) {
				depth++
				i = skipSeparator(line, j+1)
				continue
			}
			return depth + cols/2, line[i:]
		default:
			return depth + cols/2, line[i:]
		}
	}
	return depth + cols/2, nil
}

// skipSeparator skips the one space that ends a marker at line[i], which
// is part of the marker, not indentation.
func skipSeparator(line []byte, i int) int {
	if i < len(line) && line[i] == ' ' {
		return i + 1
	}
	return i
}

// markerEnds reports whether a list marker ending before line[i] is one:
// followed by a space, a tab or the line's end.
func markerEnds(line []byte, i int) bool {
	return i >= len(line) || line[i] == ' ' || line[i] == '\t'
}
