package conform_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"modbay/conform"
	"modbay/schema"
	"modbay/schemalint"
	"modbay/ui/form"
)

// agreeCase is one schema and what every reader of it must find: the
// top-level properties in the author's order, the required ones, each
// one's type ("string|null" when null is allowed too), and its bounds as
// the keywords that hold after $ref and allOf are merged ("minimum 1",
// "exclusiveMaximum 5", "minLength 2", "maxItems 3").
type agreeCase struct {
	name, schema string
	order        []string
	required     []string
	types        map[string]string
	bounds       map[string][]string
	// notSent are properties neither the form nor check ever sends.
	notSent []string
	// tighter, where set, are the bounds that bind when an inclusive and
	// an exclusive bound are both given: check's boundary cases are at
	// those, not at every bound written.
	tighter map[string][]string
}

// agreeCases are schemas whose references, order and bounds are easy to
// read differently.
var agreeCases = []agreeCase{
	{
		name: "ref to an $anchor",
		schema: `{"type":"object","required":["zeta"],"properties":{"zeta":{"$ref":"#count"},"alpha":{"type":"string"}},
			"$defs":{"n":{"$anchor":"count","type":"integer","minimum":1,"maximum":5}}}`,
		order: []string{"zeta", "alpha"}, required: []string{"zeta"},
		types: map[string]string{"zeta": "integer", "alpha": "string"}, bounds: map[string][]string{"zeta": {"minimum 1", "maximum 5"}},
	},
	{
		name: "ref to an embedded $id, and a pointer inside it",
		schema: `{"$id":"https://example.com/root.json","type":"object","required":["b","a"],
			"properties":{"b":{"$ref":"item.json"},"a":{"$ref":"item.json#/$defs/small"}},
			"$defs":{"item":{"$id":"item.json","type":"integer","minimum":10,"maximum":20,
				"$defs":{"small":{"type":"integer","minimum":0,"maximum":2}}}}}`,
		order: []string{"b", "a"}, required: []string{"a", "b"},
		types: map[string]string{"b": "integer", "a": "integer"}, bounds: map[string][]string{"b": {"minimum 10", "maximum 20"}, "a": {"minimum 0", "maximum 2"}},
	},
	{
		name: "$dynamicRef to a $dynamicAnchor",
		schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","required":["level"],
			"properties":{"note":{"type":"string"},"level":{"$dynamicRef":"#level"}},
			"$defs":{"l":{"$dynamicAnchor":"level","type":"integer","minimum":2,"maximum":4}}}`,
		order: []string{"note", "level"}, required: []string{"level"},
		types: map[string]string{"note": "string", "level": "integer"}, bounds: map[string][]string{"level": {"minimum 2", "maximum 4"}},
	},
	{
		name: "$ref siblings and allOf tighten bounds",
		schema: `{"type":"object","allOf":[{"required":["m"]}],
			"properties":{"z":{"$ref":"#/$defs/base","minimum":3},"m":{"allOf":[{"$ref":"#/$defs/base"},{"maximum":6}]}},
			"$defs":{"base":{"type":"integer","minimum":0,"maximum":9}}}`,
		order: []string{"z", "m"}, required: []string{"m"},
		types: map[string]string{"z": "integer", "m": "integer"}, bounds: map[string][]string{"z": {"minimum 3", "maximum 9"}, "m": {"minimum 0", "maximum 6"}},
	},
	{
		name: "draft-07 definitions, escaped pointer",
		schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","required":["y","x"],
			"properties":{"y":{"$ref":"#/definitions/a~1b"},"x":{"$ref":"#/definitions/c%25d"},"w":{"type":"boolean"}},
			"definitions":{"a/b":{"type":"integer","minimum":-2,"maximum":2},"c%d":{"type":"string"}}}`,
		order: []string{"y", "x", "w"}, required: []string{"x", "y"},
		types: map[string]string{"y": "integer", "x": "string", "w": "boolean"}, bounds: map[string][]string{"y": {"minimum -2", "maximum 2"}},
	},
	{
		name: "ref chain through the root's own $ref",
		schema: `{"$ref":"#/$defs/args","$defs":{"args":{"type":"object","required":["q"],
			"properties":{"q":{"$ref":"#/$defs/q"},"k":{"$ref":"#/$defs/k"}}},
			"q":{"$ref":"#/$defs/q2"},"q2":{"type":"string"},"k":{"type":"integer","maximum":7,"minimum":7}}}`,
		order: []string{"q", "k"}, required: []string{"q"},
		types: map[string]string{"q": "string", "k": "integer"}, bounds: map[string][]string{"k": {"minimum 7", "maximum 7"}},
	},
	{
		name: "required read-only field with a default, optional read-only left out",
		schema: `{"type":"object","required":["id","n"],"properties":{"id":{"type":"string","readOnly":true,"default":"rec_1"},
			"n":{"type":"integer","minimum":1,"maximum":3},"etag":{"type":"string","readOnly":true}}}`,
		order: []string{"id", "n", "etag"}, required: []string{"id", "n"},
		types: map[string]string{"id": "string", "n": "integer", "etag": "string"}, bounds: map[string][]string{"n": {"minimum 1", "maximum 3"}},
		notSent: []string{"etag"},
	},
	{
		name: "string lengths and item counts through $ref and allOf",
		schema: `{"type":"object","required":["code","tags"],"properties":{
			"code":{"allOf":[{"$ref":"#/$defs/code"},{"maxLength":6}]},
			"tags":{"$ref":"#/$defs/tags","maxItems":3},
			"memo":{"type":"string","maxLength":40}},
			"$defs":{"code":{"type":"string","minLength":2,"maxLength":8},
				"tags":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":5}}}`,
		order: []string{"code", "tags", "memo"}, required: []string{"code", "tags"},
		types:  map[string]string{"code": "string", "tags": "array", "memo": "string"},
		bounds: map[string][]string{"code": {"minLength 2", "maxLength 6"}, "tags": {"minItems 1", "maxItems 3"}, "memo": {"maxLength 40"}},
	},
	{
		name: "exclusive bounds, on integers and numbers",
		schema: `{"type":"object","required":["n","x"],"properties":{
			"n":{"type":"integer","exclusiveMinimum":0,"exclusiveMaximum":10},
			"x":{"$ref":"#/$defs/ratio","exclusiveMaximum":1}},
			"$defs":{"ratio":{"type":"number","minimum":0,"maximum":2}}}`,
		order: []string{"n", "x"}, required: []string{"n", "x"},
		types:   map[string]string{"n": "integer", "x": "number"},
		bounds:  map[string][]string{"n": {"exclusiveMinimum 0", "exclusiveMaximum 10"}, "x": {"minimum 0", "maximum 2", "exclusiveMaximum 1"}},
		tighter: map[string][]string{"x": {"minimum 0", "exclusiveMaximum 1"}},
	},
	{
		name:   "an inclusive bound tighter than the exclusive one beside it",
		schema: `{"type":"object","required":["r"],"properties":{"r":{"type":"number","minimum":-1,"exclusiveMinimum":-2,"maximum":1,"exclusiveMaximum":2}}}`,
		order:  []string{"r"}, required: []string{"r"}, types: map[string]string{"r": "number"},
		bounds:  map[string][]string{"r": {"minimum -1", "exclusiveMinimum -2", "maximum 1", "exclusiveMaximum 2"}},
		tighter: map[string][]string{"r": {"minimum -1", "maximum 1"}},
	},
	{
		name: "nullable types, and a type given only through allOf",
		schema: `{"type":"object","required":["when","count"],"properties":{
			"when":{"type":["string","null"],"minLength":1},
			"count":{"allOf":[{"type":"integer"},{"minimum":1}]},
			"flag":{"$ref":"#/$defs/flag"}},
			"$defs":{"flag":{"type":["boolean","null"]}}}`,
		order: []string{"when", "count", "flag"}, required: []string{"count", "when"},
		types:  map[string]string{"when": "string|null", "count": "integer", "flag": "boolean|null"},
		bounds: map[string][]string{"when": {"minLength 1"}, "count": {"minimum 1"}},
	},
	{
		name: "$recursiveRef of draft 2019-09",
		schema: `{"$schema":"https://json-schema.org/draft/2019-09/schema","$recursiveAnchor":true,"type":"object",
			"required":["name"],"properties":{"name":{"type":"string","maxLength":12},"child":{"$recursiveRef":"#"}}}`,
		order: []string{"name", "child"}, required: []string{"name"},
		types:  map[string]string{"name": "string", "child": "object"},
		bounds: map[string][]string{"name": {"maxLength 12"}},
	},
}

