package form

import (
	"strings"

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

// pointerEscaper and pointerUnescaper turn a name into a JSON pointer
// reference token and back (RFC 6901 §3, §4). Built once: every keystroke
// escapes each field's name (a Replacer built per call was a third of a
// keystroke's time).
var (
	pointerEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// escape is a JSON pointer reference token (RFC 6901).
func escape(tok string) string { return pointerEscaper.Replace(tok) }

// unescape reverses escape.
func unescape(tok string) string { return pointerUnescaper.Replace(tok) }
