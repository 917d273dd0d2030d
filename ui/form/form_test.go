package form_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"modbay/modproto"
	"modbay/schema"
	"modbay/ui/form"
	"modbay/ui/internal/uitest"
)

func build(t *testing.T, schema string) *form.Form {
	t.Helper()
	f, err := form.Build(json.RawMessage(schema))
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return f
}

// node returns the node at ptr, failing when there is none exactly there.
func node(t *testing.T, f *form.Form, ptr string) *form.Node {
	t.Helper()
	n, rest := f.Find(ptr)
	if rest != "" {
		t.Fatalf("no node at %q (stopped at %q, rest %q)", ptr, n.Pointer(), rest)
	}
	return n
}

// value returns the form's value, failing on local problems.
func value(t *testing.T, f *form.Form) string {
	t.Helper()
	v, local := f.Value()
	if len(local) > 0 {
		t.Fatalf("value %s has problems %v", v, local)
	}
	return string(v)
}

// set types text into a text node and records the edit.
func set(f *form.Form, n *form.Node, text string) {
	n.Text = text
	f.Changed(n)
}

func check(t *testing.T, f *form.Form) form.Problems {
	t.Helper()
	_, p := f.Check(schema.ValidateInput)
	return p
}

func TestPropertyOrderIsTheAuthors(t *testing.T) {
	f := build(t, `{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"string"},"mid":{"type":"string"}}}`)
	var names []string
	for _, n := range f.Fields() {
		names = append(names, n.Name)
	}
	if !slices.Equal(names, []string{"zeta", "alpha", "mid"}) {
		t.Fatalf("order %v", names)
	}
}

func TestDraftsHonouredAndGuessed(t *testing.T) {
	// Draft-07 tuple without $schema: only valid as draft-07.
	f := build(t, `{"type":"object","properties":{"pair":{"type":"array","items":[{"type":"string"},{"type":"integer"}],"additionalItems":false}},"required":["pair"]}`)
	if f.Draft != form.Draft7 || !strings.Contains(string(f.Schema), form.Draft7) {
		t.Fatalf("draft %q schema %s", f.Draft, f.Schema)
	}
	pair := node(t, f, "/pair")
	if len(pair.Children) != 2 || pair.Children[0].Kind != form.KindString || pair.Children[1].Kind != form.KindInteger {
		t.Fatalf("tuple items %+v", pair.Children)
	}
	set(f, pair.Children[0], "a")
	set(f, pair.Children[1], "7")
	if got := value(t, f); got != `{"pair":["a",7]}` {
		t.Fatalf("value %s", got)
	}
	if p := check(t, f); p.Count() != 0 {
		t.Fatalf("problems %v", p)
	}
	if f.Add(pair) != nil {
		t.Fatal("a closed tuple took a third item")
	}
	// Declared 2019-09 with dependentRequired.
	f = build(t, `{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"dependentRequired":{"a":["b"]}}`)
	if f.Draft != form.Draft2019 {
		t.Fatalf("draft %q", f.Draft)
	}
	// 2020-12 prefixItems.
	f = build(t, `{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"boolean"}],"items":{"type":"number"}}},"required":["p"]}`)
	p := node(t, f, "/p")
	if len(p.Children) != 1 || p.Children[0].Kind != form.KindBoolean {
		t.Fatalf("prefixItems %+v", p.Children)
	}
	if it := f.Add(p); it == nil || it.Kind != form.KindNumber {
		t.Fatalf("item past the tuple: %+v", it)
	}
}

