package form

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"modbay/schema"
)

// Kind is how a node is edited and encoded.
type Kind int

// Node kinds.
const (
	// KindString is free text, sent as a JSON string.
	KindString Kind = iota
	// KindNumber is a JSON number, sent exactly as typed ("1.0" stays).
	KindNumber
	// KindInteger is a JSON integer, sent exactly as typed (digits beyond
	// 2^53 stay).
	KindInteger
	// KindBoolean is a toggle.
	KindBoolean
	// KindEnum picks one of Options (enum, const, or a oneOf/anyOf of
	// consts).
	KindEnum
	// KindMulti picks any of Options: an array whose items are an enum.
	KindMulti
	// KindObject is a section of properties (Children) and key/value
	// entries (Entries: additionalProperties, patternProperties, or keys a
	// loaded value had that the schema does not name).
	KindObject
	// KindArray is a list of items (Children), tuple positions first.
	KindArray
	// KindEntry is one key/value entry of an object: Key is edited here,
	// the value is Children[0].
	KindEntry
	// KindUnion picks one of Variants (oneOf/anyOf, or a list of types);
	// the chosen variant's node is Children[0].
	KindUnion
	// KindNull accepts only null.
	KindNull
	// KindJSON is any JSON value, edited as text.
	KindJSON
)

// String names the kind as the form shows it.
func (k Kind) String() string {
	return [...]string{"string", "number", "integer", "boolean", "choice", "choices", "object", "list", "entry", "one of", "null", "JSON"}[k]
}

// BoolState is a boolean's value; an optional boolean may be unset, and is
// then left out of the input.
type BoolState int

// Boolean states.
const (
	BoolUnset BoolState = iota
	BoolFalse
	BoolTrue
)

// Option is one value of a select.
type Option struct {
	// Value is compact JSON.
	Value json.RawMessage
	// Label is the option's title (enumNames, a const branch's title) or
	// the value itself, a string unquoted.
	Label string
}

// Variant is one branch of a union.
type Variant struct {
	// Label names the branch: its title, its const discriminator
	// ("type = page_id"), the properties it requires, or its type; the
	// labels of one union are unique (uniqueLabels).
	Label string
	// Description is the branch's own description ("" when it has none;
	// the union's own is the node's).
	Description string
	// Schema is the branch merged with the union's own keywords.
	Schema *Schema
	// Src is the branch as written (its location decides matches).
	Src *Schema
	// Type is set for a branch of a type list (type: [string, number]):
	// a value matches it by its JSON type.
	Type string
}