// TestReadersAgree: the form, check's generator and the lint read one
// table of tricky schemas the same way (schema.Doc): every reference
// resolves, the required set, the types, the property order and the
// bounds are the ones the author wrote.
func TestReadersAgree(t *testing.T) {
	for _, c := range agreeCases {
		t.Run(c.name, func(t *testing.T) {
			raw := json.RawMessage(c.schema)
			t.Run("form", func(t *testing.T) { agreeForm(t, c, raw) })
			t.Run("check", func(t *testing.T) { agreeCheck(t, c, raw) })
			t.Run("lint", func(t *testing.T) { agreeLint(t, c, raw) })
		})
	}
}

func agreeForm(t *testing.T, c agreeCase, raw json.RawMessage) {
	f, err := form.Build(raw)
	if err != nil {
		t.Fatal(err)
	}
	var order, req []string
	for _, n := range f.Root.Children {
		order = append(order, n.Name)
		if n.Required {
			req = append(req, n.Name)
		}
		typ := formType(n)
		if n.Nullable {
			typ += "|null"
		}
		if typ != c.types[n.Name] {
			t.Errorf("%s: type %s, want %s", n.Name, typ, c.types[n.Name])
		}
		if got, want := boundsOf(n.Schema), canonical(c.bounds[n.Name]); !slices.Equal(got, want) {
			t.Errorf("%s: bounds %q, want %q", n.Name, got, want)
		}
	}
	slices.Sort(req)
	if !slices.Equal(order, c.order) || !slices.Equal(req, c.required) {
		t.Errorf("order %v required %v, want %v %v", order, req, c.order, c.required)
	}
	var sent map[string]any
	v, _ := f.Value()
	_ = json.Unmarshal(v, &sent)
	for _, p := range c.notSent {
		if _, ok := sent[p]; ok {
			t.Errorf("the form sends %s: %v", p, sent)
		}
	}
}

