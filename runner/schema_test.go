package runner

import (
	"encoding/json"
	"strings"
	"testing"

	"modbay/modproto"
)

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

// TestDescribeWarnsAboutSchemasThatDoNotCompile: the module stays usable,
// but the capability with a broken schema is named in a warning.
func TestDescribeWarnsAboutSchemasThatDoNotCompile(t *testing.T) {
	m := &Module{Descriptor: &modproto.Descriptor{
		Capabilities:   []modproto.Capability{{ID: "a.run", RequestSchema: "a"}, {ID: "b.run", RequestSchema: "b"}},
		RequestSchemas: map[string]json.RawMessage{"a": json.RawMessage(`{"type":"objectx"}`), "b": json.RawMessage(`{"type":"object"}`)},
	}}
	checkRequestSchemas(m)
	if len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0], "a.run") || strings.Contains(m.Warnings[0], "modbay:///") {
		t.Fatalf("warnings %q", m.Warnings)
	}
}