// Node is one field of the form tree.
type Node struct {
	// Name is the property name ("" for the root, items and entry values).
	Name string
	// Key is a KindEntry's key text.
	Key string
	// Schema is the effective schema ($ref and allOf merged; for objects,
	// the active if/then/else and dependentSchemas too).
	Schema *Schema
	Kind   Kind
	Parent *Node

	// Required is true when the parent requires this property (items,
	// entries and the root are always required).
	Required bool
	// Nullable is true when null is allowed besides the kind (type
	// [X,"null"], anyOf [X, {type: null}]); Null when null is chosen.
	Nullable, Null bool
	// Present is true for an object, list, multi-select, union or null
	// that is sent: a required one starts present (prefilled), an optional
	// one becomes present once the person edits inside it, a loaded value
	// makes it present, and Clear (or a loaded value without it) makes it
	// absent again, so a value loaded without a required field comes back
	// without it, marked "required".
	Present bool
	// ReadOnly fields are shown and cannot be edited; one is sent when it
	// holds a loaded value (Held) or is required, with its const or
	// default; a required one with neither has a problem (DefaultRule).
	// Deprecated ones are marked.
	ReadOnly, Deprecated bool
	// Held is a read-only field's value as loaded (from JSON mode, a
	// recalled input): sent, in place of its default. A required field
	// loaded with its own default holds nothing.
	Held json.RawMessage
	// Fits are the labels of the union branches a loaded value fits
	// equally well (two or more): the first is chosen, and the choice is
	// flagged until the person picks one. Nil otherwise.
	Fits []string
	// Defaulted is set while the node holds its schema's default, put
	// there when the form was built (a required field, DefaultRule) and
	// not edited since: it is sent, and shown as a default, not as typed.
	// Any edit of the node or inside it (Changed), Clear and a loaded
	// value reset it.
	Defaulted bool
	// Placeholder is the first of the schema's examples, as text: shown
	// in an empty field as an example ("e.g. …"), never sent.
	Placeholder string

	// Text is the text of a string, number, integer or JSON node, and of
	// any node whose value is edited as JSON (Raw).
	Text string
	// Empty is set on a string field whose value is the empty string "",
	// as opposed to not set (left out of the input): loading "" sets it,
	// SetEmpty sets it from the keyboard, typing text or Clear resets it.
	// A list item or entry value is never "not set", so there "" needs no
	// mark.
	Empty bool
	// Raw is true when a loaded value did not fit the node's widget (a
	// number where text was expected, an unknown enum value): it is then
	// kept and edited as JSON text, never dropped.
	Raw bool
	// Bool is a boolean's state.
	Bool BoolState
	// Options are a select's values; Choice the chosen one (-1: none) and
	// Checked the chosen ones of a multi-select; Cursor the option a
	// multi-select's cursor is on.
	Options []Option
	Choice  int
	Checked []bool
	Cursor  int

	// Children are an object's properties, a list's items, an entry's
	// value or a union's chosen variant.
	Children []*Node
	// Entries are an object's key/value entries.
	Entries []*Node
	// HasMap is true when the object takes entries beyond its properties.
	HasMap bool
	// Variants are a union's branches; Variant the chosen one (-1: none).
	Variants []Variant
	Variant  int

	// Collapsed sections hide their children; Lazy ones (recursive
	// schemas) have not built them yet.
	Collapsed, Lazy bool

	src   *Schema          // the schema as referenced, for recursion checks
	base  *Schema          // an object's schema before conditionals
	stash map[string]*Node // properties a conditional hid, kept for its return
	alt   map[int]*Node    // union branches built so far, by index
}

// Label is the node's name as the form shows it: the property name, the
// entry key, "[i]" for an item, or "input" for the root.
func (n *Node) Label() string {
	switch {
	case n.Parent == nil:
		return "input"
	case n.Kind == KindEntry:
		return n.Key
	case n.Parent.Kind == KindArray:
		return fmt.Sprintf("[%d]", slices.Index(n.Parent.Children, n))
	case n.Parent.Kind == KindEntry:
		return "value"
	case n.Parent.Kind == KindUnion:
		if v := n.Parent.Variant; v >= 0 && v < len(n.Parent.Variants) {
			return n.Parent.Variants[v].Label
		}
	}
	return n.Name
}

// Pointer is the node's JSON pointer in the input (RFC 6901; "" for the
// root). A union's variant and an entry's value share their parent's.
func (n *Node) Pointer() string {
	if n.Parent == nil {
		return ""
	}
	p := n.Parent
	switch {
	case p.Kind == KindUnion:
		return p.Pointer()
	case p.Kind == KindEntry:
		return p.Pointer()
	case n.Kind == KindEntry:
		return p.Pointer() + "/" + escape(n.Key)
	case p.Kind == KindArray:
		return fmt.Sprintf("%s/%d", p.Pointer(), slices.Index(p.Children, n))
	}
	return p.Pointer() + "/" + escape(n.Name)
}

// IsText reports whether the node is edited as text (string, number,
// integer, JSON, or a value kept as JSON).
func (n *Node) IsText() bool {
	if n.Raw {
		return true
	}
	switch n.Kind {
	case KindString, KindNumber, KindInteger, KindJSON, KindEntry:
		return true
	}
	return false
}

// ReadOnlyText is what a read-only field shows: its value as loaded
// (Held), else its const, else its default, else its text; "" when it has
// none.
func (n *Node) ReadOnlyText() string {
	if n.Held != nil {
		return label(n.Held)
	}
	if cv, ok := n.Schema.ConstValue(); ok {
		return label(cv)
	}
	if d := n.Schema.Default; d != nil {
		return label(d)
	}
	return n.Text
}

