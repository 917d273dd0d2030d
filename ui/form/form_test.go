package form

import (
	"encoding/json"
	"reflect"
	"testing"

	"modbay/modproto"
)

const kitchenSink = `{
  "type": "object",
  "properties": {
    "zeta":   {"type": "string", "description": "last letter first"},
    "count":  {"type": "integer", "default": 3},
    "ratio":  {"type": "number"},
    "loud":   {"type": "boolean", "default": true},
    "quiet":  {"type": "boolean"},
    "mode":   {"enum": ["fast", "slow", 7], "default": "slow"},
    "pick":   {"type": "string", "enum": ["a", "b"]},
    "fixed":  {"const": "v1"},
    "opts":   {"type": "object", "properties": {"x": {"type": "integer"}}},
    "tags":   {"type": "array", "items": {"type": "string"}},
    "maybe":  {"type": ["string", "null"]},
    "either": {"type": ["string", "integer"]},
    "alpha":  {"type": "string", "default": "hi"}
  },
  "required": ["zeta", "pick"]
}`

func mustBuild(t *testing.T, schema string) *Form {
	t.Helper()
	f, err := Build(json.RawMessage(schema))
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return f
}

func TestBuildKindsOrderDefaults(t *testing.T) {
	f := mustBuild(t, kitchenSink)
	type want struct {
		name     string
		kind     Kind
		required bool
		text     string
		bool     BoolState
		choice   int
	}
	wants := []want{
		{"zeta", KindString, true, "", BoolUnset, -1},
		{"count", KindInteger, false, "3", BoolUnset, -1},
		{"ratio", KindNumber, false, "", BoolUnset, -1},
		{"loud", KindBoolean, false, "", BoolTrue, -1},
		{"quiet", KindBoolean, false, "", BoolUnset, -1},
		{"mode", KindEnum, false, "", BoolUnset, 1},
		{"pick", KindEnum, true, "", BoolUnset, -1},
		{"fixed", KindEnum, false, "", BoolUnset, -1},
		{"opts", KindJSON, false, "", BoolUnset, -1},
		{"tags", KindJSON, false, "", BoolUnset, -1},
		{"maybe", KindString, false, "", BoolUnset, -1},
		{"either", KindJSON, false, "", BoolUnset, -1},
		{"alpha", KindString, false, "hi", BoolUnset, -1},
	}
	if len(f.Fields) != len(wants) {
		t.Fatalf("got %d fields, want %d", len(f.Fields), len(wants))
	}
	for i, w := range wants {
		g := f.Fields[i]
		got := want{g.Name, g.Kind, g.Required, g.Text, g.Bool, g.Choice}
		if got != w {
			t.Errorf("field %d: got %+v, want %+v", i, got, w)
		}
	}
	if got := f.Fields[5].Labels; !reflect.DeepEqual(got, []string{"fast", "slow", "7"}) {
		t.Errorf("enum labels = %q", got)
	}
}

func TestPropertyOrderKeepsAuthorOrder(t *testing.T) {
	got, err := PropertyOrder(json.RawMessage(`{"title":"x","properties":{"b":{"properties":{"z":{}}},"a":{},"c":{},"a":{}},"required":["a"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"b", "a", "c"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("order = %q, want %q", got, want)
	}
}

func TestValue(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		edit   func(f *Form)
		want   string
		errs   modproto.ValidationErrors
	}{
		{
			name:   "string and integer",
			schema: `{"type":"object","properties":{"name":{"type":"string"},"repeat":{"type":"integer"}},"required":["name"]}`,
			edit:   func(f *Form) { f.Fields[0].Text = "hello"; f.Fields[1].Text = "3" },
			want:   `{"name":"hello","repeat":3}`,
		},
		{
			name:   "optional empty fields are omitted",
			schema: `{"type":"object","properties":{"name":{"type":"string"},"repeat":{"type":"integer"},"on":{"type":"boolean"},"e":{"enum":["x"]},"j":{"type":"object"}}}`,
			edit:   func(f *Form) {},
			want:   `{}`,
		},
		{
			name:   "required empty string is a field problem and not sent",
			schema: `{"type":"object","properties":{"name":{"type":"string"},"n":{"type":"number"}},"required":["name"]}`,
			edit:   func(f *Form) { f.Fields[1].Text = "-1.5e3" },
			want:   `{"n":-1.5e3}`,
			errs:   modproto.ValidationErrors{{Path: "/name", Detail: MsgRequired}},
		},
		{
			name:   "big integers stay exact",
			schema: `{"type":"object","properties":{"id":{"type":"integer"},"x":{"type":"number"}}}`,
			edit: func(f *Form) {
				f.Fields[0].Text = "123456789012345678901234567890"
				f.Fields[1].Text = "9007199254740993"
			},
			want: `{"id":123456789012345678901234567890,"x":9007199254740993}`,
		},
		{
			name:   "numeric checks",
			schema: `{"type":"object","properties":{"i":{"type":"integer"},"n":{"type":"number"}}}`,
			edit:   func(f *Form) { f.Fields[0].Text = "1.5"; f.Fields[1].Text = "abc" },
			want:   `{}`,
			errs:   modproto.ValidationErrors{{Path: "/i", Detail: MsgNotInteger}, {Path: "/n", Detail: MsgNotNumber}},
		},
		{
			name:   "booleans, enums and defaults",
			schema: `{"type":"object","properties":{"b":{"type":"boolean","default":false},"r":{"type":"boolean"},"e":{"enum":["a",{"k":1}],"default":{"k":1}}},"required":["r"]}`,
			edit:   func(f *Form) {},
			want:   `{"b":false,"r":false,"e":{"k":1}}`,
		},
		{
			name:   "nested values as JSON text",
			schema: `{"type":"object","properties":{"o":{"type":"object"},"a":{"type":"array"}}}`,
			edit:   func(f *Form) { f.Fields[0].Text = "{ \"k\" : [1, 2] }"; f.Fields[1].Text = "[1," },
			want:   `{"o":{"k":[1,2]}}`,
			errs:   modproto.ValidationErrors{{Path: "/a", Detail: MsgBadJSON + ": unexpected end of JSON input"}},
		},
		{
			name:   "no schema is one raw JSON field",
			schema: ``,
			edit:   func(f *Form) { f.Fields[0].Text = `{"anything": [true]}` },
			want:   `{"anything":[true]}`,
		},
		{
			name:   "schema without properties is raw, default prefilled",
			schema: `{"type":"object","default":{"q":1}}`,
			edit:   func(f *Form) {},
			want:   `{"q":1}`,
		},
		{
			name:   "whole-request schemas are forms too",
			schema: `{"type":"object","properties":{"tool":{"type":"string"},"input":{"type":"object"}}}`,
			edit:   func(f *Form) { f.Fields[0].Text = "t"; f.Fields[1].Text = `{"a":1}` },
			want:   `{"tool":"t","input":{"a":1}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustBuild(t, tt.schema)
			tt.edit(f)
			got, errs := f.Value()
			if string(got) != tt.want {
				t.Errorf("value = %s, want %s", got, tt.want)
			}
			if !reflect.DeepEqual(errs, tt.errs) {
				t.Errorf("errs = %#v, want %#v", errs, tt.errs)
			}
		})
	}
}

