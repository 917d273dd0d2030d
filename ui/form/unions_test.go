package form_test

import (
	"slices"
	"strings"
	"testing"

	modschema "modbay/schema"
	"modbay/ui/form"
)

// The findings of branches not chosen stay with them.

// notionParent is Notion's page parent as its API describes it: a oneOf
// of objects told apart by the property each requires.
const notionParent = `{"type":"object","properties":{"parent":{"oneOf":[
	{"type":"object","properties":{"page_id":{"type":"string","format":"uuid"}},"required":["page_id"],"additionalProperties":true},
	{"type":"object","properties":{"type":{"const":"database_id"},"database_id":{"type":"string","format":"uuid"}},"required":["database_id"],"additionalProperties":true}]}},
	"required":["parent"]}`

// mentions reports the first problem (at a field or the root) naming word.
func mentions(p form.Problems, word string) string {
	for _, l := range p.Lines() {
		if strings.Contains(l, word) {
			return l
		}
	}
	return ""
}

func TestChosenPageIDBranchShowsNoDatabaseIDProblem(t *testing.T) {
	f := build(t, notionParent)
	u := node(t, f, "/parent")
	if u.Kind != form.KindUnion || u.Variant != 0 {
		t.Fatalf("parent is %s, variant %d", u.Kind, u.Variant)
	}
	if got := []string{u.Variants[0].Label, u.Variants[1].Label}; !slices.Equal(got, []string{"object {page_id}", "type = database_id"}) {
		t.Fatalf("labels %q", got)
	}
	for _, text := range []string{"", "not-a-uuid", "0f7d3b4e-9a51-4c1e-8a6f-2b9d5e3c7a10"} {
		set(f, node(t, f, "/parent/page_id"), text)
		_, p := f.Check(modschema.ValidateInput)
		if l := mentions(p, "database_id"); l != "" {
			t.Errorf("page_id %q: a problem of the branch not chosen is shown: %q", text, l)
		}
	}
}

// A union of required sets has no picker: one problem at the object says
// what to set, no field is "required" for a branch nobody chose.
func TestUnionOfRequiredSetsIsOneProblem(t *testing.T) {
	f := build(t, `{"type":"object","properties":{"parent":{"type":"object",
		"properties":{"page_id":{"type":"string"},"database_id":{"type":"string"}},
		"oneOf":[{"required":["page_id"]},{"required":["database_id"]}]}},"required":["parent"]}`)
	_, p := f.Check(modschema.ValidateInput)
	if got := p.At("/parent"); !slices.Equal(got, []string{"set one of: page_id or database_id"}) {
		t.Fatalf("at /parent: %q (all %q)", got, p.Lines())
	}
	if p.At("/parent/database_id") != nil || p.At("/parent/page_id") != nil || p.Count() != 1 || p.Hidden != 0 {
		t.Fatalf("problems %q, hidden %d", p.Lines(), p.Hidden)
	}
	set(f, node(t, f, "/parent/page_id"), "p")
	if _, p := f.Check(modschema.ValidateInput); p.Count() != 0 {
		t.Fatalf("with page_id: %q", p.Lines())
	}
	set(f, node(t, f, "/parent/database_id"), "d")
	if _, p := f.Check(modschema.ValidateInput); !slices.Equal(p.At("/parent"), []string{"fits alternatives 1 and 2 at once: it must fit exactly one"}) {
		t.Fatalf("with both: %q", p.Lines())
	}

	// anyOf, sets of two names, at the root.
	f = build(t, `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"}},
		"anyOf":[{"required":["a","b"]},{"required":["c"]}]}`)
	if _, p := f.Check(modschema.ValidateInput); !slices.Equal(p.Root, []string{"set at least one of: a and b or c"}) || p.Count() != 1 {
		t.Fatalf("root anyOf: %q", p.Lines())
	}
}

// Branch labels are unique and say something: never "string" or "any"
// twice; a branch's own description is kept for the view.
func TestBranchLabelsAreUniqueAndMeaningful(t *testing.T) {
	f := build(t, `{"type":"object","properties":{"x":{"description":"what to find","anyOf":[
		{"type":"string","description":"a user's login name"},
		{"type":"string","format":"uuid"},
		{"type":"string","maxLength":3},
		{"type":"string"},
		{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"}}},
		{"title":"Workspace","type":"object","properties":{"kind":{"const":"workspace"}}},
		{"type":"object","properties":{"kind":{"const":"team"}}},
		{},{}]}},"required":["x"]}`)
	u := node(t, f, "/x")
	var labels []string
	for _, v := range u.Variants {
		labels = append(labels, v.Label)
	}
	want := []string{"string (a user's login name)", "uuid", "string (≤3 chars)", "string", "object {id, name}", "Workspace", "kind = team", "any #1", "any #2"}
	if !slices.Equal(labels, want) {
		t.Fatalf("labels\n%q\nwant\n%q", labels, want)
	}
	if u.Variants[0].Description != "a user's login name" || u.Variants[1].Description != "" {
		t.Fatalf("descriptions %q, %q", u.Variants[0].Description, u.Variants[1].Description)
	}
}
