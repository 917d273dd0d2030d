package schema

import "fmt"

// RefusingLoader is the jsonschema URL loader every compile in modbay uses
// (Compile, for the runner, the form and the lint): it refuses every URL
// the schema does not define itself, so a module's schema never makes the
// host fetch anything from the network or the disk (metaschemas are built
// into the validator and never reach a loader).
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
// throughout a decoded schema document (map[string]any, []any, as
// jsonschema.UnmarshalJSON or encoding/json decode it), walking subschemas
// only and never touching data keywords (const, default, enum, examples).
// The schema is then read as the author meant. Compile applies it to every
// document before compiling it.
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
