package runner

import (
	"encoding/json"
	"testing"
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
