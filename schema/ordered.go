package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"modbay/modproto"
)

// orderedObject is a decoded JSON object that keeps its members in the
// order the source gave them, so a value re-encoded after redaction reads
// as it was typed (docs/protocol.md §4: key order as the source gave it).
// A duplicate key keeps its first place and its last value, as
// encoding/json keeps the last.
type orderedObject struct {
	keys []string
	m    map[string]any
}

// MarshalJSON writes the members in order, without HTML escaping
// (modproto.EncodeJSON).
func (o *orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := modproto.EncodeJSON(k)
		if err != nil {
			return nil, err
		}
		vb, err := modproto.EncodeJSON(o.m[k])
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// delete drops member k.
func (o *orderedObject) delete(k string) {
	if _, ok := o.m[k]; !ok {
		return
	}
	delete(o.m, k)
	for i, x := range o.keys {
		if x == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			return
		}
	}
}

// decodeOrdered decodes one JSON value from raw as encoding/json would
// into any with UseNumber, except that objects are *orderedObject. Input
// that is not exactly one JSON value is an error.
func decodeOrdered(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("schema: more than one JSON value")
	}
	return v, nil
}

// decodeValue reads the next value of dec.
func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &orderedObject{m: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := o.m[k]; !dup {
					o.keys = append(o.keys, k)
				}
				o.m[k] = v
			}
			_, err := dec.Token() // '}'
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token() // ']'
			return a, err
		}
		return nil, errors.New("schema: unexpected delimiter")
	default:
		return t, nil // string, json.Number, bool, nil
	}
}
