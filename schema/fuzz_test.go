package schema

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostileSeeds are schemas that hung or crashed the validator before its
// bounds (limits.go), for every fuzz target on the schema path.
var hostileSeeds = []string{
	`{"properties":{"n":{"multipleOf":1e10000000,"minimum":-1e-99999}}}`,
	`{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"},{"$ref":"#/$defs/b"}]},"b":{"allOf":[{"$ref":"#/$defs/c"},{"$ref":"#/$defs/c"}]},"c":{"anyOf":[{"$ref":"#/$defs/a"},{"type":"string"}]}},"$ref":"#/$defs/a"}`,
	`{"properties":{"x":{"pattern":"^(?:[a-z]?){1000}(?:[a-z]?){1000}$","default":"aaaaaaaaaaaaaaaaaaaaaaaaaaaa"}}}`,
	`{"patternProperties":{"(?:(?:a*)*)*$":{"const":1e308}},"propertyNames":{"pattern":"(((((a)))))"}}`,
	`{"if":{"$ref":"#"},"then":{"$ref":"#"},"else":{"not":{"$ref":"#"}}}`,
}

// FuzzValidateInput: a module's schema and a person's input are untrusted;
// validating never panics, and every violation has a JSON pointer path.
func FuzzValidateInput(f *testing.F) {
	f.Add([]byte(`{"type":"object","required":["a"],"properties":{"a":{"type":"string"}}}`), []byte(`{"a":1}`))
	f.Add([]byte(`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}]}`), []byte(`[1,2]`))
	f.Add([]byte(`{"$ref":"#/$defs/x","$defs":{"x":{"$ref":"#/$defs/x"}}}`), []byte(`{}`))
	f.Add([]byte(`{"required":null,"properties":{"x":{"pattern":"^a+$"}}}`), []byte(`{"x":"b"}`))
	for _, s := range hostileSeeds {
		f.Add([]byte(s), []byte(`{"n":1e10000000,"x":["a","b"]}`))
	}
	f.Fuzz(func(t *testing.T, schema, input []byte) {
		v, err := ValidateInput(json.RawMessage(schema), json.RawMessage(input))
		if err != nil {
			return
		}
		for _, e := range v {
			if e.Path != "" && e.Path[0] != '/' {
				t.Fatalf("path %q is not a JSON pointer", e.Path)
			}
		}
	})
}

// FuzzMaskEchoes: whatever a module writes, masking never panics, a JSON
// value stays JSON, no secret is left in the bytes as written or with
// its escapes decoded, and EchoPrefixLen never exceeds the bytes.
func FuzzMaskEchoes(f *testing.F) {
	for _, s := range []string{`{"a":"p\u00e4ss9"}`, `p\u00`, `\ud83d\ude00`, `["päss\u0039"]`, `\\u0070äss9`, `"\"`} {
		f.Add([]byte(s), "päss9")
	}
	f.Add([]byte(`{"n":4.8213e4} total 48213.0 -4.8213E+04 ‹masked: x /a/48213›`), "48213")
	f.Add([]byte(`"Zq7X\U000e0001wK" 1.275e+01`), "12.75")
	f.Fuzz(func(t *testing.T, b []byte, secret string) {
		if len([]rune(secret)) < MinEchoLen || strings.ContainsAny(secret, "‹›") || !utf8.ValidString(secret) {
			return
		}
		echoes := []Echo{{Pointer: "/s", Why: "writeOnly", Value: secret}}
		many := append([]Echo{}, echoes...) // past manyEchoes: one matcher
		for i := range manyEchoes {
			many = append(many, Echo{Pointer: "/f", Why: "writeOnly", Value: strings.Repeat("Q", 5+i)})
		}
		sortEchoes(many)
		for _, set := range [][]Echo{echoes, many} {
			out, _ := MaskEchoes(b, set)
			for _, v := range append([]escView{{text: out}}, escapeLevels(out)...) {
				if bytes.Contains(v.text, []byte(secret)) {
					t.Fatalf("MaskEchoes(%q) with %d echoes = %q still holds %q", b, len(set), out, secret)
				}
			}
		}
		if json.Valid(b) {
			if j, _ := MaskEchoesJSON(b, echoes); !json.Valid(j) {
				t.Fatalf("MaskEchoesJSON(%s) = %s, not JSON", b, j)
			}
		}
		if k := EchoPrefixLen(b, echoes); k < 0 || k > len(b) {
			t.Fatalf("EchoPrefixLen(%q) = %d", b, k)
		}
	})
}