func formType(n *form.Node) string {
	switch n.Kind {
	case form.KindString:
		return "string"
	case form.KindInteger:
		return "integer"
	case form.KindNumber:
		return "number"
	case form.KindBoolean:
		return "boolean"
	case form.KindObject:
		return "object"
	case form.KindArray:
		return "array"
	}
	return fmt.Sprintf("kind %d", n.Kind)
}

// boundKeywords are the bounds the readers must agree on, in the order
// boundsOf lists them.
var boundKeywords = []string{"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems"}

// boundsOf lists a merged schema's bounds as "keyword value".
func boundsOf(s *schema.Node) []string {
	var out []string
	num := func(k, v string) {
		if v != "" {
			out = append(out, k+" "+v)
		}
	}
	count := func(k string, v *int) {
		if v != nil {
			out = append(out, fmt.Sprintf("%s %d", k, *v))
		}
	}
	num("minimum", s.Minimum)
	num("exclusiveMinimum", s.ExclusiveMinimum)
	num("maximum", s.Maximum)
	num("exclusiveMaximum", s.ExclusiveMaximum)
	count("minLength", s.MinLength)
	count("maxLength", s.MaxLength)
	count("minItems", s.MinItems)
	count("maxItems", s.MaxItems)
	return out
}

// canonical sorts bounds as boundsOf lists them.
func canonical(bounds []string) []string {
	out := slices.Clone(bounds)
	slices.SortFunc(out, func(a, b string) int {
		ka, _, _ := strings.Cut(a, " ")
		kb, _, _ := strings.Cut(b, " ")
		return slices.Index(boundKeywords, ka) - slices.Index(boundKeywords, kb)
	})
	return out
}

