package form

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"modbay/modproto"
	"modbay/schema"
)

// numberRe is the JSON number grammar (RFC 8259 §6).
var numberRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`) })

// Problem messages the form finds itself, before the schema is consulted.
const (
	MsgRequired = "required"
	// MsgReadOnlyRequired: a required read-only field without a const or
	// default; nothing a person types in the form can send it.
	MsgReadOnlyRequired = "required but read-only, with no default: the form cannot fill it (JSON mode can)"
	MsgNotNumber        = "not a number (e.g. 3, -1.5, 2e3)"
	MsgNotInteger       = "not an integer (e.g. 3, -12)"
	MsgBadJSON          = modproto.MsgBadJSON
	MsgDupKey           = "key appears twice"
)

// problemSink collects local problems by JSON pointer; nil discards them.
type problemSink map[string][]string

func (p problemSink) add(ptr, msg string) {
	if p != nil && msg != "" {
		p[ptr] = append(p[ptr], msg)
	}
}

// value encodes n as JSON, or nil when n is left out of the input, adding
// n's own problems (a required field left empty, text that is not a
// number, JSON that does not parse, a malformed format) to probs under
// ptr, n's pointer.
func (f *Form) value(n *Node, probs problemSink, ptr string) (json.RawMessage, bool) {
	if n.ReadOnly && n.Parent != nil {
		if n.Held != nil {
			return n.Held, true
		}
		if !n.Required {
			return nil, false
		}
		if v := n.readOnlyValue(); v != nil {
			return v, true
		}
		probs.add(ptr, MsgReadOnlyRequired)
		return nil, false
	}
	if n.Null {
		return json.RawMessage("null"), true
	}
	missing := func() (json.RawMessage, bool) {
		if n.Required {
			probs.add(ptr, MsgRequired)
		}
		if n.slot() {
			// A list item or map entry is on screen, so it is sent:
			// as null, with its problem at it (see the package doc).
			return json.RawMessage("null"), true
		}
		return nil, false
	}
	if n.Raw {
		return jsonText(n, probs, ptr, missing)
	}
	switch n.Kind {
	case KindString:
		if n.Text == "" && !n.Empty && !n.slot() {
			return missing()
		}
		probs.add(ptr, formatProblem(n.Schema.Format, n.Text))
		b, _ := modproto.EncodeJSON(n.Text)
		return b, true
	case KindNumber, KindInteger:
		s := strings.TrimSpace(n.Text)
		if s == "" {
			return missing()
		}
		if !numberRe().MatchString(s) {
			// Not a JSON number ("abc", "007"): sent as the string typed,
			// so JSON mode, a switch back and "send anyway" all keep it,
			// and the schema's type error lands at this field.
			probs.add(ptr, notNumber(n.Kind))
			b, _ := modproto.EncodeJSON(n.Text)
			return b, true
		}
		if n.Kind == KindInteger && !integral(s) {
			probs.add(ptr, MsgNotInteger)
		} else {
			// A number no reader can hold (1e999, an integer past 2^53
			// unless the schema declares wider integers): the validator's
			// words, found here too, so the form flags it with or without
			// a schema; sent exactly as typed.
			sc := n.Schema
			integer := n.Kind == KindInteger && !schema.WideIntegers(sc.Format, sc.Minimum, sc.Maximum, sc.ExclusiveMinimum, sc.ExclusiveMaximum)
			probs.add(ptr, schema.NumberProblem(s, integer))
		}
		return json.RawMessage(s), true
	case KindBoolean:
		switch n.Bool {
		case BoolTrue:
			return json.RawMessage("true"), true
		case BoolFalse:
			return json.RawMessage("false"), true
		}
		return missing()
	case KindEnum:
		if n.Choice < 0 || n.Choice >= len(n.Options) {
			return missing()
		}
		return n.Options[n.Choice].Value, true
	case KindMulti:
		any := false
		var buf bytes.Buffer
		buf.WriteByte('[')
		for i, on := range n.Checked {
			if on {
				if any {
					buf.WriteByte(',')
				}
				buf.Write(n.Options[i].Value)
				any = true
			}
		}
		buf.WriteByte(']')
		if !any && !n.Present {
			return missing()
		}
		return buf.Bytes(), true
	case KindObject:
		if !n.Present && n.Parent != nil {
			return missing()
		}
		return f.objectValue(n, probs, ptr), true
	case KindArray:
		if len(n.Children) == 0 && !n.Present {
			return missing()
		}
		var buf bytes.Buffer
		buf.WriteByte('[')
		k := 0
		for i, c := range n.Children {
			v, ok := f.value(c, probs, ptr+"/"+itoa(i))
			if !ok {
				continue
			}
			if k > 0 {
				buf.WriteByte(',')
			}
			buf.Write(v)
			k++
		}
		buf.WriteByte(']')
		return buf.Bytes(), true
	case KindEntry:
		return f.value(n.Children[0], probs, ptr)
	case KindUnion:
		if n.Variant < 0 || len(n.Children) == 0 || !n.Present && n.Parent != nil {
			return missing()
		}
		return f.value(n.Children[0], probs, ptr)
	case KindNull:
		if n.Present || n.slot() {
			return json.RawMessage("null"), true
		}
		return missing()
	}
	return jsonText(n, probs, ptr, missing)
}

// slot reports whether n is a list item or a map entry's value (or the
// chosen variant of one): a place that is on screen whether or not it is
// filled in, and so always sent, never silently left out.
func (n *Node) slot() bool {
	p := n.Parent
	if p == nil {
		return false
	}
	switch p.Kind {
	case KindArray, KindEntry:
		return true
	case KindUnion:
		return p.slot()
	}
	return false
}

// jsonText encodes a node edited as JSON text: exactly what was typed,
// compacted; text that does not parse is a problem, never dropped quietly.
func jsonText(n *Node, probs problemSink, ptr string, missing func() (json.RawMessage, bool)) (json.RawMessage, bool) {
	s := strings.TrimSpace(n.Text)
	if s == "" {
		return missing()
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		probs.add(ptr, modproto.JSONProblem([]byte(s)))
		return nil, false
	}
	return buf.Bytes(), true
}

// objectValue encodes an object: properties in schema order, then entries.
func (f *Form) objectValue(n *Node, probs problemSink, ptr string) json.RawMessage {
	var buf bytes.Buffer
	buf.WriteByte('{')
	k := 0
	put := func(name string, v json.RawMessage) {
		if k > 0 {
			buf.WriteByte(',')
		}
		kb, _ := modproto.EncodeJSON(name)
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(v)
		k++
	}
	seen := map[string]bool{}
	for _, c := range n.Children {
		if v, ok := f.value(c, probs, ptr+"/"+escape(c.Name)); ok {
			put(c.Name, v)
			seen[c.Name] = true
		}
	}
	for _, e := range n.Entries {
		ep := ptr + "/" + escape(e.Key)
		// The key "" is a key like any other (a JSON object may have it,
		// and the schema decides): sent, never dropped while on screen.
		if seen[e.Key] {
			probs.add(ep, MsgDupKey)
			continue
		}
		if v, ok := f.value(e.Children[0], probs, ep); ok {
			put(e.Key, v)
			seen[e.Key] = true
		}
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// notNumber is the problem of text that is not a JSON number in a field
// of kind k.
func notNumber(k Kind) string {
	if k == KindInteger {
		return MsgNotInteger
	}
	return MsgNotNumber
}

// numberText returns the text a number field shows for a loaded JSON
// string: what the form sends for text that is not a JSON number ("abc",
// "007"). A string that reads as a number ("5") is not one of those: it
// stays a string (kept as JSON), so loading never turns it into a number.
func numberText(v json.RawMessage) (string, bool) {
	var s string
	if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &s) != nil {
		return "", false
	}
	t := strings.TrimSpace(s)
	if t == "" || numberRe().MatchString(t) || strings.ContainsAny(s, "\n\r") {
		return "", false
	}
	return s, true
}

// integral reports whether a JSON number is an integer (1.0 and 1e3 are).
func integral(s string) bool {
	r, ok := schema.Rat(s)
	return ok && r.IsInt()
}

// counted is "1 item", "2 items": n with the noun in its number.
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return itoa(n) + " " + many
}

func itoa(i int) string { return strconv.Itoa(i) }

// formatProblem is the format check every reader of a schema shares
// (schema.FormatProblem): the form flags at the field what the validator,
// JSON mode and invoke refuse.
func formatProblem(format, s string) string { return schema.FormatProblem(format, s) }

// safeIntegerBound is the bound schema generators (zod's .int(), many
// OpenAPI tools) write on every integer: ±(2^53−1), the safe-integer
// range. It restates the reader's limit, not the author's: the form shows
// it as that note (Notes), not as a bound.
const safeIntegerBound = "9007199254740991"

// safeBound reports whether bound b (as written) is the safe-integer
// marker on an integer field.
func (n *Node) safeBound(b string) bool {
	return n.Kind == KindInteger && strings.TrimPrefix(b, "-") == safeIntegerBound
}

// Hint summarises the constraints the schema declares, for display:
// bounds, lengths, pattern, format, item counts; "" when none. modbay's
// own rules are Notes, never here.
func (n *Node) Hint() string {
	s := n.Schema
	if s == nil {
		return ""
	}
	var h []string
	add := func(p string) { h = append(h, p) }
	switch {
	case s.ExclusiveMinimum != "":
		add("> " + s.ExclusiveMinimum)
	case s.Minimum != "" && !n.safeBound(s.Minimum):
		add("≥ " + s.Minimum)
	}
	switch {
	case s.ExclusiveMaximum != "":
		add("< " + s.ExclusiveMaximum)
	case s.Maximum != "" && !n.safeBound(s.Maximum):
		add("≤ " + s.Maximum)
	}
	if s.MultipleOf != "" {
		add("multiple of " + s.MultipleOf)
	}
	switch {
	case s.MinLength != nil && s.MaxLength != nil:
		add(itoa(*s.MinLength) + "–" + counted(*s.MaxLength, "char", "chars"))
	case s.MinLength != nil:
		add("≥ " + counted(*s.MinLength, "char", "chars"))
	case s.MaxLength != nil:
		add("≤ " + counted(*s.MaxLength, "char", "chars"))
	}
	if n.Kind == KindArray || n.Kind == KindMulti {
		switch {
		case s.MinItems != nil && s.MaxItems != nil:
			add(itoa(*s.MinItems) + "–" + counted(*s.MaxItems, "item", "items"))
		case s.MinItems != nil:
			add("≥ " + counted(*s.MinItems, "item", "items"))
		case s.MaxItems != nil:
			add("≤ " + counted(*s.MaxItems, "item", "items"))
		}
		if s.UniqueItems {
			add("unique")
		}
	}
	if s.Format != "" && (schema.FormatHints[s.Format] == "" || !n.IsText()) {
		add(s.Format) // one modbay checks is its note
	}
	if s.Pattern != "" {
		add("pattern " + s.Pattern)
	}
	if s.PropertyNames != nil && s.PropertyNames.Pattern != "" {
		add("keys match " + s.PropertyNames.Pattern)
	}
	return strings.Join(h, " · ")
}

// Notes are modbay's own rules that apply to the field, in words that say
// they are modbay's (a view shows them apart from the schema's Hint): the
// format modbay checks, with its shape; an integer's exact range, when the
// schema states only the safe-integer marker or declares wider integers.
func (n *Node) Notes() []string {
	s := n.Schema
	if s == nil {
		return nil
	}
	var out []string
	if fh := schema.FormatHints[s.Format]; fh != "" && n.IsText() {
		out = append(out, "modbay checks "+s.Format+" ("+fh+")")
	}
	if n.Kind == KindInteger && (n.safeBound(s.Minimum) || n.safeBound(s.Maximum)) {
		out = append(out, "modbay: integers are exact to ±2^53")
	}
	return out
}
