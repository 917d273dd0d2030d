package formview

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"

	"modbay/internal/words"
	"modbay/render"
	modschema "modbay/schema" // the test package has a const schema
	"modbay/ui/common"
	"modbay/ui/form"
	"modbay/ui/styles"
)

// View draws the rows, scrolled so the focused one shows, then the root
// problems, the note and the summary line, in at most the size given by
// SetSize. In JSON mode it draws the JSON editor instead.
func (m *Model) View() string {
	foot := m.footer()
	avail := max(m.height-len(foot), 1)
	var lines []string
	if m.jsonMode {
		for _, l := range strings.Split(m.jsonArea.View(), "\n") {
			lines = append(lines, common.Trunc(l, m.width))
		}
		if len(lines) > avail {
			lines = lines[:avail]
		}
	} else {
		lines = m.body(avail)
	}
	for len(lines) < avail {
		lines = append(lines, "")
	}
	return strings.Join(append(lines, foot...), "\n")
}

// maxNoteLines is how many lines a note may wrap onto under the form: two
// hold every note the form writes at 60 columns, three leave room for an
// error text quoted in one. A problem listed in JSON mode wraps as far.
const maxNoteLines = 3

// maxProblemLines bounds the lines one problem of the focused field wraps
// onto: eight hold a pattern of some 500 characters at 80 columns (the
// whole of any pattern a person types by hand), and a module's longer one
// still ends in "…" rather than filling the screen.
const maxProblemLines = 8

// wrapLines wraps s ("✗ " and a problem) to w cells, the lines after the
// first indented under the problem's text, and keeps at most limit lines,
// the last cut with "…" when there was more.
func wrapLines(s string, w, limit int) []string {
	const hang = "  "
	lines := strings.Split(common.Wrap(s, max(w-len(hang), 1)), "\n")
	if len(lines) > limit {
		lines = append(lines[:limit-1], common.Trunc(strings.Join(lines[limit-1:], " "), w-len(hang)))
	}
	for i, l := range lines {
		if i > 0 {
			l = hang + l
		}
		lines[i] = common.Trunc(l, w)
	}
	return lines
}

// footer is the root problems, the note and the summary line.
func (m *Model) footer() []string {
	st := m.com.Styles
	var foot []string
	roots := m.problems.Root
	if m.jsonMode {
		roots = m.problems.Lines() // no fields to show them at
	}
	if !m.jsonMode && !m.ProblemsShownAt("") {
		roots = nil // counted in the summary line until a submit attempt
	}
	for _, r := range roots {
		// Whole, up to maxNoteLines each: JSON mode has no field where
		// a long pattern could be read.
		for _, l := range wrapLines("✗ "+render.SanitizeLine(r), m.width, maxNoteLines) {
			foot = append(foot, st.Error.Render(l))
		}
	}
	maxRoot := max(m.height/3, 1)
	if len(foot) > maxRoot {
		more := len(foot) - maxRoot + 1
		foot = append(foot[:maxRoot-1], st.Error.Render(common.Trunc(fmt.Sprintf("✗ … and %d more", more), m.width)))
	}
	if m.note != "" {
		// A note wraps rather than losing its end (what a second key
		// does is usually said last), up to maxNoteLines.
		lines := strings.Split(common.Wrap(render.SanitizeLine(m.note), m.width), "\n")
		if len(lines) > maxNoteLines {
			lines = append(lines[:maxNoteLines-1], common.Trunc(strings.Join(lines[maxNoteLines-1:], " "), m.width))
		}
		for _, l := range lines {
			foot = append(foot, st.Warning.Render(common.Trunc(l, m.width)))
		}
	}
	if n := m.problems.Count(); n > 0 && !m.armed && m.anyProblemShown() {
		hidden := ""
		if h := m.problems.Hidden; h > 0 {
			hidden = fmt.Sprintf(" (%d from variants not chosen)", h)
		}
		foot = append(foot, st.Muted.Render(common.Trunc(fmt.Sprintf("%d %s%s; ctrl+s submits once the input is valid.", n, words.Plural(n, "problem", "problems"), hidden), m.width)))
	}
	return foot
}

