package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"modbay/render"
	"modbay/runner"
	"modbay/ui/common"
)

// detailBuilder collects wrapped detail lines: the one builder of the
// detail panes (modules, capabilities) and the result view, all in this
// file.
type detailBuilder struct {
	com   *common.Common
	w     int
	lines []string
}

func (b *detailBuilder) line(s string) { b.lines = append(b.lines, s) }

func (b *detailBuilder) heading(s string) {
	b.lines = append(b.lines, "", b.com.Styles.Subtitle.Render(s))
}

// kv writes an untrusted value under a label, wrapped.
func (b *detailBuilder) kv(k, v string) { b.kvStyled(k, render.SanitizeLine(v)) }

// kvStyled writes an already sanitized (possibly styled) value.
func (b *detailBuilder) kvStyled(k, v string) { b.kvHung(k, v, 0) }

// kvBadge is kvStyled for a value that starts with a status badge, whose
// first cell is a bracket or padding: the badge hangs one cell into the
// label column, so its word lines up with the values above and below.
func (b *detailBuilder) kvBadge(k, v string) { b.kvHung(k, v, 1) }

// kvHung writes k and v wrapped, v's first line starting hang cells left
// of the value column.
func (b *detailBuilder) kvHung(k, v string, hang int) {
	const kw = 12
	vw := max(b.w-kw, 8)
	wrapped := common.WrapWords(v, vw)
	if hang > 0 && strings.HasPrefix(ansi.Strip(v), " ") && !strings.HasPrefix(ansi.Strip(wrapped), " ") {
		// The wrap dropped the badge's leading padding cell: hung, its
		// word would sit left of the values.
		hang = 0
	}
	k = fmt.Sprintf("%-*s", kw-hang, k)
	if !strings.HasSuffix(k, " ") {
		// A label as wide as the column: a space parts it from the value.
		k += " "
	}
	lab := b.com.Styles.Label.Render(k)
	for i, l := range strings.Split(wrapped, "\n") {
		if i == 0 {
			b.lines = append(b.lines, lab+l)
		} else {
			b.lines = append(b.lines, strings.Repeat(" ", kw)+l)
		}
	}
}

func (b *detailBuilder) indented(s string) {
	for _, l := range strings.Split(common.Wrap(s, max(b.w-2, 8)), "\n") {
		b.lines = append(b.lines, "  "+b.com.Styles.Muted.Render(l))
	}
}

func (b *detailBuilder) text(s string) {
	for _, l := range strings.Split(s, "\n") {
		b.lines = append(b.lines, l)
	}
}

func (b *detailBuilder) violations(m *runner.Module) {
	st := b.com.Styles
	if len(m.Violations) > 0 {
		b.heading(fmt.Sprintf("Violations (%d)", len(m.Violations)))
		for _, v := range m.Violations {
			for _, l := range strings.Split(common.Wrap("✗ "+render.SanitizeLine(v.Error()), b.w), "\n") {
				b.lines = append(b.lines, st.Error.Render(l))
			}
		}
	}
	if len(m.Warnings) > 0 {
		b.heading(fmt.Sprintf("Warnings (%d)", len(m.Warnings)))
		for _, w := range m.Warnings {
			for _, l := range strings.Split(common.Wrap("! "+render.SanitizeLine(w), b.w), "\n") {
				b.lines = append(b.lines, st.Warning.Render(l))
			}
		}
	}
}

// String returns the lines, each cut to the width.
func (b *detailBuilder) String() string {
	out := make([]string, len(b.lines))
	for i, l := range b.lines {
		out[i] = common.Trunc(l, b.w)
	}
	return strings.Join(out, "\n")
}

// wrapped writes a styled, wrapped paragraph.
func (b *detailBuilder) wrapped(st interface{ Render(...string) string }, s string) {
	for _, l := range strings.Split(common.Wrap(s, b.w), "\n") {
		b.lines = append(b.lines, st.Render(l))
	}
}

// block writes pre-rendered lines indented by n cells.
func (b *detailBuilder) block(s string, n int) {
	pad := strings.Repeat(" ", n)
	for l := range strings.SplitSeq(s, "\n") {
		b.lines = append(b.lines, pad+l)
	}
}