func TestToggleAndCycle(t *testing.T) {
	f := mustBuild(t, `{"properties":{"opt":{"type":"boolean"},"req":{"type":"boolean"},"e":{"enum":["a","b"]},"r":{"enum":["a","b"]}},"required":["req","r"]}`)
	opt, req, e, r := &f.Fields[0], &f.Fields[1], &f.Fields[2], &f.Fields[3]
	var got []BoolState
	for range 3 {
		opt.Toggle()
		got = append(got, opt.Bool)
	}
	if want := []BoolState{BoolTrue, BoolFalse, BoolUnset}; !reflect.DeepEqual(got, want) {
		t.Errorf("optional toggle = %v, want %v", got, want)
	}
	req.Toggle()
	req.Toggle()
	if req.Bool != BoolFalse {
		t.Errorf("required toggle twice = %v, want false", req.Bool)
	}
	var choices []int
	for range 3 {
		e.Cycle(1)
		choices = append(choices, e.Choice)
	}
	if want := []int{0, 1, -1}; !reflect.DeepEqual(choices, want) {
		t.Errorf("optional cycle = %v, want %v", choices, want)
	}
	r.Cycle(-1)
	if r.Choice != 1 {
		t.Errorf("required cycle back from none = %d, want 1", r.Choice)
	}
}

func TestPlace(t *testing.T) {
	f := mustBuild(t, `{"properties":{"name":{"type":"string"},"a/b":{"type":"object"},"n":{"type":"integer"}},"required":["name","n"]}`)
	p := f.Place(modproto.ValidationErrors{
		{Path: "/name", Detail: "minLength: got 0, want 1"},
		{Path: "/a~1b/x/0", Detail: "got string, want integer"},
		{Path: "", Detail: "missing properties 'name', 'n'"},
		{Path: "", Detail: "additional properties 'zz' not allowed"},
		{Path: "/zz", Detail: "unexpected"},
	})
	want := Problems{
		Fields: map[int][]string{
			0: {"minLength: got 0, want 1", MsgRequired},
			1: {"/x/0: got string, want integer"},
			2: {MsgRequired},
		},
		Root: []string{"additional properties 'zz' not allowed", "/zz: unexpected"},
	}
	if !reflect.DeepEqual(p, want) {
		t.Fatalf("Place = %#v\nwant   %#v", p, want)
	}
	if p.Count() != 6 {
		t.Errorf("Count = %d, want 6", p.Count())
	}
}

func TestCheckPrefersFieldsOwnProblems(t *testing.T) {
	f := mustBuild(t, `{"properties":{"name":{"type":"string"},"n":{"type":"integer"}},"required":["name"]}`)
	f.Fields[1].Text = "x"
	var sent string
	validate := func(schema, input json.RawMessage) (modproto.ValidationErrors, error) {
		sent = string(input)
		return modproto.ValidationErrors{{Path: "", Detail: "missing property 'name'"}, {Path: "/n", Detail: "ignored: the field has its own"}}, nil
	}
	_, p := f.Check(validate)
	if sent != `{}` {
		t.Errorf("validator got %s, want {}", sent)
	}
	want := map[int][]string{0: {MsgRequired}, 1: {MsgNotInteger}}
	if !reflect.DeepEqual(p.Fields, want) || len(p.Root) != 0 {
		t.Errorf("problems = %#v", p)
	}
}

func TestRawFormPutsEverythingOnItsField(t *testing.T) {
	f := mustBuild(t, `{"type":"array"}`)
	p := f.Place(modproto.ValidationErrors{{Path: "", Detail: "got object, want array"}, {Path: "/0", Detail: "bad"}})
	if want := map[int][]string{0: {"got object, want array", "/0: bad"}}; !reflect.DeepEqual(p.Fields, want) {
		t.Errorf("raw problems = %#v", p)
	}
}

func TestBuildRejectsNonObjectSchema(t *testing.T) {
	if _, err := Build(json.RawMessage(`[1]`)); err == nil {
		t.Fatal("want an error for a non-object schema")
	}
}
