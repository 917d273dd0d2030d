package modproto

import (
	"bytes"
	"context"
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
	// opaquePaths are the paths of the values (and all beneath them) that
	// are module data the host does not decode into structs.
	opaquePaths []string
}

// envelopeKeyRules: result and error.details are the module's own data.
var envelopeKeyRules = keyRules{opaquePaths: []string{"result", "error.details"}}

// descriptorKeyRules: the three schema maps hold JSON Schemas by name; the
// names and the schemas are the module's own (the maps decode exactly).
var descriptorKeyRules = keyRules{opaquePaths: []string{"request_schemas", "result_schemas", "artifact_schemas"}}

// opaque reports whether the value under key in the object at path
// parent is opaque.
func (r *keyRules) opaque(parent string, key []byte) bool {
	for _, p := range r.opaquePaths {
		if joinedIs(p, parent, key) {
			return true
		}
	}
	return false
}

// leads reports whether an opaque path lies beneath key in the object at
// path parent.
func (r *keyRules) leads(parent string, key []byte) bool {
	for _, p := range r.opaquePaths {
		n := len(p)
		if parent != "" {
			if !strings.HasPrefix(p, parent+".") {
				continue
			}
			p = p[len(parent)+1:]
			n = len(p)
		}
		if n > len(key) && p[:len(key)] == string(key) && p[len(key)] == '.' {
			return true
		}
	}
	return false
}

// joinedIs reports whether p is joinPath(parent, key).
func joinedIs(p, parent string, key []byte) bool {
	if parent == "" {
		return p == string(key)
	}
	return len(p) == len(parent)+1+len(key) && p[:len(parent)] == parent && p[len(parent)] == '.' && p[len(parent)+1:] == string(key)
}

// CheckDuplicateEnvelopeKeys reports the first object in an envelope that names a
// key twice, or (outside result and error.details) two keys that differ
// only in case, as a *DuplicateKeyError. data must be one JSON value;
// malformed JSON is reported as the decoder's error.
func CheckDuplicateEnvelopeKeys(data []byte) error {
	return checkKeys(context.Background(), data, &envelopeKeyRules)
}

// CheckDuplicateDescriptorKeys is CheckDuplicateEnvelopeKeys for a descriptor (a describe
// envelope's result): case variants are allowed only inside the schema
// maps (docs/protocol.md §9).
func CheckDuplicateDescriptorKeys(data []byte) error {
	return checkKeys(context.Background(), data, &descriptorKeyRules)
}

// checkKeys scans every JSON value in data (one pass, jsonscan.go) with
// one set of keys per open object; the first finding in document order
// wins, a syntax error before it is encoding/json's own error.
func checkKeys(ctx context.Context, data []byte, rules *keyRules) error {
	i := skipSpaceAt(data, 0)
	for i < len(data) {
		end, keyErr, err := scanValue(ctx, data, i, rules)
		if keyErr != nil {
			return keyErr
		}
		if errors.Is(err, errSyntax) {
			return stdSyntaxError(data)
		}
		if err != nil {
			return err
		}
		i = skipSpaceAt(data, end)
	}
	return nil
}

// stdSyntaxError is encoding/json's error for the first malformed value
// in data (a stream of values, as a Decoder reads them).
func stdSyntaxError(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var v json.RawMessage
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return errSyntax // the scanner and encoding/json disagree
		}
		if err != nil {
			return err
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
