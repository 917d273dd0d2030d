package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestDocResolves: pointers (escaped), anchors, embedded $ids, and
// $dynamicRef reach the schema they name; remote and missing ones say why.
func TestDocResolves(t *testing.T) {
	d, err := Parse(json.RawMessage(`{"$id":"https://example.com/r.json","properties":{
		"p":{"$ref":"#/$defs/a~1b"},"a":{"$ref":"#x"},"e":{"$ref":"item.json#/$defs/in"},"i":{"$ref":"item.json#y"},
		"dyn":{"$dynamicRef":"#d"},"remote":{"$ref":"https://other.example/s.json"},"gone":{"$ref":"#/$defs/none"},"noanchor":{"$ref":"#nope"}},
		"$defs":{"a/b":{"title":"AB"},"x":{"$anchor":"x","title":"X"},"d":{"$dynamicAnchor":"d","title":"D"},
		"item":{"$id":"item.json","$defs":{"in":{"title":"IN"},"y":{"$anchor":"y","title":"Y"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for prop, want := range map[string]string{"p": "AB", "a": "X", "e": "IN", "i": "Y", "dyn": "D"} {
		if got := d.Target(d.At("/properties/" + prop)); got == nil || got.Title != want {
			t.Errorf("%s: target %+v, want %s", prop, got, want)
		}
	}
	for prop, want := range map[string]string{"remote": ErrRemoteRef.Error(), "gone": "resolves to nothing", "noanchor": "names no $anchor"} {
		n := d.At("/properties/" + prop)
		if _, err := d.Resolve(n, n.Ref); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", prop, err, want)
		}
	}
}

// TestDocKeepsOrder: properties and keywords in the author's order.
func TestDocKeepsOrder(t *testing.T) {
	d, err := Parse(json.RawMessage(`{"type":"object","properties":{"path":{},"edits":{},"dryRun":{}},"required":["path"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range d.Root().Props {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []string{"path", "edits", "dryRun"}) || !slices.Equal(d.Root().Keywords, []string{"type", "properties", "required"}) {
		t.Errorf("props %v keywords %v", names, d.Root().Keywords)
	}
}

// TestDocBounds: a document past MaxDocNodes or MaxDocDepth is refused;
// a $ref cycle and an allOf fan-out stop within MaxMergeVisits.
func TestDocBounds(t *testing.T) {
	deep := strings.Repeat(`{"not":`, MaxDocDepth+1) + "{}" + strings.Repeat("}", MaxDocDepth+1)
	if _, err := Parse(json.RawMessage(deep)); err == nil || !strings.Contains(err.Error(), "nests deeper") {
		t.Errorf("deep: %v", err)
	}
	wide := `{"anyOf":[` + strings.TrimSuffix(strings.Repeat("{},", MaxDocNodes), ",") + `]}`
	if _, err := Parse(json.RawMessage(wide)); err == nil || !strings.Contains(err.Error(), "subschemas") {
		t.Errorf("wide: %v", err)
	}
	cycle, err := Parse(json.RawMessage(`{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b","type":"string"},"b":{"$ref":"#/$defs/a","minLength":2}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if e := cycle.Effective(cycle.Root()); !slices.Equal(e.Types, []string{"string"}) || e.MinLength == nil {
		t.Errorf("cycle merged to %+v", e)
	}
	// Each level is two refs to the next: 2^40 visits unbounded.
	var defs []string
	for i := range 40 {
		defs = append(defs, fmt.Sprintf(`"l%d":{"allOf":[{"$ref":"#/$defs/l%d"},{"$ref":"#/$defs/l%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, `"l40":{"type":"integer"}`)
	fan, err := Parse(json.RawMessage(`{"$ref":"#/$defs/l0","$defs":{` + strings.Join(defs, ",") + `}}`))
	if err != nil {
		t.Fatal(err)
	}
	fan.Effective(fan.Root()) // returns: bounded by MaxMergeVisits
}

// FuzzParse: any bytes parse or fail, never panic, and every subschema is
// found at its own location.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"$ref":"#/$defs/x","$defs":{"x":{"$ref":"#/$defs/x"}}}`))
	f.Add([]byte(`{"$id":"https://e.com/a","properties":{"a":{"$dynamicRef":"#n"}},"$defs":{"n":{"$dynamicAnchor":"n"}}}`))
	f.Add([]byte(`{"items":[{"type":"string"}],"additionalItems":false,"dependencies":{"a":["b"],"c":{"required":["d"]}}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		d, err := Parse(json.RawMessage(raw))
		if err != nil {
			return
		}
		for _, n := range d.Nodes() {
			if d.At(n.Loc) == nil {
				t.Fatalf("node at %q not found there", n.Loc)
			}
			d.Effective(n)
			d.Target(n)
		}
	})
}

// TestMergeLeavesSharedNodesAlone: merging into a copy of a node never
// writes into the node's own slices (Docs are shared by every reader of
// a compiled schema).
func TestMergeLeavesSharedNodesAlone(t *testing.T) {
	d, err := Parse(json.RawMessage(`{"properties":{"a":{"type":"string"}},"allOf":[{"properties":{"a":{"minLength":1}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	root := d.Root()
	before := root.Props[0].Schema
	cp := *root
	Merge(&cp, root.AllOf[0])
	if root.Props[0].Schema != before {
		t.Errorf("Merge rewrote the shared node's property %+v", root.Props[0].Schema)
	}
	if cp.Props[0].Schema == before || len(cp.Props[0].Schema.AllOf) != 2 {
		t.Errorf("the copy did not get both schemas: %+v", cp.Props[0].Schema)
	}
}

// TestEffectiveRemembersOnlyTheDocsNodes: a reader's copies of nodes are
// merged but not remembered, so a shared Doc does not grow per keystroke.
func TestEffectiveRemembersOnlyTheDocsNodes(t *testing.T) {
	d, err := Parse(json.RawMessage(`{"$ref":"#/$defs/a","$defs":{"a":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	d.Effective(d.Root())
	for range 100 {
		cp := *d.Root()
		if e := d.Effective(&cp); !slices.Equal(e.Types, []string{"string"}) {
			t.Fatalf("copy merged to %+v", e)
		}
	}
	if len(d.merged) != 1 {
		t.Errorf("%d merged entries, want 1 (the root)", len(d.merged))
	}
}

// TestMergeKeepsOrderAndMergesNames: properties keep dst's order, then
// src's new ones in theirs; a name in both gets both schemas; a required
// name is listed once.
func TestMergeKeepsOrderAndMergesNames(t *testing.T) {
	d, err := Parse(json.RawMessage(`{"properties":{"b":{"type":"string"},"a":{}},"required":["a","b"],
		"allOf":[{"properties":{"c":{},"a":{"minLength":1},"d":{}},"required":["b","c","c"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	e := d.Effective(d.Root())
	var names []string
	for _, p := range e.Props {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []string{"b", "a", "c", "d"}) || !slices.Equal(e.Required, []string{"a", "b", "c"}) {
		t.Errorf("properties %v, required %v", names, e.Required)
	}
	if a := e.Props[1].Schema; len(a.AllOf) != 2 {
		t.Errorf("a merged to %+v, want an allOf of both", a)
	}
}

// allOfChain is a hostile author's 100 KB request schema under every
// compile bound: a chain of links $defs, each an object of props string
// properties of its own and an allOf of the next, and roots properties
// each referring to the first (3,700 subschemas, 183,000 expanded).
func allOfChain(links, props, roots int) json.RawMessage {
	defs := map[string]any{}
	for i := range links {
		p := map[string]any{}
		for j := range props {
			p[fmt.Sprintf("d%dp%d", i, j)] = map[string]any{"type": "string"}
		}
		def := map[string]any{"type": "object", "properties": p}
		if i+1 < links {
			def["allOf"] = []any{map[string]any{"$ref": fmt.Sprintf("#/$defs/d%d", i+1)}}
		}
		defs[fmt.Sprintf("d%d", i)] = def
	}
	rp := map[string]any{}
	for i := range roots {
		rp[fmt.Sprintf("r%d", i)] = map[string]any{"$ref": "#/$defs/d0"}
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "$defs": defs, "properties": rp})
	return b
}

// TestEffectiveMergesAChainOnce: every link of a chain is merged once
// and remembered, so the properties referring to its head share it; in a
// cycle each schema keeps its own keywords first.
func TestEffectiveMergesAChainOnce(t *testing.T) {
	d, err := Parse(allOfChain(30, 60, 50)) // 60 references: under MaxRefChain
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range d.Root().Props {
		if e := d.Effective(p.Schema); len(e.Props) != 1800 {
			t.Fatalf("%s merged to %d properties, want 1800", p.Name, len(e.Props))
		}
	}
	if len(d.merged) != 2*(30-1)+50 {
		t.Errorf("%d merged entries, want 108 (each link but the last and its allOf's one entry, each property)", len(d.merged))
	}
	head := d.At("/$defs/d0")
	if d.Effective(d.Root().Props[0].Schema).Props[0].Schema != d.Effective(head).Props[0].Schema {
		t.Error("a property's merge does not share its target's")
	}

	c, err := Parse(json.RawMessage(`{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}],"required":["a"]},
		"b":{"allOf":[{"$ref":"#/$defs/a"}],"required":["b"]}},"$ref":"#/$defs/a"}`))
	if err != nil {
		t.Fatal(err)
	}
	if e := c.Effective(c.Root()); !slices.Equal(e.Required, []string{"a", "b"}) {
		t.Errorf("cycle merged to %v", e.Required)
	}
	if e := c.Effective(c.At("/$defs/b")); !slices.Equal(e.Required, []string{"b", "a"}) {
		t.Errorf("b merged to %v, want its own first", e.Required)
	}
}

// BenchmarkEffectiveAllOfChain: every property of allOfChain merged, as
// the lint, the form and `modbay check` do (`modbay list` took 30 s of
// it at first discovery; Merge cloned the properties once per name and
// each property re-merged the chain). 0.2 s for the whole lint after.
func BenchmarkEffectiveAllOfChain(b *testing.B) {
	raw := allOfChain(60, 60, 50)
	for b.Loop() {
		d, err := Parse(raw)
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range d.Nodes() {
			d.Effective(n)
		}
	}
}
