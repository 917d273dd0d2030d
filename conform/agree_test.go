package conform_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"modbay/conform"
	"modbay/schema"
	"modbay/schemalint"
	"modbay/ui/form"
)

// agreeCase is one schema and what every reader of it must find: the
// top-level properties in the author's order, the required ones, each
// one's type, and its bounds as "lo..hi" (integer fields only).
type agreeCase struct {
	name, schema string
	order        []string
	required     []string
	types        map[string]string
	bounds       map[string]string
	// notSent are properties neither the form nor check ever sends.
	notSent []string
}

// agreeCases are schemas whose references, order and bounds are easy to
// read differently.
var agreeCases = []agreeCase{
	{
		name: "ref to an $anchor",
		schema: `{"type":"object","required":["zeta"],"properties":{"zeta":{"$ref":"#count"},"alpha":{"type":"string"}},
			"$defs":{"n":{"$anchor":"count","type":"integer","minimum":1,"maximum":5}}}`,
		order: []string{"zeta", "alpha"}, required: []string{"zeta"},
		types: map[string]string{"zeta": "integer", "alpha": "string"}, bounds: map[string]string{"zeta": "1..5"},
	},
	{
		name: "ref to an embedded $id, and a pointer inside it",
		schema: `{"$id":"https://example.com/root.json","type":"object","required":["b","a"],
			"properties":{"b":{"$ref":"item.json"},"a":{"$ref":"item.json#/$defs/small"}},
			"$defs":{"item":{"$id":"item.json","type":"integer","minimum":10,"maximum":20,
				"$defs":{"small":{"type":"integer","minimum":0,"maximum":2}}}}}`,
		order: []string{"b", "a"}, required: []string{"a", "b"},
		types: map[string]string{"b": "integer", "a": "integer"}, bounds: map[string]string{"b": "10..20", "a": "0..2"},
	},
	{
		name: "$dynamicRef to a $dynamicAnchor",
		schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","required":["level"],
			"properties":{"note":{"type":"string"},"level":{"$dynamicRef":"#level"}},
			"$defs":{"l":{"$dynamicAnchor":"level","type":"integer","minimum":2,"maximum":4}}}`,
		order: []string{"note", "level"}, required: []string{"level"},
		types: map[string]string{"note": "string", "level": "integer"}, bounds: map[string]string{"level": "2..4"},
	},
	{
		name: "$ref siblings and allOf tighten bounds",
		schema: `{"type":"object","allOf":[{"required":["m"]}],
			"properties":{"z":{"$ref":"#/$defs/base","minimum":3},"m":{"allOf":[{"$ref":"#/$defs/base"},{"maximum":6}]}},
			"$defs":{"base":{"type":"integer","minimum":0,"maximum":9}}}`,
		order: []string{"z", "m"}, required: []string{"m"},
		types: map[string]string{"z": "integer", "m": "integer"}, bounds: map[string]string{"z": "3..9", "m": "0..6"},
	},
	{
		name: "draft-07 definitions, escaped pointer",
		schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","required":["y","x"],
			"properties":{"y":{"$ref":"#/definitions/a~1b"},"x":{"$ref":"#/definitions/c%25d"},"w":{"type":"boolean"}},
			"definitions":{"a/b":{"type":"integer","minimum":-2,"maximum":2},"c%d":{"type":"string"}}}`,
		order: []string{"y", "x", "w"}, required: []string{"x", "y"},
		types: map[string]string{"y": "integer", "x": "string", "w": "boolean"}, bounds: map[string]string{"y": "-2..2"},
	},
	{
		name: "ref chain through the root's own $ref",
		schema: `{"$ref":"#/$defs/args","$defs":{"args":{"type":"object","required":["q"],
			"properties":{"q":{"$ref":"#/$defs/q"},"k":{"$ref":"#/$defs/k"}}},
			"q":{"$ref":"#/$defs/q2"},"q2":{"type":"string"},"k":{"type":"integer","maximum":7,"minimum":7}}}`,
		order: []string{"q", "k"}, required: []string{"q"},
		types: map[string]string{"q": "string", "k": "integer"}, bounds: map[string]string{"k": "7..7"},
	},
	{
		name: "required read-only field with a default, optional read-only left out",
		schema: `{"type":"object","required":["id","n"],"properties":{"id":{"type":"string","readOnly":true,"default":"rec_1"},
			"n":{"type":"integer","minimum":1,"maximum":3},"etag":{"type":"string","readOnly":true}}}`,
		order: []string{"id", "n", "etag"}, required: []string{"id", "n"},
		types: map[string]string{"id": "string", "n": "integer", "etag": "string"}, bounds: map[string]string{"n": "1..3"},
		notSent: []string{"etag"},
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
		if got := formType(n); got != c.types[n.Name] {
			t.Errorf("%s: type %s, want %s", n.Name, got, c.types[n.Name])
		}
		if want, ok := c.bounds[n.Name]; ok {
			if got := n.Schema.Minimum + ".." + n.Schema.Maximum; got != want {
				t.Errorf("%s: bounds %s, want %s", n.Name, got, want)
			}
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
		if got := jsonType(full[p]); got != c.types[p] && !(got == "number" && c.types[p] == "integer") {
			t.Errorf("%s: generated %v (%s), want a %s", p, full[p], got, c.types[p])
		}
	}
	var bounded []string
	for _, p := range c.order {
		if b, ok := c.bounds[p]; ok {
			bounded = append(bounded, p)
			lo, hi, _ := strings.Cut(b, "..")
			for i, bound := range []string{lo, hi} {
				name := "boundary /" + p + " " + []string{"minimum ", "maximum "}[i] + bound
				// A boundary that is the minimal input again was dropped.
				if _, ok := cases[name]; !ok && fmt.Sprint(minimal[p]) != bound && (i == 0 || lo != hi) {
					t.Errorf("no case %q", name)
				}
			}
		}
	}
	if !slices.Equal(boundaryOrder, bounded) {
		t.Errorf("boundary cases in order %v, want the schema's %v", boundaryOrder, bounded)
	}
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

// TestReadersAgreeOnBrokenBounds: bounds that leave no value, through a
// $ref sibling, are read alike: the form shows both, check cannot make
// the field, the lint says so.
func TestReadersAgreeOnBrokenBounds(t *testing.T) {
	raw := json.RawMessage(`{"type":"object","required":["n"],"properties":{"n":{"$ref":"#/$defs/small","minimum":5}},
		"$defs":{"small":{"type":"integer","maximum":3}}}`)
	f, err := form.Build(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Root.Children[0].Hint(); got != "≥ 5 · ≤ 3" {
		t.Errorf("form hint %q", got)
	}
	h, _ := schema.Compile(raw)
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
}