func TestNumbersStayAsTyped(t *testing.T) {
	f := build(t, `{"type":"object","properties":{"x":{"type":"number"},"big":{"type":"integer"},"whole":{"type":"integer"}}}`)
	set(f, node(t, f, "/x"), "1.0")
	set(f, node(t, f, "/big"), "9007199254740993")
	set(f, node(t, f, "/whole"), "2.0")
	want := `{"x":1.0,"big":9007199254740993,"whole":2.0}`
	// Sent as typed; an integer past 2^53 is flagged
	// for the person to confirm, never rounded.
	if got, local := f.Value(); string(got) != want || len(local) != 1 || len(local["/big"]) != 1 {
		t.Fatalf("value %s %v, want %s with a problem at /big", got, local, want)
	}
	if err := f.SetValue(json.RawMessage(want)); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.Value(); string(got) != want {
		t.Fatalf("after load: %s", got)
	}
	set(f, node(t, f, "/whole"), "2.5")
	if _, local := f.Value(); local["/whole"][0] != form.MsgNotInteger {
		t.Fatalf("2.5 as integer: %v", local)
	}
}

func TestConstraintHints(t *testing.T) {
	f := build(t, `{"type":"object","properties":{
	  "n":{"type":"number","exclusiveMinimum":0,"maximum":20,"multipleOf":0.5},
	  "s":{"type":"string","minLength":1,"maxLength":280,"pattern":"^[a-z]+$"},
	  "d":{"type":"string","format":"date"},
	  "l":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":3,"uniqueItems":true}}}`)
	for ptr, want := range map[string]string{
		"/n": "> 0 · ≤ 20 · multiple of 0.5",
		"/s": "1–280 chars · pattern ^[a-z]+$",
		"/d": "",
		"/l": "1–3 items · unique",
	} {
		if got := node(t, f, ptr).Hint(); got != want {
			t.Errorf("%s hint %q, want %q", ptr, got, want)
		}
	}
	// The shape modbay checks a format against is modbay's note, not the
	// schema's hint.
	if got := node(t, f, "/d").Notes(); len(got) != 1 || got[0] != "modbay checks date (YYYY-MM-DD)" {
		t.Errorf("/d notes %q", got)
	}
	set(f, node(t, f, "/n"), "0")
	if p := check(t, f); len(p.At("/n")) == 0 {
		t.Fatalf("exclusiveMinimum not checked: %v", p)
	}
}

func TestFormatsChecked(t *testing.T) {
	cases := []struct{ format, good, bad string }{
		{"date", "2024-02-29", "2023-02-29"},
		{"date-time", "2024-02-29T12:00:00Z", "2024-02-29 12:00"},
		{"time", "12:30:00+02:00", "25:00:00Z"},
		{"email", "ada@example.com", "ada@"},
		{"uri", "https://example.com/a", "example.com"},
		{"uuid", "123e4567-e89b-12d3-a456-426614174000", "123e4567"},
		{"hostname", "api.example.com", "-bad-.com"},
		{"ipv4", "203.0.113.7", "203.0.113"},
		{"ipv6", "2001:db8::1", "203.0.113.7"},
	}
	for _, c := range cases {
		f := build(t, `{"type":"object","properties":{"v":{"type":"string","format":"`+c.format+`"}}}`)
		v := node(t, f, "/v")
		set(f, v, c.good)
		if _, local := f.Value(); len(local) != 0 {
			t.Errorf("%s: %q refused: %v", c.format, c.good, local)
		}
		set(f, v, c.bad)
		if _, local := f.Value(); len(local["/v"]) != 1 || !strings.Contains(local["/v"][0], c.format) {
			t.Errorf("%s: %q accepted: %v", c.format, c.bad, local)
		}
	}
}

