package form

import (
	"bytes"
	"encoding/json"
	"errors"
)

// objectKeys returns the keys of a JSON object in the order they appear
// in the bytes (a repeated key counts once, where it first appears) and
// the values by key (the last value of a repeated key, as encoding/json
// reads it). Go maps lose the order; forms show fields in the author's.
func objectKeys(raw json.RawMessage) ([]string, map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, errors.New("not a JSON object")
	}
	var keys []string
	m := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		if _, seen := m[k]; !seen {
			keys = append(keys, k)
		}
		m[k] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, err
	}
	return keys, m, nil
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
