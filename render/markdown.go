package render

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	gansi "charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/util"
)

const (
	// markdownTabStop is the tab stop CommonMark uses for block structure
	// (spec §2.2 "tabs behave as if they were replaced by spaces with a tab
	// stop of 4"), so expanding tabs to it before rendering does not change
	// the document.
	markdownTabStop = 4
	// MaxMarkdownBytes is the largest document Markdown styles with glamour;
	// a larger one is shown as plain Text. Glamour renders about 0.2 MB/s
	// (BenchmarkMarkdown1MB), so this keeps a render near ten seconds.
	MaxMarkdownBytes = 2 << 20
	// glamourChromaTheme is the name glamour registers its styles' code
	// block colors under with chroma (codeTheme).
	glamourChromaTheme = "charm"
)

// Markdown renders a markdown document (GitHub-flavoured, via glamour) for a
// terminal o.Width cells wide, styled for a dark or light background, or in
// glamour's "notty" style with every escape sequence removed when o.NoColor
// (with o.Attributes, emphasis is bold or underlined instead of marked).
//
// The source is passed through [Sanitize] first, so escape sequences written
// into the markdown show as inert text (␛[2J) and only glamour's own styling
// reaches the terminal. Glamour wraps paragraphs at o.Width; lines it cannot
// wrap (long code lines, wide tables) are hard-wrapped so that no output line
// is wider than o.Width cells. A table is as wide as its content needs, up
// to the width (glamour alone stretches every table to it).
//
// A document over MaxMarkdownBytes, or past MaxMarkdownWork, is rendered
// as [Text] after a one-line note saying so. The error is glamour's, wrapped; on error the string is
// [Text] of src, a plain sanitized rendering that is still worth showing.
func Markdown(src []byte, o Options) (string, error) {
	width := o.width()
	if len(src) > MaxMarkdownBytes {
		note := fmt.Sprintf("Markdown over %s shown as plain text.", HumanBytes(MaxMarkdownBytes))
		return ansi.Wrap(note, width, "") + "\n\n" + Text(src, o), nil
	}
	if !MarkdownWorkWithin(src) {
		return MarkdownTooCostlyNote(width) + "\n\n" + Text(src, o), nil
	}
	if len(src) <= MarkdownChunkBytes {
		return markdownOne(src, o)
	}
	// Chunks as the viewer and `modbay render` cut them: each glamour call
	// stays within MaxMarkdownWork.
	defs := LinkDefinitions(src)
	var outs []string
	var errs []error
	for _, c := range SplitMarkdown(src, MarkdownChunkBytes) {
		out, err := MarkdownChunk(c, defs, o)
		outs, errs = append(outs, strings.Trim(out, "\n")), append(errs, err)
	}
	return strings.Join(outs, "\n\n"), errors.Join(errs...)
}

// markdownOne is Markdown in one glamour call, for src within its bounds.
func markdownOne(src []byte, o Options) (string, error) {
	width := o.width()
	style := styles.LightStyle
	switch {
	case o.NoColor:
		style = styles.NoTTYStyle
	case o.Dark:
		style = styles.DarkStyle
	}
	cfg, ok := styles.DefaultStyles[style]
	if !ok {
		return Text(src, o), fmt.Errorf("markdown: no glamour style %q", style)
	}
	if o.NoColor && o.Attributes {
		c := attributeStyle(*cfg)
		cfg = &c
	}
	// Glamour keeps the document's margin on the right too.
	textWidth := width
	if m := cfg.Document.Margin; m != nil {
		textWidth -= int(*m)
	}
	var codes codeBlocks
	// Glamour draws only a placeholder line for each code block (codes.fill
	// draws the code), so it is given no code theme to run chroma with:
	// chroma guessed each placeholder's language from every lexer's
	// patterns and analysers, about 3 ms a block.
	theme := codeTheme(cfg, o.NoColor)
	gcfg := *cfg
	gcfg.CodeBlock.Theme, gcfg.CodeBlock.Chroma = "", nil
	gopts := gansi.Options{WordWrap: width, Styles: gcfg, PreserveNewLines: true}
	tables := mdTables{opts: gopts}
	md := newMarkdownConverter(gopts, &codes, &tables)
	in := sentinelSource(expandTabs(Sanitize(string(src)), markdownTabStop))
	var buf bytes.Buffer
	if err := md.Convert([]byte(in), &buf); err != nil {
		return Text(src, o), fmt.Errorf("markdown: render: %w", err)
	}
	out := safeHyperlinks(untruncateHrefs(hangListItems(codes.fill(tables.fillTables(quoteBars(buf.String(), codes.quotes), textWidth), width, theme, o.ScrollCode), textWidth)))
	if o.NoColor && o.Attributes {
		// Only the attributes' SGR sequences: no hyperlinks either.
		return CompactSGR(fitLinesIndented(trimTrailingSpace(osc8Re().ReplaceAllString(out, "")), width)), nil
	}
	if o.NoColor {
		// Glamour's notty style has no colors but links still carry OSC 8
		// hyperlinks; NoColor promises no escape sequence at all.
		// Without styling, the spaces glamour pads each line with to the
		// wrap width carry nothing; drop them so copied text is clean.
		return fitLinesIndented(trimTrailingSpace(ansi.Strip(out)), width), nil
	}
	return CompactSGR(fitLinesIndented(out, width)), nil
}