func TestEnumsAndConstsAsSelects(t *testing.T) {
	f := build(t, `{"type":"object","properties":{
	  "pet":{"type":"string","enum":["p1","p2"],"enumNames":["Cats","Dogs"]},
	  "hero":{"type":"string","oneOf":[{"const":"h1","title":"Superman"},{"const":"h2","title":"Wonder Woman"}]},
	  "kind":{"const":"video"},
	  "opt":{"enum":["a","b"],"default":"a"}},"required":["kind"]}`)
	pet, hero, kind, opt := node(t, f, "/pet"), node(t, f, "/hero"), node(t, f, "/kind"), node(t, f, "/opt")
	if pet.Kind != form.KindEnum || pet.Options[1].Label != "Dogs" || hero.Kind != form.KindEnum || hero.Options[1].Label != "Wonder Woman" {
		t.Fatalf("labels %+v %+v", pet.Options, hero.Options)
	}
	if kind.Choice != 0 {
		t.Fatal("a required const is not preselected")
	}
	hero.Cycle(1)
	hero.Cycle(1)
	// An optional enum's default is shown, not sent (form.DefaultRule).
	if got := value(t, f); got != `{"hero":"h2","kind":"video"}` || f.DefaultNotSent(opt) != "a" {
		t.Fatalf("value %s", got)
	}
	// An optional enum can be cleared: cycling passes through none.
	opt.Cycle(1)
	opt.Cycle(1)
	opt.Cycle(1)
	if opt.Choice != -1 {
		t.Fatalf("optional enum cycled to %d, want none", opt.Choice)
	}
	hero.Cycle(1)
	f.Clear(hero)
	if got := value(t, f); got != `{"kind":"video"}` {
		t.Fatalf("after clearing: %s", got)
	}
}

func TestArrayOfEnumsIsMultiSelect(t *testing.T) {
	f := build(t, `{"type":"object","properties":{
	  "inst":{"type":"array","items":{"type":"string","enum":["Guitar","Piano","Drums"]},"minItems":1},
	  "fish":{"type":"array","items":{"anyOf":[{"const":"f1","title":"Tuna"},{"const":"f2","title":"Salmon"}]}}}}`)
	inst, fish := node(t, f, "/inst"), node(t, f, "/fish")
	if inst.Kind != form.KindMulti || fish.Kind != form.KindMulti || fish.Options[1].Label != "Salmon" {
		t.Fatalf("kinds %v %v", inst.Kind, fish.Kind)
	}
	inst.Checked[2], inst.Checked[0] = true, true
	f.Changed(inst)
	if got := value(t, f); got != `{"inst":["Guitar","Drums"]}` {
		t.Fatalf("value %s", got)
	}
}

func TestNestedSectionsAtAnyDepth(t *testing.T) {
	f := build(t, `{"type":"object","properties":{
	  "a":{"type":"object","properties":{"b":{"type":"object","properties":{"c":{"type":"object","properties":{"leaf":{"type":"string"}},"required":["leaf"]}},"required":["c"]}}}}}`)
	a := node(t, f, "/a")
	if a.Kind != form.KindObject || !a.Collapsed {
		t.Fatal("an optional section should start collapsed")
	}
	if got := value(t, f); got != `{}` {
		t.Fatalf("an untouched optional section was sent: %s", got)
	}
	f.Expand(a)
	f.Expand(node(t, f, "/a/b"))
	rows := f.Rows()
	if len(rows) != 4 || rows[3].Depth != 3 || rows[3].Node.Name != "leaf" || !rows[3].Node.Required {
		t.Fatalf("rows %d", len(rows))
	}
	set(f, node(t, f, "/a/b/c/leaf"), "x")
	if got := value(t, f); got != `{"a":{"b":{"c":{"leaf":"x"}}}}` {
		t.Fatalf("value %s", got)
	}
	f.ToggleCollapsed(a)
	if len(f.Rows()) != 1 {
		t.Fatal("collapsing hid nothing")
	}
}

