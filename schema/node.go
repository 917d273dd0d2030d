package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"modbay/internal/jsonptr"
)

// Node is one JSON Schema object (or boolean schema) as modbay reads it:
// the keywords that shape a form, a generated input or a lint finding,
// subschemas parsed, the author's property order kept. Keywords no reader
// uses stay in the raw document and are still enforced by the validator.
// A Node is read-only once parsed.
type Node struct {
	// Loc is the schema's JSON pointer in its document ("" for the root);
	// a merged schema keeps the location of its first part.
	Loc string
	// Bool is set for a boolean schema (true accepts anything, false
	// nothing).
	Bool *bool

	Types    []string
	Props    []Prop
	Required []string
	// Additional is additionalProperties as a schema; AdditionalFalse is
	// additionalProperties: false.
	Additional      *Node
	AdditionalFalse bool
	PatternProps    []Prop
	PropertyNames   *Node
	MinProps        *int

	// Items is the schema of array items past Prefix (2020-12 items, or
	// draft-07 additionalItems when items is an array); Prefix is the tuple
	// part (prefixItems, or a draft-07 items array).
	Items       *Node
	ItemsFalse  bool
	Prefix      []*Node
	MinItems    *int
	MaxItems    *int
	UniqueItems bool

	Enum      []json.RawMessage
	Const     json.RawMessage
	EnumNames []string

	OneOf, AnyOf, AllOf []*Node
	Not                 *Node
	Ref                 string

	If, Then, Else *Node
	// DepRequired and DepSchemas are dependentRequired and
	// dependentSchemas (draft-07 "dependencies" split by value shape),
	// keyed by the property whose presence triggers them, in author order.
	DepRequired []DepRequired
	DepSchemas  []Prop

	Default  json.RawMessage
	Examples []json.RawMessage

	Title, Description string
	ReadOnly           bool
	WriteOnly          bool
	Deprecated         bool

	// Number bounds as written (exact text, never float-rounded); "" when
	// absent.
	Minimum, Maximum, ExclusiveMinimum, ExclusiveMaximum, MultipleOf string
	MinLength, MaxLength                                             *int
	Pattern, Format                                                  string
	// ContentMediaType is a string's media type ("text/markdown"; the
	// form edits a text/* one over several lines).
	ContentMediaType string

	// ID is "$id" as written; Base is the absolute URL of the resource the
	// schema sits in ("" inside a document without "$id"), against which
	// its references resolve. Anchor is "$anchor" (or "$dynamicAnchor").
	ID, Base, Anchor string
	// DynamicRef is "$dynamicRef" (or draft 2019-09 "$recursiveRef");
	// Doc.Target resolves it.
	DynamicRef string
	// Keywords are the schema object's keys as written, in order: the
	// lint reads the ones the fields above do not keep.
	Keywords []string
}

// Has reports whether the schema object has keyword k, whatever its
// value.
func (s *Node) Has(k string) bool { return slices.Contains(s.Keywords, k) }

// Prop is a named subschema: a property, a pattern or a dependency.
type Prop struct {
	Name   string
	Schema *Node
}

// DepRequired is one dependentRequired entry: when Name is present, Req
// are required.
type DepRequired struct {
	Name string
	Req  []string
}

