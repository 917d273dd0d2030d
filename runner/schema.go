package runner

import (
	"context"
	"encoding/json"

	"modbay/modproto"
	"modbay/schema"
)

// validateRequest validates input against the request schema raw that
// capability c names (docs/protocol.md §4), read as package schema reads every
// schema (its compile is cached by content and shared with the form).
// The error is a *SchemaError when raw cannot be used, an *InputError
// listing the violations when input breaks it, or one wrapping
// schema.ErrInputNotJSON, a *schema.BoundError when the validation hit a
// bound (docs/protocol.md §14) or schema.ErrCancelled when ctx ended it;
// nil when input is valid.
func validateRequest(ctx context.Context, c *modproto.Capability, raw, input json.RawMessage) error {
	sch, err := schema.Compile(raw)
	if err != nil {
		return &SchemaError{Schema: c.RequestSchema, Capability: c.ID, Err: err}
	}
	v, err := sch.ValidateContext(ctx, input)
	if err != nil {
		return err
	}
	// A secret field that holds the mask (a line copied from modbay,
	// whose secrets it masked) would send the mask as the secret.
	for _, e := range schema.Echoes(sch, input) {
		if e.Value == schema.Mask {
			v = append(v, modproto.ValidationError{Path: e.Pointer, Detail: "holds the mask " + schema.Mask + ", not a value: modbay leaves secret values (" + e.Why +
				") out of the lines and records it writes; give the real value"})
		}
	}
	if len(v) > 0 {
		return &InputError{Schema: c.RequestSchema, Violations: v}
	}
	return nil
}
