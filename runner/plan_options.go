package runner

import (
	"context"
	"encoding/json"
)

// PlanOptions adjust how PlanWith checks the input.
type PlanOptions struct {
	// SkipValidation plans the call without validating the input against
	// the request schema: a person's deliberate "send anyway", to see how
	// a module handles input its own schema refuses. The input must still
	// be JSON, and a whole-request input (docs/protocol.md §4) a JSON object.
	SkipValidation bool
	// Handoff lists artifacts to hand to the run:
	// each is copied into a fresh read-only directory made for this run
	// and supplied as the read root it names, which the capability's
	// module must declare in permissions.filesystem_read. The plan's
	// Handoff says where each file was put. Errors wrap ErrHandoff.
	Handoff []HandoffFile
	// Context stops the input's validation (nil for none): a cancelled or
	// past-deadline plan returns an error wrapping schema.ErrCancelled.
	// The validation is bounded either way (docs/protocol.md §14).
	Context context.Context
}

// PlanWith is Plan with options. A request schema that declares no
// "$schema" and compiles only as draft-07 is read as draft-07 by Plan
// itself (schema.Compile), so without options PlanWith is Plan. With
// SkipValidation the input is sent exactly as given: no schema finding
// stops it, a number no reader can hold (schema.NumberProblem) included.
func (h *Host) PlanWith(m *Module, capID string, input json.RawMessage, opts PlanOptions) (*Plan, error) {
	return h.plan(m, capID, input, opts)
}
