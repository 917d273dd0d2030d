package render

import (
	"strings"
	"sync"
	"time"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	xansi "github.com/charmbracelet/x/ansi"
)

// maxHighlightTime bounds the time one document's code blocks may spend
// in chroma's lexers; the blocks after it are drawn unhighlighted. Chroma
// bounds one regexp match to 250 ms, not a block or a document, and a
// lexer's backtracking on hostile code can use each: 1 KB of tabs took
// AutoIt's lexer 0.7 s, of "<!" FortranFixed's 1 s, 16 KB of tabs 467 s.
// A block also stops at blockHighlightTime, and is then drawn
// uncoloured; its lexer is not used again (slowLexers).
const maxHighlightTime = 2 * time.Second

// lexerIndex finds a code fence's language by its lexer's name or alias,
// or a file extension one of its filename patterns names ("py", "rs"),
// case-insensitively, in one map lookup: chroma's own lookup matches
// every lexer's patterns for a name it does not know (about 3 ms a
// block), and guesses a fence with none from its text.
var lexerIndex = sync.OnceValue(func() map[string]chroma.Lexer {
	byName, byExt := map[string]chroma.Lexer{}, map[string]chroma.Lexer{}
	for _, l := range lexers.GlobalLexerRegistry.Lexers {
		c := l.Config()
		byName[strings.ToLower(c.Name)] = l
		for _, a := range c.Aliases {
			if _, ok := byName[strings.ToLower(a)]; !ok {
				byName[strings.ToLower(a)] = l
			}
		}
		for _, f := range c.Filenames {
			ext, ok := strings.CutPrefix(f, "*.")
			if !ok || strings.ContainsAny(ext, "*?[") {
				continue
			}
			ext = strings.ToLower(ext)
			if o, ok := byExt[ext]; !ok || l.Config().Priority > o.Config().Priority {
				byExt[ext] = l
			}
		}
	}
	for ext, l := range byExt {
		if _, ok := byName[ext]; !ok {
			byName[ext] = l
		}
	}
	return byName
})

// highlight writes code styled by the lexer for lang and chroma theme,
// reporting false when lang names none, chroma fails, or its lexing
// passes deadline (a lexer's regexps can take seconds on a few KB of
// hostile code; chroma lexes as tokens are asked for, and one match
// stops at 250 ms).
func highlight(b *strings.Builder, code, lang, theme string, deadline time.Time) bool {
	l := lexerIndex()[strings.ToLower(lang)]
	if l == nil {
		return false
	}
	if _, slow := slowLexers.Load(l.Config().Name); slow {
		return false
	}
	// Not chroma.Coalesce: it lexes a run of one token type whole before
	// giving it, past any deadline.
	it, err := l.Tokenise(nil, code)
	if err != nil {
		return false
	}
	late := false
	bounded := func() chroma.Token {
		if time.Now().After(deadline) {
			late = true
			return chroma.EOF
		}
		return it()
	}
	err = formatters.TTY256.Format(b, styles.Get(theme), bounded)
	if late {
		slowLexers.Store(l.Config().Name, true)
	}
	return err == nil && !late
}

// slowLexers are the lexers (by name) that once passed a block's
// deadline: this process highlights nothing with them again, so a
// document of many hostile blocks pays one block's time per language.
var slowLexers sync.Map

// blockHighlightTime is the most a code block of n bytes may spend in
// chroma: real lexers take 1–4 µs a byte, so 2 ms and 20 µs a byte
// leave them room and cut a hostile one short.
func blockHighlightTime(n int) time.Duration {
	return 2*time.Millisecond + time.Duration(n)*20*time.Microsecond
}

// codeBlock is one code block taken out of a markdown document: its
// language (the fence's info word, "" for none) and its text as written.
type codeBlock struct {
	lang, text string
}

// codeBlocks collects a document's code blocks, in order, for fill, and
// whether it has a blockquote (for quoteBars).
type codeBlocks struct {
	blocks []codeBlock
	quotes bool
	// highlighting is the time fill has spent in chroma so far.
	highlighting time.Duration
}

// fill draws the code blocks into out, glamour's rendering, where the
// structure transformer left one sentCode line each: every line of the
// k-th block under that line's prefix (margins, quote bars, list
// indent), highlighted with chroma theme when theme is not "" and the
// fence names a language chroma knows (within maxHighlightTime). With
// scroll, each line is kept whole between CodeStart and CodeEnd (the
// viewer scrolls it). Else a line wider than width is soft-wrapped at
// spaces, its continuations under the line's own indent, so a command
// copied from it keeps its tokens whole; a token wider than the space
// left is cut with hardCutMark.
func (c *codeBlocks) fill(out string, width int, theme string, scroll bool) string {
	if c == nil || len(c.blocks) == 0 || !strings.Contains(out, sentCode) {
		return out
	}
	var b strings.Builder
	k := 0
	for line := range strings.Lines(out) {
		i := strings.Index(line, sentCode)
		if i < 0 || k >= len(c.blocks) {
			b.WriteString(line)
			continue
		}
		// The suffix is glamour's padding to the width: its spaces would
		// push a drawn line past the width (and fitLinesIndented would cut
		// it into a blank line); only its escapes are kept.
		prefix, suffix := line[:i], trimCells(strings.TrimRight(line[i+len(sentCode):], "\n"))
		blk := c.blocks[k]
		k++
		code := strings.TrimSuffix(blk.text, "\n")
		shown := code
		if theme != "" && blk.lang != "" && c.highlighting < maxHighlightTime {
			var hb strings.Builder
			start := time.Now()
			if highlight(&hb, code, blk.lang, theme, start.Add(min(maxHighlightTime-c.highlighting, blockHighlightTime(len(code))))) {
				shown = hb.String()
			}
			c.highlighting += time.Since(start)
		}
		plain := strings.Split(code, "\n")
		styled := strings.Split(shown, "\n")
		if len(styled) != len(plain) {
			styled = plain
		}
		avail := width - cellWidth(xansi.Strip(prefix))
		for j, p := range plain {
			if scroll {
				b.WriteString(prefix + CodeStart + styled[j] + CodeEnd + suffix + "\n")
				continue
			}
			for _, piece := range softWrap(styled[j], p, avail) {
				b.WriteString(prefix + piece + suffix + "\n")
			}
		}
	}
	return b.String()
}

