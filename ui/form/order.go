package form

import (
	"bytes"
	"encoding/json"

	"modbay/schema"
)

// objectKeys returns a JSON object's keys in order and its values
// (schema.ObjectKeys).
func objectKeys(raw json.RawMessage) ([]string, map[string]json.RawMessage, error) {
	return schema.ObjectKeys(raw)
}

// compact returns raw as compact JSON, or nil when empty or invalid.
func compact(raw json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return nil
	}
	var buf bytes.Buffer
	if json.Compact(&buf, t) != nil {
		return nil
	}
	return buf.Bytes()
}

// Indent returns raw indented by two spaces, for a JSON text editor; raw
// that is not JSON comes back as it is.
func Indent(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Indent(&buf, raw, "", "  ") != nil {
		return string(raw)
	}
	return buf.String()
}

// label is how a value reads in a select: a string unquoted, anything else
// as JSON.
func label(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}
