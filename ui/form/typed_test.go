package form_test

import (
	"encoding/json"
	"slices"
	"testing"

	modschema "modbay/schema"
	"modbay/ui/form"
)

// Regression tests: what is typed is what is sent.

// The empty string is a value, distinct from not set: loaded, it stays.
func TestEmptyStringLoadedIsKept(t *testing.T) {
	f := build(t, `{"type":"object","properties":{"v":{"type":"string"}},"required":["v"]}`)
	if err := f.SetValue(json.RawMessage(`{"v": ""}`)); err != nil {
		t.Fatal(err)
	}
	v, p := f.Check(modschema.ValidateInput)
	if string(v) != `{"v":""}` || p.Count() != 0 {
		t.Fatalf(`{"v": ""} came back as %s with %+v`, v, p)
	}
	if n := node(t, f, "/v"); !n.IsEmptyString() {
		t.Fatalf("the field does not show the empty string: %+v", n)
	}
}

// SetEmpty (the form screen's ctrl+r) sends "" from the keyboard and
// toggles back to not set; typing clears the state (the screen does).
func TestEmptyStringFromTheKeyboard(t *testing.T) {
	f := build(t, `{"type":"object","properties":{"v":{"type":"string"},"n":{"type":"integer"}}}`)
	v := node(t, f, "/v")
	if !f.SetEmpty(v) {
		t.Fatal("SetEmpty refused a string field")
	}
	if got := value(t, f); got != `{"v":""}` {
		t.Fatalf("after SetEmpty: %s", got)
	}
	f.SetEmpty(v)
	if got := value(t, f); got != `{}` {
		t.Fatalf("after a second SetEmpty (not set): %s", got)
	}
	if f.SetEmpty(node(t, f, "/n")) {
		t.Fatal("SetEmpty took an integer field")
	}
}

// A value without a required field loads back without it ("required"
// shown), never with a prefilled false, [] or {}.
func TestRequiredFieldsAbsentStayAbsent(t *testing.T) {
	f := build(t, `{"type":"object","properties":{
		"b":{"type":"boolean"},"l":{"type":"array","items":{"type":"string"}},
		"o":{"type":"object","properties":{"x":{"type":"string"}}},
		"u":{"oneOf":[{"type":"string"},{"type":"integer"}]},"z":{"type":"null"}},
		"required":["b","l","o","u","z"]}`)
	if got, _ := f.Value(); string(got) != `{"b":false,"l":[],"o":{},"z":null}` {
		t.Fatalf("a new form prefills required fields: %s", got)
	}
	if err := f.SetValue(json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	v, local := f.Value()
	if string(v) != `{}` {
		t.Fatalf("{} came back as %s", v)
	}
	for _, ptr := range []string{"/b", "/l", "/o", "/u", "/z"} {
		if !slices.Contains(local[ptr], form.MsgRequired) {
			t.Errorf("%s: %q, want required", ptr, local[ptr])
		}
	}
}

// An object lands in the object branch of an anyOf after JSON mode, even
// when the string branch held it as JSON text before.
func TestUnionValueLandsInTheBranchThatHoldsIt(t *testing.T) {
	f := build(t, `{"type":"object","properties":{"e":{"anyOf":[{"type":"string"},{"type":"object","additionalProperties":true}]}},"required":["e"]}`)
	u := node(t, f, "/e")
	if u.Variant != 0 {
		t.Fatalf("variant %d", u.Variant)
	}
	// The string branch keeps an object as JSON text (as an invalid value
	// once loaded there would).
	u.Children[0].Raw, u.Children[0].Text = true, `{"a":1}`
	f.Changed(u.Children[0])
	if got := value(t, f); got != `{"e":{"a":1}}` {
		t.Fatalf("value %s", got)
	}
	if err := f.SetValue(json.RawMessage(`{"e":{"a":1}}`)); err != nil {
		t.Fatal(err)
	}
	u = node(t, f, "/e")
	if u.Variant != 1 || u.Children[0].Raw {
		t.Fatalf("object landed in variant %d (raw %v)", u.Variant, u.Children[0].Raw)
	}
	if got := value(t, f); got != `{"e":{"a":1}}` {
		t.Fatalf("value %s", got)
	}
}

// What a branch not chosen holds survives JSON mode, and is named.
func TestDataOfBranchesNotChosenIsKeptAndNamed(t *testing.T) {
	f := build(t, `{"type":"object","properties":{"shape":{"oneOf":[
		{"title":"circle","type":"object","properties":{"r":{"type":"number"}},"required":["r"]},
		{"title":"square","type":"object","properties":{"side":{"type":"number"}},"required":["side"]}]}},"required":["shape"]}`)
	set(f, node(t, f, "/shape/r"), "2")
	u := node(t, f, "/shape")
	f.SetVariant(u, 1)
	set(f, node(t, f, "/shape/side"), "3")
	if got := f.KeptVariants(u); !slices.Equal(got, []string{"circle"}) {
		t.Fatalf("kept variants %q", got)
	}
	v := value(t, f)
	if v != `{"shape":{"side":3}}` {
		t.Fatalf("value %s", v)
	}
	if err := f.SetValue(json.RawMessage(v)); err != nil { // JSON mode and back
		t.Fatal(err)
	}
	u = node(t, f, "/shape")
	if got := f.KeptVariants(u); !slices.Equal(got, []string{"circle"}) {
		t.Fatalf("after JSON mode, kept variants %q", got)
	}
	f.SetVariant(u, 0)
	if got := value(t, f); got != `{"shape":{"r":2}}` {
		t.Fatalf("switching back to circle: %s", got)
	}
}

// Keys are never dropped: an empty key, a null where a string goes, a
// multi-select list in another order.
func TestLoadedOddValuesKept(t *testing.T) {
	f := build(t, `{"type":"object","properties":{"s":{"type":"string"},"m":{"type":"array","items":{"enum":["a","b"]}},"l":{"type":"array"}},"additionalProperties":true}`)
	for _, in := range []string{`{"":1}`, `{"s":null}`, `{"m":["b","a"]}`, `{"m":null}`, `{"l":null}`, `{"m":[]}`} {
		if err := f.SetValue(json.RawMessage(in)); err != nil {
			t.Fatal(err)
		}
		if got, _ := f.Value(); string(got) != in {
			t.Errorf("%s came back as %s", in, got)
		}
	}
}
