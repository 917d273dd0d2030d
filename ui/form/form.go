// Package form turns a capability's request JSON Schema into form fields and
// the fields back into the JSON value sent as the request's input, with no
// widgets involved: the cockpit's form screen (ui/formview) draws a Form and
// edits its fields' text, and this package decides what that text means.
//
// Only the schema's top-level object properties become fields, in the order
// the author wrote them (read from the raw bytes: Go maps lose it). Strings,
// numbers, integers, booleans and enums get their own editors; anything
// nested (objects, arrays, unions, references) is edited as JSON text. A
// schema without top-level properties, or no schema at all, is one JSON
// field for the whole input.
package form

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"modbay/modproto"
)

// Kind is how a field is edited and encoded.
type Kind int

// Field kinds.
const (
	// KindString is free text, sent as a JSON string.
	KindString Kind = iota
	// KindNumber is a JSON number, sent exactly as typed.
	KindNumber
	// KindInteger is a JSON integer, sent exactly as typed (no float
	// rounding: digits beyond 2^53 stay).
	KindInteger
	// KindBoolean is a toggle.
	KindBoolean
	// KindEnum picks one of the schema's enum (or const) values.
	KindEnum
	// KindJSON is JSON text that must parse: nested objects, arrays, unions
	// and the whole input when the schema has no properties.
	KindJSON
)

// String names the kind as the form shows it.
func (k Kind) String() string {
	switch k {
	case KindString:
		return "string"
	case KindNumber:
		return "number"
	case KindInteger:
		return "integer"
	case KindBoolean:
		return "boolean"
	case KindEnum:
		return "choice"
	default:
		return "JSON"
	}
}

// BoolState is a boolean field's value; an optional boolean may be unset,
// and is then left out of the input.
type BoolState int

// Boolean states.
const (
	BoolUnset BoolState = iota
	BoolFalse
	BoolTrue
)

// Field is one editable property. Text holds the typed text for string,
// number, integer and JSON fields; Bool and Choice hold the others.
type Field struct {
	// Name is the property name; "" for the whole-input JSON field.
	Name string
	// Title and Description are the schema's, untrusted (sanitize to show).
	Title       string
	Description string
	Kind        Kind
	// Required is true when the schema's "required" lists Name.
	Required bool
	// Enum holds the allowed values as compact JSON, in schema order;
	// Labels the text shown for each (a string value unquoted).
	Enum   []json.RawMessage
	Labels []string
	// Default is the schema's default, compact JSON, or nil.
	Default json.RawMessage

	// Text is the current text of a string, number, integer or JSON field.
	Text string
	// Bool is the current state of a boolean field.
	Bool BoolState
	// Choice is the index into Enum, or -1 for none.
	Choice int
}

// Toggle advances a boolean: false ⇄ true, and an optional boolean without
// a default also passes through unset (left out of the input).
func (f *Field) Toggle() {
	tri := !f.Required && f.Default == nil
	switch f.Bool {
	case BoolUnset:
		f.Bool = BoolTrue
	case BoolTrue:
		f.Bool = BoolFalse
	case BoolFalse:
		if tri {
			f.Bool = BoolUnset
		} else {
			f.Bool = BoolTrue
		}
	}
}

// Cycle moves an enum choice by delta (±1), wrapping; an optional enum
// also passes through "none" (-1).
func (f *Field) Cycle(delta int) {
	n := len(f.Enum)
	if n == 0 {
		return
	}
	lo := 0
	if !f.Required {
		lo = -1
	}
	if f.Choice < lo {
		// A required enum starts unchosen: step onto either end.
		f.Choice = 0
		if delta < 0 {
			f.Choice = n - 1
		}
		return
	}
	span := n - lo
	f.Choice = ((f.Choice-lo+delta)%span+span)%span + lo
}

// Form is a request schema as fields.
type Form struct {
	// Schema is the request schema the form validates against; nil when the
	// capability has none.
	Schema json.RawMessage
	// Fields are in the schema's property order.
	Fields []Field
	// Raw is true when the form is one JSON field for the whole input.
	Raw bool
}