// body draws the rows that fit in avail lines, keeping the focused row in
// view.
func (m *Model) body(avail int) []string {
	if len(m.rows) == 0 {
		return nil
	}
	// Only the rows on the screen are drawn (and the few between the old
	// top and the focus): a form of thousands of fields costs a keystroke
	// what a screenful does.
	drawn := map[int][]string{}
	row := func(i int) []string {
		l, ok := drawn[i]
		if !ok {
			l = m.rowLines(i)
			drawn[i] = l
		}
		return l
	}
	f := max(0, min(m.focus, len(m.rows)-1))
	top := max(0, min(m.top, len(m.rows)-1))
	skip := max(0, min(m.skip, len(row(top))-1))
	if f < top || (f == top && skip > 0) {
		top, skip = f, 0 // the focused row's start at the top
	}
	fits := false
	if f-top < avail { // each row is a line at least
		n := -skip
		for i := top; i <= f && n <= avail; i++ {
			n += len(row(i))
		}
		fits = n <= avail
	}
	if !fits {
		// The focused row's end at the bottom; its start at the top when
		// it is taller than the screen.
		top, skip = f, 0
		n := len(row(f))
		for n < avail && top > 0 {
			top--
			n += len(row(top))
		}
		if n > avail && top != f {
			skip = n - avail
		}
	}
	lines := append([]string(nil), row(top)[skip:]...)
	for i := top + 1; i < len(m.rows) && len(lines) < avail; i++ {
		lines = append(lines, row(i)...)
	}
	// The last page stays full: scroll back while there is room.
	for len(lines) < avail && (top > 0 || skip > 0) {
		if skip == 0 {
			top--
			skip = len(row(top))
		}
		skip--
		lines = append([]string{row(top)[skip]}, lines...)
	}
	m.top, m.skip = top, skip
	return lines[:min(len(lines), avail)]
}