// longTextMax is the maxLength above which a string may be long text: a
// field capped lower (a name, an id, a slug) never needs several lines.
const longTextMax = 200

// longTextWords are the last words of names, titles and formats that
// announce long text: an issue "body", a "commit_message", a "prompt",
// "markdownContent" (but not "content_type").
var longTextWords = map[string]bool{"body": true, "content": true, "text": true, "markdown": true, "description": true, "prompt": true, "message": true}

// wordRe finds the words of a name: lower_snake, kebab, camelCase, Title.
var wordRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Z]?[a-z]+|[A-Z]+`) })

// longTextName reports whether name's last word announces long text.
func longTextName(name string) bool {
	w := wordRe().FindAllString(name, -1)
	return len(w) > 0 && longTextWords[strings.ToLower(w[len(w)-1])]
}

// longTextDesc matches descriptions that announce long text; looser words
// ("text") would catch every "search text" field.
var longTextDesc = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)markdown|multi-?line|body of`) })

// IsMultiline reports whether a string field is edited over several lines
// (ctrl+j inserts a newline): its text has one already, its schema says
// contentMediaType text/*, or it has no maxLength (or one above
// longTextMax) and its name, title or format ends in long-text words
// (body, content, text, markdown, description, prompt, message) or its
// description speaks of markdown or multi-line text.
func (n *Node) IsMultiline() bool {
	if n.Kind != KindString || n.Raw {
		return false
	}
	if strings.ContainsAny(n.Text, "\n\r") {
		return true
	}
	s := n.Schema
	if strings.HasPrefix(s.ContentMediaType, "text/") {
		return true
	}
	if s.MaxLength != nil && *s.MaxLength <= longTextMax || len(s.Enum) > 0 || s.Format != "" && !longTextName(s.Format) {
		return false
	}
	name := n.Name
	if n.Parent != nil && n.Parent.Kind == KindUnion {
		name = n.Parent.Name
	}
	return longTextName(name) || longTextName(s.Title) || longTextName(s.Format) || longTextDesc().MatchString(s.Description)
}

// Secret reports whether the node's value is a secret the form view
// masks while it is typed: its schema, one of its direct anyOf or oneOf
// branches, or that of a node it sits in marks it "writeOnly": true or
// "format": "password" (schema.Redact's rule, read on the effective
// schemas the form built, $ref and allOf merged).
func (n *Node) Secret() bool {
	marks := func(s *Schema) bool { return s != nil && (s.WriteOnly || s.Format == "password") }
	for x := n; x != nil; x = x.Parent {
		s := x.Schema
		if s == nil {
			continue
		}
		if marks(s) {
			return true
		}
		for _, b := range append(s.AnyOf[:len(s.AnyOf):len(s.AnyOf)], s.OneOf...) {
			if marks(b) {
				return true
			}
		}
	}
	return false
}

// IsJSONText reports whether the node's text is JSON (a multi-line editor).
func (n *Node) IsJSONText() bool { return n.Raw || n.Kind == KindJSON }

// Toggle advances a boolean: false ⇄ true, and an optional boolean also
// passes through unset (left out; with a default, the module's default
// applies, DefaultRule).
func (n *Node) Toggle() {
	tri := !n.Required
	switch n.Bool {
	case BoolUnset:
		n.Bool = BoolTrue
	case BoolTrue:
		n.Bool = BoolFalse
	case BoolFalse:
		if tri {
			n.Bool = BoolUnset
		} else {
			n.Bool = BoolTrue
		}
	}
}

// Cycle moves a select by delta (±1), wrapping; an optional select also
// passes through "none" (-1), which clears it.
func (n *Node) Cycle(delta int) {
	c := cycle(n.Choice, len(n.Options), n.Required, delta)
	n.Choice = c
}

func cycle(cur, count int, required bool, delta int) int {
	if count == 0 {
		return -1
	}
	lo := 0
	if !required {
		lo = -1
	}
	if cur < lo {
		if delta < 0 {
			return count - 1
		}
		return 0
	}
	span := count - lo
	return ((cur-lo+delta)%span+span)%span + lo
}

