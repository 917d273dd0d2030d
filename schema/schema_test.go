package schema

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestValidateInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, schema, input string
		paths               []string // want violation paths; nil = valid
		compileErr          bool
	}{
		{"valid", `{"type":"object","properties":{"a":{"type":"string"}}}`, `{"a":"x"}`, nil, false},
		{"nested pointer", `{"type":"object","properties":{"a/b":{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer"}}}}}}`,
			`{"a/b":[{"n":1},{"n":"x"}]}`, []string{"/a~1b/1/n"}, false},
		{"root type", `{"type":"object"}`, `[]`, []string{""}, false},
		{"two leaves", `{"type":"object","required":["a","b"],"properties":{"c":{"maximum":3}}}`, `{"c":4}`, []string{"", "/c"}, false},
		{"default draft is 2020-12", `{"prefixItems":[{"type":"string"}]}`, `[1]`, []string{"/0"}, false},
		{"draft 7 by $schema", `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}]}`, `[1]`, []string{"/0"}, false},
		{"draft 7 tuple without $schema read as draft 7", `{"items":[{"type":"string"}]}`, `[1]`, []string{"/0"}, false},
		{"2020-12 by $schema refuses a draft 7 tuple", `{"$schema":"https://json-schema.org/draft/2020-12/schema","items":[{"type":"string"}]}`, `[1]`, nil, true},
		{"2019-09", `{"$schema":"https://json-schema.org/draft/2019-09/schema","dependentRequired":{"a":["b"]}}`, `{"a":1}`, []string{""}, false},
		{"local $ref", `{"$defs":{"n":{"type":"integer"}},"properties":{"x":{"$ref":"#/$defs/n"}}}`, `{"x":"s"}`, []string{"/x"}, false},
		{"remote $ref refused", `{"$ref":"https://example.com/schema.json"}`, `{}`, nil, true},
		{"file $ref refused", `{"$ref":"file:///etc/passwd"}`, `{}`, nil, true},
		{"null required", `{"type":"object","required":null,"properties":{"a":{"const":null}}}`, `{"a":1}`, []string{"/a"}, false},
		{"not a schema", `{"type":12}`, `{}`, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := ValidateInput(json.RawMessage(c.schema), json.RawMessage(c.input))
			if c.compileErr {
				if err == nil {
					t.Fatalf("compiled; violations %v", v)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range v {
				got = append(got, e.Path)
				if e.Detail == "" {
					t.Errorf("empty detail at %q", e.Path)
				}
			}
			if !slices.Equal(got, c.paths) {
				t.Errorf("paths %q, want %q (%v)", got, c.paths, v)
			}
		})
	}
	// The cache: the same schema bytes compile once.
	s := json.RawMessage(`{"type":"string","minLength":2}`)
	a, _ := Compile(s)
	b, _ := Compile(s)
	if a == nil || a != b {
		t.Error("schema compiled twice")
	}
}

// TestValidateInputDraft07WithoutSchema: a schema that declares no $schema
// and only compiles as draft-07 (an items array with additionalItems) is
// read as draft-07 rather than refused.
func TestValidateInputDraft07WithoutSchema(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"pair":{"type":"array","items":[{"type":"string"},{"type":"integer"}],"additionalItems":false}}}`)
	errs, err := ValidateInput(schema, json.RawMessage(`{"pair":["a",1,true]}`))
	if err != nil {
		t.Fatalf("draft-07 schema refused: %v", err)
	}
	if len(errs) != 1 || errs[0].Path != "/pair" {
		t.Fatalf("want one violation at /pair (additionalItems), got %v", errs)
	}
}

// TestCompileDrafts: the draft a schema is read as, and the handle shared
// by every spelling of the same document.
func TestCompileDrafts(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, schema, draft string
		fallback            bool
	}{
		{"declared draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, Draft7, false},
		{"declared 2019-09", `{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object"}`, Draft2019, false},
		{"none is 2020-12", `{"type":"object","properties":{"draftsA":{}}}`, Draft2020, false},
		{"none, draft-07 only", `{"properties":{"draftsB":{"items":[{"type":"string"}],"additionalItems":false}}}`, Draft7, true},
		{"boolean", `true`, Draft2020, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := Compile(json.RawMessage(" \n" + c.schema + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			if h.Draft() != c.draft || h.Fallback() != c.fallback {
				t.Errorf("draft %q fallback %v, want %q %v", h.Draft(), h.Fallback(), c.draft, c.fallback)
			}
			if string(h.Source()) != c.schema {
				t.Errorf("source %s", h.Source())
			}
			want := c.schema
			if c.fallback {
				want = `{"$schema":"` + Draft7 + `",` + c.schema[1:]
			}
			if string(h.Declared()) != want {
				t.Errorf("declared %s", h.Declared())
			}
			for _, again := range []json.RawMessage{json.RawMessage(c.schema), h.Declared()} {
				if h2, err := Compile(again); err != nil || h2 != h {
					t.Errorf("%s: another handle (%v)", again, err)
				}
			}
		})
	}
}

