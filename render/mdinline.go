package render

import (
	"bytes"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// inlineTriggers are the bytes at which goldmark's inline parsers (and
// the GFM extensions newMarkdownConverter uses) start: emphasis,
// strikethrough, code spans, links and images, autolinks and raw HTML,
// linkify's URL after '('.
const inlineTriggers = "*_~`[]!<("

// inlineStepsPerUnit converts inlineWork's steps to markdownWork's units:
// goldmark takes about 2 ns a step, so a unit is some 30 µs, as glamour's
// are (a paragraph of "*_a" or "[a](" repeated costs 11–14 µs a unit).
const inlineStepsPerUnit = 16384

// blockParser parses a document's blocks as newMarkdownConverter's
// parser does (CommonMark's blocks, GFM tables, definition lists, link
// reference definitions) and leaves every block's inline text unparsed:
// what inline parsing costs is what inlineWork estimates, and what
// LinkDefinitions needs is found without it.
var blockParser = sync.OnceValue(func() parser.Parser {
	p := parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...))
	p.AddOptions(
		parser.WithParagraphTransformers(util.Prioritized(extension.NewTableParagraphTransformer(), 200)),
		parser.WithBlockParsers(
			util.Prioritized(extension.NewDefinitionListParser(), 101),
			util.Prioritized(extension.NewDefinitionDescriptionParser(), 102)))
	return p
})

// parseBlocks is src's block structure (blockParser) and its parse
// context, which holds its link reference definitions.
func parseBlocks(src []byte) (ast.Node, parser.Context) {
	pc := parser.NewContext()
	return blockParser().Parse(text.NewReader(src), parser.WithContext(pc)), pc
}

// inlineWork estimates goldmark's inline parsing of doc (parsed from
// src), stopping once it passes limit, in markdownWork's units: each
// block it parses inline (a paragraph, a heading, a table cell) costs
// its trigger bytes times its length in steps. Goldmark's inline parsing
// is quadratic in a block on some shapes — each "](" reads the rest of
// the line for a destination, each closing delimiter searches the ones
// before it — so one 200 KB paragraph of "*_a" took 38 s and 400 KB of
// "[a](" 84 s, while prefixes alone counted them cheap; the product
// bounds both.
func inlineWork(doc ast.Node, src []byte, limit int64) int64 {
	var work int64
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || n.Type() != ast.TypeBlock || n.IsRaw() {
			return ast.WalkContinue, nil
		}
		lines := n.Lines()
		var size, triggers int64
		for i := 0; i < lines.Len(); i++ {
			s := lines.At(i)
			seg := s.Value(src)
			size += int64(len(seg))
			triggers += int64(countAny(seg, inlineTriggers))
		}
		work += triggers * size / inlineStepsPerUnit
		if work > limit {
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	return work
}

// countAny counts the bytes of b that are in set (ASCII).
func countAny(b []byte, set string) int {
	n := 0
	for {
		i := bytes.IndexAny(b, set)
		if i < 0 {
			return n
		}
		n++
		b = b[i+1:]
	}
}
