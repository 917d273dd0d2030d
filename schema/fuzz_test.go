package schema

import (
	"encoding/json"
	"testing"
)

// FuzzValidateInput: a module's schema and a person's input are untrusted;
// validating never panics, and every violation has a JSON pointer path.
func FuzzValidateInput(f *testing.F) {
	f.Add([]byte(`{"type":"object","required":["a"],"properties":{"a":{"type":"string"}}}`), []byte(`{"a":1}`))
	f.Add([]byte(`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}]}`), []byte(`[1,2]`))
	f.Add([]byte(`{"$ref":"#/$defs/x","$defs":{"x":{"$ref":"#/$defs/x"}}}`), []byte(`{}`))
	f.Add([]byte(`{"required":null,"properties":{"x":{"pattern":"^a+$"}}}`), []byte(`{"x":"b"}`))
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
