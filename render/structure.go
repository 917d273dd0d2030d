package render

import (
	"bytes"
	"regexp"
	"strings"
	"sync"

	"charm.land/glamour/v2/ansi"
	xansi "github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// glamourPriority is the priority glamour registers its ANSI node renderer
// at in its own TermRenderer; the same here, so it wins over goldmark's HTML.
const glamourPriority = 1000

// newMarkdownConverter is glamour's TermRenderer rebuilt on a goldmark we
// own (the same extensions: GFM, definition lists, heading ids), so that
// structureTransformer can repair the AST before glamour's ANSI renderer
// walks it. Glamour exposes no hook for AST transformers.
func newMarkdownConverter(o ansi.Options, codes *codeBlocks, tables *mdTables) goldmark.Markdown {
	md := goldmark.New(
		goldmark.WithExtensions(extension.GFM, extension.DefinitionList),
		goldmark.WithParserOptions(
			parser.WithAutoHeadingID(),
			parser.WithASTTransformers(util.Prioritized(structureTransformer{codes: codes, tables: tables}, 0)),
		),
	)
	md.SetRenderer(renderer.NewRenderer(renderer.WithNodeRenderers(
		util.Prioritized(ansi.NewRenderer(o), glamourPriority))))
	return md
}

// brRe matches an inline HTML line break: <br>, <br/>, <br /> (any case).
var brRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^<br\s*/?>$`) })

// Sentinels mark list-item text in glamour's output so that hangListItems
// can indent an item's wrapped lines under its text instead of under its
// bullet: glamour wraps a whole list as one block. They are private-use
// characters, removed from the source first and from the output always.
const (
	// maxHangRun bounds the lines of one item's text block hangListItems
	// re-wraps; a longer run (no end mark found) is left as it is.
	maxHangRun = 10000
	sentItem   = "\uE000" // the start of a list item's first text block
	sentBlock  = "\uE001" // the start of a later text block of the item
	sentEnd    = "\uE002" // the end of a text block of a list item
	sentBreak  = "\uE003" // a hard line break (the line ends here)
	sentCode   = "\uE004" // a code block's place: codeBlocks.fill draws it
	sentTable  = "\uE007" // a table's place: mdTables.fillTables draws it
	// sentinels prefixes the source as its own first paragraph, which the
	// transformer removes: text nodes for the marks point into it.
	sentinels = sentItem + sentBlock + sentEnd + sentBreak + sentTable + sentCode + "\n\n" // sentCode last: its line ends
	sentWidth = len(sentItem)
)

// sentinelSource prepends the sentinel paragraph to src after replacing
// any sentinel character src holds with U+FFFD.
func sentinelSource(src string) string {
	if strings.ContainsAny(src, sentItem+sentBlock+sentEnd+sentBreak+sentCode+sentTable+CodeStart+CodeEnd) {
		src = strings.NewReplacer(sentItem, "\uFFFD", sentBlock, "\uFFFD", sentEnd, "\uFFFD", sentBreak, "\uFFFD", sentCode, "\uFFFD", sentTable, "\uFFFD",
			CodeStart, "\uFFFD", CodeEnd, "\uFFFD").Replace(src)
	}
	return sentinels + src
}

// structureTransformer keeps block structure that glamour's ANSI renderer
// drops (charmbracelet/glamour issues on list paragraphs and <br>):
//
//   - a paragraph that follows another block's text inside a list item
//     (CommonMark §5.2 "loose" list items) is rendered with no separator
//     at all, so "text." and "A second paragraph" are glued into
//     "text.A second paragraph"; a blank line is put between them;
//   - an inline <br> is stripped as HTML, gluing "one<br>two" into
//     "onetwo"; it becomes a hard line break;
//   - a hard line break (two trailing spaces or a backslash, CommonMark
//     §6.7) inside a paragraph is flattened to a space along with the soft
//     ones. The converter runs glamour with PreserveNewLines, and every
//     soft line break becomes a space here, so only hard breaks stay
//     line breaks (and a soft break inside a list item no longer cuts
//     the line either);
//   - a code span's entities are decoded ("`&gt;`" shows ">"); they are
//     kept literal, as CommonMark §6.1 has them;
//   - a code block's lines are hard-wrapped inside tokens by glamour's
//     document wrap ("--prefix" into "-" / "-prefix") and lose their
//     indent; glamour has no option to leave them be, so each block is
//     taken out (codeBlocks) and drawn by modbay in its place;
//   - list items' text is marked with sentinels for hangListItems.
type structureTransformer struct {
	// codes receives each code block's text, in document order; the block
	// is left to glamour as one sentCode line (nil: code blocks are left
	// to glamour whole).
	codes *codeBlocks
	// tables receives each table, in document order, taken out of the
	// document and left to glamour as one sentTable paragraph (nil:
	// tables are left to glamour, which stretches them to the width).
	tables *mdTables
}

// marks are the text nodes of the sentinel paragraph, by sentinel; nil
// when the source does not start with it.
type marks struct{ src []byte }

// node returns a text node showing sentinel s, or an empty one.
func (m marks) node(s string) *ast.Text {
	i := strings.Index(sentinels, s)
	if m.src == nil || i < 0 {
		return ast.NewTextSegment(text.NewSegment(0, 0))
	}
	return ast.NewTextSegment(text.NewSegment(i, i+sentWidth))
}

// hardBreak is a text node ending in a hard line break: glamour renders it
// as the break sentinel and "\n".
func (m marks) hardBreak() ast.Node {
	t := m.node(sentBreak)
	t.SetHardLineBreak(true)
	return t
}

// Transform implements parser.ASTTransformer.
func (st structureTransformer) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	var m marks
	if first := doc.FirstChild(); first != nil && bytes.HasPrefix(src, []byte(sentinels)) && first.Kind() == ast.KindParagraph {
		doc.RemoveChild(doc, first)
		m.src = src
	}
	space := bytes.IndexByte(src[len(sentinels)*boolInt(m.src != nil):], ' ')
	if space >= 0 && m.src != nil {
		space += len(sentinels)
	}
	var brs, soft, hard, items, spans, code, tables []ast.Node
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindListItem:
			items = append(items, n)
		case ast.KindCodeSpan:
			spans = append(spans, n)
		case ast.KindCodeBlock, ast.KindFencedCodeBlock:
			code = append(code, n)
		case east.KindTable:
			tables = append(tables, n)
		case ast.KindBlockquote:
			if st.codes != nil {
				st.codes.quotes = true
			}
		case ast.KindText:
			t := n.(*ast.Text)
			switch {
			case t.HardLineBreak():
				hard = append(hard, n)
			case t.SoftLineBreak() && space >= 0:
				soft = append(soft, n)
			}
		case ast.KindRawHTML:
			if raw := n.(*ast.RawHTML); brRe().Match(rawHTMLText(raw, src)) {
				brs = append(brs, n)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, n := range soft {
		// A soft break is a space (CommonMark §6.8); the space is one of
		// the source's own, as glamour renders a text node's segment.
		n.(*ast.Text).SetSoftLineBreak(false)
		sp := ast.NewTextSegment(text.NewSegment(space, space+1))
		n.Parent().InsertAfter(n.Parent(), n, sp)
	}
	for _, n := range spans {
		// Glamour decodes entities in a code span's text (html.
		// UnescapeString), which CommonMark §6.1 keeps literal: "&gt;"
		// showed as ">". Its text is given &-escaped, so the decoding
		// gives back what was typed.
		lit := strings.ReplaceAll(string(n.Text(src)), "&", "&amp;")
		n.RemoveChildren(n)
		n.AppendChild(n, ast.NewString([]byte(lit)))
	}
	if st.codes != nil && m.src != nil {
		i := strings.Index(sentinels, sentCode)
		for _, n := range code {
			var b bytes.Buffer
			lines := n.Lines()
			for j := 0; j < lines.Len(); j++ {
				seg := lines.At(j)
				b.Write(seg.Value(src))
			}
			lang := ""
			if f, ok := n.(*ast.FencedCodeBlock); ok {
				lang = string(f.Language(src))
			}
			st.codes.blocks = append(st.codes.blocks, codeBlock{lang: lang, text: b.String()})
			cb := ast.NewCodeBlock()
			cb.Lines().Append(text.NewSegment(i, i+sentWidth+1)) // with its "\n", as a code line ends
			n.Parent().ReplaceChild(n.Parent(), n, cb)
		}
	}
	for _, n := range hard {
		// The line ends after the break sentinel.
		n.(*ast.Text).SetHardLineBreak(false)
		n.Parent().InsertAfter(n.Parent(), n, m.hardBreak())
	}
	for _, n := range brs {
		n.Parent().ReplaceChild(n.Parent(), n, m.hardBreak())
	}
	for _, item := range items {
		first := true
		for c := item.FirstChild(); c != nil; c = c.NextSibling() {
			if !isTextBlock(c) {
				first = false
				continue
			}
			if prev := c.PreviousSibling(); prev != nil && isTextBlock(prev) {
				// The hard break ends prev's last line; the second
				// leaves the blank line a paragraph break is.
				prev.AppendChild(prev, m.hardBreak())
				prev.AppendChild(prev, m.hardBreak())
			}
			start := sentBlock
			if first {
				start = sentItem
			}
			first = false
			switch fc := c.FirstChild(); {
			case fc != nil && fc.Kind() == east.KindTaskCheckBox:
				// Glamour draws a task item's box from the first child.
				c.InsertAfter(c, fc, m.node(start))
			case fc != nil:
				c.InsertBefore(c, fc, m.node(start))
			default:
				c.AppendChild(c, m.node(start))
			}
			c.AppendChild(c, m.node(sentEnd))
		}
	}
	if st.tables != nil && m.src != nil {
		st.tables.src = src
		for _, n := range tables {
			p := ast.NewParagraph()
			p.AppendChild(p, m.node(sentTable))
			if prev := n.PreviousSibling(); prev != nil && isTextBlock(prev) && n.Parent().Kind() == ast.KindListItem {
				// Glamour glues a list item's blocks into one line, as
				// for a later paragraph above: the table starts a line.
				prev.AppendChild(prev, m.hardBreak())
				prev.AppendChild(prev, m.hardBreak())
			}
			n.Parent().ReplaceChild(n.Parent(), n, p)
			st.tables.nodes = append(st.tables.nodes, n)
		}
	}
}

// boolInt is 1 for true.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// isTextBlock reports whether n is a paragraph or a tight list item's text.
func isTextBlock(n ast.Node) bool {
	return n.Kind() == ast.KindParagraph || n.Kind() == ast.KindTextBlock
}

// rawHTMLText is the source text of an inline HTML node.
func rawHTMLText(n *ast.RawHTML, src []byte) []byte {
	var b bytes.Buffer
	for i := 0; i < n.Segments.Len(); i++ {
		s := n.Segments.At(i)
		b.Write(s.Value(src))
	}
	return bytes.TrimSpace(b.Bytes())
}

// truncatedHrefRe matches a link footnote's href as glamour writes it under
// a table ("[1]: text https://exam…"): an OSC 8 hyperlink holding the whole
// URL, optional SGR styling, then the URL cut to the width with "…".
var truncatedHrefRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("\x1b\\]8;id=[^;\x07\x1b]*;([^\x07\x1b]*)\x07((?:\x1b\\[[0-9;]*m)*)([^\x1b\n]*…)")
})

// untruncateHrefs puts the whole URL back where glamour cut a table's link
// footnote with "…" (glamour truncates it to the line; a URL cut short is
// a different URL). The long line is then wrapped by fitLines like any
// other line too wide for the width.
func untruncateHrefs(out string) string {
	if !strings.Contains(out, "…") {
		return out
	}
	return truncatedHrefRe().ReplaceAllStringFunc(out, func(m string) string {
		sub := truncatedHrefRe().FindStringSubmatch(m)
		href, styles, shown := sub[1], sub[2], sub[3]
		if !strings.HasPrefix(href, strings.TrimSuffix(shown, "…")) {
			return m
		}
		return strings.TrimSuffix(m, styles+shown) + styles + href
	})
}

// osc8Re matches an OSC 8 hyperlink sequence as glamour writes it: the
// opening one ("ESC ]8;id=…;URL BEL") with its URL, or the closing one
// (empty URL); ST (ESC \) ends it as BEL does.
var osc8Re = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("\x1b\\]8;[^;\x07\x1b]*;([^\x07\x1b]*)(?:\x07|\x1b\\\\)")
})

// hyperlinkSchemes are the URL schemes a rendered link may open: a module's
// document must not hand the terminal a javascript:, file: or custom-scheme
// link to click.
var hyperlinkSchemes = []string{"http://", "https://", "mailto:"}

// safeHyperlinks removes the OSC 8 hyperlink around any link whose URL is
// not http, https or mailto (hyperlinkSchemes), with its closing sequence;
// the link's text and the address glamour prints beside it stay, as
// plain text.
func safeHyperlinks(out string) string {
	if !strings.Contains(out, "\x1b]8;") {
		return out
	}
	dropClose := false
	return osc8Re().ReplaceAllStringFunc(out, func(m string) string {
		url := osc8Re().FindStringSubmatch(m)[1]
		if url == "" { // a closing sequence
			if dropClose {
				dropClose = false
				return ""
			}
			return m
		}
		lower := strings.ToLower(url)
		for _, s := range hyperlinkSchemes {
			if strings.HasPrefix(lower, s) {
				dropClose = false
				return m
			}
		}
		dropClose = true
		return ""
	})
}

// fitLinesIndented is fitLines for markdown: a line wider than width cells
// is broken at the width, and its continuation lines start at the line's
// own indent (the document margin, a list's or a code block's), so a long
// URL or code line stays inside its block instead of running from column 0.
// An indent that leaves fewer than MinWidth/2 cells falls back to none.
// A code line framed for scrolling (CodeStart) is left whole.
func fitLinesIndented(s string, width int) string {
	if !widerThan(s, width) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/16)
	for line := range strings.Lines(s) {
		body, nl := strings.CutSuffix(line, "\n")
		for cellWidth(body) > width && !strings.Contains(body, CodeStart) {
			plain := xansi.Strip(body)
			indent := len(plain) - len(strings.TrimLeft(plain, " "))
			if width-indent < MinWidth/2 {
				indent = 0
			}
			b.WriteString(xansi.Truncate(body, width, ""))
			b.WriteByte('\n')
			rest := xansi.TruncateLeft(body, width, "")
			body = strings.Repeat(" ", indent) + rest
			if cellWidth(rest) == 0 {
				body = ""
				break
			}
		}
		b.WriteString(body)
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// trimCells drops the spaces at both ends of a styled line, keeping its
// SGR sequences (glamour indents with spaces and pads to the width).
func trimCells(s string) string {
	if !strings.Contains(s, "\x1b") {
		return strings.Trim(s, " ")
	}
	var keep strings.Builder
	i := 0
	for i < len(s) {
		if s[i] == ' ' {
			i++
			continue
		}
		n := sgrLen(s[i:])
		if n == 0 {
			break
		}
		keep.WriteString(s[i : i+n])
		i += n
	}
	head, s := keep.String(), s[i:]
	// From the right: spaces and whole SGR sequences.
	var tail []string
	for len(s) > 0 {
		if s[len(s)-1] == ' ' {
			s = s[:len(s)-1]
			continue
		}
		j := strings.LastIndex(s, "\x1b[")
		if j < 0 || sgrLen(s[j:]) != len(s)-j {
			break
		}
		tail = append(tail, s[j:])
		s = s[:j]
	}
	var b strings.Builder
	b.WriteString(head)
	b.WriteString(s)
	for k := len(tail) - 1; k >= 0; k-- {
		b.WriteString(tail[k])
	}
	return b.String()
}

// sgrLen is the length of the SGR sequence ("ESC [ params m") s starts
// with, or 0.
func sgrLen(s string) int {
	if len(s) < 3 || s[0] != 0x1b || s[1] != '[' {
		return 0
	}
	for i := 2; i < len(s); i++ {
		switch c := s[i]; {
		case c == 'm':
			return i + 1
		case c >= '0' && c <= '9' || c == ';' || c == ':':
		default:
			return 0
		}
	}
	return 0
}

// dropSentinels removes every sentinel character from s.
func dropSentinels(s string) string {
	for _, c := range []string{sentItem, sentBlock, sentEnd, sentBreak, sentCode, sentTable} {
		s = strings.ReplaceAll(s, c, "")
	}
	return s
}

// hangListItems indents the wrapped lines of every list item's text under
// the text's first character (a hanging indent), instead of under the
// bullet where glamour's block wrapping leaves them, and re-wraps them to
// width. It follows the sentinels structureTransformer put around item
// text (sentItem/sentBlock … sentEnd, sentBreak at hard breaks) and removes
// them all. Output without sentinels is returned as is.
func hangListItems(out string, width int) string {
	if !strings.Contains(out, sentEnd) {
		return dropSentinels(out)
	}
	type item struct{ bullet, hang int }
	var stack []item
	lines := strings.Split(out, "\n")
	res := make([]string, 0, len(lines))
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		at, mark := -1, ""
		for _, m := range []string{sentItem, sentBlock} {
			if j := strings.Index(l, m); j >= 0 && (at < 0 || j < at) {
				at, mark = j, m
			}
		}
		if at < 0 {
			res = append(res, dropSentinels(l))
			continue
		}
		// The run is this line through the one holding its end mark.
		end := i
		for end < len(lines) && !strings.Contains(lines[end][min(len(lines[end]), boolInt(end == i)*(at+sentWidth)):], sentEnd) {
			end++
		}
		if end == len(lines) || end-i > maxHangRun {
			res = append(res, dropSentinels(l))
			continue
		}
		prefix := l[:at]
		plainPrefix := xansi.Strip(prefix)
		col := cellWidth(plainPrefix)
		hang := col
		if mark == sentItem {
			bullet := len(plainPrefix) - len(strings.TrimLeft(plainPrefix, " "))
			for len(stack) > 0 && stack[len(stack)-1].bullet >= bullet {
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, item{bullet, col})
		} else {
			for k := len(stack) - 1; k >= 0; k-- {
				if stack[k].bullet <= col {
					hang = max(hang, stack[k].hang)
					break
				}
			}
		}
		if mark == sentBlock && hang > col {
			prefix += strings.Repeat(" ", hang-col)
		}
		if width-hang < MinWidth/2 {
			// Too deep to hang: leave glamour's lines.
			for k := i; k <= end; k++ {
				res = append(res, dropSentinels(lines[k]))
			}
			i = end
			continue
		}
		// Logical lines: the run's text cut at hard breaks.
		var logical [][]string
		cur := []string{}
		body := append([]string{l[at+sentWidth:]}, lines[i+1:end+1]...)
		for k, b := range body {
			if k == len(body)-1 {
				b, _, _ = strings.Cut(b, sentEnd)
			}
			parts := strings.Split(b, sentBreak)
			for p, part := range parts {
				if t := trimCells(dropSentinels(part)); xansi.Strip(t) != "" {
					cur = append(cur, t)
				}
				if p < len(parts)-1 {
					logical = append(logical, cur)
					cur = []string{}
				}
			}
		}
		logical = append(logical, cur)
		pad := strings.Repeat(" ", hang)
		first := true
		for _, words := range logical {
			if len(words) == 0 {
				if first {
					res = append(res, prefix)
					first = false
				} else {
					res = append(res, "")
				}
				continue
			}
			for _, w := range strings.Split(xansi.Wrap(strings.Join(words, " "), width-hang, ""), "\n") {
				if first {
					res = append(res, prefix+w)
					first = false
				} else {
					res = append(res, pad+w)
				}
			}
		}
		i = end
	}
	return strings.Join(res, "\n")
}
