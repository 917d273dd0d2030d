// Package form turns a capability's request JSON Schema into a tree of
// fields and the fields back into the JSON value sent as the request's
// input, with no widgets involved: the form screen (ui/formview) draws the
// tree and edits its nodes, and this package decides what they mean.
//
// Schemas of drafts 7, 2019-09 and 2020-12 are read ($schema honoured; a
// schema without one is read as 2020-12, or as draft-07 when only that
// compiles). Properties keep the author's order (read from the raw bytes:
// Go maps lose it). $ref and $defs/definitions resolve inside the document
// (recursive schemas are built when opened), allOf is merged, oneOf/anyOf
// become variant pickers (or selects, when every branch is a const),
// if/then/else and dependentRequired/dependentSchemas apply live as values
// change. Every value the form sends is one the person can see: omitted
// optional fields are not sent, readOnly fields are shown and never sent,
// a loaded value that does not fit a widget is kept as JSON text, and text
// typed in a number field that is not a JSON number ("abc", "007") is sent
// as that text, a JSON string, with its problem at the field.
//
// A list item or map entry is never dropped, since it is on screen: an
// empty string item is the empty string "" (valid for type string; a
// minLength then flags it at the item), and any other item left empty (a
// number, a boolean or a choice not made) is sent as null with "required"
// at the item, and null loads back into such an item as empty. JSON mode,
// switching back and "send anyway" thus all keep the item where it was.
package form

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"modbay/modproto"
	"modbay/schema"
)

// Form is a request schema as a tree of nodes.
type Form struct {
	// Schema is what the input is validated against: the request schema,
	// with "$schema" added when it declares none and only compiles as
	// draft-07 (so the validator reads it the same way); nil for none.
	Schema json.RawMessage
	// Draft is the draft the schema is read as.
	Draft string
	// Root is the whole input; for an object schema its Children are the
	// top-level fields.
	Root *Node
	// Gen counts structural changes (items added, variants switched,
	// conditionals applied), so a view knows to rebuild its rows.
	Gen int

	doc *document
	// comp is the request schema compiled (package schema), shared with
	// the runner and every other reader of the same bytes; nil for none.
	comp *schema.Compiled
	// prefer holds, while SetValue runs, the variants chosen before it.
	prefer map[string]chosen
}

// Build reads a request schema into a form. A nil or empty schema gives a
// form with one JSON field for the whole input, starting at {}. A schema
// that is not JSON, or does not compile under its draft, is an error.
func Build(raw json.RawMessage) (*Form, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		f := &Form{Draft: Draft2020}
		f.doc = newDocument()
		f.Root = &Node{Kind: KindJSON, Required: true, Choice: -1, Variant: -1, Text: "{}", Schema: &Schema{}}
		return f, nil
	}
	if t[0] != '{' && t[0] != 't' && t[0] != 'f' {
		return nil, errors.New("request schema is not a JSON object")
	}
	comp, err := schema.Compile(t)
	if err != nil {
		return nil, fmt.Errorf("request schema: %w", err)
	}
	doc, err := parseDocument(t)
	if err != nil {
		return nil, fmt.Errorf("request schema: %w", err)
	}
	f := &Form{Schema: comp.Declared(), Draft: comp.Draft(), doc: doc, comp: comp}
	f.Root = f.newNode("", doc.root, nil, true)
	f.Root.Collapsed = false
	if f.Root.Kind == KindJSON && f.Root.Text == "" {
		f.Root.Text = "{}"
	}
	f.refreshAll()
	return f, nil
}

// Compiled returns the compiled request schema the form reads its
// conditionals and unions with: the handle package schema shares with
// every reader of the same schema bytes (the runner's Plan among them), so
// the form never compiles a schema again; nil for a form built without a
// schema.
func (f *Form) Compiled() *schema.Compiled { return f.comp }

// Raw reports whether the whole input is one JSON field (no schema, or a
// schema that says nothing about the shape).
func (f *Form) Raw() bool { return f.Root.Kind == KindJSON }

// Fields are the top-level fields of an object form (nil otherwise).
func (f *Form) Fields() []*Node {
	if f.Root.Kind != KindObject {
		return nil
	}
	return f.Root.Children
}

