package schemalint

import (
	"encoding/json"
	"testing"
)

// FuzzLint: linting a module's request schema never panics and ends
// within the bounds of package schema, however hostile the schema.
func FuzzLint(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","required":["a","b"],"properties":{"a":{"type":"string","minLength":5,"maxLength":2}},"additionalProperties":false}`,
		`{"properties":{"n":{"multipleOf":1e10000000,"minimum":1e9999999,"maximum":-1e9999999}}}`,
		`{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"},{"$ref":"#/$defs/b"}]},"b":{"anyOf":[{"$ref":"#/$defs/a"},{"type":"string"}]}},"$ref":"#/$defs/a"}`,
		`{"properties":{"x":{"pattern":"^(?:[a-z]?){1000}(?:[a-z]?){1000}$","enum":["a",1e400]}}}`,
		`{"if":{"$ref":"#"},"then":{"$ref":"#/then"},"else":{"$dynamicRef":"#x"},"$dynamicAnchor":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, fd := range Lint("fuzz.request/v1", json.RawMessage(raw)) {
			if fd.Path != "" && fd.Path[0] != '/' {
				t.Fatalf("finding path %q is not a JSON pointer", fd.Path)
			}
		}
	})
}
