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
