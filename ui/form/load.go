package form

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"

	"modbay/modproto"
	"modbay/schema"
)

// ---- loading values ------------------------------------------------------

// SetValue fills the tree from a JSON value (JSON mode, a remembered
// input, a preset). Nothing is dropped: a key the schema does not name
// becomes an entry, a value that does not fit its widget is kept as JSON
// text. Invalid JSON is an error and changes nothing.
func (f *Form) SetValue(raw json.RawMessage) error {
	if err := JSONError(raw); err != nil {
		return err
	}
	f.prefer = f.chosenVariants()
	defer func() { f.prefer = nil }()
	f.loadRoot(raw)
	return nil
}

// loadRoot replaces the tree with one holding raw (valid JSON), reading
// f.prefer for the unions.
func (f *Form) loadRoot(raw json.RawMessage) {
	root := f.newNode("", f.Root.src, nil, true)
	root.Collapsed = false
	if f.Root.Kind == KindJSON && f.Root.src == nil {
		root = &Node{Kind: KindJSON, Required: true, Choice: -1, Variant: -1, Schema: &Schema{}}
	}
	f.load(root, compact(raw))
	f.Root = root
	f.refreshAll()
	f.Gen++
}

// JSONError is nil when raw is one JSON value, else MsgBadJSON with why it
// does not parse in plain words and where (line and column): "not valid
// JSON — strings need quotes: write "hello", not hello (line 1, column
// 7)".
func JSONError(raw []byte) error {
	if json.Valid(raw) {
		return nil
	}
	return errors.New(modproto.JSONProblem(raw))
}

// chosen is a union's state before SetValue: its chosen variant and the
// value it produced (recorded only when that variant's widget held it,
// not kept as JSON text), and the nodes of every variant built so far.
type chosen struct {
	index int
	value json.RawMessage
	alt   map[int]*Node
	// fits is the union's Fits: a flagged choice stays flagged.
	fits []string
}

// chosenVariants records every union's chosen variant and value by
// pointer, so a value loaded back unchanged (a round trip through JSON
// mode) returns to the variant it came from: "007" typed in a number
// variant goes back there with its problem, not to the string variant
// that would also take it.
func (f *Form) chosenVariants() map[string]chosen {
	out := map[string]chosen{}
	var walk func(n *Node)
	walk = func(n *Node) {
		if n.Kind == KindUnion {
			c := chosen{index: -1, alt: map[int]*Node{}}
			for i, a := range n.alt {
				c.alt[i] = a
			}
			if n.Variant >= 0 && len(n.Children) > 0 {
				c.alt[n.Variant] = n.Children[0]
				if v, ok := f.value(n, nil, ""); ok && !n.Children[0].Raw {
					c.index, c.value, c.fits = n.Variant, compact(v), n.Fits
				}
			}
			out[n.Pointer()] = c
		}
		for _, c := range n.Children {
			walk(c)
		}
		for _, e := range n.Entries {
			walk(e)
		}
	}
	walk(f.Root)
	return out
}