func agreeCheck(t *testing.T, c agreeCase, raw json.RawMessage) {
	h, err := schema.Compile(raw)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]conform.Case{}
	var boundaryOrder []string
	for _, cs := range conform.Generate(h) {
		if cs.Skip != "" && cs.Kind != conform.KindInvalid {
			t.Errorf("%s skipped: %s", cs.Name, cs.Skip)
		}
		cases[cs.Name] = cs
		if p, ok := strings.CutPrefix(cs.Name, "boundary /"); ok {
			p, _, _ = strings.Cut(p, " ")
			if !slices.Contains(boundaryOrder, p) {
				boundaryOrder = append(boundaryOrder, p)
			}
		}
	}
	var minimal map[string]any
	if err := json.Unmarshal(cases["minimal"].Input, &minimal); err != nil {
		t.Fatalf("minimal: %v", err)
	}
	var req []string
	for k := range minimal {
		req = append(req, k)
	}
	slices.Sort(req)
	if !slices.Equal(req, c.required) {
		t.Errorf("minimal input sets %v, want the required %v", req, c.required)
	}
	full := minimal // unless it differs (duplicates are dropped)
	if fc, ok := cases["every optional field set"]; ok {
		full = nil
		if err := json.Unmarshal(fc.Input, &full); err != nil {
			t.Fatalf("full: %v", err)
		}
	}
	for _, p := range c.notSent {
		if _, ok := full[p]; ok {
			t.Errorf("check sends %s: %v", p, full)
		}
	}
	for _, p := range c.order {
		if slices.Contains(c.notSent, p) {
			continue
		}
		want := strings.Split(c.types[p], "|")
		if got := jsonType(full[p]); !slices.Contains(want, got) && !(got == "integer" && slices.Contains(want, "number")) {
			t.Errorf("%s: generated %v (%s), want a %s", p, full[p], got, c.types[p])
		}
	}
	valuesOf := map[string][]any{} // each property's values over every case
	for _, cs := range cases {
		var in map[string]any
		if json.Unmarshal(cs.Input, &in) == nil && cs.Valid {
			for k, v := range in {
				valuesOf[k] = append(valuesOf[k], v)
			}
		}
	}
	var bounded []string
	for _, p := range c.order {
		bs := c.bounds[p]
		if tb, ok := c.tighter[p]; ok {
			bs = tb
		}
		for _, b := range canonical(bs) {
			name, ok := boundaryName(p, b, c.types[p])
			if !ok {
				// minItems: no case of its own; the minimal input holds
				// exactly that many items.
				if v, set := minimal[p]; set {
					if got := fmt.Sprintf("minItems %d", len(v.([]any))); got != b {
						t.Errorf("%s: minimal input has %s, want %s", p, got, b)
					}
				}
				continue
			}
			if _, ok := cases[name]; ok && !slices.Contains(bounded, p) {
				bounded = append(bounded, p)
			}
			// A boundary that is another case's input again (the
			// minimal one, every optional field set, another bound) was
			// dropped as a duplicate.
			if _, ok := cases[name]; !ok && !slices.ContainsFunc(valuesOf[p], func(v any) bool { return atBound(v, b, c.types[p]) }) {
				t.Errorf("no case %q", name)
			}
		}
	}
	if !slices.Equal(boundaryOrder, bounded) {
		t.Errorf("boundary cases in order %v, want the schema's %v", boundaryOrder, bounded)
	}
}