// newNode builds the node for src (a property, item, entry value or the
// root) under parent.
func (f *Form) newNode(name string, src *Schema, parent *Node, required bool) *Node {
	n := &Node{Name: name, Parent: parent, Required: required, Choice: -1, Variant: -1, src: src}
	if f.building {
		if f.made++; f.made > schema.MaxBuildTotalItems {
			panic(buildBound{&schema.BoundError{Bound: "MaxBuildTotalItems", Limit: schema.MaxBuildTotalItems,
				Detail: fmt.Sprintf("the form would make more than %d fields", schema.MaxBuildTotalItems)}})
		}
	}
	if src == nil {
		src = &Schema{}
	}
	f.shape(n, f.doc.Effective(src))
	return n
}

// recursive reports whether src already shapes an ancestor of n: building
// it again would never end, so it is built when the person opens it.
func recursive(n *Node, src *Schema) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.src == src && src != nil && (src.Ref != "" || src.DynamicRef != "" || len(src.AllOf) > 0 || len(src.Props) > 0) {
			return true
		}
	}
	return false
}

// shape gives n its kind and widget state from the effective schema s, and
// seeds the schema's default.
func (f *Form) shape(n *Node, s *Schema) {
	n.Schema = s
	n.ReadOnly, n.Deprecated = s.ReadOnly, s.Deprecated
	if len(s.Examples) > 0 {
		n.Placeholder = label(s.Examples[0])
	}
	f.classify(n, s)
	s = n.Schema
	switch n.Kind {
	case KindObject:
		n.base = s
		n.Present = n.Required
		if recursive(n, n.src) {
			n.Lazy, n.Collapsed = true, true
		} else {
			f.buildObject(n)
		}
		if !n.Required && n.Parent != nil {
			n.Collapsed = true
		}
	case KindArray:
		n.Present = n.Required
		if n.Required && !n.Lazy {
			for i := 0; i < minInt(n.Schema.MinItems) || i < len(n.Schema.Prefix); i++ {
				f.addItem(n)
			}
		}
	case KindUnion:
		if n.Required {
			f.pickVariant(n, 0)
			n.Present = true
		}
	case KindMulti, KindNull:
		n.Present = n.Required
	case KindBoolean:
		if n.Required {
			n.Bool = BoolFalse
		}
	case KindEnum:
		if n.Required && len(n.Options) == 1 {
			n.Choice = 0 // a required const has one possible value
		}
	}
	if s.Default != nil && (n.Required || n.ReadOnly) {
		// The defaults rule (DefaultRule): a required field starts with
		// its default, sent and marked as such; an optional one only
		// shows it (Form.DefaultNotSent); a read-only one shows it, sent
		// when required.
		f.load(n, s.Default)
		if n.Kind == KindObject || n.Kind == KindArray || n.Kind == KindMulti {
			n.Present = true
		}
		markDefaulted(n)
	}
}

