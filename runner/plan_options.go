package runner

import (
	"bytes"
	"encoding/json"

	"modbay/modproto"
)

// PlanOptions adjust how PlanWith checks the input.
type PlanOptions struct {
	// SkipValidation plans the call without validating the input against
	// the request schema: a person's deliberate "send anyway", to see how
	// a module handles input its own schema refuses. The input must still
	// be JSON, and a whole-request input (WIRE.md §4) a JSON object.
	SkipValidation bool
}

// draft07 is the $schema a schema that declares none is given when it
// only compiles as draft-07.
const draft07 = "http://json-schema.org/draft-07/schema#"

// PlanWith is Plan with options. Besides them it reads a request schema
// that declares no "$schema" and does not compile as 2020-12 (Plan's
// default) as draft-07 when it compiles as that: schemas in the wild are
// written against either without saying which.
func (h *Host) PlanWith(m *Module, capID string, input json.RawMessage, opts PlanOptions) (*Plan, error) {
	if m == nil || m.Descriptor == nil {
		return h.plan(m, capID, input)
	}
	c := m.Descriptor.Capability(capID)
	if c == nil || c.RequestSchema == "" {
		return h.plan(m, capID, input)
	}
	schema := m.Descriptor.RequestSchemas[c.RequestSchema]
	var replace json.RawMessage
	switch {
	case opts.SkipValidation:
		replace = permissiveSchema(schema)
	default:
		if alt := draft07Fallback(schema); alt != nil {
			replace = alt
		}
	}
	if replace == nil {
		return h.plan(m, capID, input)
	}
	// Plan a copy whose descriptor carries the replacement schema, then
	// hand back a plan of the real module.
	mc := *m
	dc := *m.Descriptor
	dc.RequestSchemas = make(map[string]json.RawMessage, len(m.Descriptor.RequestSchemas))
	for k, v := range m.Descriptor.RequestSchemas {
		dc.RequestSchemas[k] = v
	}
	dc.RequestSchemas[c.RequestSchema] = replace
	mc.Descriptor = &dc
	p, err := h.plan(&mc, capID, input)
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

// draft07Fallback returns schema with "$schema" set to draft-07 when it
// declares none, does not compile as 2020-12 and does as draft-07; nil
// otherwise.
func draft07Fallback(schema json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(schema)
	if len(t) < 2 || t[0] != '{' || bytes.Contains(t, []byte(`"$schema"`)) {
		return nil
	}
	if _, err := compileSchema(t); err == nil {
		return nil
	}
	k, _ := json.Marshal(draft07)
	rest := bytes.TrimSpace(t[1:])
	alt := []byte(`{"$schema":` + string(k))
	if len(rest) > 0 && rest[0] != '}' {
		alt = append(alt, ',')
	}
	alt = append(alt, rest...)
	if _, err := compileSchema(alt); err != nil {
		return nil
	}
	return alt
}