// boundaryName is the boundary case check makes of bound b of property p:
// an exclusive bound becomes the closest value inside it (a step of 1 for
// an integer, 0.001 for a number). False for a bound with no case of its
// own.
func boundaryName(p, b, typ string) (string, bool) {
	k, v, _ := strings.Cut(b, " ")
	integer := typ == "integer"
	step := func(dir float64) string {
		x, _ := strconv.ParseFloat(v, 64)
		if integer {
			return fmt.Sprint(int64(x + dir))
		}
		return fmt.Sprint(x + dir/1000)
	}
	switch k {
	case "exclusiveMinimum":
		return "boundary /" + p + " minimum " + step(+1), true
	case "exclusiveMaximum":
		return "boundary /" + p + " maximum " + step(-1), true
	case "minItems":
		return "", false
	}
	return "boundary /" + p + " " + b, true
}

// atBound reports whether v, a generated value, is already at bound b (so
// its boundary case is the minimal input again, and dropped).
func atBound(v any, b, typ string) bool {
	name, _ := boundaryName("", b, typ)
	k, want, _ := strings.Cut(strings.TrimPrefix(name, "boundary / "), " ")
	switch x := v.(type) {
	case string:
		return (k == "minLength" || k == "maxLength") && fmt.Sprint(len(x)) == want
	case []any:
		return k == "maxItems" && fmt.Sprint(len(x)) == want
	}
	return (k == "minimum" || k == "maximum") && fmt.Sprint(v) == want
}

func jsonType(v any) string {
	switch x := v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return fmt.Sprintf("%T", v)
}

func agreeLint(t *testing.T, c agreeCase, raw json.RawMessage) {
	for _, f := range schemalint.Lint(c.name, raw) {
		switch f.Rule {
		case schemalint.RuleRef, schemalint.RuleRequired, schemalint.RuleCompile, schemalint.RuleCycle, schemalint.RuleBounds:
			t.Errorf("lint reads it otherwise: %s", f)
		}
	}
}

// TestReadersAgreeOnBrokenBounds: bounds that leave no value, written
// directly or through a $ref sibling or allOf, are read alike: the form
// holds both bounds (its hint shows them), check cannot make the field,
// and the lint says so at the property.
func TestReadersAgreeOnBrokenBounds(t *testing.T) {
	for _, tt := range []struct {
		name, prop string
		hint       string
	}{
		{"$ref sibling", `{"$ref":"#/$defs/small","minimum":5}`, "≥ 5 · ≤ 3"},
		{"exclusive bounds that meet", `{"type":"number","exclusiveMinimum":3,"maximum":3}`, "> 3 · ≤ 3"},
		{"lengths through allOf", `{"allOf":[{"type":"string","minLength":4},{"maxLength":2}]}`, ""},
		{"item counts", `{"type":"array","items":{"type":"string"},"minItems":3,"maxItems":1}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw := json.RawMessage(`{"type":"object","required":["n"],"properties":{"n":` + tt.prop + `},
				"$defs":{"small":{"type":"integer","maximum":3}}}`)
			f, err := form.Build(raw)
			if err != nil {
				t.Fatal(err)
			}
			if n := f.Root.Children[0]; len(boundsOf(n.Schema)) < 2 || tt.hint != "" && n.Hint() != tt.hint {
				t.Errorf("form: bounds %q, hint %q", boundsOf(n.Schema), n.Hint())
			}
			h, err := schema.Compile(raw)
			if err != nil {
				t.Fatal(err)
			}
			for _, cs := range conform.Generate(h) {
				if cs.Name == "minimal" && cs.Skip == "" {
					t.Errorf("check made a minimal input %s", cs.Input)
				}
			}
			var found bool
			for _, fd := range schemalint.Lint("broken", raw) {
				found = found || (fd.Rule == schemalint.RuleBounds && fd.Path == "/properties/n")
			}
			if !found {
				t.Errorf("lint: no bounds finding at /properties/n: %v", schemalint.Lint("broken", raw))
			}
		})
	}
}
