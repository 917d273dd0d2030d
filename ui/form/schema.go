package form

import (
	"modbay/internal/jsonptr"
	"modbay/schema"
)

// Schema is one subschema as the form reads it: package schema's Node (the
// document the form, the conformance generator and the lint share).
type Schema = schema.Node

// Prop is a named subschema: a property, a pattern or a dependency.
type Prop = schema.Prop

// DepRequired is one dependentRequired entry.
type DepRequired = schema.DepRequired

// Drafts the form understands, by $schema URL (package schema's).
const (
	Draft7    = schema.Draft7
	Draft2019 = schema.Draft2019
	Draft2020 = schema.Draft2020
)

// merge adds src's keywords into dst (schema.Merge).
func merge(dst, src *Schema) { schema.Merge(dst, src) }

// escape is a JSON pointer reference token (RFC 6901).
func escape(tok string) string { return jsonptr.Escape(tok) }

// unescape reverses escape.
func unescape(tok string) string { return jsonptr.Unescape(tok) }
