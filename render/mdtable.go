package render

import (
	"bytes"
	"strings"

	gansi "charm.land/glamour/v2/ansi"
	xansi "github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// maxTableFits bounds the tables of one document that fillTables sizes
// to their content; later ones are drawn at the full width (each costs a
// handful of small renders).
const maxTableFits = 200

// mdTables holds a document's tables, taken out of it by the structure
// transformer (each left as one sentTable line), with what rendering one
// alone needs: glamour's options and the source its text points into.
type mdTables struct {
	nodes []ast.Node
	opts  gansi.Options
	src   []byte
}

// fillTables draws the tables into out, glamour's rendering, in place of
// their sentTable lines: each under its line's prefix (margin, quote
// bars, list indent), rendered alone by glamour as wide as its content
// needs and never wider than the room the prefix leaves (glamour itself
// always stretches a table to the wrap width). The content width is the
// narrowest width at which the table is drawn in as many lines as at the
// widest, since a narrower one wraps a cell.
func (t *mdTables) fillTables(out string, width int) string {
	if t == nil || len(t.nodes) == 0 || !strings.Contains(out, sentTable) {
		return out
	}
	var b strings.Builder
	k := 0
	for line := range strings.Lines(out) {
		i := strings.Index(line, sentTable)
		if i < 0 || k >= len(t.nodes) {
			b.WriteString(line)
			continue
		}
		prefix, suffix := line[:i], trimCells(strings.TrimRight(line[i+len(sentTable):], "\n"))
		avail := max(width-cellWidth(xansi.Strip(prefix)), 1)
		drawn := t.render(t.nodes[k], avail)
		if k < maxTableFits {
			drawn = t.fit(t.nodes[k], avail, drawn)
		}
		k++
		for _, l := range strings.Split(drawn, "\n") {
			b.WriteString(prefix + l + suffix + "\n")
		}
	}
	return b.String()
}

// fit returns table n drawn at its content width: when full (n drawn at
// avail) shows what n drawn twice as wide shows (no cell wraps), the
// narrowest width whose drawing still shows it: the same text but for
// spaces and rules (a cell too narrow wraps, which moves words across
// lines and cells, or is cut with "…"). A table that wraps at avail is
// left at avail.
func (t *mdTables) fit(n ast.Node, avail int, full string) string {
	want := tableText(full)
	same := func(s string) bool { return tableText(s) == want }
	if avail < 2 || !same(t.render(n, 2*avail)) {
		return full // it is cut or wraps at avail: it needs the whole width
	}
	// Below three cells a column (its margins and one character) and
	// their separators no width is worth a render.
	cols := 1
	if h := n.FirstChild(); h != nil {
		cols = max(h.ChildCount(), 1)
	}
	lo, hi := min(4*cols-1, avail-1), avail-1 // hi fits; find the narrowest that does
	best := ""
	for lo < hi {
		mid := (lo + hi) / 2
		if s := t.render(n, mid); same(s) {
			hi, best = mid, s
		} else {
			lo = mid + 1
		}
	}
	if best == "" { // best is always hi's drawing once one was made
		best = t.render(n, hi)
	}
	return best
}

// tableText is a drawn table's lines without styling and spaces, and
// without its rules (lines of border characters only, as long as the
// table is wide): what sizing must not change.
func tableText(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(xansi.Strip(s), "\n") {
		l = strings.ReplaceAll(l, " ", "")
		if strings.Trim(l, "-─━═|│┼+") == "" {
			l = "rule"
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

// render draws table n alone at width cells, without the document's
// margin or its blank lines around (the sentTable line has them).
func (t *mdTables) render(n ast.Node, width int) string {
	o := t.opts
	o.WordWrap = width
	o.Styles.Document.Margin = nil
	o.Styles.Document.BlockPrefix, o.Styles.Document.BlockSuffix = "", ""
	doc := ast.NewDocument()
	doc.AppendChild(doc, n)
	r := renderer.NewRenderer(renderer.WithNodeRenderers(util.Prioritized(gansi.NewRenderer(o), glamourPriority)))
	var buf bytes.Buffer
	err := r.Render(&buf, t.src, doc)
	doc.RemoveChild(doc, n)
	if err != nil {
		return ""
	}
	lines := strings.Split(buf.String(), "\n")
	for len(lines) > 0 && strings.TrimSpace(xansi.Strip(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(xansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}
