package modproto

import (
	"bytes"
	"encoding/json"
)

// EncodeJSON is v as compact JSON, as typed: the one JSON writer of
// everything a person reads or a module receives. Unlike json.Marshal it
// writes &, < and > as themselves (json.Marshal writes \u0026, \u003c,
// \u003e, for HTML pages, which modbay never writes); a json.RawMessage
// keeps its keys in the order they came, and there is no newline at the
// end. Escaping for a terminal (C1, bidi, zero-width) is the terminal
// side's: render.Sanitize*, the CLI's --json writer.
func EncodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// EncodeJSONIndent is EncodeJSON with each level indented by indent.
func EncodeJSONIndent(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
