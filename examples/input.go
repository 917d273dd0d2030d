package examples

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"slices"
)

// input reads a capability's input object field by field, applying the
// request schema's defaults and checks. The host validates input against
// the schema before running (docs/protocol.md §4), but a module never trusts that:
// the first broken field becomes an invalid_request error whose details
// name the field and the schema. A JSON null counts as absent.
type input struct {
	schema string
	fields map[string]json.RawMessage
	err    *modError
}

// parseInput decodes raw (the request's input) as an object. When allowed
// is non-nil, any other key is refused, as additionalProperties: false
// says.
func parseInput(raw json.RawMessage, schema string, allowed []string) (*input, error) {
	in := &input{schema: schema, fields: map[string]json.RawMessage{}}
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return in, nil
	}
	if t[0] != '{' || json.Unmarshal(t, &in.fields) != nil {
		return nil, invalidField(schema, "input", nil, "input must be a JSON object")
	}
	if allowed != nil {
		for _, k := range slices.Sorted(maps.Keys(in.fields)) {
			if !slices.Contains(allowed, k) {
				return nil, invalidField(schema, k, map[string]any{"allowed": allowed}, "unknown input field %q (allowed: %q)", k, allowed)
			}
		}
	}
	return in, nil
}

// raw returns the field's JSON, or nil when absent, null, or an earlier
// field already failed.
func (in *input) raw(name string) json.RawMessage {
	if in.err != nil {
		return nil
	}
	v, ok := in.fields[name]
	if !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		return nil
	}
	return v
}

// fail records the first broken field.
func (in *input) fail(e *modError) {
	if in.err == nil {
		in.err = e
	}
}

// str returns the string field name, def when absent; required fields
// must be present and non-empty.
func (in *input) str(name, def string, required bool) string {
	v := in.raw(name)
	if v == nil {
		if required && in.err == nil {
			in.fail(invalidField(in.schema, name, nil, "field %q is required", name))
		}
		return def
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		in.fail(invalidField(in.schema, name, nil, "field %q must be a string", name))
		return def
	}
	if required && s == "" {
		in.fail(invalidField(in.schema, name, nil, "field %q must not be empty", name))
	}
	return s
}

// enum returns the string field name, def when absent; its value must be
// one of options.
func (in *input) enum(name, def string, options []string) string {
	s := in.str(name, def, false)
	if in.err == nil && !slices.Contains(options, s) {
		in.fail(invalidField(in.schema, name, map[string]any{"enum": options}, "field %q must be one of %q (got %q)", name, options, s))
	}
	return s
}

// integer returns the integer field name, def when absent; its value must
// be a whole number within [lo, hi].
func (in *input) integer(name string, def, lo, hi int) int {
	v := in.raw(name)
	if v == nil {
		return def
	}
	var f float64
	if json.Unmarshal(v, &f) != nil || f != math.Trunc(f) {
		in.fail(invalidField(in.schema, name, nil, "field %q must be an integer", name))
		return def
	}
	if f < float64(lo) || f > float64(hi) {
		in.fail(invalidField(in.schema, name, map[string]any{"minimum": lo, "maximum": hi},
			"field %q must be between %d and %d (got %v)", name, lo, hi, f))
		return def
	}
	return int(f)
}

// boolean returns the boolean field name, def when absent.
func (in *input) boolean(name string, def bool) bool {
	v := in.raw(name)
	if v == nil {
		return def
	}
	var b bool
	if json.Unmarshal(v, &b) != nil {
		in.fail(invalidField(in.schema, name, nil, "field %q must be a boolean", name))
		return def
	}
	return b
}

// check returns the first broken field's error, or nil.
func (in *input) check() error {
	if in.err != nil {
		return in.err
	}
	return nil
}