// load puts value v into n (and its subtree).
func (f *Form) load(n *Node, v json.RawMessage) {
	v = compact(v)
	if v == nil {
		return
	}
	n.Null, n.Raw, n.Empty, n.Defaulted = false, false, false, false
	if string(v) == "null" && n.Nullable {
		n.Null = true
		return
	}
	if string(v) == "null" && n.slot() {
		switch n.Kind {
		case KindNumber, KindInteger, KindBoolean, KindEnum:
			// What an empty item of these kinds sends: it loads back
			// empty, with its "required" problem, not as JSON text.
			return
		}
	}
	fallback := func() {
		n.Raw = true
		n.Text = Indent(v)
	}
	switch n.Kind {
	case KindString:
		if v[0] != '"' || json.Unmarshal(v, &n.Text) != nil {
			fallback()
			return
		}
		n.Empty = n.Text == ""
	case KindNumber, KindInteger:
		// A number keeps its exact text (1.0, 1e3, digits beyond 2^53; a
		// fraction in an integer field too, with its problem); a string
		// the form sent for text that is not a number goes back into the
		// field as that text.
		if numberRe().Match(v) {
			n.Text = string(v)
			return
		}
		if t, ok := numberText(v); ok {
			n.Text = t
			return
		}
		fallback()
	case KindBoolean:
		switch string(v) {
		case "true":
			n.Bool = BoolTrue
		case "false":
			n.Bool = BoolFalse
		default:
			fallback()
		}
	case KindEnum:
		for i, o := range n.Options {
			if jsonEqual(o.Value, v) {
				n.Choice = i
				return
			}
		}
		fallback()
	case KindMulti:
		var items []json.RawMessage
		if v[0] != '[' || json.Unmarshal(v, &items) != nil {
			fallback()
			return
		}
		// The options checked, in their order: a list in another order,
		// with repeats or with values not offered is kept as JSON.
		checked := make([]bool, len(n.Options))
		last := -1
	next:
		for _, it := range items {
			for i, o := range n.Options {
				if i > last && jsonEqual(o.Value, it) {
					checked[i], last = true, i
					continue next
				}
			}
			fallback()
			return
		}
		n.Checked, n.Present = checked, true
	case KindObject:
		keys, m, err := objectKeys(v)
		if err != nil {
			fallback()
			return
		}
		if n.Lazy {
			f.buildObject(n)
			n.Collapsed = false
		}
		n.Present = true
		n.Entries = nil
		byName := map[string]*Node{}
		for _, c := range n.Children {
			if c.ReadOnly {
				// A read-only field holds a loaded value (Held) and sends
				// it, so it is neither lost nor shown twice.
				c.Held = nil
				byName[c.Name] = c
				continue
			}
			f.clear(c)
			byName[c.Name] = c
		}
		for _, k := range keys {
			if c, ok := byName[k]; ok {
				if c.ReadOnly {
					c.hold(m[k])
					continue
				}
				f.load(c, m[k])
				continue
			}
			e := f.addEntry(n, k)
			f.load(e.Children[0], m[k])
		}
		// Loaded values may switch conditionals: rebuild, then load the
		// properties that appeared.
		before := shapeKey(n)
		f.buildObject(n)
		if shapeKey(n) != before {
			f.placeKeys(n, keys, m, byName)
		}
	case KindArray:
		var items []json.RawMessage
		if v[0] != '[' || json.Unmarshal(v, &items) != nil {
			fallback()
			return
		}
		n.Children, n.Present = nil, true
		for _, it := range items {
			f.load(f.addItem(n), it)
		}
	case KindUnion:
		i, fits := f.matchVariant(n, v)
		p, had := f.prefer[n.Pointer()]
		if had && p.index >= 0 && p.index < len(n.Variants) && bytes.Equal(p.value, v) {
			i, fits = p.index, p.fits // the value this variant produced goes back into it
		}
		f.pickVariant(n, i)
		n.Fits = fits
		n.Present = true
		f.load(n.Children[0], v)
		n.Children[0].Present = true
		if n.Children[0].Raw {
			// The value did not fit the branch it matched best: another
			// branch whose widget holds it is the better home.
			for j := range n.Variants {
				if j != i && f.fitsVariant(n, j, v) {
					f.pickVariant(n, j)
					n.Fits = nil
					f.load(n.Children[0], v)
					n.Children[0].Present = true
					break
				}
			}
		}
		// What the other branches held before stays with them (not
		// sent, shown as kept), as when the person switches variants.
		for j, a := range p.alt {
			if j != n.Variant && j < len(n.Variants) {
				if n.alt == nil {
					n.alt = map[int]*Node{}
				}
				a.Parent = n
				n.alt[j] = a
			}
		}
	case KindNull:
		if string(v) != "null" {
			fallback()
			return
		}
		n.Present = true
	case KindEntry:
		f.load(n.Children[0], v)
	default:
		n.Text = Indent(v)
	}
}

// placeKeys puts the keys of a loaded object value that its rebuild (a
// conditional switched by the value) moved: a property that appeared takes
// its value from its entry, and a value whose property went away becomes
// an entry, so no key is lost. loaded are the properties loaded before the
// rebuild, by name.
func (f *Form) placeKeys(n *Node, keys []string, m map[string]json.RawMessage, loaded map[string]*Node) {
	props := map[string]*Node{}
	for _, c := range n.Children {
		props[c.Name] = c
	}
	for _, k := range keys {
		c, isProp := props[k]
		switch {
		case isProp && loaded[k] == c:
		case isProp && c.ReadOnly:
			c.hold(m[k])
			n.Entries = slices.DeleteFunc(n.Entries, func(e *Node) bool { return e.Key == k })
		case isProp:
			f.load(c, m[k])
			n.Entries = slices.DeleteFunc(n.Entries, func(e *Node) bool { return e.Key == k })
		case !slices.ContainsFunc(n.Entries, func(e *Node) bool { return e.Key == k }):
			if s, ok := n.stash[k]; ok {
				f.clear(s)
			}
			e := f.addEntry(n, k)
			f.load(e.Children[0], m[k])
		}
	}
}

// fitsVariant reports whether variant j of union n holds v in its widget
// (not as JSON text), trying it on a scratch node.
func (f *Form) fitsVariant(n *Node, j int, v json.RawMessage) bool {
	vr := n.Variants[j]
	c := &Node{Parent: n, Required: true, Choice: -1, Variant: -1, src: vr.Src}
	f.shape(c, vr.Schema)
	f.load(c, v)
	return !c.Raw
}

