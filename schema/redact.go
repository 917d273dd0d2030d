package schema

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Redacted is what replaces a secret value in a redacted input: the
// string a person or a file reader sees where the value was.
const Redacted = "[redacted]"

// redactMaxDepth bounds the walk through a schema and its input (nested
// objects, arrays and $ref hops), so a self-referencing schema or a deep
// input cannot recurse without end.
const redactMaxDepth = 64

// Redact returns input with the value of every field that schemaDoc marks
// secret replaced by Redacted, and the JSON pointers of the fields it
// masked, in document order. A field is secret when a subschema that
// applies to it says "writeOnly": true or "format": "password" (the
// redaction rule of AGENTS.md: approval dialog, recall, presets, history,
// copied commands all go through this one function).
//
// The walk follows properties, patternProperties, additionalProperties,
// items, prefixItems, local $ref ("#/..."), and allOf, anyOf, oneOf,
// if/then/else branches; a field any branch marks secret is masked, so a
// value is kept only when no reading of the schema calls it secret. A
// schemaDoc that is empty or not JSON masks nothing; an input that is not
// JSON is returned as is. The result is compact JSON.
func Redact(schemaDoc, input json.RawMessage) (json.RawMessage, []string) {
	var doc, val any
	if len(input) == 0 || json.Unmarshal(input, &val) != nil {
		return input, nil
	}
	if len(schemaDoc) == 0 || json.Unmarshal(schemaDoc, &doc) != nil {
		return input, nil
	}
	r := redactor{root: doc}
	out := r.walk([]any{doc}, val, "", 0)
	if len(r.paths) == 0 {
		return input, nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return input, nil
	}
	return b, r.paths
}

// redactor walks one schema document beside one value.
type redactor struct {
	root  any
	paths []string
}

// walk returns v with its secret parts masked; schemas are the subschemas
// that apply at ptr.
func (r *redactor) walk(schemas []any, v any, ptr string, depth int) any {
	if depth > redactMaxDepth {
		return v
	}
	applied := r.expand(schemas, map[uintptr]bool{}, 0)
	for _, s := range applied {
		if secret(s) {
			r.paths = append(r.paths, ptr)
			return Redacted
		}
	}
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out := make(map[string]any, len(v))
		for _, k := range keys {
			out[k] = r.walk(propertySchemas(applied, k), v[k], ptr+"/"+escapePointer(k), depth+1)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = r.walk(itemSchemas(applied, i), e, ptr+"/"+strconv.Itoa(i), depth+1)
		}
		return out
	}
	return v
}

// expand adds to schemas every subschema that applies to the same value:
// $ref targets and the branches of allOf, anyOf, oneOf, if/then/else.
// Each subschema is taken once (seen, by identity), so a schema whose
// branches refer back to itself expands in linear time.
func (r *redactor) expand(schemas []any, seen map[uintptr]bool, depth int) []any {
	var out []any
	for _, s := range schemas {
		m, ok := s.(map[string]any)
		if !ok || seen[reflect.ValueOf(m).Pointer()] {
			continue
		}
		seen[reflect.ValueOf(m).Pointer()] = true
		out = append(out, m)
		if depth >= redactMaxDepth {
			continue
		}
		var more []any
		if ref, ok := m["$ref"].(string); ok {
			if t := r.resolve(ref); t != nil {
				more = append(more, t)
			}
		}
		for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
			if arr, ok := m[kw].([]any); ok {
				more = append(more, arr...)
			}
		}
		for _, kw := range []string{"if", "then", "else"} {
			if sub, ok := m[kw]; ok {
				more = append(more, sub)
			}
		}
		out = append(out, r.expand(more, seen, depth+1)...)
	}
	return out
}

// resolve finds a local reference ("#", "#/$defs/x") in the document; nil
// for anything else (remote references are never loaded).
func (r *redactor) resolve(ref string) any {
	if ref == "#" {
		return r.root
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil
	}
	cur := r.root
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

// secret reports whether a subschema marks its value secret.
func secret(s any) bool {
	m, _ := s.(map[string]any)
	if m == nil {
		return false
	}
	if w, _ := m["writeOnly"].(bool); w {
		return true
	}
	f, _ := m["format"].(string)
	return f == "password"
}

// propertySchemas are the subschemas of applied that apply to property k.
func propertySchemas(applied []any, k string) []any {
	var out []any
	for _, s := range applied {
		m := s.(map[string]any)
		matched := false
		if props, ok := m["properties"].(map[string]any); ok {
			if p, ok := props[k]; ok {
				out = append(out, p)
				matched = true
			}
		}
		if pats, ok := m["patternProperties"].(map[string]any); ok {
			for _, p := range pats {
				// Conservative: a pattern's subschema may mask, never
				// unmask, so it is applied whatever the key.
				out = append(out, p)
			}
		}
		if ap, ok := m["additionalProperties"]; ok && !matched {
			out = append(out, ap)
		}
	}
	return out
}

// itemSchemas are the subschemas of applied that apply to item i.
func itemSchemas(applied []any, i int) []any {
	var out []any
	for _, s := range applied {
		m := s.(map[string]any)
		prefix, _ := m["prefixItems"].([]any)
		if i < len(prefix) {
			out = append(out, prefix[i])
			continue
		}
		switch it := m["items"].(type) {
		case []any: // draft-07 tuple
			if i < len(it) {
				out = append(out, it[i])
			} else if ai, ok := m["additionalItems"]; ok {
				out = append(out, ai)
			}
		case map[string]any:
			out = append(out, it)
		}
	}
	return out
}

// escapePointer escapes a key as a JSON pointer token (RFC 6901).
func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
