package form_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	modschema "modbay/schema"
	"modbay/ui/form"
	"modbay/ui/internal/uitest"
)

// Regression tests for defects found by QA: what a person typed is never
// lost, and problems show at the variant the person picked.

func TestTextThatIsNotANumberIsKept(t *testing.T) {
	const schema = `{"type":"object","properties":{"n":{"type":"integer"},"x":{"type":"number"}}}`
	tests := []struct {
		name, field, typed string
		want               string // the value sent
		problem            string // the field's own problem
	}{
		{"letters in an integer", "/n", "abc", `{"n":"abc"}`, form.MsgNotInteger},
		{"letters in a number", "/x", "abc", `{"x":"abc"}`, form.MsgNotNumber},
		{"leading zero is not JSON", "/x", "007", `{"x":"007"}`, form.MsgNotNumber},
		{"fraction in an integer", "/n", "2.5", `{"n":2.5}`, form.MsgNotInteger},
		{"1.0 stays", "/x", "1.0", `{"x":1.0}`, ""},
		{"1e3 stays", "/x", "1e3", `{"x":1e3}`, ""},
		{"1e3 is an integer", "/n", "1e3", `{"n":1e3}`, ""},
		{"beyond 2^53", "/n", "9007199254740993", `{"n":9007199254740993}`, modschema.NumberProblem("9007199254740993", true)},
		{"beyond a double", "/x", "1e999", `{"x":1e999}`, modschema.NumberProblem("1e999", false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := build(t, schema)
			set(f, node(t, f, tt.field), tt.typed)
			v, p := f.Check(modschema.ValidateInput)
			if string(v) != tt.want {
				t.Fatalf("value %s, want %s", v, tt.want)
			}
			got := p.At(tt.field)
			if tt.problem == "" {
				if p.Count() != 0 {
					t.Fatalf("problems %+v", p)
				}
			} else if !slices.Equal(got, []string{tt.problem}) {
				t.Fatalf("problems at %s: %q, want only %q", tt.field, got, tt.problem)
			}
			// JSON mode and back: the field shows the same text, with the
			// same problem, and sends the same value.
			if err := f.SetValue(v); err != nil {
				t.Fatal(err)
			}
			n := node(t, f, tt.field)
			if n.Text != tt.typed || n.Raw {
				t.Fatalf("after the round trip the field shows %q (raw %v), want %q", n.Text, n.Raw, tt.typed)
			}
			if v2, p2 := f.Check(modschema.ValidateInput); string(v2) != tt.want || !slices.Equal(p2.At(tt.field), got) {
				t.Fatalf("after the round trip: %s %q", v2, p2.At(tt.field))
			}
		})
	}
	// A string that reads as a number is a string: loading it into a
	// number field never makes it a number.
	f := build(t, schema)
	if err := f.SetValue(json.RawMessage(`{"x":"5"}`)); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.Value(); string(got) != `{"x":"5"}` || !node(t, f, "/x").Raw {
		t.Fatalf(`"5" loaded into a number field: %s`, got)
	}
}

func TestNumberVariantTextKeptInArrayOfObjects(t *testing.T) {
	f := build(t, string(uitest.Schema(t, "ticket-update")))
	list := node(t, f, "/custom")
	it := f.Add(list)
	set(f, node(t, f, "/custom/0/field"), "f1")
	val := node(t, f, "/custom/0/value")
	f.SetVariant(val, slices.IndexFunc(val.Variants, func(v form.Variant) bool { return v.Type == "number" }))
	set(f, val.Children[0], "007")
	want := `"custom":[{"field":"f1","value":"007"}]`
	v, p := f.Check(modschema.ValidateInput)
	if !strings.Contains(string(v), want) {
		t.Fatalf("value %s lacks %s", v, want)
	}
	if got := p.At("/custom/0/value"); !slices.Equal(got, []string{form.MsgNotNumber}) {
		t.Fatalf("problems %q", got)
	}
	_ = it
	if err := f.SetValue(v); err != nil {
		t.Fatal(err)
	}
	val = node(t, f, "/custom/0/value")
	if val.Variants[val.Variant].Type != "number" || val.Children[0].Text != "007" {
		t.Fatalf("after JSON mode: variant %q text %q", val.Variants[val.Variant].Label, val.Children[0].Text)
	}
	if v2, _ := f.Value(); string(v2) != string(v) {
		t.Fatalf("after JSON mode: %s, want %s", v2, v)
	}
	// A value changed in JSON mode picks its variant afresh.
	if err := f.SetValue(json.RawMessage(`{"action":"edit","project":"KIT","custom":[{"field":"f1","value":"008"}]}`)); err != nil {
		t.Fatal(err)
	}
	if val := node(t, f, "/custom/0/value"); val.Variants[val.Variant].Type != "string" {
		t.Fatalf("a new value stayed in the old variant %q", val.Variants[val.Variant].Label)
	}
}