func TestListsAddRemoveReorder(t *testing.T) {
	f := build(t, `{"type":"object","properties":{
	  "tags":{"type":"array","items":{"type":"string"},"maxItems":3,"uniqueItems":true},
	  "edits":{"type":"array","minItems":1,"items":{"type":"object","properties":{"old":{"type":"string"},"new":{"type":"string"}},"required":["old","new"]}}},
	  "required":["edits"]}`)
	edits := node(t, f, "/edits")
	if len(edits.Children) != 1 {
		t.Fatalf("minItems not seeded: %d items", len(edits.Children))
	}
	set(f, node(t, f, "/edits/0/old"), "a")
	set(f, node(t, f, "/edits/0/new"), "b")
	tags := node(t, f, "/tags")
	for _, s := range []string{"x", "y", "z"} {
		set(f, f.Add(tags), s)
	}
	if f.Add(tags) != nil {
		t.Fatal("maxItems 3 took a fourth")
	}
	f.Move(tags.Children[2], -1)
	f.Move(tags.Children[1], -1)
	f.Remove(tags.Children[1])
	if got := value(t, f); got != `{"tags":["z","y"],"edits":[{"old":"a","new":"b"}]}` {
		t.Fatalf("value %s", got)
	}
	set(f, tags.Children[1], "z")
	if p := check(t, f); len(p.At("/tags")) == 0 {
		t.Fatalf("uniqueItems not reported at the list: %v", p)
	}
	f.Clear(tags)
	if got := value(t, f); got != `{"edits":[{"old":"a","new":"b"}]}` {
		t.Fatalf("a cleared optional list was sent: %s", got)
	}
}

func TestMapsAsKeyValueEditors(t *testing.T) {
	f := build(t, `{"type":"object","properties":{
	  "env":{"type":"object","additionalProperties":{"type":"string","minLength":1},"propertyNames":{"pattern":"^[A-Z_]+$"}},
	  "mixed":{"type":"object","patternProperties":{"^n_":{"type":"integer"},"^s_":{"type":"string"}},"additionalProperties":false}}}`)
	env, mixed := node(t, f, "/env"), node(t, f, "/mixed")
	if !env.HasMap || !mixed.HasMap {
		t.Fatal("maps take no entries")
	}
	e := f.Add(env)
	e.Key = "HOME"
	f.Rekey(e)
	set(f, e.Children[0], "/root")
	n := f.Add(mixed)
	n.Key = "n_count"
	f.Rekey(n)
	if n.Children[0].Kind != form.KindInteger {
		t.Fatalf("patternProperties value kind %v", n.Children[0].Kind)
	}
	set(f, n.Children[0], "3")
	if got := value(t, f); got != `{"env":{"HOME":"/root"},"mixed":{"n_count":3}}` {
		t.Fatalf("value %s", got)
	}
	e.Key = "bad key"
	f.Rekey(e)
	if p := check(t, f); p.Count() == 0 {
		t.Fatal("propertyNames not checked")
	}
}

func TestUnionsPickVariants(t *testing.T) {
	f := build(t, `{"type":"object","properties":{
	  "parent":{"oneOf":[
	    {"type":"object","properties":{"type":{"const":"page_id"},"page_id":{"type":"string"}},"required":["type","page_id"]},
	    {"type":"object","properties":{"type":{"const":"workspace"}},"required":["type"]}]},
	  "content":{"anyOf":[{"type":"object","properties":{"new_str":{"type":"string"}},"required":["new_str"]},{"type":"string"}]},
	  "titled":{"oneOf":[{"title":"By name","type":"string"},{"title":"By id","type":"integer"}]}},
	  "required":["parent"]}`)
	parent, content, titled := node(t, f, "/parent"), node(t, f, "/content"), node(t, f, "/titled")
	labels := func(n *form.Node) (out []string) {
		for _, v := range n.Variants {
			out = append(out, v.Label)
		}
		return out
	}
	if got := labels(parent); !slices.Equal(got, []string{"type = page_id", "type = workspace"}) {
		t.Errorf("const discriminator labels %q", got)
	}
	if got := labels(content); !slices.Equal(got, []string{"object {new_str}", "string"}) {
		t.Errorf("summary labels %q", got)
	}
	if got := labels(titled); !slices.Equal(got, []string{"By name", "By id"}) {
		t.Errorf("title labels %q", got)
	}
	if parent.Variant != 0 || content.Variant != -1 {
		t.Fatalf("variants %d %d: a required union starts on its first, an optional one on none", parent.Variant, content.Variant)
	}
	set(f, node(t, f, "/parent/page_id"), "abc")
	f.SetVariant(parent, 1)
	f.SetVariant(parent, 0) // switching back keeps what was typed
	f.SetVariant(content, 1)
	set(f, content.Children[0], "plain")
	if got := value(t, f); got != `{"parent":{"type":"page_id","page_id":"abc"},"content":"plain"}` {
		t.Fatalf("value %s", got)
	}
	if p := check(t, f); p.Count() != 0 {
		t.Fatalf("problems %v", p)
	}
	// Loading a value picks the variant it matches.
	if err := f.SetValue(json.RawMessage(`{"parent":{"type":"workspace"},"titled":5}`)); err != nil {
		t.Fatal(err)
	}
	if node(t, f, "/parent").Variant != 1 || node(t, f, "/titled").Variant != 1 {
		t.Fatal("loaded value did not pick its variants")
	}
}

