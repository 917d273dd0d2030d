package modproto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxKeyDepth bounds how deeply the key check follows nested objects and
// arrays: far deeper than any envelope or descriptor (a JSON Schema nests a
// few dozen levels at most), shallow enough that a hostile document cannot
// make the check's path bookkeeping the cost of the run.
const MaxKeyDepth = 512

// DuplicateKeyError is a JSON object that names one member twice, exactly
// or in two spellings that differ only in case ("ok" then "OK"). Go's
// decoder keeps the last exact duplicate and matches struct fields without
// regard to case, so such a document can say one thing to a reader and
// another to the host; the host refuses it (I-JSON, RFC 7493 §2.3: names
// must be unique; modbay reads docs/protocol.md §6 and §9 under that rule).
type DuplicateKeyError struct {
	// Path is where the object sits, as in ValidationError ("execution",
	// "capabilities[2].effects"; "" for the top level).
	Path string
	// First and Second are the two spellings, in document order; equal for
	// an exact duplicate.
	First, Second string
}

// Error implements error.
func (e *DuplicateKeyError) Error() string {
	where := "the top-level object"
	if e.Path != "" {
		where = e.Path
	}
	if e.First == e.Second {
		return fmt.Sprintf("%s names key %q twice (duplicate keys are refused: one name, one value)", where, e.First)
	}
	return fmt.Sprintf("%s has keys %q and %q that differ only in case (refused: Go's decoder matches fields without regard to case)", where, e.First, e.Second)
}

// keyRules says where the key check also refuses case variants. Exact
// duplicates are refused everywhere; case variants only where the host
// decodes an object into a Go struct (its fields match regardless of case),
// not inside opaque module data such as an envelope's result or a JSON
// Schema, where "ID" and "id" may well both be meant.
type keyRules struct {
	// opaque reports whether the value at path (and all beneath it) is
	// module data the host does not decode into structs.
	opaque func(path string) bool
}

// envelopeKeyRules: result and error.details are the module's own data.
var envelopeKeyRules = keyRules{opaque: func(path string) bool {
	return path == "result" || path == "error.details"
}}

// descriptorKeyRules: the three schema maps hold JSON Schemas by name; the
// names and the schemas are the module's own (the maps decode exactly).
var descriptorKeyRules = keyRules{opaque: func(path string) bool {
	switch path {
	case "request_schemas", "result_schemas", "artifact_schemas":
		return true
	}
	return false
}}

// CheckDuplicateEnvelopeKeys reports the first object in an envelope that names a
// key twice, or (outside result and error.details) two keys that differ
// only in case, as a *DuplicateKeyError. data must be one JSON value;
// malformed JSON is reported as the decoder's error.
func CheckDuplicateEnvelopeKeys(data []byte) error { return checkKeys(data, envelopeKeyRules) }

// CheckDuplicateDescriptorKeys is CheckDuplicateEnvelopeKeys for a descriptor (a describe
// envelope's result): case variants are allowed only inside the schema
// maps (docs/protocol.md §9).
func CheckDuplicateDescriptorKeys(data []byte) error { return checkKeys(data, descriptorKeyRules) }

// checkKeys walks data token by token (encoding/json Decoder.Token), with
// one set of keys per open object.
func checkKeys(data []byte, rules keyRules) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		object bool
		path   string
		opaque bool
		index  int               // arrays: the next element's index
		key    string            // objects: the key whose value comes next
		expect bool              // objects: the next token is a key
		exact  map[string]bool   // objects: keys as spelt
		folded map[string]string // objects: folded key -> first spelling
	}
	var stack []*frame
	// childPath is the path of the value about to start in the top frame.
	childPath := func() (string, bool) {
		if len(stack) == 0 {
			return "", false
		}
		top := stack[len(stack)-1]
		if top.object {
			p := top.key
			if top.path != "" {
				p = top.path + "." + top.key
			}
			return p, top.opaque
		}
		return fmt.Sprintf("%s[%d]", top.path, top.index), top.opaque
	}
	// valueDone advances the top frame past one complete value.
	valueDone := func() {
		if len(stack) == 0 {
			return
		}
		top := stack[len(stack)-1]
		if top.object {
			top.expect = true
		} else {
			top.index++
		}
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if len(stack) > 0 {
			if top := stack[len(stack)-1]; top.object && top.expect {
				if d, ok := tok.(json.Delim); ok && d == '}' {
					stack = stack[:len(stack)-1]
					valueDone()
					continue
				}
				k, _ := tok.(string)
				if top.exact[k] {
					return &DuplicateKeyError{Path: top.path, First: k, Second: k}
				}
				top.exact[k] = true
				if !top.opaque {
					f := foldKey(k)
					if first, seen := top.folded[f]; seen {
						return &DuplicateKeyError{Path: top.path, First: first, Second: k}
					}
					top.folded[f] = k
				}
				top.key, top.expect = k, false
				continue
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if len(stack) >= MaxKeyDepth {
				return fmt.Errorf("JSON nests deeper than %d levels", MaxKeyDepth)
			}
			p, opaque := childPath()
			opaque = opaque || (p != "" && rules.opaque(p))
			f := &frame{object: tok == json.Delim('{'), path: p, opaque: opaque, expect: true}
			if f.object {
				f.exact, f.folded = map[string]bool{}, map[string]string{}
			}
			stack = append(stack, f)
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}

// foldKey folds k as encoding/json matches a key to a struct field (its
// foldName: each rune through ToLower then ToUpper, so "ok", "OK", "oK",
// and the Kelvin sign U+212A with "k", all fold alike).
func foldKey(k string) string {
	var b strings.Builder
	b.Grow(len(k))
	for _, r := range k {
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
			b.WriteRune(r)
			continue
		}
		b.WriteRune(unicode.ToUpper(unicode.ToLower(r)))
	}
	return b.String()
}