func TestOnlyTheChosenVariantsErrorsArePlaced(t *testing.T) {
	for _, tt := range []struct{ name, schema string }{
		{"inline oneOf", `{"type":"object","properties":{"shape":{"oneOf":[
		  {"title":"Circle","type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number"}},"required":["kind","r"]},
		  {"title":"Square","type":"object","properties":{"kind":{"const":"square"},"side":{"type":"number"}},"required":["kind","side"]}]}},"required":["shape"]}`},
		{"anyOf of refs, nullable", `{"type":"object","$defs":{
		  "C":{"title":"Circle","type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number"}},"required":["kind","r"]},
		  "S":{"title":"Square","type":"object","properties":{"kind":{"const":"square"},"side":{"type":"number"}},"required":["kind","side"]}},
		  "properties":{"shape":{"anyOf":[{"$ref":"#/$defs/C"},{"$ref":"#/$defs/S"},{"type":"null"}]}},"required":["shape"]}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := build(t, tt.schema)
			shape := node(t, f, "/shape")
			if shape.Variant != 0 || shape.Variants[0].Label != "Circle" {
				t.Fatalf("variant %d", shape.Variant)
			}
			_, p := f.Check(modschema.ValidateInput)
			for ptr, msgs := range p.Fields {
				for _, m := range msgs {
					if strings.Contains(m, "side") || strings.Contains(m, "square") || strings.Contains(m, "null") {
						t.Errorf("%s: %q is about a variant not chosen", ptr, m)
					}
				}
			}
			if got := p.At("/shape/r"); !slices.Equal(got, []string{form.MsgRequired}) {
				t.Errorf("chosen variant's finding: %q (all %+v)", got, p)
			}
			if p.Hidden == 0 || p.Count() != 1+p.Hidden {
				t.Errorf("the summary must count the validator's findings: count %d hidden %d", p.Count(), p.Hidden)
			}
			set(f, node(t, f, "/shape/r"), "2")
			if _, p := f.Check(modschema.ValidateInput); p.Count() != 0 {
				t.Errorf("valid circle: %+v", p)
			}
		})
	}
}

func TestReadOnlyDefaultShownAndKept(t *testing.T) {
	f := build(t, `{"type":"object","properties":{
	  "id":{"type":"string","readOnly":true,"default":"server"},
	  "v":{"type":"integer","readOnly":true,"const":3},
	  "name":{"type":"string"}}}`)
	id, v := node(t, f, "/id"), node(t, f, "/v")
	if id.ReadOnlyText() != "server" || v.ReadOnlyText() != "3" {
		t.Fatalf("read-only shows %q and %q", id.ReadOnlyText(), v.ReadOnlyText())
	}
	// A value typed for it in JSON mode is held by the field, shown and
	// sent: neither dropped nor shown twice (as an entry beside it).
	if err := f.SetValue(json.RawMessage(`{"name":"a","id":"mine"}`)); err != nil {
		t.Fatal(err)
	}
	id = node(t, f, "/id")
	if !id.ReadOnly || id.ReadOnlyText() != "mine" || len(f.Root.Entries) != 0 {
		t.Fatalf("after a load the read-only field shows %q (read-only %v), entries %d", id.ReadOnlyText(), id.ReadOnly, len(f.Root.Entries))
	}
	if got := value(t, f); got != `{"id":"mine","name":"a"}` {
		t.Fatalf("value %s", got)
	}
}

func TestHintsCountInTheRightNumber(t *testing.T) {
	f := build(t, `{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"},"minItems":1},"s":{"type":"string","maxLength":1},"m":{"type":"array","items":{"type":"string"},"maxItems":2}}}`)
	for ptr, want := range map[string]string{"/l": "≥ 1 item", "/s": "≤ 1 char", "/m": "≤ 2 items"} {
		if got := node(t, f, ptr).Hint(); got != want {
			t.Errorf("%s hint %q, want %q", ptr, got, want)
		}
	}
}

func TestCompileErrorDoesNotShowTheInternalURL(t *testing.T) {
	for _, schema := range []string{`{"type":"objectx"}`, `{"$ref":"#/nope"}`} {
		_, err := form.Build(json.RawMessage(schema))
		if err == nil {
			t.Fatalf("%s compiled", schema)
		}
		if msg := err.Error(); strings.Contains(msg, "modbay:") || !strings.Contains(msg, "the schema") {
			t.Errorf("%s: error %q names the internal URL", schema, msg)
		}
	}
}