// Build reads a request schema into a form. A nil or empty schema, or one
// without top-level properties, gives a raw form: one JSON field holding the
// whole input, starting at the schema's default or {}. A schema that is not
// a JSON object is an error.
func Build(schema json.RawMessage) (*Form, error) {
	t := bytes.TrimSpace(schema)
	if len(t) == 0 {
		return rawForm(nil, nil), nil
	}
	var top struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
		Default    json.RawMessage            `json:"default"`
	}
	if t[0] != '{' {
		return nil, errors.New("request schema is not a JSON object")
	}
	if err := json.Unmarshal(t, &top); err != nil {
		return nil, fmt.Errorf("request schema: %w", err)
	}
	if len(top.Properties) == 0 {
		return rawForm(t, top.Default), nil
	}
	order, err := PropertyOrder(t)
	if err != nil {
		return nil, fmt.Errorf("request schema: %w", err)
	}
	req := map[string]bool{}
	for _, r := range top.Required {
		req[r] = true
	}
	f := &Form{Schema: t}
	for _, name := range order {
		f.Fields = append(f.Fields, buildField(name, top.Properties[name], req[name]))
	}
	return f, nil
}

// rawForm is a form with one JSON field for the whole input.
func rawForm(schema, def json.RawMessage) *Form {
	text := "{}"
	if d := compact(def); d != nil {
		text = indent(d)
	}
	return &Form{Schema: schema, Raw: true, Fields: []Field{{
		Kind: KindJSON, Required: true, Text: text, Choice: -1,
		Title: "input", Description: "The whole input as one JSON value.",
	}}}
}

// propSchema is what a field reads from its property schema.
type propSchema struct {
	Type        json.RawMessage   `json:"type"`
	Enum        []json.RawMessage `json:"enum"`
	Const       json.RawMessage   `json:"const"`
	Default     json.RawMessage   `json:"default"`
	Title       string            `json:"title"`
	Description string            `json:"description"`
}

// buildField reads one property schema; an unreadable one is a JSON field.
func buildField(name string, raw json.RawMessage, required bool) Field {
	f := Field{Name: name, Required: required, Choice: -1, Kind: KindJSON}
	var p propSchema
	if err := json.Unmarshal(raw, &p); err != nil {
		return f
	}
	f.Title, f.Description = p.Title, p.Description
	f.Default = compact(p.Default)
	switch {
	case len(p.Enum) > 0:
		f.Kind = KindEnum
		for _, e := range p.Enum {
			f.Enum = append(f.Enum, compact(e))
		}
	case len(bytes.TrimSpace(p.Const)) > 0:
		f.Kind = KindEnum
		f.Enum = []json.RawMessage{compact(p.Const)}
	default:
		f.Kind = kindOf(p.Type)
	}
	for _, e := range f.Enum {
		f.Labels = append(f.Labels, label(e))
	}
	f.fillDefault()
	return f
}

// kindOf maps a schema "type" (a name or a list of names) to a kind: one
// scalar type besides "null" gets its editor, anything else is JSON.
func kindOf(raw json.RawMessage) Kind {
	var names []string
	var one string
	if json.Unmarshal(raw, &one) == nil {
		names = []string{one}
	} else if json.Unmarshal(raw, &names) != nil {
		return KindJSON
	}
	var kinds []string
	for _, n := range names {
		if n != "null" {
			kinds = append(kinds, n)
		}
	}
	if len(kinds) != 1 {
		return KindJSON
	}
	switch kinds[0] {
	case "string":
		return KindString
	case "number":
		return KindNumber
	case "integer":
		return KindInteger
	case "boolean":
		return KindBoolean
	}
	return KindJSON
}

// fillDefault puts the schema default into the field's editor state; a
// default that does not fit the kind is offered as nothing.
func (f *Field) fillDefault() {
	if f.Kind == KindBoolean && f.Required && f.Default == nil {
		f.Bool = BoolFalse
	}
	if f.Default == nil {
		return
	}
	switch f.Kind {
	case KindString:
		var s string
		if json.Unmarshal(f.Default, &s) == nil {
			f.Text = s
		}
	case KindNumber, KindInteger:
		if numberRe.Match(f.Default) {
			f.Text = string(f.Default)
		}
	case KindBoolean:
		switch string(f.Default) {
		case "true":
			f.Bool = BoolTrue
		case "false":
			f.Bool = BoolFalse
		}
	case KindEnum:
		for i, e := range f.Enum {
			if bytes.Equal(e, f.Default) {
				f.Choice = i
			}
		}
	case KindJSON:
		f.Text = indent(f.Default)
	}
}