func TestRootUnion(t *testing.T) {
	f := build(t, `{"oneOf":[{"type":"object","title":"Search","properties":{"q":{"type":"string"}},"required":["q"]},{"type":"object","title":"Fetch","properties":{"id":{"type":"integer"}},"required":["id"]}]}`)
	if f.Root.Kind != form.KindUnion || len(f.Root.Variants) != 2 {
		t.Fatalf("root kind %v", f.Root.Kind)
	}
	f.SetVariant(f.Root, 1)
	set(f, node(t, f, "/id"), "4")
	if got := value(t, f); got != `{"id":4}` {
		t.Fatalf("value %s", got)
	}
	if p := check(t, f); p.Count() != 0 {
		t.Fatalf("problems %v", p)
	}
}

func TestAllOfAndRefsMerged(t *testing.T) {
	f := build(t, `{"definitions":{"named":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}},
	  "$defs":{"aged":{"properties":{"age":{"type":"integer","minimum":0}}}},
	  "allOf":[{"$ref":"#/definitions/named"},{"$ref":"#/$defs/aged"}]}`)
	var names []string
	for _, n := range f.Fields() {
		names = append(names, n.Name)
	}
	if !slices.Equal(names, []string{"name", "age"}) || !f.Fields()[0].Required {
		t.Fatalf("merged fields %v", names)
	}
}

func TestRecursiveSchemaExpandsOnDemand(t *testing.T) {
	f := build(t, `{"$ref":"#/$defs/node","$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"next":{"$ref":"#/$defs/node"}}}}}`)
	next := node(t, f, "/next")
	if next.Kind != form.KindObject {
		t.Fatalf("next kind %v", next.Kind)
	}
	depth := 0
	for n := next; n != nil && depth < 5; depth++ {
		f.Expand(n)
		set(f, node(t, f, n.Pointer()+"/name"), "n")
		n, _ = f.Find(n.Pointer() + "/next")
	}
	if got := value(t, f); !strings.HasPrefix(got, `{"next":{"name":"n","next":{"name":"n","next":`) {
		t.Fatalf("value %s", got)
	}
}

func TestIfThenElseAppliesLive(t *testing.T) {
	f := build(t, `{"type":"object","properties":{"method":{"enum":["create","update"]},"title":{"type":"string"}},
	  "required":["method"],
	  "if":{"properties":{"method":{"const":"update"}},"required":["method"]},
	  "then":{"properties":{"issue":{"type":"integer"}},"required":["issue"]},
	  "else":{"required":["title"]}}`)
	method := node(t, f, "/method")
	method.Choice = 0
	f.Changed(method)
	if !node(t, f, "/title").Required {
		t.Fatal("else did not require title")
	}
	method.Choice = 1
	f.Changed(method)
	issue, _ := f.Find("/issue")
	if issue.Name != "issue" || !issue.Required || node(t, f, "/title").Required {
		t.Fatal("then did not apply")
	}
	set(f, issue, "12")
	if p := check(t, f); p.Count() != 0 {
		t.Fatalf("problems %v", p)
	}
	method.Choice = 0
	f.Changed(method)
	if n, _ := f.Find("/issue"); n.Name == "issue" {
		t.Fatal("then's field stayed after the if stopped holding")
	}
}