// hardCutMark ends a piece of a code line cut inside a token (no space
// to break at): the token goes on under the line's indent.
const hardCutMark = "↩"

// softWrap cuts code line styled (plain without its escapes) into pieces
// of at most avail cells at spaces, each continuation led by the line's
// own indent; a token wider than the room left is cut one cell short and
// marked with hardCutMark. A line that fits is one piece.
func softWrap(styled, plain string, avail int) []string {
	if avail <= 1 || cellWidth(plain) <= avail {
		return []string{styled}
	}
	indent := plain[:len(plain)-len(strings.TrimLeft(plain, " \t"))]
	if cellWidth(indent) > avail/2 {
		indent = ""
	}
	runes := []rune(plain)
	// pos[i] is the cell where rune i starts (xansi.Cut counts cells).
	pos := make([]int, len(runes)+1)
	for i, r := range runes {
		pos[i+1] = pos[i] + cellWidth(string(r))
	}
	n, skip := len(runes), len([]rune(indent))
	var pieces []string
	start, lim := 0, avail
	for start < n {
		if pos[n]-pos[start] <= lim {
			pieces = append(pieces, xansi.Cut(styled, pos[start], pos[n]))
			break
		}
		// After the last space within lim cells of start, past the indent.
		cut := -1
		for i := start; i < n && pos[i+1]-pos[start] <= lim; i++ {
			if runes[i] == ' ' && i >= skip && i > start {
				cut = i + 1
			}
		}
		if cut < 0 {
			// No space to break at: as much of the token as leaves a
			// cell for the mark (one rune at least).
			cut = start + 1
			for cut < n && pos[cut+1]-pos[start] <= lim-1 {
				cut++
			}
			pieces = append(pieces, xansi.Cut(styled, pos[start], pos[cut])+hardCutMark)
		} else {
			pieces = append(pieces, xansi.Cut(styled, pos[start], pos[cut]))
		}
		start, lim = cut, avail-cellWidth(indent)
	}
	for i := 1; i < len(pieces); i++ {
		pieces[i] = indent + pieces[i]
	}
	return pieces
}

// quoteBars gives back its bar to a line glamour's document wrap split
// off a quoted line. Glamour wraps a quote's text one cell too wide (it
// counts the two-cell bar "| " as an indent of one), so the document's
// own wrap then cuts such a line and leaves its last words on a line
// with no bar — at some widths only (80 among them). Glamour has no
// option for it; this post-pass prefixes such a line, one that follows a
// quoted line directly and is not one itself, with that line's margin
// and bars. The bar's text is the cell-exact head of the line before.
// Only quotes at the document's margin are seen (a table row with an
// empty first cell also starts with spaces and a bar).
func quoteBars(out string, quotes bool) string {
	if !quotes {
		return out
	}
	lines := strings.Split(out, "\n")
	prev := 0 // the cells of the previous line's margin and bars; 0: not quoted
	for i, l := range lines {
		plain := xansi.Strip(l)
		p := quotePrefix(plain)
		switch {
		case p > 0:
			prev = p
		case prev > 0 && strings.TrimSpace(plain) != "":
			margin := len(plain) - len(strings.TrimLeft(plain, " "))
			lines[i] = xansi.Cut(lines[i-1], 0, prev) + xansi.TruncateLeft(l, margin, "")
		default:
			prev = 0
		}
	}
	return strings.Join(lines, "\n")
}

// documentMargin is the left margin of glamour's styles' documents.
const documentMargin = "  "

// quotePrefix is the width in cells of plain's margin and quote bars
// ("  | | "), 0 when it has none right after the document's margin.
func quotePrefix(plain string) int {
	rest, ok := strings.CutPrefix(plain, documentMargin)
	if !ok {
		return 0
	}
	n, bars := len(documentMargin), 0
	for {
		switch {
		case strings.HasPrefix(rest, "| "):
			rest, n, bars = rest[2:], n+2, bars+1
		case strings.HasPrefix(rest, "│ "):
			rest, n, bars = rest[len("│ "):], n+2, bars+1
		default:
			if bars == 0 {
				return 0
			}
			return n
		}
	}
}