// rowLines draws row i: the label line (marker, name, required mark, kind
// and hints), the editor, the problems and, when focused, the description.
func (m *Model) rowLines(i int) []string {
	st := m.com.Styles
	r := m.rows[i]
	n := r.Node
	focused := i == m.focus
	w := m.width
	lead := strings.Repeat(" ", depthIndent*r.Depth)
	pad := lead + strings.Repeat(" ", indent)

	name := render.SanitizeLine(n.Label())
	if n.Kind == form.KindEntry && n.Key == "" {
		name = "(new key)"
	}
	switch n.Kind {
	case form.KindObject, form.KindArray:
		if n.Collapsed {
			name = "▸ " + name
		} else {
			name = "▾ " + name
		}
	}
	if n.Required && n.Parent != nil && !sharesParentPointer(n) && n.Parent.Kind != form.KindArray && n.Kind != form.KindEntry {
		name += " *"
	}
	if focused {
		name = st.Focused.Render(name)
	} else {
		name = st.Text.Render(name)
	}
	head := st.Cursor(focused) + lead + name + "  " + st.Muted.Render(m.describe(n))
	lines := []string{common.Trunc(head, w)}

	switch {
	case n.Null:
		lines = append(lines, common.Trunc(pad+m.selected("null", focused)+st.Muted.Render("  ctrl+n: value"), w))
	case n.ReadOnly && n.Kind != form.KindObject && n.Kind != form.KindArray:
		// Shown as text, not as an editor: it cannot be changed or sent.
		v := n.ReadOnlyText()
		switch {
		case v == "":
			v = "(no value)"
		case m.masked(n):
			v = modschema.Mask
		}
		for _, l := range strings.Split(v, "\n") {
			lines = append(lines, common.Trunc(pad+st.Muted.Render("  "+render.SanitizeLine(l)), w))
		}
	case usesArea(n) && m.masked(n):
		for _, l := range maskedLines(m.area(n)) {
			lines = append(lines, common.Trunc(pad+l, w))
		}
	case usesArea(n):
		for _, l := range strings.Split(m.area(n).View(), "\n") {
			lines = append(lines, common.Trunc(pad+l, w))
		}
	case n.IsText():
		in := m.input(n)
		if n.Kind == form.KindString && !n.Raw {
			// The empty string shows as "" where an example would.
			in.Placeholder = examplePlaceholder(n)
			if n.IsEmptyString() && n.Empty {
				in.Placeholder = `""`
			}
		}
		m.lookDefault(n, in)
		in.EchoMode, in.EchoCharacter = textinput.EchoNormal, maskRune
		if m.masked(n) {
			in.EchoMode = textinput.EchoPassword
		}
		lines = append(lines, common.Trunc(pad+in.View(), w))
	default:
		if e := m.editorLine(n, focused); e != "" {
			lines = append(lines, common.Trunc(pad+e, w))
		}
	}
	if !sharesParentPointer(n) && m.ProblemsShownAt(n.Pointer()) {
		for _, p := range m.problems.At(n.Pointer()) {
			if !focused {
				lines = append(lines, common.Trunc(pad+st.Error.Render("✗ "+render.SanitizeLine(p)), w))
				continue
			}
			// The focused field's problems are whole (a long pattern, a
			// number with all its digits), up to maxProblemLines each.
			for _, l := range wrapLines("✗ "+render.SanitizeLine(p), max(w-len(pad), 10), maxProblemLines) {
				lines = append(lines, common.Trunc(pad+st.Error.Render(l), w))
			}
		}
	}
	if focused {
		for _, l := range descLines(n.Schema.Description, max(w-len(pad), 10)) {
			lines = append(lines, common.Trunc(pad+st.Muted.Render(l), w))
		}
		if n.Kind == form.KindUnion && n.Variant >= 0 && n.Variant < len(n.Variants) {
			// The chosen branch's own description, after the union's.
			v := n.Variants[n.Variant]
			if v.Description != "" && v.Description != n.Schema.Description {
				for _, l := range descLines(v.Description, max(w-len(pad), 10)) {
					lines = append(lines, common.Trunc(pad+st.Muted.Render(l), w))
				}
			}
		}
		if n.Kind == form.KindEnum && len(n.Options) > 1 {
			opts := make([]string, len(n.Options))
			for j, o := range n.Options {
				opts[j] = render.SanitizeLine(o.Label)
			}
			lines = append(lines, common.Trunc(pad+st.Muted.Render("one of: "+strings.Join(opts, ", ")), w))
		}
	}
	return lines
}

// maskRune is what each character of a masked secret is drawn as while
// it is typed (the count shows the typing, never the text).
const maskRune = '•'

// maskedLines draws a secret's multi-line editor masked: its prompt, then
// a maskRune per cell of each line, at most the editor's height.
func maskedLines(a *textarea.Model) []string {
	lines := strings.Split(a.Value(), "\n")
	if len(lines) > a.Height() {
		lines = lines[:max(a.Height(), 1)]
	}
	for i, l := range lines {
		lines[i] = a.Prompt + strings.Repeat(string(maskRune), common.Width(l))
	}
	return lines
}