func TestDependentRequiredAndSchemasApplyLive(t *testing.T) {
	f := build(t, `{"type":"object","properties":{"object":{"type":"string"},"kind":{"type":"string"},"card":{"type":"string"}},
	  "dependentRequired":{"object":["kind"]},
	  "dependentSchemas":{"card":{"properties":{"cvv":{"type":"string"}},"required":["cvv"]}}}`)
	if node(t, f, "/kind").Required {
		t.Fatal("kind required before object has a value")
	}
	set(f, node(t, f, "/object"), "vs")
	if !node(t, f, "/kind").Required {
		t.Fatal("dependentRequired did not apply")
	}
	set(f, node(t, f, "/card"), "4242")
	if cvv := node(t, f, "/cvv"); !cvv.Required {
		t.Fatal("dependentSchemas did not add a required cvv")
	}
}

func TestNullableWithExplicitToggle(t *testing.T) {
	f := build(t, `{"type":"object","properties":{
	  "a":{"type":["string","null"]},
	  "b":{"anyOf":[{"type":"integer"},{"type":"null"}],"default":null},
	  "c":{"anyOf":[{"type":"string","enum":["x","y"]},{"type":"null"}]}}}`)
	a, b, c := node(t, f, "/a"), node(t, f, "/b"), node(t, f, "/c")
	if !a.Nullable || !b.Nullable || !c.Nullable || a.Kind != form.KindString || b.Kind != form.KindInteger || c.Kind != form.KindEnum {
		t.Fatalf("nullable kinds %v %v %v", a.Kind, b.Kind, c.Kind)
	}
	if got := value(t, f); got != `{}` {
		t.Fatalf("an optional null default was sent: %s", got)
	}
	set(f, a, "kept")
	f.ToggleNull(a)
	f.ToggleNull(b)
	if got := value(t, f); got != `{"a":null,"b":null}` {
		t.Fatalf("value %s", got)
	}
	f.ToggleNull(a)
	if got := value(t, f); got != `{"a":"kept","b":null}` {
		t.Fatalf("toggling null back lost the text: %s", got)
	}
}

func TestAnnotations(t *testing.T) {
	f := build(t, `{"type":"object","properties":{
	  "seed":{"type":"integer","default":42},
	  "hint":{"type":"string","examples":["e.g. this"]},
	  "id":{"type":"string","readOnly":true,"default":"server"},
	  "old":{"type":"string","deprecated":true,"description":"Use new."}}}`)
	if seed := node(t, f, "/seed"); seed.Text != "" || f.DefaultNotSent(seed) != "42" || node(t, f, "/hint").Placeholder != "e.g. this" {
		t.Fatal("default or example not used")
	}
	if !node(t, f, "/id").ReadOnly || !node(t, f, "/old").Deprecated || node(t, f, "/old").Schema.Description != "Use new." {
		t.Fatal("annotations lost")
	}
	if got := value(t, f); got != `{}` {
		t.Fatalf("value %s (readOnly must not be sent, examples are no values, an optional default is the module's)", got)
	}
}