// numberRe is the JSON number grammar (RFC 8259 §6); integerRe its integer
// subset, without fraction or exponent.
var (
	numberRe  = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
	integerRe = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)
)

// Problem messages the form itself finds, before the schema is consulted.
const (
	MsgRequired   = "required"
	MsgNotNumber  = "not a number (e.g. 3, -1.5, 2e3)"
	MsgNotInteger = "not an integer (e.g. 3, -12)"
	MsgBadJSON    = "not valid JSON"
)

// encode returns the field's JSON value, or nil when it is left out of the
// input, and the field's own problem ("" when none).
func (f *Field) encode() (json.RawMessage, string) {
	switch f.Kind {
	case KindString:
		if f.Text == "" {
			return nil, requiredMsg(f.Required)
		}
		b, _ := json.Marshal(f.Text)
		return b, ""
	case KindNumber, KindInteger:
		s := strings.TrimSpace(f.Text)
		if s == "" {
			return nil, requiredMsg(f.Required)
		}
		if f.Kind == KindInteger && !integerRe.MatchString(s) {
			return nil, MsgNotInteger
		}
		if !numberRe.MatchString(s) {
			return nil, MsgNotNumber
		}
		// The text is the number: json.Number keeps every digit.
		b, _ := json.Marshal(json.Number(s))
		return b, ""
	case KindBoolean:
		switch f.Bool {
		case BoolTrue:
			return json.RawMessage("true"), ""
		case BoolFalse:
			return json.RawMessage("false"), ""
		}
		return nil, requiredMsg(f.Required)
	case KindEnum:
		if f.Choice < 0 || f.Choice >= len(f.Enum) {
			return nil, requiredMsg(f.Required)
		}
		return f.Enum[f.Choice], ""
	default:
		s := strings.TrimSpace(f.Text)
		if s == "" {
			return nil, requiredMsg(f.Required)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, []byte(s)); err != nil {
			return nil, MsgBadJSON + ": " + err.Error()
		}
		return buf.Bytes(), ""
	}
}

func requiredMsg(required bool) string {
	if required {
		return MsgRequired
	}
	return ""
}

