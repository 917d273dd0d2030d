package form

import (
	"encoding/json"
	"slices"
	"strings"
)

// ---- editing -------------------------------------------------------------

// Changed records an edit of n: n and its enclosing sections no longer
// hold a default as built (Node.Defaulted) and become present (they are
// sent), and conditionals are applied again. It reports whether
// the tree's shape changed.
func (f *Form) Changed(n *Node) bool {
	untouch(n) // edited: no longer the default as built
	for p := n; p != nil; p = p.Parent {
		switch p.Kind {
		case KindObject, KindArray, KindMulti, KindUnion, KindNull:
			p.Present = true
		}
	}
	return f.refreshAll()
}

// refreshAll applies every object's conditionals to its current value and
// rebuilds the objects whose active schema changed; it reports whether any
// did (and then bumps Gen).
func (f *Form) refreshAll() bool {
	changed := false
	var walk func(n *Node)
	walk = func(n *Node) {
		if n.Kind == KindObject && !n.Lazy && n.base != nil && hasConditionals(n.base) {
			before := shapeKey(n)
			f.buildObject(n)
			if shapeKey(n) != before {
				changed = true
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
		for _, e := range n.Entries {
			walk(e)
		}
	}
	walk(f.Root)
	if changed {
		f.Gen++
	}
	return changed
}

func hasConditionals(s *Schema) bool {
	return s.If != nil || len(s.DepRequired) > 0 || len(s.DepSchemas) > 0
}

// shapeKey summarises an object's fields and their required marks.
func shapeKey(n *Node) string {
	var b strings.Builder
	for _, c := range n.Children {
		b.WriteString(c.Name)
		if c.Required {
			b.WriteByte('*')
		}
		b.WriteByte(0)
	}
	return b.String()
}

// activeSchema is an object's schema with the conditionals that hold for
// its current value merged in: then or else of an if, and the
// dependentSchemas of properties that have values.
func (f *Form) activeSchema(n *Node) *Schema {
	base := n.base
	if base == nil || !hasConditionals(base) {
		return base
	}
	s := *base
	if base.If != nil {
		v := f.objectValue(n, nil, "")
		branch := base.Else
		if f.comp.Matches(base.If.Loc, v) {
			branch = base.Then
		}
		if branch != nil {
			merge(&s, f.doc.Effective(branch))
		}
	}
	for _, d := range base.DepSchemas {
		v, ok := f.propValue(n, d.Name)
		if !ok {
			continue
		}
		e := f.doc.Effective(d.Schema)
		plain := *e
		plain.OneOf, plain.AnyOf = nil, nil
		merge(&s, &plain)
		// A oneOf/anyOf of a dependent schema: the branch the trigger's
		// value selects gives its fields (the trigger keeps its own).
		for _, list := range [][]*Schema{e.OneOf, e.AnyOf} {
			if b := f.dependentBranch(list, d.Name, v); b != nil {
				own := *b
				own.Props = slices.DeleteFunc(slices.Clone(b.Props), func(p Prop) bool { return p.Name == d.Name })
				merge(&s, &own)
			}
		}
	}
	return &s
}

// dependentBranch returns the branch of a dependent schema's oneOf/anyOf
// list (effective) that trigger's value v selects: the first whose schema
// for trigger admits v (its const or enum, else the validator), else the
// first branch that does not mention trigger; nil for none.
func (f *Form) dependentBranch(list []*Schema, trigger string, v json.RawMessage) *Schema {
	var fallback *Schema
	for _, b := range list {
		e := f.doc.Effective(b)
		i := slices.IndexFunc(e.Props, func(p Prop) bool { return p.Name == trigger })
		if i < 0 {
			if fallback == nil {
				fallback = e
			}
			continue
		}
		ps := f.doc.Effective(e.Props[i].Schema)
		switch {
		case ps.Const != nil || len(ps.Enum) > 0:
			if (ps.Const != nil && jsonEqual(ps.Const, v)) || slices.ContainsFunc(ps.Enum, func(x json.RawMessage) bool { return jsonEqual(x, v) }) {
				return e
			}
		case f.comp.Matches(e.Props[i].Schema.Loc, v):
			return e
		}
	}
	return fallback
}

// propValue is the value of n's property name (a field, or an entry of
// that key) and whether it has one.
func (f *Form) propValue(n *Node, name string) (json.RawMessage, bool) {
	for _, c := range n.Children {
		if c.Name == name {
			v, _ := f.value(c, nil, "")
			return v, v != nil
		}
	}
	for _, e := range n.Entries {
		if e.Key == name {
			v, _ := f.value(e.Children[0], nil, "")
			return v, true
		}
	}
	return nil, false
}

// Expand builds a lazy (recursive) section's fields and opens it.
func (f *Form) Expand(n *Node) {
	if n.Lazy {
		f.buildObject(n)
		f.Gen++
	}
	n.Collapsed = false
}

// ToggleCollapsed opens or closes a section.
func (f *Form) ToggleCollapsed(n *Node) {
	if n.Collapsed {
		f.Expand(n)
		return
	}
	n.Collapsed = true
	f.Gen++
}

// Add appends an item to a list or an entry to an object (one without a
// key yet) and returns it; nil when n takes neither or is full (maxItems,
// or a closed tuple).
func (f *Form) Add(n *Node) *Node {
	var out *Node
	switch n.Kind {
	case KindArray:
		if mx := n.Schema.MaxItems; mx != nil && len(n.Children) >= *mx {
			return nil
		}
		if len(n.Children) >= len(n.Schema.Prefix) && n.Schema.ItemsFalse {
			return nil
		}
		out = f.addItem(n)
	case KindObject:
		if n.Lazy {
			f.buildObject(n)
		}
		if !n.HasMap {
			return nil
		}
		out = f.addEntry(n, "")
	default:
		return nil
	}
	n.Collapsed = false
	f.Changed(n)
	f.Gen++
	return out
}

func (f *Form) addItem(arr *Node) *Node {
	it := f.newNode("", itemSchema(arr, len(arr.Children)), arr, true)
	it.Collapsed = false
	arr.Children = append(arr.Children, it)
	return it
}

func (f *Form) addEntry(obj *Node, key string) *Node {
	e := &Node{Kind: KindEntry, Key: key, Parent: obj, Required: true, Choice: -1, Variant: -1, Schema: &Schema{}}
	v := f.newNode("", f.entrySchema(obj, key), e, true)
	v.Collapsed = false
	e.Children = []*Node{v}
	obj.Entries = append(obj.Entries, e)
	return e
}

// Rekey records an edit of entry e's key: when the key now matches a
// different patternProperties schema, the value is rebuilt under it,
// keeping what was entered where it fits.
func (f *Form) Rekey(e *Node) {
	if e.Kind != KindEntry {
		return
	}
	want := f.entrySchema(e.Parent, e.Key)
	if old := e.Children[0]; old.src != want {
		// A value slot left empty sends null only to hold its place: the
		// new widget starts empty, not as JSON holding that null.
		probs := problemSink{}
		v, ok := f.value(old, probs, "v")
		empty := slices.Contains(probs["v"], MsgRequired)
		nv := f.newNode("", want, e, true)
		if ok && !empty {
			f.load(nv, v)
		}
		e.Children[0] = nv
		f.Gen++
	}
	f.Changed(e)
}

// Remove deletes a list item or an entry.
func (f *Form) Remove(n *Node) bool {
	p := n.Parent
	if p == nil {
		return false
	}
	switch {
	case n.Kind == KindEntry:
		p.Entries = slices.DeleteFunc(p.Entries, func(x *Node) bool { return x == n })
	case p.Kind == KindArray:
		if i := slices.Index(p.Children, n); i < len(p.Schema.Prefix) && i < len(p.Children)-1 {
			return false // a tuple position cannot leave a gap
		}
		p.Children = slices.DeleteFunc(p.Children, func(x *Node) bool { return x == n })
	default:
		return false
	}
	f.Changed(p)
	f.Gen++
	return true
}

// Move moves a list item or entry by delta places; tuple positions do not
// move (their schemas differ).
func (f *Form) Move(n *Node, delta int) bool {
	p := n.Parent
	if p == nil {
		return false
	}
	list := &p.Entries
	if n.Kind != KindEntry {
		if p.Kind != KindArray || len(p.Schema.Prefix) > 0 {
			return false
		}
		list = &p.Children
	}
	i := slices.Index(*list, n)
	j := i + delta
	if i < 0 || j < 0 || j >= len(*list) {
		return false
	}
	(*list)[i], (*list)[j] = (*list)[j], (*list)[i]
	f.Changed(p)
	f.Gen++
	return true
}

// SetVariant picks variant i of a union (-1: none, for an optional one).
// Each variant's fields are kept, so switching back restores them.
func (f *Form) SetVariant(n *Node, i int) {
	f.pickVariant(n, i)
	if i >= 0 {
		f.Changed(n)
		if len(n.Children) > 0 {
			n.Children[0].Present = true
		}
	} else {
		n.Present = false
		f.refreshAll()
	}
	f.Gen++
}

// CycleVariant moves a union's choice by delta, through "none" when the
// union is optional.
func (f *Form) CycleVariant(n *Node, delta int) {
	f.SetVariant(n, cycle(n.Variant, len(n.Variants), n.Required, delta))
}

func (f *Form) pickVariant(n *Node, i int) {
	if n.Kind != KindUnion || i >= len(n.Variants) {
		return
	}
	if n.Variant >= 0 && len(n.Children) > 0 {
		if n.alt == nil {
			n.alt = map[int]*Node{}
		}
		n.alt[n.Variant] = n.Children[0]
	}
	n.Variant, n.Fits = i, nil
	if i < 0 {
		n.Children = nil
		return
	}
	c, ok := n.alt[i]
	if !ok {
		v := n.Variants[i]
		c = &Node{Parent: n, Required: true, Choice: -1, Variant: -1, src: v.Src}
		f.shape(c, v.Schema)
		c.Collapsed = false
	}
	n.Children = []*Node{c}
}

// ToggleNull switches a nullable node between null and its value (kept).
func (f *Form) ToggleNull(n *Node) bool {
	if !n.Nullable {
		return false
	}
	n.Null = !n.Null
	f.Changed(n)
	return true
}

// Clear leaves a node out of the input: text emptied (the empty-string
// state too), choice and boolean unset, section, list or union no longer
// sent, null undone; a required node then shows "required". A value kept
// as JSON text (Raw) goes back to its widget, empty.
func (f *Form) Clear(n *Node) {
	f.clear(n)
	f.refreshAll()
	f.Gen++
}

// clear is Clear without applying conditionals (load applies them once
// the whole value is in).
func (f *Form) clear(n *Node) {
	n.Null, n.Raw, n.Defaulted = false, false, false
	switch n.Kind {
	case KindString, KindNumber, KindInteger, KindJSON:
		n.Text, n.Empty = "", false
	case KindBoolean:
		n.Bool = BoolUnset
	case KindEnum:
		n.Choice = -1
	case KindMulti:
		clear(n.Checked)
		n.Present = false
	case KindObject:
		n.Present = false
	case KindArray:
		n.Children = nil
		n.Present = false
	case KindUnion:
		if !n.Required {
			f.pickVariant(n, -1)
		}
		n.Present = false
	case KindNull:
		n.Present = false
	}
}

// SetEmpty toggles a string field between the empty string "" (sent, and
// shown as such) and not set (left out): the one way to send "" from the
// keyboard, since a field emptied by deleting its text is not set. It
// reports false for a node that is not a string field (or whose value is
// kept as JSON text, where "" is typed as JSON).
func (f *Form) SetEmpty(n *Node) bool {
	if n.Kind != KindString || n.Raw || n.ReadOnly {
		return false
	}
	n.Empty = !(n.Empty && n.Text == "")
	n.Text, n.Null = "", false
	f.Changed(n)
	f.Gen++
	return true
}

// IsEmptyString reports whether n is a string field set to the empty
// string "" (see Node.Empty): it is sent as "".
func (n *Node) IsEmptyString() bool {
	return n.Kind == KindString && !n.Raw && !n.Null && n.Text == "" && (n.Empty || n.slot())
}

// KeptVariants returns the labels of the variants of union n, other than
// the chosen one, that still hold something typed: kept for a switch
// back, never sent. A view shows them, so nothing disappears unseen.
func (f *Form) KeptVariants(n *Node) []string {
	if n.Kind != KindUnion {
		return nil
	}
	var idx []int
	for i, c := range n.alt {
		if i == n.Variant || i >= len(n.Variants) {
			continue
		}
		if v, ok := f.value(c, nil, ""); ok && holdsInput(v) && !f.asBuilt(n, i, v) {
			idx = append(idx, i)
		}
	}
	slices.Sort(idx)
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = n.Variants[i].Label
	}
	return out
}

// asBuilt reports whether v is what variant i of union n holds when built
// afresh (its consts and required defaults): nothing typed.
func (f *Form) asBuilt(n *Node, i int, v json.RawMessage) bool {
	vr := n.Variants[i]
	c := &Node{Parent: n, Required: true, Choice: -1, Variant: -1, src: vr.Src}
	f.shape(c, vr.Schema)
	fresh, ok := f.value(c, nil, "")
	return ok && jsonEqual(fresh, v)
}

// holdsInput reports whether a variant's value holds something beyond an
// empty shell ({}, [], null, or an object of consts only counts as empty
// when it is {} or []).
func holdsInput(v []byte) bool {
	s := string(v)
	return s != "{}" && s != "[]" && s != "null" && s != ""
}
