package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"modbay/modproto"
	"modbay/schema"
)

// wideSchemas is n request schemas, each kids children of one property
// with a name of nameLen bytes (each schema under every bound of its
// own), the children's names of one length, or each of its own (varied).
func wideSchemas(n, kids, nameLen int, varied bool) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for i := range n {
		p := map[string]any{}
		for j := range kids {
			if varied {
				p[strings.Repeat("v", j+1)] = true
			} else {
				p[fmt.Sprintf("c%05d", j)] = true
			}
		}
		raw, _ := json.Marshal(map[string]any{"properties": map[string]any{fmt.Sprintf("%04d", i) + strings.Repeat("n", nameLen): map[string]any{"properties": p}}})
		out[fmt.Sprintf("s%d", i)] = raw
	}
	return out
}

// TestRequestSchemasCostedTogether: 330 schemas each under the bounds
// (27 s and 5.6 GB to discover) are refused together, by the bytes of
// their locations' lookups (the first bound passed), before any is
// compiled, in discovery and in the lint.
func TestRequestSchemasCostedTogether(t *testing.T) {
	d := &modproto.Descriptor{RequestSchemas: wideSchemas(330, 780, 3500, false)}
	var be *schema.BoundError
	if err := RequestSchemasCost(d); !errors.As(err, &be) || be.Bound != "MaxLocationCompares" {
		t.Fatalf("cost: %v", err)
	}
	for id := range d.RequestSchemas {
		d.Capabilities = append(d.Capabilities, modproto.Capability{ID: "c." + id, RequestSchema: id})
	}
	m := &Module{ID: "wide", Descriptor: d, Status: StatusReady}
	if !checkRequestSchemas(context.Background(), m) || m.Status != StatusBroken || !strings.Contains(m.Reason, "MaxLocationCompares") {
		t.Errorf("discovery: %s %q", m.Status, m.Reason)
	}
	if fs := LintRequestSchemas(context.Background(), m); len(fs) != 1 || !strings.Contains(fs[0].Message, "MaxLocationCompares") || !strings.HasPrefix(fs[0].String(), "error request schemas: ") {
		t.Errorf("lint: %v", fs)
	}
	if err := RequestSchemasCost(&modproto.Descriptor{RequestSchemas: wideSchemas(3, 780, 100, false)}); err != nil {
		t.Errorf("three small ones: %v", err)
	}
	// 40 schemas of 500 children of a 3,500-byte name, each child's name
	// of its own length (1.9 MB of locations each, no compares), pass the
	// bytes.
	err := RequestSchemasCost(&modproto.Descriptor{RequestSchemas: wideSchemas(40, 500, 3500, true)})
	if !errors.As(err, &be) || be.Bound != "MaxDescriptorLocationBytes" {
		t.Errorf("cost by bytes: %v", err)
	}
}