// lineBreakRe splits a description into its lines (CRLF, CR or LF).
var lineBreakRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\r\n|\r|\n`) })

// descLines lays out a description (module text) in width cells: each of
// its own lines wrapped on its own, never joined with the next (a list in
// a description stays a list), runs of blank lines kept as one, at most
// maxDescLines lines, the last marked "…" when some were left out.
func descLines(d string, width int) []string {
	var out []string
	blank := true // no blank line at the top
	for _, l := range lineBreakRe().Split(d, -1) {
		l = strings.TrimRight(render.SanitizeLine(l), " ")
		if strings.TrimSpace(l) == "" {
			if !blank {
				out = append(out, "")
			}
			blank = true
			continue
		}
		blank = false
		out = append(out, strings.Split(common.Wrap(l, width), "\n")...)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	if len(out) > maxDescLines {
		out = append(out[:maxDescLines-1], out[maxDescLines-1]+" …")
	}
	return out
}

// maxDefaultShown bounds the cells of a default shown in a field's line.
const maxDefaultShown = 40

// examplePlaceholder is what an empty text field shows of its schema's
// example: "e.g. " and the example, so it never reads as a value, with
// color or without; "" for none.
func examplePlaceholder(n *form.Node) string {
	if n.Placeholder == "" {
		return ""
	}
	return "e.g. " + render.SanitizeLine(n.Placeholder)
}

// sharesParentPointer reports whether n is an entry's value or a union's
// variant: its problems show once, at its parent.
func sharesParentPointer(n *form.Node) bool {
	return n.Parent != nil && (n.Parent.Kind == form.KindEntry || n.Parent.Kind == form.KindUnion)
}

// describe is the muted text after a label: kind, title, hints and marks.
func (m *Model) describe(n *form.Node) string {
	var parts []string
	kind := n.Kind.String()
	switch n.Kind {
	case form.KindObject:
		if n.HasMap && len(n.Children) == 0 {
			kind = "map"
		}
		switch {
		case n.Lazy:
			kind += " · recursive, space opens"
		case n.Parent != nil && !n.Required && !n.Present:
			kind += " · not sent"
		}
		switch {
		case takesNoInput(n):
			// An input schema of no properties: "map · 0 entries" would
			// ask for entries no one declared.
			kind = "no input"
			if n.HasMap {
				kind += " · ctrl+a adds a key"
			}
		case n.HasMap:
			kind += fmt.Sprintf(" · %d %s", len(n.Entries), words.Plural(len(n.Entries), "entry", "entries"))
		}
	case form.KindArray:
		kind += fmt.Sprintf(" · %d %s", len(n.Children), words.Plural(len(n.Children), "item", "items"))
		if !n.Required && !n.Present && len(n.Children) == 0 {
			kind += " · not sent"
		}
	case form.KindEntry:
		kind = "key → " + n.Children[0].Kind.String()
	}
	if n.Raw {
		kind += " · kept as JSON (ctrl+x resets)"
	}
	if n.Empty && n.IsEmptyString() {
		kind += ` · empty string "" (sent; ctrl+r: not set)`
	}
	if n.Nullable {
		kind += " | null"
	}
	// The defaults rule (form.DefaultRule), in words, so a default reads
	// apart from a typed value without color.
	if m.form.DefaultSent(n) {
		kind += " · (default, sent)"
	} else if d := m.form.DefaultNotSent(n); d != "" {
		kind += " · default " + render.SanitizeLine(common.Trunc(d, maxDefaultShown)) + " (not sent)"
	}
	if t := n.Schema.Title; t != "" && t != n.Name {
		parts = append(parts, render.SanitizeLine(t))
	}
	parts = append(parts, kind)
	if h := n.Hint(); h != "" {
		parts = append(parts, render.SanitizeLine(h))
	}
	for _, note := range n.Notes() {
		parts = append(parts, render.SanitizeLine(note))
	}
	if sets := m.form.RequiredSets(n); len(sets) > 0 {
		alts := make([]string, len(sets))
		for i, set := range sets {
			alts[i] = strings.Join(set, " and ")
		}
		parts = append(parts, render.SanitizeLine("needs "+strings.Join(alts, " or ")))
	}
	if len(n.Fits) > 1 {
		parts = append(parts, render.SanitizeLine("the value fits "+strings.Join(n.Fits, " and ")+" alike: pick one"))
	}
	if kept := m.form.KeptVariants(n); len(kept) > 0 {
		parts = append(parts, render.SanitizeLine("also holds "+strings.Join(kept, ", ")+" (not sent)"))
	}
	if n.Deprecated {
		parts = append(parts, "deprecated")
	}
	switch {
	case m.form.ReadOnlySent(n):
		parts = append(parts, "read-only, sent")
	case n.ReadOnly && n.Required && n.Parent != nil:
		parts = append(parts, "read-only, no default · "+m.keys.JSON.Help().Key+": JSON mode")
	case n.ReadOnly:
		parts = append(parts, "read-only, not sent")
	}
	line := strings.Join(parts, " · ")
	if m.com.ASCII {
		// Measured as drawn: "<=" for ≤ is two cells, so the line wraps
		// before it is cut rather than fall back to "<" (a lie).
		line = styles.WideASCII(line)
	}
	return line
}

// selected renders s as the focused widget's value when focused.
func (m *Model) selected(s string, focused bool) string {
	if focused {
		return m.com.Styles.Selected.Render(s)
	}
	return s
}

// editorLine draws a non-text widget: toggle, select, multi-select,
// variant picker, null.
func (m *Model) editorLine(n *form.Node, focused bool) string {
	st := m.com.Styles
	switch n.Kind {
	case form.KindBoolean:
		box := map[form.BoolState]string{form.BoolUnset: "[ ] (not set)", form.BoolFalse: "[ ] false", form.BoolTrue: "[x] true"}[n.Bool]
		return m.selected(box, focused)
	case form.KindEnum:
		cur := "(none)"
		if n.Choice >= 0 && n.Choice < len(n.Options) {
			cur = render.SanitizeLine(n.Options[n.Choice].Label)
		}
		pos := fmt.Sprintf("  %d/%d", n.Choice+1, len(n.Options))
		if n.Choice < 0 {
			pos = fmt.Sprintf("  %d %s", len(n.Options), words.Plural(len(n.Options), "choice", "choices"))
		}
		return m.selected("‹ "+cur+" ›", focused) + st.Muted.Render(pos)
	case form.KindMulti:
		var b strings.Builder
		for j, o := range n.Options {
			box := "[ ] "
			if n.Checked[j] {
				box = "[x] "
			}
			item := box + render.SanitizeLine(o.Label)
			if focused && j == n.Cursor {
				item = st.Selected.Render(item)
			}
			if j > 0 {
				b.WriteString("  ")
			}
			b.WriteString(item)
		}
		return b.String()
	case form.KindUnion:
		cur := "(none)"
		if n.Variant >= 0 {
			cur = render.SanitizeLine(n.Variants[n.Variant].Label)
		}
		return m.selected("‹ "+cur+" ›", focused) + st.Muted.Render(fmt.Sprintf("  %d variants", len(n.Variants)))
	case form.KindNull:
		if n.Required || n.Present {
			return m.selected("null", focused)
		}
		return m.selected("(not sent)", focused)
	}
	return ""
}

// takesNoInput reports whether n is a whole input whose schema declares
// nothing to fill: no properties, no pattern or additional properties
// schema, and no entries added yet.
func takesNoInput(n *form.Node) bool {
	s := n.Schema
	return n.Parent == nil && n.Kind == form.KindObject && len(n.Children) == 0 && len(n.Entries) == 0 &&
		s != nil && len(s.Props) == 0 && len(s.PatternProps) == 0 && s.Additional == nil
}

// anyProblemShown reports whether some problem is marked on screen (JSON
// mode shows them all): until then the summary line does not count
// problems no field shows, which a fresh form's empty required fields are.
func (m *Model) anyProblemShown() bool {
	if m.jsonMode || m.attempted {
		return true
	}
	if len(m.problems.Root) > 0 && m.ProblemsShownAt("") {
		return true
	}
	for ptr, msgs := range m.problems.Fields {
		if len(msgs) > 0 && m.ProblemsShownAt(ptr) {
			return true
		}
	}
	return false
}
