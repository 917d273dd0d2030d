package runner

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"modbay/modproto"
)

// schemaCache holds compiled request schemas keyed by the sha256 of their
// bytes: the UI validates on every keystroke.
var schemaCache = struct {
	sync.Mutex
	m map[string]*jsonschema.Schema
}{m: map[string]*jsonschema.Schema{}}

// errorPrinter renders schema errors in English.
var errorPrinter = message.NewPrinter(language.English)

// ErrInputNotJSON is wrapped by ValidateInput's error when the input, not
// the schema, is at fault.
var ErrInputNotJSON = errors.New("input is not JSON")

// ValidateInput validates input (a JSON value) against schema (a JSON
// Schema document, as in a descriptor's request_schemas; WIRE.md §4). The
// draft is taken from "$schema" (draft 7, 2019-09 and 2020-12 honoured),
// 2020-12 when absent. Keywords a Go encoder wrote as null where the draft
// wants an array or object ("required": null, as facet sends) are read as
// absent. No $ref is ever loaded from the network or disk: only the
// schema's own fragments and the drafts' metaschemas resolve.
//
// The result has one entry per leaf error: Path is the instance location
// as a JSON pointer ("" for the root, "/items/0/name"), Detail the broken
// rule in English; sorted by Path, nil when valid. The error is non-nil
// when the schema does not compile or input is not JSON. Compiled schemas
// are cached by content, so calling this on every change is cheap.
func ValidateInput(schema json.RawMessage, input json.RawMessage) (modproto.ValidationErrors, error) {
	sch, err := compileSchema(schema)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage(`{}`)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(input))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInputNotJSON, err)
	}
	err = sch.Validate(inst)
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	var out modproto.ValidationErrors
	collectLeaves(ve, &out)
	slices.SortStableFunc(out, func(a, b modproto.ValidationError) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// collectLeaves appends every error without causes under e.
func collectLeaves(e *jsonschema.ValidationError, out *modproto.ValidationErrors) {
	if len(e.Causes) == 0 {
		*out = append(*out, modproto.ValidationError{
			Path:   jsonPointer(e.InstanceLocation),
			Detail: e.ErrorKind.LocalizedString(errorPrinter),
		})
		return
	}
	for _, c := range e.Causes {
		collectLeaves(c, out)
	}
}

// pointerEscaper escapes one RFC 6901 reference token.
var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// jsonPointer renders tokens as an RFC 6901 pointer ("" for the root).
func jsonPointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(pointerEscaper.Replace(t))
	}
	return b.String()
}

// compileSchema compiles schema once per content.
func compileSchema(schema json.RawMessage) (*jsonschema.Schema, error) {
	sum := sha256.Sum256(schema)
	key := hex.EncodeToString(sum[:])
	schemaCache.Lock()
	sch, ok := schemaCache.m[key]
	schemaCache.Unlock()
	if ok {
		return sch, nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("schema is not JSON: %w", err)
	}
	DropNullKeywords(doc)
	url := "modbay:///request-schema/" + key + ".json"
	compile := func(draft *jsonschema.Draft) (*jsonschema.Schema, error) {
		c := jsonschema.NewCompiler()
		c.DefaultDraft(draft)
		c.UseLoader(RefusingLoader{})
		if err := c.AddResource(url, doc); err != nil {
			return nil, err
		}
		return c.Compile(url)
	}
	sch, err = compile(jsonschema.Draft2020)
	if err != nil && !declaresDialect(doc) {
		// Schemas in the wild that declare no $schema are written against
		// draft-07 as often as 2020-12: one valid under either works.
		if alt, altErr := compile(jsonschema.Draft7); altErr == nil {
			sch, err = alt, nil
		}
	}
	if err != nil {
		// The compiler names the schema by the internal URL it was added
		// under; say "the schema" instead.
		msg := strings.ReplaceAll(err.Error(), `"`+url+`#"`, "the schema")
		return nil, errors.New(strings.ReplaceAll(msg, url, "the schema"))
	}
	schemaCache.Lock()
	if len(schemaCache.m) >= schemaCacheMax {
		clear(schemaCache.m)
	}
	schemaCache.m[key] = sch
	schemaCache.Unlock()
	return sch, nil
}

// RefusingLoader is the jsonschema URL loader every schema compile in
// modbay uses (runner, form, lint): it refuses every URL the schema does not
// define itself, so a module's schema never makes the host fetch anything
// from the network or the disk (metaschemas are built into the validator
// and never reach a loader).
type RefusingLoader struct{}

// Load refuses url with an error naming it.
func (RefusingLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("$ref %s refused: modbay never loads a schema from the network or disk", url)
}

// nullableKeywords are keywords whose value is an array, an object or a
// schema map: a null there is a Go nil slice or map, meaning "none".
var nullableKeywords = map[string]bool{
	"required": true, "properties": true, "patternProperties": true,
	"$defs": true, "definitions": true, "dependentRequired": true,
	"dependentSchemas": true, "dependencies": true, "allOf": true,
	"anyOf": true, "oneOf": true, "prefixItems": true,
}

// schemaMapKeywords map names to subschemas.
var schemaMapKeywords = map[string]bool{
	"properties": true, "patternProperties": true, "$defs": true,
	"definitions": true, "dependentSchemas": true, "dependencies": true,
}

// dataKeywords hold instance data, not schemas: never rewritten.
var dataKeywords = map[string]bool{"const": true, "default": true, "enum": true, "examples": true}

// DropNullKeywords removes null-valued keywords that hold arrays, objects
// or schema maps ("required": null, as facet's Go encoder sends for "none")
// throughout a decoded schema document, walking subschemas only and never
// touching data keywords (const, default, enum, examples). The schema is
// then read as the author meant; the form and the runner share it so both
// read a schema the same way.
func DropNullKeywords(schema any) {
	m, ok := schema.(map[string]any)
	if !ok {
		return
	}
	for k, c := range m {
		switch {
		case c == nil && nullableKeywords[k]:
			delete(m, k)
		case dataKeywords[k]:
		case schemaMapKeywords[k]:
			if sub, ok := c.(map[string]any); ok {
				for _, s := range sub {
					DropNullKeywords(s)
				}
			}
		default:
			switch x := c.(type) {
			case map[string]any:
				DropNullKeywords(x)
			case []any: // allOf, anyOf, oneOf, prefixItems, draft-7 items
				for _, s := range x {
					DropNullKeywords(s)
				}
			}
		}
	}
}

// declaresDialect reports whether a decoded schema document names its
// dialect with a top-level "$schema".
func declaresDialect(doc any) bool {
	m, ok := doc.(map[string]any)
	if !ok {
		return false
	}
	_, ok = m["$schema"]
	return ok
}