// TestCompileOnce: the same document, however it is spaced, is compiled
// once; a different one is compiled anew.
func TestCompileOnce(t *testing.T) {
	doc := `{"type":"object","properties":{"compileOnce":{"type":"integer"}}}`
	before := Compiles()
	a, err := Compile(json.RawMessage(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{doc, "  " + doc, doc + "\n\t"} {
		if b, _ := Compile(json.RawMessage(s)); b != a {
			t.Errorf("%q: another handle", s)
		}
		if _, err := ValidateInput(json.RawMessage(s), json.RawMessage(`{"compileOnce":1}`)); err != nil {
			t.Error(err)
		}
	}
	if n := Compiles() - before; n != 1 {
		t.Errorf("%d compiles, want 1", n)
	}
	if _, err := Compile(json.RawMessage(`{"type":"object","properties":{"compileOnce":{"type":"string"}}}`)); err != nil {
		t.Fatal(err)
	}
	if n := Compiles() - before; n != 2 {
		t.Errorf("%d compiles after a second document, want 2", n)
	}
}

// TestCompileErrors: why a schema cannot be used, said without the
// internal URL it is compiled under.
func TestCompileErrors(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		`{"type":`:                              "schema is not JSON",
		`{"type":12}`:                           "the schema",
		`{"$ref":"https://example.com/s.json"}`: "modbay never loads a schema",
		`{"properties":{"a":{"$ref":"#/$defs/missing"}}}`: "the schema",
	}
	for doc, want := range cases {
		_, err := Compile(json.RawMessage(doc))
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "modbay:///") {
			t.Errorf("%s: %v, want it to say %q and name no URL", doc, err, want)
		}
	}
}

// TestValidateInputNotJSON: an input that is not JSON is the input's
// fault (ErrInputNotJSON), not the schema's; an empty input reads as {}.
func TestValidateInputNotJSON(t *testing.T) {
	t.Parallel()
	s := json.RawMessage(`{"type":"object","required":["notJSON"]}`)
	if _, err := ValidateInput(s, json.RawMessage(`{"a":`)); !errors.Is(err, ErrInputNotJSON) {
		t.Errorf("err %v, want ErrInputNotJSON", err)
	}
	v, err := ValidateInput(s, nil)
	if err != nil || len(v) != 1 || v[0].Path != "" || !strings.Contains(v[0].Detail, "notJSON") {
		t.Errorf("empty input: %v %v", v, err)
	}
}