// parse reads the schema at loc.
func (d *Doc) parse(raw json.RawMessage, loc string) (*Node, error) {
	d.nodes++
	if d.nodes > MaxDocNodes {
		return nil, &BoundError{Bound: "MaxDocNodes", Limit: MaxDocNodes,
			Detail: fmt.Sprintf("the schema has more than %d subschemas", MaxDocNodes)}
	}
	d.depth++
	defer func() { d.depth-- }()
	if d.depth > MaxDocDepth {
		return nil, &BoundError{Bound: "MaxDocDepth", Limit: MaxDocDepth,
			Detail: fmt.Sprintf("the schema at %q nests deeper than %d subschemas", loc, MaxDocDepth)}
	}
	if len(loc) > MaxSchemaLocation {
		return nil, &BoundError{Bound: "MaxSchemaLocation", Limit: MaxSchemaLocation,
			Detail: fmt.Sprintf("the schema at %q has a location longer than %d bytes", cutRunes(loc, 120), MaxSchemaLocation)}
	}
	t := bytes.TrimSpace(raw)
	s := &Node{Loc: loc, Base: d.base}
	d.byLoc[loc] = s
	d.order = append(d.order, s)
	switch {
	case len(t) == 0 || bytes.Equal(t, []byte("null")):
		return s, nil
	case bytes.Equal(t, []byte("true")), bytes.Equal(t, []byte("false")):
		b := t[0] == 't'
		s.Bool = &b
		return s, nil
	case t[0] != '{':
		return nil, fmt.Errorf("schema at %q is not an object or boolean", loc)
	}
	keys, m, err := ObjectKeys(t)
	if err != nil {
		return nil, fmt.Errorf("schema at %q: %w", loc, err)
	}
	s.Keywords = keys
	// "$id" sets the base of every subschema, wherever it is written.
	var id string
	if json.Unmarshal(m["$id"], &id) == nil && id != "" && !strings.HasPrefix(id, "#") {
		outer := d.base
		defer func() { d.base = outer }()
		d.base = joinURL(d.base, id)
		s.ID, s.Base = id, d.base
		d.byID[d.base] = s
	}
	str := func(k string) string {
		var v string
		_ = json.Unmarshal(m[k], &v)
		return v
	}
	flag := func(k string) bool {
		var v bool
		_ = json.Unmarshal(m[k], &v)
		return v
	}
	intp := func(k string) *int {
		var v json.Number
		if json.Unmarshal(m[k], &v) != nil {
			return nil
		}
		n, err := strconv.Atoi(strings.TrimSuffix(string(v), ".0"))
		if err != nil {
			return nil
		}
		return &n
	}
	num := func(k string) string {
		var v json.Number
		if json.Unmarshal(m[k], &v) != nil {
			return ""
		}
		return string(v)
	}
	sub := func(k string) (*Node, error) {
		if isNull(m[k]) {
			return nil, nil
		}
		return d.parse(m[k], loc+"/"+jsonptr.Escape(k))
	}
	subs := func(k string) ([]*Node, error) {
		var list []json.RawMessage
		if isNull(m[k]) || json.Unmarshal(m[k], &list) != nil {
			return nil, nil
		}
		out := make([]*Node, len(list))
		for i, r := range list {
			c, err := d.parse(r, fmt.Sprintf("%s/%s/%d", loc, k, i))
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	props := func(k string) ([]Prop, error) {
		if isNull(m[k]) {
			return nil, nil
		}
		names, pm, err := ObjectKeys(m[k])
		if err != nil {
			return nil, nil
		}
		out := make([]Prop, 0, len(names))
		for _, n := range names {
			c, err := d.parse(pm[n], loc+"/"+k+"/"+jsonptr.Escape(n))
			if err != nil {
				return nil, err
			}
			out = append(out, Prop{Name: n, Schema: c})
		}
		return out, nil
	}

	for _, k := range keys {
		v := m[k]
		switch k {
		case "type":
			var one string
			if json.Unmarshal(v, &one) == nil {
				s.Types = []string{one}
			} else {
				_ = json.Unmarshal(v, &s.Types)
			}
		case "properties":
			s.Props, err = props(k)
		case "patternProperties":
			s.PatternProps, err = props(k)
		case "required":
			_ = json.Unmarshal(v, &s.Required)
		case "additionalProperties":
			if bytes.Equal(bytes.TrimSpace(v), []byte("false")) {
				s.AdditionalFalse = true
			} else if !bytes.Equal(bytes.TrimSpace(v), []byte("true")) {
				s.Additional, err = sub(k)
			}
		case "propertyNames":
			s.PropertyNames, err = sub(k)
		case "minProperties":
			s.MinProps = intp(k)
		case "items":
			if tt := bytes.TrimSpace(v); len(tt) > 0 && tt[0] == '[' {
				s.Prefix, err = subs(k)
			} else if bytes.Equal(tt, []byte("false")) {
				s.ItemsFalse = true
			} else {
				s.Items, err = sub(k)
			}
		case "prefixItems":
			s.Prefix, err = subs(k)
		case "minItems":
			s.MinItems = intp(k)
		case "maxItems":
			s.MaxItems = intp(k)
		case "uniqueItems":
			s.UniqueItems = flag(k)
		case "enum":
			var list []json.RawMessage
			if json.Unmarshal(v, &list) == nil {
				for _, e := range list {
					s.Enum = append(s.Enum, compact(e))
				}
			}
		case "const":
			s.Const = compact(v)
		case "enumNames":
			_ = json.Unmarshal(v, &s.EnumNames)
		case "oneOf":
			s.OneOf, err = subs(k)
		case "anyOf":
			s.AnyOf, err = subs(k)
		case "allOf":
			s.AllOf, err = subs(k)
		case "not":
			s.Not, err = sub(k)
		case "$ref":
			s.Ref = str(k)
		case "$dynamicRef", "$recursiveRef":
			s.DynamicRef = str(k)
		case "if":
			s.If, err = sub(k)
		case "then":
			s.Then, err = sub(k)
		case "else":
			s.Else, err = sub(k)
		case "dependentRequired":
			err = s.readDepRequired(v)
		case "dependentSchemas":
			s.DepSchemas, err = props(k)
		case "dependencies":
			err = d.readDependencies(s, v, loc)
		case "default":
			s.Default = compact(v)
		case "examples":
			var list []json.RawMessage
			if json.Unmarshal(v, &list) == nil {
				for _, e := range list {
					s.Examples = append(s.Examples, compact(e))
				}
			}
		case "example": // OpenAPI's single example
			if len(s.Examples) == 0 {
				s.Examples = []json.RawMessage{compact(v)}
			}
		case "title":
			s.Title = str(k)
		case "description":
			s.Description = str(k)
		case "readOnly":
			s.ReadOnly = flag(k)
		case "writeOnly":
			s.WriteOnly = flag(k)
		case "deprecated":
			s.Deprecated = flag(k)
		case "minimum":
			s.Minimum = num(k)
		case "maximum":
			s.Maximum = num(k)
		case "exclusiveMinimum":
			s.ExclusiveMinimum = num(k)
		case "exclusiveMaximum":
			s.ExclusiveMaximum = num(k)
		case "multipleOf":
			s.MultipleOf = num(k)
		case "minLength":
			s.MinLength = intp(k)
		case "maxLength":
			s.MaxLength = intp(k)
		case "pattern":
			s.Pattern = str(k)
		case "contentMediaType":
			s.ContentMediaType = str(k)
		case "format":
			s.Format = str(k)
		case "$id":
			if a, ok := strings.CutPrefix(str(k), "#"); ok && a != "" { // draft-07 spells an anchor so
				d.anchor(s, a)
			}
		case "$anchor":
			d.anchor(s, str(k))
		case "$dynamicAnchor":
			// Also a plain anchor; the outermost one of a name is the
			// target of every $dynamicRef to it (one document is the whole
			// dynamic scope here).
			a := str(k)
			d.anchor(s, a)
			if _, ok := d.byDynamic[a]; !ok && a != "" {
				d.byDynamic[a] = s
			}
		case "$recursiveAnchor":
			if flag(k) && d.recursive == nil {
				d.recursive = s
			}
		case "$defs", "definitions":
			_, err = props(k)
		case "additionalItems":
			// Read as items after the loop: it only matters beside an items
			// array; parsed either way, so every subschema is a Node.
			if len(s.Prefix) == 0 {
				_, err = sub(k)
			}
		case "contains", "unevaluatedProperties", "unevaluatedItems", "contentSchema":
			_, err = sub(k)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(s.Prefix) > 0 && s.Items == nil {
		if a, ok := m["additionalItems"]; ok {
			if bytes.Equal(bytes.TrimSpace(a), []byte("false")) {
				s.ItemsFalse = true
			} else if s.Items, err = d.parse(a, loc+"/additionalItems"); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// readDepRequired reads "dependentRequired" (a name → names object);
// entries that are not lists of names are skipped.
func (s *Node) readDepRequired(v json.RawMessage) error {
	names, m, err := ObjectKeys(v)
	if err != nil {
		return nil
	}
	for _, n := range names {
		var req []string
		if json.Unmarshal(m[n], &req) == nil {
			s.DepRequired = append(s.DepRequired, DepRequired{Name: n, Req: req})
		}
	}
	return nil
}

// readDependencies splits draft-07 "dependencies": an array value is
// dependentRequired, a schema value dependentSchemas.
func (d *Doc) readDependencies(s *Node, v json.RawMessage, loc string) error {
	names, m, err := ObjectKeys(v)
	if err != nil {
		return nil
	}
	for _, n := range names {
		t := bytes.TrimSpace(m[n])
		if len(t) > 0 && t[0] == '[' {
			var req []string
			if json.Unmarshal(t, &req) == nil {
				s.DepRequired = append(s.DepRequired, DepRequired{Name: n, Req: req})
			}
			continue
		}
		c, err := d.parse(t, loc+"/dependencies/"+jsonptr.Escape(n))
		if err != nil {
			return err
		}
		s.DepSchemas = append(s.DepSchemas, Prop{Name: n, Schema: c})
	}
	return nil
}

// Merge adds src's keywords into dst (allOf semantics, approximated for
// display: both sets of properties and requirements, the tighter of each
// bound, as the validator applies both; dst's annotations win).
func Merge(dst, src *Node) {
	if src == nil {
		return
	}
	if src.Bool != nil && !*src.Bool {
		f := false
		dst.Bool = &f
	}
	if len(dst.Types) == 0 {
		dst.Types = src.Types
	} else if len(src.Types) > 0 {
		var both []string
		for _, t := range dst.Types {
			for _, u := range src.Types {
				if t == u || (t == "integer" && u == "number") {
					both = append(both, t)
				} else if t == "number" && u == "integer" {
					both = append(both, u)
				}
			}
		}
		if len(both) > 0 {
			dst.Types = both
		}
	}
	if len(dst.Props) == 0 {
		// Shared, not copied: a Node's slices are never written in place
		// (below, a merge writes a copy), and 7,000 properties referring
		// to their parent would each hold a copy of its 7,000 otherwise.
		dst.Props = src.Props
	} else if len(src.Props) > 0 {
		// One copy (dst's slice may be a shared Node's) and one index:
		// linear, as a chain of allOf merges thousands of properties.
		props := slices.Clone(dst.Props)
		at := make(map[string]int, len(props)+len(src.Props))
		for i, q := range props {
			if _, ok := at[q.Name]; !ok {
				at[q.Name] = i
			}
		}
		for _, p := range src.Props {
			i, ok := at[p.Name]
			if !ok {
				at[p.Name] = len(props)
				props = append(props, p)
				continue
			}
			if q := props[i]; q.Schema != p.Schema {
				props[i] = Prop{Name: q.Name, Schema: &Node{Loc: q.Schema.Loc, AllOf: []*Node{q.Schema, p.Schema}}}
			}
		}
		dst.Props = props
	}
	if len(dst.Required) == 0 {
		dst.Required = src.Required
	} else if len(src.Required) > 0 {
		req := slices.Clone(dst.Required)
		has := make(map[string]bool, len(req)+len(src.Required))
		for _, r := range req {
			has[r] = true
		}
		for _, r := range src.Required {
			if !has[r] {
				has[r] = true
				req = append(req, r)
			}
		}
		dst.Required = req
	}
	if dst.Additional == nil {
		dst.Additional = src.Additional
	}
	dst.AdditionalFalse = dst.AdditionalFalse || src.AdditionalFalse
	dst.PatternProps = joined(dst.PatternProps, src.PatternProps)
	firstS(&dst.PropertyNames, src.PropertyNames)
	firstS(&dst.Items, src.Items)
	dst.ItemsFalse = dst.ItemsFalse || src.ItemsFalse
	if len(dst.Prefix) == 0 {
		dst.Prefix = src.Prefix
	}
	tighterI(&dst.MinItems, src.MinItems, +1)
	tighterI(&dst.MaxItems, src.MaxItems, -1)
	tighterI(&dst.MinProps, src.MinProps, +1)
	dst.UniqueItems = dst.UniqueItems || src.UniqueItems
	if dst.Enum == nil {
		dst.Enum, dst.EnumNames = src.Enum, src.EnumNames
	}
	if dst.Const == nil {
		dst.Const = src.Const
	}
	if dst.OneOf == nil {
		dst.OneOf = src.OneOf
	}
	if dst.AnyOf == nil {
		dst.AnyOf = src.AnyOf
	}
	if dst.If == nil {
		dst.If, dst.Then, dst.Else = src.If, src.Then, src.Else
	}
	dst.DepRequired = joined(dst.DepRequired, src.DepRequired)
	dst.DepSchemas = joined(dst.DepSchemas, src.DepSchemas)
	if dst.Default == nil {
		dst.Default = src.Default
	}
	if dst.Examples == nil {
		dst.Examples = src.Examples
	}
	firstStr(&dst.Title, src.Title)
	firstStr(&dst.Description, src.Description)
	dst.ReadOnly = dst.ReadOnly || src.ReadOnly
	dst.WriteOnly = dst.WriteOnly || src.WriteOnly
	dst.Deprecated = dst.Deprecated || src.Deprecated
	tighterNum(&dst.Minimum, src.Minimum, +1)
	tighterNum(&dst.Maximum, src.Maximum, -1)
	tighterNum(&dst.ExclusiveMinimum, src.ExclusiveMinimum, +1)
	tighterNum(&dst.ExclusiveMaximum, src.ExclusiveMaximum, -1)
	firstStr(&dst.MultipleOf, src.MultipleOf)
	tighterI(&dst.MinLength, src.MinLength, +1)
	tighterI(&dst.MaxLength, src.MaxLength, -1)
	firstStr(&dst.Pattern, src.Pattern)
	firstStr(&dst.Format, src.Format)
	firstStr(&dst.ContentMediaType, src.ContentMediaType)
}

// joined is a then b in a new slice, or whichever is the only one not
// empty, shared (Merge never writes into a slice in place).
func joined[T any](a, b []T) []T {
	switch {
	case len(b) == 0:
		return a
	case len(a) == 0:
		return b
	}
	return append(slices.Clip(a), b...)
}

func firstS(dst **Node, src *Node) {
	if *dst == nil {
		*dst = src
	}
}

// tighterI keeps the tighter of two count bounds: the larger for a lower
// bound (dir +1), the smaller for an upper one (-1).
func tighterI(dst **int, src *int, dir int) {
	if src != nil && (*dst == nil || (*src-**dst)*dir > 0) {
		*dst = src
	}
}

// tighterNum keeps the tighter of two number bounds as written (exact
// text, compared exactly), as tighterI.
func tighterNum(dst *string, src string, dir int) {
	if src == "" {
		return
	}
	if *dst == "" {
		*dst = src
		return
	}
	a, okA := new(big.Rat).SetString(*dst)
	b, okB := new(big.Rat).SetString(src)
	if okA && okB && b.Cmp(a)*dir > 0 {
		*dst = src
	}
}

func firstI(dst **int, src *int) {
	if *dst == nil {
		*dst = src
	}
}

func firstStr(dst *string, src string) {
	if *dst == "" {
		*dst = src
	}
}

// IsStructural reports whether s says anything about a value's shape (a
// type, properties, items, values or a reference), as opposed to only
// constraining it ({"required": [...]}, as a root anyOf often does).
func (s *Node) IsStructural() bool {
	return s.Bool != nil || len(s.Types) > 0 || len(s.Props) > 0 || s.Items != nil || len(s.Prefix) > 0 ||
		s.Enum != nil || s.Const != nil || s.Ref != "" || s.DynamicRef != "" || len(s.OneOf) > 0 || len(s.AnyOf) > 0 ||
		len(s.AllOf) > 0 || s.Format != "" || s.Pattern != "" || s.Additional != nil || len(s.PatternProps) > 0
}

// IsNullOnly reports whether s accepts only null.
func (s *Node) IsNullOnly() bool {
	if len(s.Types) == 1 && s.Types[0] == "null" {
		return true
	}
	if string(s.Const) == "null" {
		return true
	}
	return len(s.Enum) == 1 && string(s.Enum[0]) == "null"
}

// ConstValue returns the one value s allows (const, or a one-value enum).
func (s *Node) ConstValue() (json.RawMessage, bool) {
	if s.Const != nil {
		return s.Const, true
	}
	if len(s.Enum) == 1 {
		return s.Enum[0], true
	}
	return nil, false
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}
