package render

import (
	"fmt"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/ansi"
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
)

// Markdown renders a markdown document (GitHub-flavoured, via glamour) for a
// terminal o.Width cells wide, styled for a dark or light background, or in
// glamour's "notty" style with every escape sequence removed when o.NoColor.
//
// The source is passed through [Sanitize] first, so escape sequences written
// into the markdown show as inert text (␛[2J) and only glamour's own styling
// reaches the terminal. Glamour wraps paragraphs at o.Width; lines it cannot
// wrap (long code lines, wide tables) are hard-wrapped so that no output line
// is wider than o.Width cells.
//
// A document over MaxMarkdownBytes is rendered as [Text] after a one-line
// note saying so. The error is glamour's, wrapped; on error the string is
// [Text] of src, a plain sanitized rendering that is still worth showing.
func Markdown(src []byte, o Options) (string, error) {
	width := o.width()
	if len(src) > MaxMarkdownBytes {
		note := fmt.Sprintf("Markdown over %s shown as plain text.", humanBytes(MaxMarkdownBytes))
		return ansi.Wrap(note, width, "") + "\n\n" + Text(src, o), nil
	}
	style := styles.LightStyle
	switch {
	case o.NoColor:
		style = styles.NoTTYStyle
	case o.Dark:
		style = styles.DarkStyle
	}
	r, err := glamour.NewTermRenderer(
		glamour.WithStandardStyle(style),
		glamour.WithWordWrap(width),
	)
	if err != nil {
		return Text(src, o), fmt.Errorf("markdown: glamour style %q: %w", style, err)
	}
	in := expandTabs(Sanitize(string(src)), markdownTabStop)
	out, err := r.Render(in)
	if err != nil {
		return Text(src, o), fmt.Errorf("markdown: render: %w", err)
	}
	if o.NoColor {
		// Glamour's notty style has no colors but links still carry OSC 8
		// hyperlinks; NoColor promises no escape sequence at all.
		// Without styling, the spaces glamour pads each line with to the
		// wrap width carry nothing; drop them so copied text is clean.
		out = trimTrailingSpace(ansi.Strip(out))
	}
	return fitLines(out, width), nil
}
