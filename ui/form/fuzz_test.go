package form

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modbay/schema"
)

// FuzzBuild: a module's request schema is untrusted; building its form
// and checking its value never panics (Build's recover would say so) and
// never passes the bounds unnoticed.
func FuzzBuild(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","required":["a"],"properties":{"a":{"type":"string","default":"x"},"b":{"oneOf":[{"type":"integer"},{"type":"array","items":{"$ref":"#"}}]}}}`,
		`{"properties":{"n":{"multipleOf":1e10000000}}}`,
		`{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"},{"$ref":"#/$defs/b"}]},"b":{"anyOf":[{"$ref":"#/$defs/a"},{"type":"string"}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}`,
		`{"properties":{"x":{"pattern":"^(?:[a-z]?){1000}$","default":"aaaa"}},"patternProperties":{"^a+$":{"type":"boolean"}},"additionalProperties":{"type":"number"}}`,
		`{"if":{"required":["a"]},"then":{"properties":{"b":{"const":1e400}}},"dependentSchemas":{"a":{"$ref":"#"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		fm, err := Build(raw)
		if err != nil {
			if strings.Contains(err.Error(), "form builder failed") {
				t.Fatal(err)
			}
			return
		}
		fm.Check(schema.ValidateInput)
	})
}

// TestHostileSchemaForms: a request schema too costly for a form is an
// error naming its bound (the cockpit then opens JSON mode with a note),
// found without walking the expansion.
func TestHostileSchemaForms(t *testing.T) {
	for name, bound := range map[string]string{
		"refs-doubling":   "MaxSchemaExpansion",
		"multipleof-huge": "MaxNumberExponent",
		"pattern-states":  "MaxPatternInsts",
	} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "schema", "testdata", "hostile", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Build(raw); !schema.IsBound(err) || !strings.Contains(err.Error(), bound) {
			t.Errorf("%s: Build error %v, want the bound %s", name, err, bound)
		}
	}
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{"x":{"$ref":"#/$defs/d0"}},"$defs":{`)
	for i := range 13 {
		fmt.Fprintf(&b, `"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]},`, i, i+1, i+1)
	}
	b.WriteString(`"d13":{"type":"string"}}}`)
	if _, err := Build([]byte(b.String())); !strings.Contains(fmt.Sprint(err), "MaxFormExpansion") {
		t.Errorf("an expansion past the form's bound: %v", err)
	}
}

// TestHugeMinItemsIsJSONMode: a required array of a billion items, or
// an enum of thousands, opens in JSON mode, naming the bound, instead of
// building a billion fields.
func TestHugeMinItemsIsJSONMode(t *testing.T) {
	_, err := Build([]byte(`{"type":"object","required":["xs"],"properties":{"xs":{"type":"array","minItems":1000000000}}}`))
	if !strings.Contains(fmt.Sprint(err), "MaxBuildItems") {
		t.Fatalf("Build: %v", err)
	}
	members := strings.Repeat(`"v",`, 6000)
	_, err = Build([]byte(`{"properties":{"x":{"enum":[` + members + `"w"]}}}`))
	if !strings.Contains(fmt.Sprint(err), "MaxFormEnum") {
		t.Fatalf("Build of a 6,000-member enum: %v", err)
	}
}
