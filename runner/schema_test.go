package runner

import (
	"encoding/json"
	"strings"
	"testing"

	"modbay/modproto"
)

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
