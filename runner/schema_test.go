package runner

import (
	"context"
	"encoding/json"
	"errors"
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
	checkRequestSchemas(context.Background(), m)
	if len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0], "a.run") || strings.Contains(m.Warnings[0], "modbay:///") {
		t.Fatalf("warnings %q", m.Warnings)
	}
}

// TestUnsatisfiableSchemaRefusesItsCapability: a request schema no input
// can satisfy (a required property additionalProperties: false forbids, a
// $ref cycle through required properties) refuses that capability at
// Plan with the finding's JSON pointer; the module stays ready and its
// other capabilities plan.
func TestUnsatisfiableSchemaRefusesItsCapability(t *testing.T) {
	f := newFixture(t)
	m := &Module{ID: "m", Status: StatusReady, Exe: "/bin/true", Descriptor: &modproto.Descriptor{
		Capabilities: []modproto.Capability{{ID: "m.closed", RequestSchema: "closed"}, {ID: "m.cycle", RequestSchema: "cycle"},
			{ID: "m.then", RequestSchema: "then"}, {ID: "m.ok", RequestSchema: "ok"}},
		RequestSchemas: map[string]json.RawMessage{
			"closed": json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}},"allOf":[{"required":["b"]}],"additionalProperties":false}`),
			"cycle":  json.RawMessage(`{"$ref":"#/$defs/node","$defs":{"node":{"type":"object","properties":{"next":{"$ref":"#/$defs/node"}},"required":["next"]}}}`),
			// Only inputs with a="x" are impossible: the capability stays.
			"then": json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}},"if":{"properties":{"a":{"const":"x"}}},"then":{"required":["b"]},"additionalProperties":false}`),
			"ok":   json.RawMessage(`{"type":"object"}`),
		},
	}}
	checkRequestSchemas(context.Background(), m)
	if m.Status != StatusReady {
		t.Fatalf("status %s (%s): the module must stay ready", m.Status, m.Reason)
	}
	for id, want := range map[string]string{"m.closed": "at /allOf/0/required", "m.cycle": "leads back to itself through what every input must meet (required properties, allOf)"} {
		why, ok := m.Refused[id]
		if !ok || !strings.Contains(why, want) {
			t.Errorf("%s refused %v %q, want %q", id, ok, why, want)
		}
		_, err := f.host.Plan(m, id, json.RawMessage(`{}`))
		var se *SchemaError
		if !errors.As(err, &se) || !se.Unsatisfiable || !strings.Contains(err.Error(), want) {
			t.Errorf("plan %s: %v", id, err)
		}
	}
	if _, ok := m.Refused["m.then"]; ok {
		t.Errorf("m.then refused: some inputs satisfy it")
	}
	if _, err := f.host.Plan(m, "m.ok", json.RawMessage(`{}`)); err != nil {
		t.Errorf("plan m.ok: %v", err)
	}
}