// matchVariant picks the union branch a value fits best and returns the
// labels of the branches it fits as well as that one (nil when one fits
// best). A branch of a type list fits by the value's JSON type. Otherwise
// each branch is scored, in this order: its consts (a const the value
// contradicts rules the branch out), its required keys present, the
// value's type, the compiled schema's verdict, the value's keys it
// declares, then its defaults the value equals (branches that differ only
// by read-only defaults). With no fitting branch, the first.
func (f *Form) matchVariant(n *Node, v json.RawMessage) (int, []string) {
	jt := jsonType(v)
	for i, vr := range n.Variants {
		if vr.Type != "" && (vr.Type == jt || (vr.Type == "number" && jt == "integer")) {
			return i, nil
		}
	}
	best, bestScore := 0, []int(nil)
	var tied []int
	for i, vr := range n.Variants {
		if vr.Type != "" {
			continue
		}
		sc := f.variantScore(vr, v, jt)
		if sc == nil {
			continue
		}
		switch c := slices.Compare(sc, bestScore); {
		case bestScore == nil || c > 0:
			best, bestScore, tied = i, sc, []int{i}
		case c == 0:
			tied = append(tied, i)
		}
	}
	if len(tied) < 2 {
		return best, nil
	}
	labels := make([]string, len(tied))
	for k, i := range tied {
		labels[k] = n.Variants[i].Label
	}
	return best, labels
}

// variantScore scores how well v (of JSON type jt) fits branch vr, higher
// is better, compared element by element (matchVariant's order); nil when
// a const of the branch contradicts v.
func (f *Form) variantScore(vr Variant, v json.RawMessage, jt string) []int {
	s := vr.Schema
	b2i := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	consts, defaults, required, declared := 0, 0, 1, 0
	if cv, ok := s.ConstValue(); ok {
		if !jsonEqual(cv, v) {
			return nil
		}
		consts++
	}
	if s.Default != nil && jsonEqual(s.Default, v) {
		defaults++
	}
	if keys, m, err := objectKeys(v); err == nil && jt == "object" {
		for _, p := range s.Props {
			e := f.doc.Effective(p.Schema)
			got, present := m[p.Name]
			if cv, ok := e.ConstValue(); ok && present {
				if !jsonEqual(got, cv) {
					return nil
				}
				consts++
			}
			if present && e.Default != nil && jsonEqual(got, e.Default) {
				defaults++
			}
		}
		for _, r := range s.Required {
			if _, ok := m[r]; !ok {
				required = 0
			}
		}
		for _, k := range keys {
			if slices.ContainsFunc(s.Props, func(p Prop) bool { return p.Name == k }) {
				declared++
			}
		}
	}
	return []int{consts, required, b2i(typeFits(s, jt)), b2i(f.comp.Matches(vr.Src.Loc, v)), declared, defaults}
}

func typeFits(s *Schema, jt string) bool {
	types := s.Types
	if len(types) == 0 {
		if t := inferType(s); t != "" {
			types = []string{t}
		} else {
			return true
		}
	}
	for _, t := range types {
		if t == jt || (t == "number" && jt == "integer") {
			return true
		}
	}
	return false
}

func constsFit(f *Form, s *Schema, v json.RawMessage) bool {
	_, m, err := objectKeys(v)
	if err != nil {
		return true
	}
	for _, p := range s.Props {
		if cv, ok := f.doc.Effective(p.Schema).ConstValue(); ok {
			if got, present := m[p.Name]; present && !jsonEqual(got, cv) {
				return false
			}
		}
	}
	return true
}

// jsonType names the JSON Schema type of a value ("integer" for a number
// without a fraction).
func jsonType(v json.RawMessage) string {
	if len(v) == 0 {
		return ""
	}
	switch v[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	if integral(string(v)) {
		return "integer"
	}
	return "number"
}

// jsonEqual compares two JSON values by meaning (numbers by value).
func jsonEqual(a, b json.RawMessage) bool {
	if bytes.Equal(compact(a), compact(b)) {
		return true
	}
	ra, oka := schema.Rat(string(a))
	rb, okb := schema.Rat(string(b))
	if oka && okb && numberRe().Match(a) && numberRe().Match(b) {
		return ra.Cmp(rb) == 0
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

// hold keeps v as read-only field n's value (Held), unless n is required
// and v is the value it sends anyway (its const or default).
func (n *Node) hold(v json.RawMessage) {
	n.Held = nil
	if d := n.readOnlyValue(); !n.Required || d == nil || !jsonEqual(d, v) {
		n.Held = compact(v)
	}
}
