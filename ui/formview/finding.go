package formview

import (
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"

	"modbay/ui/form"
)

// ---- finding the problem --------------------------------

// hasProblemRow reports whether row i's field has a problem of its own
// (a union's variant and an entry's value show theirs at the parent).
func (m *Model) hasProblemRow(i int) bool {
	n := m.rows[i].Node
	return n != nil && !sharesParentPointer(n) && len(m.problems.At(n.Pointer())) > 0
}

// nextProblem moves the focus to the next row after the focused one whose
// field has a problem, wrapping, and shows every field's problems (as a
// submit attempt does): the person asked where they are. With no such row
// a note says where the problems are instead.
func (m *Model) nextProblem() tea.Cmd {
	m.attempted = true
	for d := 1; d <= len(m.rows); d++ {
		i := (m.focus + d) % len(m.rows)
		if m.hasProblemRow(i) {
			if i == m.focus {
				m.setTransientNote("This is the only field with a problem.")
				return nil
			}
			return m.setFocus(i)
		}
	}
	switch {
	case m.problems.Count() == 0:
		m.setTransientNote("No problems: ctrl+s submits.")
	case len(m.problems.Root) > 0:
		m.setTransientNote("No field has a problem: the input as a whole has (shown below).")
	default:
		m.setTransientNote("No field shows a problem: the ones counted come from variants not chosen.")
	}
	return nil
}

// choiceLabels are the labels a choice list offers: a select's options, a
// multi-select's, a union's variants; nil for any other node.
func choiceLabels(n *form.Node) []string {
	var out []string
	switch n.Kind {
	case form.KindEnum, form.KindMulti:
		for _, o := range n.Options {
			out = append(out, o.Label)
		}
	case form.KindUnion:
		for _, v := range n.Variants {
			out = append(out, v.Label)
		}
	}
	return out
}

// current is the index a choice list is on (-1: none).
func current(n *form.Node) int {
	switch n.Kind {
	case form.KindEnum:
		return n.Choice
	case form.KindMulti:
		return n.Cursor
	case form.KindUnion:
		return n.Variant
	}
	return -1
}

// letterMatch returns the option a typed letter leads to, as in any list
// a person types into: the first option whose label starts with it, or,
// when the current one does, the next such option (wrapping), so the same
// letter again cycles through them. Labels no option starts with are then
// matched by the start of any word ("type = page_id" by p), so a union
// whose labels share their first word is still reachable. -1 when none.
func letterMatch(labels []string, cur int, r rune) int {
	r = unicode.ToLower(r)
	for _, starts := range []func(string) bool{
		func(l string) bool { return firstRune(l) == r },
		func(l string) bool {
			for _, w := range strings.FieldsFunc(l, func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) }) {
				if firstRune(w) == r {
					return true
				}
			}
			return false
		},
	} {
		if cur >= 0 && cur < len(labels) && starts(labels[cur]) {
			for d := 1; d <= len(labels); d++ {
				if i := (cur + d) % len(labels); starts(labels[i]) {
					return i
				}
			}
		}
		for i, l := range labels {
			if starts(l) {
				return i
			}
		}
	}
	return -1
}

// firstRune is the first letter or digit of s, lower-cased (0: none).
func firstRune(s string) rune {
	for _, c := range s {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			return unicode.ToLower(c)
		}
	}
	return 0
}

// jumpToLetter moves a choice list to the option text (one typed letter
// or digit) leads to; it reports false when text is not one such
// character or n is no choice list, and says so in a note when no option
// matches.
func (m *Model) jumpToLetter(n *form.Node, text string) (bool, tea.Cmd) {
	labels := choiceLabels(n)
	r := []rune(text)
	if labels == nil || len(r) != 1 || !unicode.IsLetter(r[0]) && !unicode.IsDigit(r[0]) {
		return false, nil
	}
	i := letterMatch(labels, current(n), r[0])
	if i < 0 {
		m.setTransientNote("No choice here starts with " + strings.ToLower(text) + ".")
		return true, nil
	}
	switch n.Kind {
	case form.KindEnum:
		n.Choice = i
	case form.KindMulti:
		n.Cursor = i
		return true, nil
	case form.KindUnion:
		m.form.SetVariant(n, i)
	}
	return true, m.edited(n)
}
