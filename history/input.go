package history

import (
	"encoding/json"
	"modbay/internal/jsonptr"
	"modbay/modproto"
	"strconv"
	"strings"
)

// WithoutRedacted returns input with the fields at the JSON pointers
// paths (a record's Redacted) removed, so a re-run's form asks for the
// secrets again instead of sending schema.Mask in their place. An
// array item is left in place (as null) to keep the others' positions.
// input is returned as is when nothing is removed or it is not JSON.
func WithoutRedacted(input json.RawMessage, paths []string) json.RawMessage {
	if len(paths) == 0 {
		return input
	}
	var v any
	if json.Unmarshal(input, &v) != nil {
		return input
	}
	for _, p := range paths {
		if p == "" {
			return json.RawMessage(`{}`) // the whole input was secret
		}
		v = remove(v, strings.Split(p[1:], "/"))
	}
	b, err := modproto.EncodeJSON(v)
	if err != nil {
		return input
	}
	return b
}

// remove deletes the value at tokens (unescaped JSON pointer tokens)
// beneath v.
func remove(v any, tokens []string) any {
	tok := jsonptr.Unescape(tokens[0])
	switch c := v.(type) {
	case map[string]any:
		if len(tokens) == 1 {
			delete(c, tok)
		} else if sub, ok := c[tok]; ok {
			c[tok] = remove(sub, tokens[1:])
		}
	case []any:
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 || i >= len(c) {
			return v
		}
		if len(tokens) == 1 {
			c[i] = nil
		} else {
			c[i] = remove(c[i], tokens[1:])
		}
	}
	return v
}
