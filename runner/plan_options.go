package runner

import (
	"encoding/json"
	"maps"

	"modbay/modproto"
)

// PlanOptions adjust how PlanWith checks the input.
type PlanOptions struct {
	// SkipValidation plans the call without validating the input against
	// the request schema: a person's deliberate "send anyway", to see how
	// a module handles input its own schema refuses. The input must still
	// be JSON, and a whole-request input (WIRE.md §4) a JSON object.
	SkipValidation bool
	// Handoff lists artifacts to hand to the run (issue 12 §Handoff):
	// each is copied into a fresh read-only directory made for this run
	// and supplied as the read root it names, which the capability's
	// module must declare in permissions.filesystem_read. The plan's
	// Handoff says where each file was put. Errors wrap ErrHandoff.
	Handoff []HandoffFile
}

// PlanWith is Plan with options. A request schema that declares no
// "$schema" and compiles only as draft-07 is read as draft-07 by Plan
// itself (schema.Compile), so without options PlanWith is Plan.
func (h *Host) PlanWith(m *Module, capID string, input json.RawMessage, opts PlanOptions) (*Plan, error) {
	if !opts.SkipValidation || m == nil || m.Descriptor == nil {
		return h.plan(m, capID, input, opts.Handoff)
	}
	c := m.Descriptor.Capability(capID)
	if c == nil || c.RequestSchema == "" {
		return h.plan(m, capID, input, opts.Handoff)
	}
	// Plan a copy whose descriptor carries a permissive schema, then hand
	// back a plan of the real module.
	mc := *m
	dc := *m.Descriptor
	dc.RequestSchemas = maps.Clone(m.Descriptor.RequestSchemas)
	if dc.RequestSchemas == nil {
		dc.RequestSchemas = map[string]json.RawMessage{}
	}
	dc.RequestSchemas[c.RequestSchema] = permissiveSchema(m.Descriptor.RequestSchemas[c.RequestSchema])
	mc.Descriptor = &dc
	p, err := h.plan(&mc, capID, input, opts.Handoff)
	if p != nil {
		p.Module = m
	}
	return p, err
}

// permissiveSchema accepts any input while keeping what IsWholeRequestSchema
// reads: the top-level property names (each accepting anything).
func permissiveSchema(schema json.RawMessage) json.RawMessage {
	if !modproto.IsWholeRequestSchema(schema) {
		return json.RawMessage(`true`)
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(schema, &s)
	props := make(map[string]bool, len(s.Properties))
	for k := range s.Properties {
		props[k] = true
	}
	b, _ := json.Marshal(map[string]any{"properties": props})
	return b
}
