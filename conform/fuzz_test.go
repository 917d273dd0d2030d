package conform

import (
	"encoding/json"
	"testing"

	"modbay/schema"
)

// FuzzGenerate: generating conformance inputs from a module's request
// schema never panics, and every case it calls valid validates.
func FuzzGenerate(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","required":["a"],"properties":{"a":{"type":"integer","minimum":3,"maximum":9},"b":{"enum":["x","y"]}}}`,
		`{"properties":{"n":{"type":"number","multipleOf":1e-9999,"maximum":1e308}}}`,
		`{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"},{"$ref":"#/$defs/b"}]},"b":{"anyOf":[{"$ref":"#/$defs/a"},{"type":"string"}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}`,
		`{"properties":{"x":{"type":"string","pattern":"^(?:[a-z]?){1000}z$","minLength":900}}}`,
		`{"required":["a"],"oneOf":[{"properties":{"a":{"const":1}}},{"properties":{"a":{"const":1.0}}}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		h, err := schema.Compile(json.RawMessage(raw))
		if err != nil {
			return
		}
		for _, c := range Generate(h) {
			if c.Skip != "" || !c.Valid {
				continue
			}
			if v, err := h.Validate(c.Input); err == nil && len(v) > 0 {
				t.Fatalf("case %s (%s) called valid, but: %v", c.Name, c.Input, v)
			}
		}
	})
}

// TestHugeCountsSkipped: a schema asking for a billion items or
// characters is a skipped case, never a billion-item input.
func TestHugeCountsSkipped(t *testing.T) {
	h, err := schema.Compile(json.RawMessage(`{"type":"object","required":["xs","s"],"properties":{"xs":{"type":"array","minItems":1000000000},"s":{"type":"string","minLength":2000000000,"maxLength":2000000001},"t":{"type":"string","pattern":"^a+$","minLength":2000000000}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Generate(h) {
		if len(c.Input) > 1<<22 {
			t.Fatalf("case %s made %d bytes", c.Name, len(c.Input))
		}
	}
}
