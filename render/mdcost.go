package render

import "bytes"

// MaxMarkdownWork bounds the styling work one glamour call may do, in the
// units markdownWork counts: one document of at most MarkdownChunkBytes,
// or one chunk of a longer one as SplitMarkdown cuts it, with the
// document's link definitions. Glamour's cost grows with the square of a
// line's container depth (each list level re-wraps what it holds) and
// each list item costs it some 0.2 ms however short: one line of 800
// nested list markers took 90 s and 1.6 GB, 50 KB of lines 12 levels deep
// 20 s, 25,000 one-word items 7 s. A unit costs glamour 15–40 µs
// whatever the shape, as a real document's do (a 256 KiB document of
// sections, lists, code and tables: 36 µs), so a call stays within about
// 1.5 s (BenchmarkMarkdownWorstWithinBound). A call may use one more unit
// per 64 of its bytes, what a long line costs, so one long block of
// prose or code is styled whatever its length.
const MaxMarkdownWork = 40_000

// MarkdownWorkPerByte is the work a whole document may use per byte,
// beyond MaxMarkdownWork: real documents use 0.09–0.23 units a byte (a
// 120 KB emoji cheat sheet 0.20, a 100 KB README of lists 0.19), the
// viewer's benchmark document of sections, lists, code and tables 0.35,
// so a hostile document of any shape costs at most about twice what a
// real one of its size does — some 30 s of CPU at MaxMarkdownBytes against
// 16 s, spread over its chunks (docs/protocol.md §14).
const MarkdownWorkPerByte = 0.35

// MarkdownWorkWithin reports whether styling src stays within the bounds:
// the whole document within MaxMarkdownWork plus MarkdownWorkPerByte of
// its bytes, and each glamour call within MaxMarkdownWork (each chunk
// SplitMarkdown cuts, with the document's link definitions), counting
// the prefixes' work (markdownWork) and inline parsing's (inlineWork). Past them,
// Markdown shows plain text with a note, and the cockpit's viewer and
// `modbay render` do the same.
func MarkdownWorkWithin(src []byte) bool {
	limit := int64(MaxMarkdownWork) + int64(float64(len(src))*MarkdownWorkPerByte)
	work := markdownWork(src, limit)
	if work > limit {
		return false
	}
	if len(src) <= MarkdownChunkBytes {
		return markdownCallWithin(src, nil)
	}
	defs := LinkDefinitions(src)
	for _, c := range SplitMarkdown(src, MarkdownChunkBytes) {
		inline, ok := markdownCallWork(c, chunkDefinitions(c, defs))
		if work += inline; !ok || work > limit {
			return false
		}
	}
	return true
}

// markdownCallWithin reports whether one glamour call on chunk with defs
// appended (MarkdownChunk) stays within MaxMarkdownWork.
func markdownCallWithin(chunk, defs []byte) bool {
	_, ok := markdownCallWork(chunk, defs)
	return ok
}

// markdownCallWork estimates one glamour call on chunk with defs
// appended: whether it stays within MaxMarkdownWork, and its inline
// parsing's part (inlineWork), which a document's prefixes do not count.
func markdownCallWork(chunk, defs []byte) (inline int64, ok bool) {
	limit := int64(MaxMarkdownWork) + int64(len(chunk)+len(defs))/64
	w := markdownWork(chunk, limit)
	if len(defs) > 0 && w <= limit {
		w += markdownWork(defs, limit-w)
	}
	if w > limit {
		return 0, false
	}
	src := chunk
	if len(defs) > 0 {
		src = append(append(append(make([]byte, 0, len(chunk)+len(defs)+2), chunk...), "\n\n"...), defs...)
	}
	doc, _ := parseBlocks(src)
	inline = inlineWork(doc, src, limit-w)
	return inline, w+inline <= limit
}