func TestSetValueKeepsEverything(t *testing.T) {
	f := build(t, `{"type":"object","properties":{"n":{"type":"integer"},"mode":{"enum":["a","b"]}},"additionalProperties":false}`)
	// "7" is a string that reads as a number: a number field would turn
	// it into 7, so it is kept as JSON ("seven" goes into the field as
	// text: TestTextThatIsNotANumberIsKept).
	in := `{"n":"7","mode":"zzz","extra":{"k":[1,2]}}`
	if err := f.SetValue(json.RawMessage(in)); err != nil {
		t.Fatal(err)
	}
	if n := node(t, f, "/n"); !n.Raw {
		t.Fatal("a string in an integer field was not kept as JSON")
	}
	if got := value(t, f); got != in {
		t.Fatalf("round trip %s, want %s", got, in)
	}
	p := check(t, f)
	if p.Count() == 0 {
		t.Fatal("the kept invalid values were not reported")
	}
	if err := f.SetValue(json.RawMessage(`{"n": 1,`)); err == nil || !strings.Contains(err.Error(), form.MsgBadJSON) {
		t.Fatalf("invalid JSON: %v", err)
	}
	if got := value(t, f); got != in {
		t.Fatalf("invalid JSON changed the form: %s", got)
	}
}

func TestJSONFieldTextIsNeverReescaped(t *testing.T) {
	f := build(t, `{"type":"object","properties":{"any":{}}}`)
	a := node(t, f, "/any")
	typed := "{\"q\": \"say \\\"hi\\\"\\n\"}"
	set(f, a, typed)
	if a.Text != typed {
		t.Fatalf("text changed: %q", a.Text)
	}
	if got := value(t, f); got != `{"any":{"q":"say \"hi\"\n"}}` {
		t.Fatalf("value %s", got)
	}
	set(f, a, `{"q": `)
	if _, local := f.Value(); len(local["/any"]) != 1 || !strings.HasPrefix(local["/any"][0], form.MsgBadJSON) {
		t.Fatalf("invalid JSON silently dropped: %v", local)
	}
}

func TestErrorsPlacedAtTheirField(t *testing.T) {
	f := build(t, `{"type":"object","properties":{"a":{"type":"object","properties":{"list":{"type":"array","items":{"type":"object","properties":{"x":{"type":"integer","maximum":3}},"required":["x"]}}}}}}`)
	if err := f.SetValue(json.RawMessage(`{"a":{"list":[{"x":9},{}]}}`)); err != nil {
		t.Fatal(err)
	}
	p := f.Place(modproto.ValidationErrors{
		{Path: "/a/list/0/x", Detail: "must be <= 3"},
		{Path: "/a/list/1", Detail: "missing property 'x'"},
		{Path: "", Detail: "global"},
	})
	if got := p.At("/a/list/0/x"); len(got) != 1 || got[0] != "must be <= 3" {
		t.Errorf("nested %v", p.Fields)
	}
	if got := p.At("/a/list/1/x"); len(got) != 1 || got[0] != form.MsgRequired {
		t.Errorf("missing %v", p.Fields)
	}
	if len(p.Root) != 1 {
		t.Errorf("root %v", p.Root)
	}
}

func TestWholeRequestSchemaFillsTheRoot(t *testing.T) {
	raw := uitest.Schema(t, "whole-request")
	if !modproto.IsWholeRequestSchema(raw) {
		t.Fatal("the whole-request fixture is not detected as whole-request")
	}
	f, err := form.Build(raw)
	if err != nil {
		t.Fatal(err)
	}
	set(f, node(t, f, "/tool"), "media_probe")
	in := node(t, f, "/input")
	e := f.Add(in)
	e.Key = "input_path"
	f.Rekey(e)
	e.Children[0].Text = `"/tmp/a.mp4"`
	f.Changed(e.Children[0])
	v := value(t, f)
	input, extra, err := modproto.SplitWholeRequest(json.RawMessage(v))
	if err != nil {
		t.Fatal(err)
	}
	if string(input) != `{"input_path":"/tmp/a.mp4"}` || string(extra["tool"]) != `"media_probe"` {
		t.Fatalf("input %s extra %v (value %s)", input, extra, v)
	}
}