// MarkdownTooCostlyNote is the line that says a document past
// MaxMarkdownWork is shown as plain text, wrapped to width.
func MarkdownTooCostlyNote(width int) string {
	return ansi.Wrap("Markdown too costly to style (nested too deep, or too many blocks, table cells or inline marks; docs/protocol.md §14): shown as plain text.", width, "")
}

// attributeStyle is glamour's notty style c with emphasis drawn as the
// text attributes a terminal without colour still has (vt100: bold,
// underline) instead of as its markers: strong is bold, emphasis
// underlined (as man pages show italics), headings bold.
// Strikethrough keeps its "~~", as few such terminals cross text out.
func attributeStyle(c gansi.StyleConfig) gansi.StyleConfig {
	on := true
	c.Strong = gansi.StylePrimitive{Bold: &on}
	c.Emph = gansi.StylePrimitive{Underline: &on}
	c.Heading.Bold = &on
	return c
}

// MarkdownChunkBytes is the size SplitMarkdown aims for: glamour renders about
// 0.2 MB/s, so a 16 KiB chunk takes under 100 ms and the first screenful of
// even a huge document is on screen well inside half a second.
const MarkdownChunkBytes = 16 << 10

// SplitMarkdown cuts a markdown document into chunks that glamour can render
// independently, so a viewer can show the first screen at once and render
// the rest in the background (and a command can render them in parallel).
// Chunks are joined runs of top-level blocks of about target bytes: a cut is
// made only before an ATX heading at column 0, or, in a section larger than
// target, at a blank line followed by an unindented line that starts neither
// a list item nor a table row; never inside a fenced code block. Concatenated,
// the chunks are src. Reference-style link definitions resolve only within
// the text glamour is given: render each chunk with [MarkdownChunk] and the
// document's [LinkDefinitions] to get the text of the whole.
func SplitMarkdown(src []byte, target int) [][]byte {
	if target <= 0 {
		target = MarkdownChunkBytes
	}
	if len(src) <= target {
		return [][]byte{src}
	}
	var chunks [][]byte
	start, fence, prevBlank := 0, "", false
	for i := 0; i < len(src); {
		end := i + bytesIndexOrLen(src[i:], '\n')
		line := src[i:end]
		next := min(end+1, len(src))
		trimmed := strings.TrimLeft(string(line), " ")
		indent := len(line) - len(trimmed)
		if fence != "" {
			if indent < 4 && strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
		} else if indent < 4 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
			fence = trimmed[:3]
		} else if i > start {
			heading := indent == 0 && isATXHeading(trimmed)
			blockStart := prevBlank && indent == 0 && len(trimmed) > 0 && !startsListOrTable(trimmed)
			size := i - start
			if (heading && size >= target/4) || (blockStart && size >= target) {
				chunks = append(chunks, src[start:i])
				start = i
			}
		}
		prevBlank = len(strings.TrimSpace(string(line))) == 0
		i = next
		if next == end { // last line without '\n'
			break
		}
	}
	return append(chunks, src[start:])
}

// bytesIndexOrLen is the index of c in b, or len(b).
func bytesIndexOrLen(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return len(b)
}

// isATXHeading reports whether line is a CommonMark ATX heading: 1–6 '#'
// followed by a space or the end of the line.
func isATXHeading(line string) bool {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && (n == len(line) || line[n] == ' ' || line[n] == '\t')
}

// startsListOrTable reports whether line starts a list item, a table row or
// a block quote, which continue the block above a blank line.
func startsListOrTable(line string) bool {
	if line == "" {
		return false
	}
	switch line[0] {
	case '-', '*', '+', '|', '>':
		return true
	}
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	return i > 0 && i < len(line) && (line[i] == '.' || line[i] == ')')
}