func minInt(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// classify decides n's kind from s.
func (f *Form) classify(n *Node, s *Schema) {
	if s.Bool != nil {
		n.Kind = KindJSON
		return
	}
	if cv, ok := s.ConstValue(); ok {
		n.Kind = KindEnum
		n.Options = []Option{{Value: cv, Label: label(cv)}}
		return
	}
	if len(s.Enum) > 0 {
		n.Kind = KindEnum
		for i, e := range s.Enum {
			if string(e) == "null" {
				n.Nullable = true
				continue
			}
			l := label(e)
			if i < len(s.EnumNames) && s.EnumNames[i] != "" {
				l = s.EnumNames[i]
			}
			n.Options = append(n.Options, Option{Value: e, Label: l})
		}
		return
	}
	if branches := unionOf(s); len(branches) > 0 {
		if f.classifyUnion(n, s, branches) {
			return
		}
	}
	var types []string
	for _, t := range s.Types {
		if t == "null" {
			n.Nullable = true
		} else {
			types = append(types, t)
		}
	}
	if len(types) > 1 {
		n.Kind = KindUnion
		for _, t := range types {
			v := *s
			v.Types = []string{t}
			n.Variants = append(n.Variants, Variant{Label: t, Schema: &v, Src: s, Type: t})
		}
		return
	}
	t := ""
	if len(types) == 1 {
		t = types[0]
	} else if !n.Nullable {
		t = inferType(s)
	}
	switch t {
	case "string":
		n.Kind = KindString
	case "number":
		n.Kind = KindNumber
	case "integer":
		n.Kind = KindInteger
	case "boolean":
		n.Kind = KindBoolean
	case "object":
		n.Kind = KindObject
	case "array":
		n.Kind = KindArray
		if opts := f.itemOptions(s); opts != nil {
			n.Kind = KindMulti
			n.Options = opts
			n.Checked = make([]bool, len(opts))
		}
	case "null":
		n.Kind = KindNull
	default:
		if len(s.Types) == 1 && s.Types[0] == "null" {
			n.Kind, n.Nullable = KindNull, false
			return
		}
		n.Kind = KindJSON
	}
}

// unionOf returns the branches of s's oneOf (or else anyOf).
func unionOf(s *Schema) []*Schema {
	if len(s.OneOf) > 0 {
		return s.OneOf
	}
	return s.AnyOf
}

// classifyUnion shapes a oneOf/anyOf: null branches make the node
// nullable; branches that are all consts make a select; one remaining
// branch merges into the node; branches that only constrain (e.g. each
// {"required": [...]}) leave the node to the rest of s; otherwise a variant
// picker. It reports whether it decided the kind.
func (f *Form) classifyUnion(n *Node, s *Schema, branches []*Schema) bool {
	var rest []*Schema
	for _, b := range branches {
		e := f.doc.Effective(b)
		if e.IsNullOnly() {
			n.Nullable = true
			continue
		}
		rest = append(rest, b)
	}
	stripped := *s
	stripped.OneOf, stripped.AnyOf = nil, nil
	if len(s.OneOf) > 0 {
		stripped.AnyOf = s.AnyOf
	}
	structural := false
	for _, b := range rest {
		if b.IsStructural() {
			structural = true
		}
	}
	switch {
	case len(rest) == 0:
		if len(stripped.Types) == 0 && !stripped.IsStructural() {
			n.Kind, n.Nullable = KindNull, false
			return true
		}
		f.classify(n, &stripped)
		return true
	case !structural:
		f.classify(n, &stripped)
		return true
	}
	allConst := true
	for _, b := range rest {
		if _, ok := f.doc.Effective(b).ConstValue(); !ok {
			allConst = false
		}
	}
	if allConst {
		n.Kind = KindEnum
		for _, b := range rest {
			e := f.doc.Effective(b)
			cv, _ := e.ConstValue()
			l := label(cv)
			if e.Title != "" {
				l = e.Title
			}
			n.Options = append(n.Options, Option{Value: cv, Label: l})
		}
		return true
	}
	if len(rest) == 1 {
		m := *f.doc.Effective(rest[0])
		merge(&m, &stripped)
		m.Title, m.Description = firstNonEmpty(s.Title, m.Title), firstNonEmpty(s.Description, m.Description)
		if m.Default == nil {
			m.Default = s.Default
		}
		nullable := n.Nullable
		f.classify(n, &m)
		n.Nullable = n.Nullable || nullable
		n.Schema = &m
		return true
	}
	n.Kind = KindUnion
	for _, b := range rest {
		e := f.doc.Effective(b)
		v := *e
		merge(&v, &stripped)
		v.Default = e.Default
		n.Variants = append(n.Variants, Variant{Label: variantLabel(e, f.doc), Description: e.Description, Schema: &v, Src: b})
	}
	uniqueLabels(n.Variants)
	return true
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// variantLabel names a union branch: its title, its const value, a const
// discriminator property ("type = page_id"), its required properties
// ("object {new_str}"), its properties ("object {a, b}"), its format,
// pattern or item type, or its type ("any" for a branch that says none).
func variantLabel(e *Schema, d *schema.Doc) string {
	if e.Title != "" {
		return e.Title
	}
	if cv, ok := e.ConstValue(); ok {
		return "= " + string(cv)
	}
	for _, p := range e.Props {
		if cv, ok := d.Effective(p.Schema).ConstValue(); ok {
			return p.Name + " = " + label(cv)
		}
	}
	t := strings.Join(e.Types, "|")
	if t == "" {
		t = inferType(e)
	}
	switch {
	case len(e.Required) > 0:
		return t + " {" + strings.Join(e.Required, ", ") + "}"
	case t == "object" && len(e.Props) > 0:
		return t + " {" + propNames(e.Props, maxLabelProps) + "}"
	case e.Format != "":
		return e.Format
	case e.Pattern != "":
		return t + " matching " + e.Pattern
	case t == "array" && e.Items != nil:
		it := d.Effective(e.Items)
		return "list of " + firstNonEmpty(strings.Join(it.Types, "|"), inferType(it))
	case t == "":
		return "any"
	}
	return t
}

// maxLabelProps is how many property names a branch label lists before
// "…": enough to tell branches apart, short enough for the picker.
const maxLabelProps = 3

// propNames lists up to max property names, then "…".
func propNames(props []Prop, max int) string {
	var names []string
	for i, p := range props {
		if i == max {
			names = append(names, "…")
			break
		}
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}

// uniqueLabels makes the labels of a union's branches unique, so the
// picker never offers "string" twice: a label several branches share gets
// what tells each apart (its bounds, its description's first words, its
// properties), and when nothing does, its position ("any #2").
func uniqueLabels(vs []Variant) {
	dupes := func() map[string]int {
		count := map[string]int{}
		for _, v := range vs {
			count[v.Label]++
		}
		return count
	}
	count := dupes()
	for i := range vs {
		if count[vs[i].Label] > 1 {
			if x := distinguish(vs[i].Schema, vs[i].Description); x != "" {
				vs[i].Label += " (" + x + ")"
			}
		}
	}
	count = dupes()
	seen := map[string]int{}
	for i := range vs {
		l := vs[i].Label
		if count[l] > 1 {
			seen[l]++
			vs[i].Label = fmt.Sprintf("%s #%d", l, seen[l])
		}
	}
}

// maxLabelWords bounds the description words a branch label borrows.
const maxLabelWords = 4

// distinguish is a short phrase telling branch s from others of the same
// label: its length or number bounds, its item count, then the first words
// of its own description desc; "" when it has none of these.
func distinguish(s *Schema, desc string) string {
	var parts []string
	if s.MinLength != nil {
		parts = append(parts, fmt.Sprintf("≥%d chars", *s.MinLength))
	}
	if s.MaxLength != nil {
		parts = append(parts, fmt.Sprintf("≤%d chars", *s.MaxLength))
	}
	if s.Minimum != "" {
		parts = append(parts, "≥"+s.Minimum)
	}
	if s.Maximum != "" {
		parts = append(parts, "≤"+s.Maximum)
	}
	if s.MinItems != nil {
		parts = append(parts, fmt.Sprintf("≥%d items", *s.MinItems))
	}
	if s.MaxItems != nil {
		parts = append(parts, fmt.Sprintf("≤%d items", *s.MaxItems))
	}
	if len(s.Enum) > 0 {
		parts = append(parts, fmt.Sprintf("%d values", len(s.Enum)))
	}
	if len(parts) > 0 {
		return strings.Join(parts, ", ")
	}
	if w := strings.Fields(desc); len(w) > 0 {
		if len(w) > maxLabelWords {
			w = append(w[:maxLabelWords], "…")
		}
		return strings.Join(w, " ")
	}
	return ""
}

// inferType guesses the type of a schema without "type" from its keywords.
func inferType(s *Schema) string {
	switch {
	case len(s.Props) > 0 || s.Additional != nil || len(s.PatternProps) > 0 || len(s.Required) > 0 || s.PropertyNames != nil || s.AdditionalFalse:
		return "object"
	case s.Items != nil || len(s.Prefix) > 0 || s.MinItems != nil || s.MaxItems != nil:
		return "array"
	case s.Pattern != "" || s.MinLength != nil || s.MaxLength != nil || s.Format != "":
		return "string"
	case s.Minimum != "" || s.Maximum != "" || s.ExclusiveMinimum != "" || s.ExclusiveMaximum != "" || s.MultipleOf != "":
		return "number"
	}
	return ""
}

// itemOptions returns the options of an array whose items are an enum
// (or consts), for a multi-select; nil otherwise.
func (f *Form) itemOptions(s *Schema) []Option {
	if s.Items == nil || len(s.Prefix) > 0 {
		return nil
	}
	it := f.doc.Effective(s.Items)
	if len(it.Enum) > 0 {
		out := make([]Option, len(it.Enum))
		for i, e := range it.Enum {
			l := label(e)
			if i < len(it.EnumNames) && it.EnumNames[i] != "" {
				l = it.EnumNames[i]
			}
			out[i] = Option{Value: e, Label: l}
		}
		return out
	}
	branches := unionOf(it)
	if len(branches) == 0 {
		return nil
	}
	var out []Option
	for _, b := range branches {
		e := f.doc.Effective(b)
		cv, ok := e.ConstValue()
		if !ok {
			return nil
		}
		out = append(out, Option{Value: cv, Label: firstNonEmpty(e.Title, label(cv))})
	}
	return out
}

// buildObject (re)builds an object's properties from its active schema,
// reusing the nodes of properties it already had.
func (f *Form) buildObject(n *Node) {
	n.Lazy = false
	s := f.activeSchema(n)
	n.Schema = s
	req := f.requiredOf(n, s)
	old := map[string]*Node{}
	for _, c := range n.Children {
		old[c.Name] = c
	}
	var kids []*Node
	for _, p := range s.Props {
		c, ok := old[p.Name]
		if !ok {
			c, ok = n.stash[p.Name]
		}
		if ok && c.src == p.Schema {
			c.Required = req[p.Name]
			if c.Kind == KindUnion && c.Required && c.Variant < 0 {
				f.pickVariant(c, 0)
				c.Present = true
			}
		} else {
			c = f.newNode(p.Name, p.Schema, n, req[p.Name])
		}
		delete(old, p.Name)
		kids = append(kids, c)
	}
	for name, c := range old {
		if n.stash == nil {
			n.stash = map[string]*Node{}
		}
		n.stash[name] = c
	}
	n.Children = kids
	n.HasMap = s.Additional != nil || len(s.PatternProps) > 0 || len(s.Props) == 0 && !s.AdditionalFalse
}

// requiredOf is the set of property names the object requires now: its
// schema's, and dependentRequired of the properties that have values.
func (f *Form) requiredOf(n *Node, s *Schema) map[string]bool {
	req := map[string]bool{}
	for _, r := range s.Required {
		req[r] = true
	}
	for _, d := range s.DepRequired {
		if f.hasValue(n, d.Name) {
			for _, r := range d.Req {
				req[r] = true
			}
		}
	}
	return req
}

// hasValue reports whether property name of object n currently has a
// value that would be sent.
func (f *Form) hasValue(n *Node, name string) bool {
	for _, c := range n.Children {
		if c.Name == name {
			v, _ := f.value(c, nil, "")
			return v != nil
		}
	}
	for _, e := range n.Entries {
		if e.Key == name {
			return true
		}
	}
	return false
}

// entrySchema is the schema of an entry's value: the first
// patternProperties pattern the key matches, else additionalProperties.
func (f *Form) entrySchema(obj *Node, key string) *Schema {
	for _, p := range obj.Schema.PatternProps {
		if re, _, err := schema.CompilePattern(p.Name); err == nil && re.MatchString(key) {
			return p.Schema
		}
	}
	return obj.Schema.Additional
}

// itemSchema is the schema of list item i.
func itemSchema(arr *Node, i int) *Schema {
	if i < len(arr.Schema.Prefix) {
		return arr.Schema.Prefix[i]
	}
	return arr.Schema.Items
}
