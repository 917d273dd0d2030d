package modproto

import (
	"bytes"
	"encoding/json"
)

// IsWholeRequestSchema reports whether a capability's request schema
// describes the whole request body rather than Input: its top-level
// properties include a host-owned name or "input" (docs/protocol.md §4, as facet
// does). The host then places form values at the request root through Extra
// and the "input" property as Input.
func IsWholeRequestSchema(schema json.RawMessage) bool {
	t := bytes.TrimSpace(schema)
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(t, &s); err != nil {
		return false
	}
	for k := range s.Properties {
		if IsHostOwnedKey(k) {
			return true
		}
	}
	return false
}

// SplitWholeRequest turns a value filled against a whole-request schema into
// the request's Input and Extra: "input" becomes Input (or {} when absent),
// host-owned keys are dropped (the host always wins), every other key goes
// to Extra (docs/protocol.md §4). value must be a JSON object.
func SplitWholeRequest(value json.RawMessage) (input json.RawMessage, extra map[string]json.RawMessage, err error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(value, &m); err != nil {
		return nil, nil, err
	}
	input = json.RawMessage(`{}`)
	extra = map[string]json.RawMessage{}
	for k, v := range m {
		switch {
		case k == "input":
			input = v
		case IsHostOwnedKey(k):
		default:
			extra[k] = v
		}
	}
	return input, extra, nil
}