// LinkDefinitions returns src's link reference definitions (CommonMark
// §4.7, "[label]: destination 'title'"), one per line, for appending to
// every chunk of [SplitMarkdown]: a definition resolves only within the
// document glamour is given, and definitions are usually gathered at the
// end of a long file, so without them every chunk but the last shows
// "[install guide][install]" literally. Definitions render as nothing, so
// appending them changes no chunk's text. Nil when src has none.
func LinkDefinitions(src []byte) []byte {
	if !bytes.Contains(src, []byte("]:")) {
		return nil
	}
	// Blocks only: a definition is found without inline parsing, whose
	// cost on a hostile paragraph is quadratic (inlineWork).
	_, pc := parseBlocks(src)
	var b bytes.Buffer
	for _, r := range pc.References() {
		label, dest, title := r.Label(), string(r.Destination()), string(r.Title())
		if strings.ContainsAny(dest, " \t<>") || dest == "" {
			dest = "<" + strings.NewReplacer("<", `\<`, ">", `\>`).Replace(dest) + ">"
		}
		fmt.Fprintf(&b, "[%s]: %s", label, dest)
		if title != "" {
			switch {
			case !strings.Contains(title, `"`):
				fmt.Fprintf(&b, " \"%s\"", title)
			case !strings.Contains(title, "'"):
				fmt.Fprintf(&b, " '%s'", title)
			default:
				fmt.Fprintf(&b, " (%s)", strings.NewReplacer("(", `\(`, ")", `\)`).Replace(title))
			}
		}
		b.WriteByte('\n')
	}
	if b.Len() == 0 {
		return nil
	}
	return b.Bytes()
}

// MarkdownChunk renders one chunk of [SplitMarkdown] with the document's
// [LinkDefinitions] defs appended, so that the chunks rendered one by one
// show the text the whole document shows.
func MarkdownChunk(chunk, defs []byte, o Options) (string, error) {
	defs = chunkDefinitions(chunk, defs)
	if len(chunk)+len(defs) > MaxMarkdownBytes || !markdownCallWithin(chunk, defs) {
		return MarkdownTooCostlyNote(o.width()) + "\n\n" + Text(chunk, o), nil
	}
	if len(defs) == 0 {
		return markdownOne(chunk, o)
	}
	src := make([]byte, 0, len(chunk)+len(defs)+2)
	src = append(append(append(src, chunk...), "\n\n"...), defs...)
	return markdownOne(src, o)
}

// maxLabelBytes is the longest link label CommonMark allows (§4.7: 999
// characters; counted here in bytes, which only keeps more).
const maxLabelBytes = 999 * 4

// chunkDefinitions is the lines of defs (LinkDefinitions' output) whose
// label chunk may refer to: a bracketed text in chunk that normalizes to
// it (a label holds no unescaped bracket, so the text after the last '['
// before a ']' is each candidate). Every chunk given all of a document's
// definitions parsed them all again: 18,000 definitions after 1 MiB of
// prose took 19 s instead of 0.5 s.
func chunkDefinitions(chunk, defs []byte) []byte {
	if len(defs) == 0 {
		return nil
	}
	labels := map[string]bool{}
	open := -1
	for i := 0; i < len(chunk); i++ {
		switch chunk[i] {
		case '\\':
			i++
		case '[':
			open = i
		case ']':
			if open >= 0 && i-open-1 <= maxLabelBytes {
				labels[util.ToLinkReference(chunk[open+1:i])] = true
			}
			open = -1
		}
	}
	var out []byte
	for len(defs) > 0 {
		line := defs
		if i := bytes.IndexByte(defs, '\n'); i >= 0 {
			line, defs = defs[:i+1], defs[i+1:]
		} else {
			defs = nil
		}
		if end := labelEnd(line); end > 0 && labels[util.ToLinkReference(line[1:end])] {
			out = append(out, line...)
		}
	}
	return out
}

// labelEnd is the index of the ']' that ends the label a definition line
// "[label]: …" starts with, or -1.
func labelEnd(line []byte) int {
	if len(line) == 0 || line[0] != '[' {
		return -1
	}
	for i := 1; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case ']':
			return i
		}
	}
	return -1
}

// registerChroma registers a style's code colours with chroma under
// glamourChromaTheme once, as glamour does when it highlights a block
// itself: rendering one small block through glamour's own element.
var registerChroma sync.Map // style name → *sync.Once

// codeTheme is the chroma theme codeBlocks.fill highlights with for cfg:
// "" without colour, else cfg's theme or its colours registered as
// glamour registers them.
func codeTheme(cfg *gansi.StyleConfig, noColor bool) string {
	if noColor {
		return ""
	}
	if cfg.CodeBlock.Chroma == nil {
		return cfg.CodeBlock.Theme
	}
	once, _ := registerChroma.LoadOrStore(glamourChromaTheme, new(sync.Once))
	once.(*sync.Once).Do(func() {
		el := &gansi.CodeBlockElement{Code: "x\n", Language: "text"}
		_ = el.Render(io.Discard, gansi.NewRenderContext(gansi.Options{Styles: *cfg}))
	})
	return glamourChromaTheme
}