// markdownWork estimates glamour's work for src, stopping once it passes
// limit: each line costs (1+d)·((1+d) + len/64)·(8+d)/8 units, d its
// container depth (deep lines cost glamour more than the square: a line 12
// deep 18 ms, 4 deep 2 ms), plus 4 per list marker (an item), 2 per '|'
// (a table's cells: 155,000 short rows took over 60 s and 2 GB; a row
// after a delimiter row as many as its header's cells), and 3
// for a line that may start a block, 5 for a heading or a definition
// (20,000 paragraphs of "a" took 3 s: 0.1–0.4 ms a block, however short). A list's items each walk
// their earlier siblings too, but that square term is small beside the
// items' own cost (1.4 s of 25,000 items' 7 s) and the bound keeps a list
// far shorter.
//
// d is an upper bound read from prefixes alone: each blockquote and list
// marker on the line (with the space after it) opens or continues one
// container, and its indentation continues at most one open list item per
// two columns — at most as many as the last line not blank was in, as
// indentation opens none (so indented code at the top level is depth 0).
// A line with no prefix of its own carries the depth of the line before
// it until a blank line (a lazy continuation stays in its containers).
// Code fences are not followed: what the parser takes for one (an info
// string with a backtick is not, an HTML block hides one) is not for a
// scan to guess, and a scan that guessed wrong would count a deep list as
// code.
func markdownWork(src []byte, limit int64) int64 {
	var work int64
	carry, open, columns := 0, 0, 0
	prevBlank := true
	for len(src) > 0 {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		p := containerPrefix(line)
		d := p.depth(open)
		if len(p.rest) == 0 {
			carry = 0 // a blank line, or markers only: nothing lazy follows
		} else {
			d = max(d, carry)
			carry = d
		}
		if len(p.rest) > 0 || p.markers > 0 {
			open = d
		}
		// A table's rows each have its header's cells, however few they
		// write: 1,000 columns of 2,000 one-cell rows took 28 s and 1 GB.
		cells := bytes.Count(line, []byte{'|'})
		switch {
		case len(p.rest) == 0 && p.markers == 0:
			columns = 0 // a blank line ends a table
		case columns > 0:
			cells = max(cells, columns)
		default:
			columns = delimiterCells(p.rest)
		}
		work += int64(1+d)*int64(1+d+len(line)/64)*int64(8+d)/8 + 4*int64(p.items) + 2*int64(cells)
		if len(p.rest) > 0 && (prevBlank || p.markers > 0 || !isAlnum(p.rest[0])) {
			// A line that may start a block (after a blank line, or not
			// with a letter or digit, which a paragraph's next line
			// mostly does): glamour takes 0.1–0.4 ms for each block,
			// headings and definitions the most.
			work += 3
			if p.rest[0] == '#' || p.rest[0] == ':' {
				work += 2
			}
		}
		prevBlank = len(p.rest) == 0 && p.markers == 0
		if work > limit {
			break
		}
	}
	return work
}

// delimiterCells is the cells of a GFM table's delimiter row ("|:-|--|"),
// or 0 when line is not one: only '|', '-', ':', spaces and tabs, and a
// run of '-' in each cell.
func delimiterCells(line []byte) int {
	if !bytes.Contains(line, []byte{'-'}) || len(bytes.Trim(line, "|-: \t")) > 0 {
		return 0
	}
	cells, in := 0, false
	for _, c := range line {
		switch c {
		case '-', ':':
			if !in {
				cells++
			}
			in = true
		case '|':
			in = false
		}
	}
	return cells
}

// isAlnum reports whether c is an ASCII letter or digit.
func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// prefix is what containerPrefix reads from a line's start.
type prefix struct {
	markers int    // blockquote and list markers
	items   int    // of them, list markers
	cols    int    // columns of indentation, tabs to markdownTabStop
	rest    []byte // what follows the prefix; empty for a blank line
}

// depth is the line's container depth bound when the line before it with
// text was at depth open (see markdownWork).
func (p prefix) depth(open int) int {
	return p.markers + min(p.cols/2, open)
}

// containerPrefix reads the container markers and indentation of line's
// prefix (see markdownWork).
func containerPrefix(line []byte) prefix {
	var p prefix
	i := 0
	for i < len(line) {
		switch c := line[i]; {
		case c == ' ':
			p.cols++
			i++
		case c == '\t':
			p.cols += markdownTabStop - p.cols%markdownTabStop
			i++
		case c == '>':
			p.markers++
			i = skipSeparator(line, i+1)
		case (c == '-' || c == '+' || c == '*') && markerEnds(line, i+1):
			p.markers++
			p.items++
			i = skipSeparator(line, i+1)
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j < len(line) && (line[j] == '.' || line[j] == ')') && markerEnds(line, j+1) {
				p.markers++
				p.items++
				i = skipSeparator(line, j+1)
				continue
			}
			p.rest = line[i:]
			return p
		default:
			p.rest = line[i:]
			return p
		}
	}
	return p
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