// TestValidateReusesLastInput: judging a value again gives the same
// findings, and a different value is judged anew.
func TestValidateReusesLastInput(t *testing.T) {
	t.Parallel()
	h, err := Compile(json.RawMessage(`{"type":"object","properties":{"reuse":{"type":"integer","maximum":3}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		in   string
		want int
	}{{`{"reuse":9}`, 1}, {`{"reuse":9}`, 1}, {`{"reuse":1}`, 0}, {`{"reuse":"x"}`, 1}, {`{"reuse":1}`, 0}} {
		v, err := h.Validate(json.RawMessage(c.in))
		if err != nil || len(v) != c.want {
			t.Errorf("%d %s: %v %v, want %d findings", i, c.in, v, err, c.want)
		}
	}
	if _, err := h.Validate(json.RawMessage(`nope`)); !errors.Is(err, ErrInputNotJSON) {
		t.Errorf("not JSON: %v", err)
	}
	if _, err := h.Validate(json.RawMessage(`nope`)); !errors.Is(err, ErrInputNotJSON) {
		t.Errorf("not JSON again: %v", err)
	}
}

// TestMatches: a subschema judged by location, as the form reads an "if"
// or a branch; a location that is no schema matches nothing.
func TestMatches(t *testing.T) {
	t.Parallel()
	h, err := Compile(json.RawMessage(`{"properties":{"m":{"oneOf":[{"type":"string"},{"type":"integer","minimum":0}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		loc, value string
		want       bool
	}{
		{"/properties/m/oneOf/0", `"x"`, true},
		{"/properties/m/oneOf/0", `1`, false},
		{"/properties/m/oneOf/1", `1`, true},
		{"/properties/m/oneOf/1", `-1`, false},
		{"/properties/m/oneOf/1", `not json`, false},
		{"", `{"m":2}`, true},
		{"", `{"m":-2}`, false},
		{"/properties/nothing", `1`, false},
	}
	for _, c := range cases {
		if got := h.Matches(c.loc, json.RawMessage(c.value)); got != c.want {
			t.Errorf("Matches(%q, %s) = %v", c.loc, c.value, got)
		}
	}
	var none *Compiled
	if none.Matches("", json.RawMessage(`1`)) {
		t.Error("a nil handle matched")
	}
}

// TestOtherBranches: the findings of the union branches the caller does
// not keep, as Validate reports them.
func TestOtherBranches(t *testing.T) {
	t.Parallel()
	h, err := Compile(json.RawMessage(`{"type":"object","properties":{"shape":{"oneOf":[
		{"type":"object","required":["radius"]},
		{"type":"object","required":["side"]}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	value := json.RawMessage(`{"shape":{}}`)
	all, err := h.Validate(value)
	if err != nil || len(all) != 2 {
		t.Fatalf("findings %v %v", all, err)
	}
	var seen []Union
	hidden := h.OtherBranches(value, func(u Union) func(string) bool {
		seen = append(seen, u)
		return func(loc string) bool { return loc == "/properties/shape/oneOf/0" }
	})
	want := Union{Instance: "/shape", Branches: []string{"/properties/shape/oneOf/0", "/properties/shape/oneOf/1"}}
	if len(seen) != 1 || seen[0].Instance != want.Instance || !slices.Equal(seen[0].Branches, want.Branches) {
		t.Errorf("unions %+v, want %+v", seen, want)
	}
	if len(hidden) != 1 || hidden[0].Path != "/shape" || !strings.Contains(hidden[0].Detail, "side") {
		t.Errorf("hidden %v, want the Square branch's finding", hidden)
	}
	if got := h.OtherBranches(value, func(Union) func(string) bool { return nil }); len(got) != 0 {
		t.Errorf("keeping all hid %v", got)
	}
	if got := h.OtherBranches(json.RawMessage(`{"shape":{"side":1}}`), nil); got != nil {
		t.Errorf("a valid value hid %v", got)
	}
}

// TestDropNullKeywords: nulls in keywords that hold arrays, objects or
// schema maps are dropped throughout; data keywords keep their nulls.
func TestDropNullKeywords(t *testing.T) {
	t.Parallel()
	var doc any
	if err := json.Unmarshal([]byte(`{"required":null,"properties":{"a":{"oneOf":null,"const":null,"default":{"required":null}}},
		"allOf":[{"$defs":null}],"enum":[null]}`), &doc); err != nil {
		t.Fatal(err)
	}
	DropNullKeywords(doc)
	got, _ := json.Marshal(doc)
	want := `{"allOf":[{}],"enum":[null],"properties":{"a":{"const":null,"default":{"required":null}}}}`
	if string(got) != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

// TestPointer: RFC 6901 escaping of reference tokens.
func TestPointer(t *testing.T) {
	t.Parallel()
	if got := Pointer([]string{"a/b", "~c", "0"}); got != "/a~1b/~0c/0" {
		t.Errorf("got %q", got)
	}
	if got := Pointer(nil); got != "" {
		t.Errorf("root %q", got)
	}
}

// TestConcurrentUse: one handle serves goroutines at once (run with
// -race): the runner plans while the form validates.
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	h, err := Compile(json.RawMessage(`{"properties":{"conc":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	for g := range 4 {
		go func() {
			ok := true
			for i := range 50 {
				in := json.RawMessage(`{"conc":` + strconv.Itoa(i%3+g) + `}`)
				if i%2 == 0 {
					in = json.RawMessage(`{"conc":true}`)
				}
				v, err := h.Validate(in)
				ok = ok && err == nil && (len(v) > 0) == (i%2 == 0)
				h.Matches("/properties/conc/anyOf/1", in)
			}
			done <- ok
		}()
	}
	for range 4 {
		if !<-done {
			t.Error("a goroutine got a wrong verdict")
		}
	}
}