// Value builds the input from the tree and returns the problems the fields
// have on their own, by JSON pointer. What was typed is never dropped: text
// in a number field that is not a JSON number is sent as a JSON string
// (the schema then refuses its type at that field); only JSON text that
// does not parse, which cannot be encoded, is left out.
func (f *Form) Value() (json.RawMessage, map[string][]string) {
	probs := problemSink{}
	v, ok := f.value(f.Root, probs, "")
	if !ok {
		v = json.RawMessage("{}")
		if f.Root.Kind != KindObject && f.Root.Kind != KindJSON {
			v = json.RawMessage("null")
		}
	}
	return v, probs
}

// ---- editing -------------------------------------------------------------

// Changed records an edit of n: its enclosing sections become present
// (they are sent), and conditionals are applied again. It reports whether
// the tree's shape changed.
func (f *Form) Changed(n *Node) bool {
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
			merge(&s, f.doc.effective(branch))
		}
	}
	for _, d := range base.DepSchemas {
		if f.hasValue(n, d.Name) {
			merge(&s, f.doc.effective(d.Schema))
		}
	}
	return &s
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
		v, ok := f.value(old, nil, "")
		nv := f.newNode("", want, e, true)
		if ok {
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
	n.Variant = i
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

// Clear leaves an optional node out of the input: text emptied, choice and
// boolean unset, section or list no longer sent, null undone. A value kept
// as JSON text (Raw) goes back to its widget, empty.
func (f *Form) Clear(n *Node) {
	n.Null, n.Raw = false, false
	switch n.Kind {
	case KindString, KindNumber, KindInteger, KindJSON:
		n.Text = ""
	case KindBoolean:
		n.Bool = BoolUnset
		if n.Required {
			n.Bool = BoolFalse
		}
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
	f.refreshAll()
	f.Gen++
}

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
	root := f.newNode("", f.Root.src, nil, true)
	root.Collapsed = false
	if f.Root.Kind == KindJSON && f.Root.src == nil {
		root = &Node{Kind: KindJSON, Required: true, Choice: -1, Variant: -1, Schema: &Schema{}}
	}
	f.load(root, compact(raw))
	f.Root = root
	f.refreshAll()
	f.Gen++
	return nil
}

// JSONError is nil when raw is one JSON value, else MsgBadJSON with where
// and why it does not parse.
func JSONError(raw []byte) error {
	if json.Valid(raw) {
		return nil
	}
	var v any
	err := json.Unmarshal(raw, &v)
	return fmt.Errorf("%s: %v", MsgBadJSON, err)
}

// chosen is a union's chosen variant and the value it produced.
type chosen struct {
	index int
	value json.RawMessage
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
		if n.Kind == KindUnion && n.Variant >= 0 {
			if v, ok := f.value(n, nil, ""); ok {
				out[n.Pointer()] = chosen{index: n.Variant, value: compact(v)}
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
	return out
}

// load puts value v into n (and its subtree).
func (f *Form) load(n *Node, v json.RawMessage) {
	v = compact(v)
	if v == nil {
		return
	}
	n.Null, n.Raw = false, false
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
		if json.Unmarshal(v, &n.Text) != nil {
			fallback()
		}
	case KindNumber, KindInteger:
		// A number keeps its exact text (1.0, 1e3, digits beyond 2^53; a
		// fraction in an integer field too, with its problem); a string
		// the form sent for text that is not a number goes back into the
		// field as that text.
		if numberRe.Match(v) {
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
		if json.Unmarshal(v, &items) != nil {
			fallback()
			return
		}
		checked := make([]bool, len(n.Options))
	next:
		for _, it := range items {
			for i, o := range n.Options {
				if jsonEqual(o.Value, it) && !checked[i] {
					checked[i] = true
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
				// A read-only field keeps showing its default and is never
				// sent: a loaded value for it becomes an entry, so it is
				// neither lost nor hidden.
				continue
			}
			f.Clear(c)
			byName[c.Name] = c
		}
		for _, k := range keys {
			if c, ok := byName[k]; ok {
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
			for _, c := range n.Children {
				if _, ok := byName[c.Name]; !ok && !c.ReadOnly {
					if raw, ok := m[c.Name]; ok {
						f.load(c, raw)
						n.Entries = slices.DeleteFunc(n.Entries, func(e *Node) bool { return e.Key == c.Name })
					}
				}
			}
		}
	case KindArray:
		var items []json.RawMessage
		if json.Unmarshal(v, &items) != nil {
			fallback()
			return
		}
		n.Children, n.Present = nil, true
		for _, it := range items {
			f.load(f.addItem(n), it)
		}
	case KindUnion:
		i := f.matchVariant(n, v)
		if p, ok := f.prefer[n.Pointer()]; ok && p.index < len(n.Variants) && bytes.Equal(p.value, v) {
			i = p.index // the value this variant produced goes back into it
		}
		f.pickVariant(n, i)
		n.Present = true
		f.load(n.Children[0], v)
		n.Children[0].Present = true
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

// matchVariant picks the union branch a value belongs to: the first that
// validates it, else the first whose type and const discriminators fit,
// else the first.
func (f *Form) matchVariant(n *Node, v json.RawMessage) int {
	jt := jsonType(v)
	for i, vr := range n.Variants {
		if vr.Type != "" {
			if vr.Type == jt || (vr.Type == "number" && jt == "integer") {
				return i
			}
			continue
		}
		if f.comp.Matches(vr.Src.Loc, v) {
			return i
		}
	}
	for i, vr := range n.Variants {
		if typeFits(vr.Schema, jt) && constsFit(f, vr.Schema, v) {
			return i
		}
	}
	return 0
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
		if cv, ok := f.doc.effective(p.Schema).constValue(); ok {
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
	ra, oka := new(big.Rat).SetString(string(a))
	rb, okb := new(big.Rat).SetString(string(b))
	if oka && okb && numberRe.Match(a) && numberRe.Match(b) {
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

// ---- rows ----------------------------------------------------------------

// Row is one visible line-item of the form: a node at a depth.
type Row struct {
	Node  *Node
	Depth int
}

// Rows lists the visible nodes in order: sections' fields under their
// headers unless collapsed; a union's chosen variant under its picker (an
// object variant's fields directly); an entry's value under its key.
func (f *Form) Rows() []Row {
	var rows []Row
	var walk func(n *Node, depth int, header bool)
	fields := func(n *Node, depth int) {
		for _, c := range n.Children {
			walk(c, depth, true)
		}
		for _, e := range n.Entries {
			walk(e, depth, true)
		}
	}
	walk = func(n *Node, depth int, header bool) {
		if header {
			rows = append(rows, Row{Node: n, Depth: depth})
		}
		if n.Raw || n.Null {
			return
		}
		inner := depth
		if header {
			inner = depth + 1
		}
		switch n.Kind {
		case KindObject:
			if !n.Collapsed {
				fields(n, inner)
			}
		case KindArray:
			if !n.Collapsed {
				for _, c := range n.Children {
					walk(c, inner, true)
				}
			}
		case KindEntry:
			walk(n.Children[0], inner, true)
		case KindUnion:
			if len(n.Children) > 0 {
				c := n.Children[0]
				switch {
				case c.Kind == KindObject:
					fields(c, inner)
				case c.Kind == KindNull:
				default:
					walk(c, inner, true)
				}
			}
		}
	}
	if f.Root.Kind == KindObject {
		fields(f.Root, 0)
		if len(rows) == 0 {
			rows = append(rows, Row{Node: f.Root})
		}
	} else {
		walk(f.Root, 0, true)
	}
	return rows
}

// Find returns the deepest node at JSON pointer ptr and the part of ptr
// below it ("" when the node is exactly there).
func (f *Form) Find(ptr string) (*Node, string) {
	n := f.Root
	if ptr == "" || !strings.HasPrefix(ptr, "/") {
		return n, ptr
	}
	toks := strings.Split(ptr[1:], "/")
	for i, tok := range toks {
		n = inner(n)
		name := unescape(tok)
		var next *Node
		switch n.Kind {
		case KindObject:
			for _, c := range n.Children {
				if c.Name == name {
					next = c
				}
			}
			for _, e := range n.Entries {
				if e.Key == name {
					next = e
				}
			}
		case KindArray:
			if k, err := strconv.Atoi(tok); err == nil && k >= 0 && k < len(n.Children) {
				next = n.Children[k]
			}
		}
		if next == nil {
			return n, "/" + strings.Join(toks[i:], "/")
		}
		n = next
	}
	return n, ""
}

// inner is the node that holds n's fields: a union's chosen variant or an
// entry's value, followed down.
func inner(n *Node) *Node {
	for {
		switch {
		case n.Kind == KindUnion && len(n.Children) > 0:
			n = n.Children[0]
		case n.Kind == KindEntry:
			n = n.Children[0]
		default:
			return n
		}
	}
}

// ---- validation ----------------------------------------------------------

// Validator checks an input against a request schema and returns one
// error per broken rule, each located by a JSON pointer into the input
// (schema.ValidateInput). A non-nil error means the schema itself could
// not be used.
type Validator func(schema, input json.RawMessage) (modproto.ValidationErrors, error)

// Problems are the form's validation findings, placed where they belong.
type Problems struct {
	// Fields maps a node's JSON pointer (Node.Pointer) to its messages.
	Fields map[string][]string
	// Root holds findings about the input as a whole.
	Root []string
	// Hidden counts the validator's findings from oneOf/anyOf branches
	// the person did not pick: not shown at any field (they describe a
	// shape nobody chose) but still counted, since the validator refuses
	// the value for them too.
	Hidden int
}

// Count is the number of findings, hidden ones included.
func (p Problems) Count() int {
	n := len(p.Root) + p.Hidden
	for _, m := range p.Fields {
		n += len(m)
	}
	return n
}

// At returns the messages for the node at ptr.
func (p Problems) At(ptr string) []string { return p.Fields[ptr] }

// Merge adds q's findings to p; a message already at a field is not
// repeated there.
func (p *Problems) Merge(q Problems) {
	for ptr, msgs := range q.Fields {
		p.add(ptr, msgs...)
	}
	p.Root = append(p.Root, q.Root...)
	p.Hidden += q.Hidden
}

func (p *Problems) add(ptr string, msgs ...string) {
	if p.Fields == nil {
		p.Fields = map[string][]string{}
	}
	for _, m := range msgs {
		if !slices.Contains(p.Fields[ptr], m) {
			p.Fields[ptr] = append(p.Fields[ptr], m)
		}
	}
}

// Check builds the value and validates it: first the fields' own problems,
// then, with validate (nil skips it), the schema's verdict on the value.
// A field with a problem of its own shows only that one; where a union has
// a chosen variant, only that variant's findings are placed (see
// Problems.Hidden). The value is returned even when there are problems.
func (f *Form) Check(validate Validator) (json.RawMessage, Problems) {
	value, local := f.Value()
	var p Problems
	for ptr, msgs := range local {
		p.add(ptr, msgs...)
	}
	if validate == nil || len(f.Schema) == 0 {
		return value, p
	}
	remote, err := validate(f.Schema, value)
	if err != nil {
		p.Root = append(p.Root, "request schema cannot be used: "+err.Error())
		return value, p
	}
	if len(remote) > 0 {
		// Findings from branches not picked go uncounted at any field;
		// the summary still counts them (Hidden).
		remote, p.Hidden = withoutFindings(remote, f.otherBranches(value))
	}
	q := f.Place(remote)
	for ptr, msgs := range q.Fields {
		if _, own := local[ptr]; !own {
			p.add(ptr, msgs...)
		}
	}
	p.Root = append(p.Root, q.Root...)
	return value, p
}

// missingRe finds the property names in a "missing property 'x'" or
// "missing properties 'x', 'y'" finding.
var missingRe = regexp.MustCompile(`'([^']*)'|"([^"]*)"`)

// Place puts each finding under the node its JSON pointer leads to (the
// deepest existing one; the rest of the pointer prefixes the message); a
// missing required property goes to that property's node as "required";
// findings about a root object go to Root.
func (f *Form) Place(errs modproto.ValidationErrors) Problems {
	var p Problems
	for _, e := range errs {
		n, rest := f.Find(e.Path)
		if in := inner(n); rest == "" && in.Kind == KindObject {
			if names := missingNames(e.Detail); len(names) > 0 {
				placed := false
				for _, name := range names {
					for _, c := range in.Children {
						if c.Name == name {
							p.add(c.Pointer(), MsgRequired)
							placed = true
						}
					}
				}
				if placed {
					continue
				}
			}
		}
		msg := e.Detail
		if rest != "" {
			msg = rest + ": " + msg
		}
		if n == f.Root && f.Root.Kind == KindObject {
			p.Root = append(p.Root, msg)
			continue
		}
		p.add(n.Pointer(), msg)
	}
	return p
}

// missingNames returns the names a "missing propert…" finding lists.
func missingNames(detail string) []string {
	if !strings.Contains(strings.ToLower(detail), "missing propert") {
		return nil
	}
	var out []string
	for _, m := range missingRe.FindAllStringSubmatch(detail, -1) {
		out = append(out, m[1]+m[2])
	}
	return out
}