// Value builds the input from the fields, in field order: each field's
// value, leaving out empty optional fields. It also returns the problems the
// fields have on their own (a required field left empty, text that is not a
// number, JSON that does not parse), each with Path "/<name>" ("" for the
// raw field); those fields are left out of the value.
func (f *Form) Value() (json.RawMessage, modproto.ValidationErrors) {
	var errs modproto.ValidationErrors
	if f.Raw {
		v, msg := f.Fields[0].encode()
		if msg != "" {
			errs = append(errs, modproto.ValidationError{Path: "", Detail: msg})
		}
		if v == nil {
			v = json.RawMessage("{}")
		}
		return v, errs
	}
	var buf bytes.Buffer
	buf.WriteByte('{')
	n := 0
	for i := range f.Fields {
		fd := &f.Fields[i]
		v, msg := fd.encode()
		if msg != "" {
			errs = append(errs, modproto.ValidationError{Path: Pointer(fd.Name), Detail: msg})
		}
		if v == nil {
			continue
		}
		if n > 0 {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(fd.Name)
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
		n++
	}
	buf.WriteByte('}')
	return buf.Bytes(), errs
}

// Validator checks an input against a request schema and returns one
// error per broken rule, each located by a JSON pointer into the input
// (runner.ValidateInput). A non-nil error means the schema itself could not
// be used.
type Validator func(schema, input json.RawMessage) (modproto.ValidationErrors, error)

// Problems are the form's validation findings, placed where they belong.
type Problems struct {
	// Fields maps a field index to its messages.
	Fields map[int][]string
	// Root holds findings about the input as a whole.
	Root []string
}

// Count is the number of findings.
func (p Problems) Count() int {
	n := len(p.Root)
	for _, m := range p.Fields {
		n += len(m)
	}
	return n
}

// Check builds the value and validates it: first the fields' own problems,
// then, with validate (nil skips it), the schema's verdict on the value.
// A field with a problem of its own shows only that one. The value is
// returned even when there are problems.
func (f *Form) Check(validate Validator) (json.RawMessage, Problems) {
	value, local := f.Value()
	p := f.Place(local)
	if validate == nil || len(f.Schema) == 0 {
		return value, p
	}
	remote, err := validate(f.Schema, value)
	if err != nil {
		p.Root = append(p.Root, "request schema cannot be used: "+err.Error())
		return value, p
	}
	own := map[int]bool{}
	for i := range p.Fields {
		own[i] = true
	}
	q := f.Place(remote)
	for i, msgs := range q.Fields {
		if !own[i] {
			p.add(i, msgs...)
		}
	}
	p.Root = append(p.Root, q.Root...)
	return value, p
}

func (p *Problems) add(i int, msgs ...string) {
	if p.Fields == nil {
		p.Fields = map[int][]string{}
	}
	p.Fields[i] = append(p.Fields[i], msgs...)
}

// missingRe finds the property names in a root "missing property 'x'" or
// "missing properties 'x', 'y'" finding, which belong under those fields.
var missingRe = regexp.MustCompile(`'([^']*)'|"([^"]*)"`)

// Place puts each finding under the field its JSON pointer starts with
// ("/name" and anything deeper, "/name/0/x", go to field name); findings at
// the root go to Root, except a missing required property, which goes to its
// field as "required". A raw form puts everything under its one field.
func (f *Form) Place(errs modproto.ValidationErrors) Problems {
	var p Problems
	index := map[string]int{}
	for i, fd := range f.Fields {
		index[fd.Name] = i
	}
	for _, e := range errs {
		if f.Raw {
			p.add(0, located(e))
			continue
		}
		name, ok := head(e.Path)
		if !ok {
			if names := missingNames(e.Detail, index); len(names) > 0 {
				for _, i := range names {
					if !contains(p.Fields[i], MsgRequired) {
						p.add(i, MsgRequired)
					}
				}
				continue
			}
			p.Root = append(p.Root, e.Detail)
			continue
		}
		if i, ok := index[name]; ok {
			if rest := strings.TrimPrefix(e.Path, Pointer(name)); rest != "" {
				p.add(i, rest+": "+e.Detail)
			} else if !contains(p.Fields[i], e.Detail) {
				p.add(i, e.Detail)
			}
			continue
		}
		p.Root = append(p.Root, located(e))
	}
	return p
}

// missingNames returns the fields a root "missing propert…" finding names.
func missingNames(detail string, index map[string]int) []int {
	if !strings.Contains(strings.ToLower(detail), "missing propert") &&
		!strings.Contains(strings.ToLower(detail), "required") {
		return nil
	}
	var out []int
	for _, m := range missingRe.FindAllStringSubmatch(detail, -1) {
		name := m[1] + m[2]
		if i, ok := index[name]; ok {
			out = append(out, i)
		}
	}
	return out
}

func located(e modproto.ValidationError) string {
	if e.Path == "" {
		return e.Detail
	}
	return e.Path + ": " + e.Detail
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// head returns the first reference token of a JSON pointer, unescaped
// (RFC 6901: ~1 is "/", ~0 is "~"); ok is false for the root pointer "".
func head(ptr string) (string, bool) {
	if !strings.HasPrefix(ptr, "/") {
		return "", false
	}
	tok, _, _ := strings.Cut(ptr[1:], "/")
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(tok), true
}

// Pointer is the JSON pointer of a top-level property (RFC 6901).
func Pointer(name string) string {
	return "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
}

// PropertyOrder returns the keys of a schema's top-level "properties"
// object in the order they appear in the bytes; a repeated key counts once,
// where it first appears.
func PropertyOrder(schema json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("schema is not a JSON object")
	}
	var order []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		if k, _ := t.(string); k != "properties" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, err
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return nil, errors.New(`"properties" is not an object`)
		}
		seen := map[string]bool{}
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := t.(string)
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, err
			}
			if !seen[k] {
				seen[k] = true
				order = append(order, k)
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// compact returns raw as compact JSON, or nil when empty or invalid.
func compact(raw json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return nil
	}
	var buf bytes.Buffer
	if json.Compact(&buf, t) != nil {
		return nil
	}
	return buf.Bytes()
}

// indent returns raw indented by two spaces for a JSON text editor.
func indent(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Indent(&buf, raw, "", "  ") != nil {
		return string(raw)
	}
	return buf.String()
}

// label is how an enum value reads: a string unquoted, anything else as
// JSON.
func label(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}
