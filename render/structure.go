package render

import (
	"bytes"
	"regexp"
	"strings"

	"charm.land/glamour/v2/ansi"
	xansi "github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
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
func newMarkdownConverter(o ansi.Options) goldmark.Markdown {
	md := goldmark.New(
		goldmark.WithExtensions(extension.GFM, extension.DefinitionList),
		goldmark.WithParserOptions(
			parser.WithAutoHeadingID(),
			parser.WithASTTransformers(util.Prioritized(structureTransformer{}, 0)),
		),
	)
	md.SetRenderer(renderer.NewRenderer(renderer.WithNodeRenderers(
		util.Prioritized(ansi.NewRenderer(o), glamourPriority))))
	return md
}

// brRe matches an inline HTML line break: <br>, <br/>, <br /> (any case).
var brRe = regexp.MustCompile(`(?i)^<br\s*/?>$`)

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
//     the line either).
type structureTransformer struct{}

// Transform implements parser.ASTTransformer.
func (structureTransformer) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	space := bytes.IndexByte(src, ' ')
	var brs, soft []ast.Node
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindListItem:
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if prev := c.PreviousSibling(); prev != nil && isTextBlock(prev) && isTextBlock(c) {
					// The hard break ends prev's last line; the second
					// leaves the blank line a paragraph break is.
					prev.AppendChild(prev, hardBreak())
					prev.AppendChild(prev, hardBreak())
				}
			}
		case ast.KindText:
			if t := n.(*ast.Text); t.SoftLineBreak() && !t.HardLineBreak() && space >= 0 {
				soft = append(soft, n)
			}
		case ast.KindRawHTML:
			if raw := n.(*ast.RawHTML); brRe.Match(rawHTMLText(raw, src)) {
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
	for _, n := range brs {
		n.Parent().ReplaceChild(n.Parent(), n, hardBreak())
	}
}

// isTextBlock reports whether n is a paragraph or a tight list item's text.
func isTextBlock(n ast.Node) bool {
	return n.Kind() == ast.KindParagraph || n.Kind() == ast.KindTextBlock
}

// hardBreak is an empty text node ending in a hard line break: glamour
// renders it as "\n".
func hardBreak() ast.Node {
	t := ast.NewTextSegment(text.NewSegment(0, 0))
	t.SetHardLineBreak(true)
	return t
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
var truncatedHrefRe = regexp.MustCompile("\x1b\\]8;id=[^;\x07\x1b]*;([^\x07\x1b]*)\x07((?:\x1b\\[[0-9;]*m)*)([^\x1b\n]*…)")

// untruncateHrefs puts the whole URL back where glamour cut a table's link
// footnote with "…" (glamour truncates it to the line; a URL cut short is
// a different URL). The long line is then wrapped by fitLines like any
// other line too wide for the width.
func untruncateHrefs(out string) string {
	if !strings.Contains(out, "…") {
		return out
	}
	return truncatedHrefRe.ReplaceAllStringFunc(out, func(m string) string {
		sub := truncatedHrefRe.FindStringSubmatch(m)
		href, styles, shown := sub[1], sub[2], sub[3]
		if !strings.HasPrefix(href, strings.TrimSuffix(shown, "…")) {
			return m
		}
		return strings.TrimSuffix(m, styles+shown) + styles + href
	})
}

// fitLinesIndented is fitLines for markdown: a line wider than width cells
// is broken at the width, and its continuation lines start at the line's
// own indent (the document margin, a list's or a code block's), so a long
// URL or code line stays inside its block instead of running from column 0.
// An indent that leaves fewer than MinWidth/2 cells falls back to none.
func fitLinesIndented(s string, width int) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/16)
	for line := range strings.Lines(s) {
		body, nl := strings.CutSuffix(line, "\n")
		for cellWidth(body) > width {
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
