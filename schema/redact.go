package schema

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"modbay/internal/jsonptr"
	"modbay/modproto"
)

// Mask is what a secret value is shown as: the same six dots whatever the
// value's length or type, so the mask says nothing about the secret.
const Mask = "••••••"

// redactMaxDepth bounds the walk of an input: a value nested deeper is
// treated as secret (withheld), the conservative answer for a value no
// one will read anyway.
const redactMaxDepth = 64

// Redaction is how Redact withholds a secret value.
type Redaction int

const (
	// RedactMask replaces each secret value with the string Mask: for
	// showing an input (the approval dialog), where the field's presence
	// is worth seeing.
	RedactMask Redaction = iota
	// RedactOmit drops each secret object member and array element: for
	// an input written to disk (the last input, presets), so loading it
	// back leaves the secret field empty to be typed again rather than
	// filled with the mask.
	RedactOmit
)

// Redact withholds the secret values of input (JSON) before it leaves
// memory: the one redaction rule of modbay, used by the approval dialog,
// the input store (last input and presets) and any later echo of an input.
//
// The rule: a value is secret when any schema that may apply to it marks
// it "writeOnly": true or "format": "password". Which schemas may apply is
// read conservatively, as a union: the subschema at the value's place
// (properties, patternProperties, additionalProperties,
// unevaluatedProperties, prefixItems, items, additionalItems,
// unevaluatedItems, contains), plus everything reachable from it through
// $ref, $dynamicRef, $recursiveRef, allOf, anyOf, oneOf, if/then/else and
// dependentSchemas, whether or not the branch matches the value. A marked
// object or array is withheld whole.
//
// It returns the redacted input and how many values were withheld. An
// input with nothing to withhold is returned unchanged (same bytes); one
// that is redacted is re-encoded compactly, numbers kept digit for digit
// and keys in their source order (docs/protocol.md §4). With no schema (h nil) nothing is known to be secret. An input that is
// not JSON is withheld whole: the JSON string Mask (RedactMask) or nil
// (RedactOmit), counted as one.
func Redact(h *Compiled, input json.RawMessage, how Redaction) (json.RawMessage, int) {
	if h == nil || h.root == nil {
		return input, 0
	}
	v, err := decodeOrdered(input)
	if err != nil {
		if how == RedactOmit {
			return nil, 1
		}
		return maskJSON(), 1
	}
	r := redactor{doc: h.document(), how: how, dyn: h.dynamicAnchors()}
	out, drop := r.value([]*jsonschema.Schema{h.root}, v, 0)
	switch {
	case r.n == 0:
		return input, 0
	case drop && how == RedactOmit:
		return nil, r.n
	}
	b, err := modproto.EncodeJSON(out)
	if err != nil {
		return maskJSON(), max(r.n, 1)
	}
	return b, r.n
}

// document is the schema document decoded (nil if it somehow is not
// JSON), decoded once per handle.
func (h *Compiled) document() any {
	h.doc.once.Do(func() {
		if json.Unmarshal(h.source, &h.doc.v) != nil {
			h.doc.v = nil
		}
	})
	return h.doc.v
}

// maskFindings masks, in the details of findings at or under a secret
// value of input (Redact's rule), every scalar of that value: a broken
// rule is reported ("does not match pattern"), the secret it was checked
// on is not ("'hunter2' does not match…" reads "'••••••' does not
// match…"). Findings elsewhere are left as they are.
func (h *Compiled) maskFindings(input json.RawMessage, out modproto.ValidationErrors) {
	h.maskFindingsOf(h.root, input, out)
}

// maskFindingsOf is maskFindings for input judged by the subschema sch.
func (h *Compiled) maskFindingsOf(sch *jsonschema.Schema, input json.RawMessage, out modproto.ValidationErrors) {
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return
	}
	r := redactor{doc: h.document(), how: RedactMask, secrets: map[string][]string{}, dyn: h.dynamicAnchors()}
	r.value([]*jsonschema.Schema{sch}, v, 0)
	if r.n == 0 {
		return
	}
	for i, f := range out {
		for ptr, vals := range r.secrets {
			if f.Path != ptr && !strings.HasPrefix(f.Path, ptr+"/") {
				continue
			}
			for _, s := range vals {
				out[i].Detail = strings.ReplaceAll(out[i].Detail, s, Mask)
			}
		}
	}
}

// scalars appends the text of every string and number in v (a decoded
// value) to out, longest first, so a value is masked before a part of it.
func scalars(v any, out []string) []string {
	switch x := v.(type) {
	case string:
		if x != "" {
			out = append(out, x)
		}
	case json.Number:
		out = append(out, x.String())
	case map[string]any:
		for _, c := range x {
			out = scalars(c, out)
		}
	case []any:
		for _, c := range x {
			out = scalars(c, out)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// maskJSON is Mask as a JSON string.
func maskJSON() json.RawMessage {
	b, _ := json.Marshal(Mask)
	return b
}

// redactor is one Redact walk: the decoded schema document (for keywords
// the compiled schema keeps only when asserting, as format) and the count
// of values withheld.
type redactor struct {
	doc any
	how Redaction
	n   int
	// secrets, when not nil, collects the scalars of each secret value
	// by its JSON pointer (maskFindings).
	secrets map[string][]string
	// whys, when not nil, collects why each secret value is one, by its
	// JSON pointer (Echoes).
	whys map[string]string
	// work counts the subschemas weighed so far (bounded like a
	// validation).
	work int
	// path is the JSON pointer of the value being walked.
	path []string
	// dyn is every schema of the document by its "$dynamicAnchor": a
	// "$dynamicRef" may land on any of them, as validation decides.
	dyn map[string][]*jsonschema.Schema
}

// value returns v with its secrets withheld, given the schemas placed at
// it; drop reports that v itself is secret and RedactOmit should drop it.
func (r *redactor) value(at []*jsonschema.Schema, v any, depth int) (any, bool) {
	set := closure(at, r.dyn)
	r.work += len(set)
	// Past MaxValidateSteps subschemas weighed, every value left is
	// withheld: the conservative answer, and the walk stays bounded.
	if depth > redactMaxDepth || r.work > MaxValidateSteps || r.secret(set) {
		r.n++
		if r.secrets != nil {
			p := Pointer(r.path)
			r.secrets[p] = scalars(v, r.secrets[p])
			if r.whys != nil {
				r.whys[p] = cmp.Or(r.why(set), "past the redaction bound")
			}
		}
		return Mask, r.how == RedactOmit
	}
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			r.path = append(r.path, k)
			out, drop := r.value(memberSchemas(set, k), c, depth+1)
			r.path = r.path[:len(r.path)-1]
			if drop {
				delete(x, k)
			} else {
				x[k] = out
			}
		}
	case *orderedObject:
		for _, k := range slices.Clone(x.keys) {
			r.path = append(r.path, k)
			out, drop := r.value(memberSchemas(set, k), x.m[k], depth+1)
			r.path = r.path[:len(r.path)-1]
			if drop {
				x.delete(k)
			} else {
				x.m[k] = out
			}
		}
	case []any:
		kept := x[:0]
		for i, c := range x {
			r.path = append(r.path, strconv.Itoa(i))
			out, drop := r.value(itemSchemas(set, i), c, depth+1)
			r.path = r.path[:len(r.path)-1]
			if !drop {
				kept = append(kept, out)
			}
		}
		return kept, false
	}
	return v, false
}

// secret reports whether any schema of set marks its value secret.
func (r *redactor) secret(set []*jsonschema.Schema) bool { return r.why(set) != "" }

// why is the keyword that marks a value of set secret ("writeOnly",
// "format: password"), "" when none does.
func (r *redactor) why(set []*jsonschema.Schema) string {
	for _, s := range set {
		if s.WriteOnly {
			return "writeOnly"
		}
		if s.Format != nil && s.Format.Name == "password" {
			return "format: password"
		}
		// Format is compiled only where it is asserted (and writeOnly
		// only where the draft has it): the document says what was meant.
		if m, ok := r.at(s.Location).(map[string]any); ok {
			if w, _ := m["writeOnly"].(bool); w {
				return "writeOnly"
			}
			if f, _ := m["format"].(string); f == "password" {
				return "format: password"
			}
		}
	}
	return ""
}

// at returns the node of the schema document at location (a compiled
// schema's Location: the document URL, "#", a JSON pointer); nil when it
// is not in the document.
func (r *redactor) at(location string) any {
	_, frag, ok := strings.Cut(location, "#")
	if !ok {
		return nil
	}
	// The fragment is URL-escaped ("^" as %5E).
	ptr, err := url.PathUnescape(frag)
	if err != nil {
		return nil
	}
	node := r.doc
	if ptr == "" {
		return node
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = jsonptr.Unescape(tok)
		switch n := node.(type) {
		case map[string]any:
			node = n[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n) {
				return nil
			}
			node = n[i]
		default:
			return nil
		}
	}
	return node
}

// closure returns at with every schema reachable from it without moving
// in the instance: references and applicators that apply to the same
// value, every branch taken (the conservative union); a "$dynamicRef"
// reaches its static target and every schema of dyn with its anchor, a
// "$recursiveRef" every schema with a "$recursiveAnchor".
func closure(at []*jsonschema.Schema, dyn map[string][]*jsonschema.Schema) []*jsonschema.Schema {
	seen := map[*jsonschema.Schema]bool{}
	var out []*jsonschema.Schema
	var add func(s *jsonschema.Schema)
	add = func(s *jsonschema.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		out = append(out, s)
		add(s.Ref)
		add(s.RecursiveRef)
		if s.RecursiveRef != nil {
			for _, t := range dyn[recursiveAnchor] {
				add(t)
			}
		}
		if s.DynamicRef != nil {
			add(s.DynamicRef.Ref)
			if s.DynamicRef.Anchor != "" {
				for _, t := range dyn[s.DynamicRef.Anchor] {
					add(t)
				}
			}
		}
		for _, l := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
			for _, c := range l {
				add(c)
			}
		}
		add(s.If)
		add(s.Then)
		add(s.Else)
		for _, c := range s.DependentSchemas {
			add(c)
		}
		for _, c := range s.Dependencies {
			if cs, ok := c.(*jsonschema.Schema); ok {
				add(cs)
			}
		}
	}
	for _, s := range at {
		add(s)
	}
	return out
}

// memberSchemas returns the schemas of set that apply to object member k.
func memberSchemas(set []*jsonschema.Schema, k string) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	for _, s := range set {
		named := false
		if c, ok := s.Properties[k]; ok {
			out, named = append(out, c), true
		}
		for re, c := range s.PatternProperties {
			if re.MatchString(k) {
				out, named = append(out, c), true
			}
		}
		if ap, ok := s.AdditionalProperties.(*jsonschema.Schema); ok && !named {
			out = append(out, ap)
		}
		if s.UnevaluatedProperties != nil {
			out = append(out, s.UnevaluatedProperties)
		}
	}
	return out
}

// itemSchemas returns the schemas of set that apply to array element i.
func itemSchemas(set []*jsonschema.Schema, i int) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	for _, s := range set {
		switch {
		case i < len(s.PrefixItems):
			out = append(out, s.PrefixItems[i])
		case s.Items2020 != nil:
			out = append(out, s.Items2020)
		}
		switch it := s.Items.(type) {
		case *jsonschema.Schema:
			out = append(out, it)
		case []*jsonschema.Schema:
			if i < len(it) {
				out = append(out, it[i])
			} else if ai, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
				out = append(out, ai)
			}
		}
		if s.UnevaluatedItems != nil {
			out = append(out, s.UnevaluatedItems)
		}
		if s.Contains != nil {
			out = append(out, s.Contains)
		}
	}
	return out
}

// MinEchoLen is the shortest secret value MaskEchoes looks for, in
// characters: a shorter one would mask innocent text wherever it occurs.
const MinEchoLen = 4

// Echo is one secret value of an input (Redact's rule), as MaskEchoes
// looks for it in what a module sent back.
type Echo struct {
	// Pointer is the value's JSON pointer in the input ("/api_key");
	// Why the keyword that makes it secret ("writeOnly").
	Pointer, Why string
	// Value is a string's text or a number's digits.
	Value string
}

// Label is what an echo is replaced with: "‹masked: writeOnly /api_key›".
func (e Echo) Label() string {
	return "‹masked: " + e.Why + " " + strings.NewReplacer(`"`, "'", `\`, "/").Replace(e.Pointer) + "›"
}

// Echoes returns the secret scalars of input (Redact's rule) of at least
// MinEchoLen characters, longest first; nil with no schema or none.
func Echoes(h *Compiled, input json.RawMessage) []Echo {
	if h == nil || h.root == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	r := redactor{doc: h.document(), how: RedactMask, secrets: map[string][]string{}, whys: map[string]string{}, dyn: h.dynamicAnchors()}
	r.value([]*jsonschema.Schema{h.root}, v, 0)
	var out []Echo
	seen := map[string]bool{} // a value repeated is searched once
	for _, p := range slices.Sorted(maps.Keys(r.secrets)) {
		for _, s := range r.secrets[p] {
			if len([]rune(s)) >= MinEchoLen && !seen[s] {
				seen[s] = true
				out = append(out, Echo{Pointer: p, Why: r.whys[p], Value: s})
			}
		}
	}
	sortEchoes(out)
	return out
}

// sortEchoes orders echoes longest first (a longer secret is masked
// before one inside it), then by value.
func sortEchoes(echoes []Echo) {
	slices.SortFunc(echoes, func(a, b Echo) int { return cmp.Or(len(b.Value)-len(a.Value), strings.Compare(a.Value, b.Value)) })
}

// MaskEchoes replaces every occurrence in b of an echo's value, as
// written or with any of its characters JSON-escaped (escapes.go), with
// its Label, and says how many it replaced: a module's reply, stderr or
// raw exchange as the host records and shows it. An encoded echo
// (base64, hex, URL-escaped, split) is not found. b is returned
// unchanged when nothing matched.
func MaskEchoes(b []byte, echoes []Echo) ([]byte, int) {
	if len(echoes) > manyEchoes {
		return maskMany(b, echoes)
	}
	n := 0
	for _, e := range echoes {
		for _, form := range echoForms(e.Value) {
			if c := bytes.Count(b, form); c > 0 {
				b = bytes.ReplaceAll(b, form, []byte(e.Label()))
				n += c
			}
		}
	}
	b, c := maskEscaped(b, echoes)
	b, d := maskNumbers(b, numberEchoesFor(echoes))
	return b, n + c + d
}

// EchoPrefixLen is the length of the longest end of b that begins an
// echo's value (as MaskEchoes spells it, an escape b ends inside
// included) without holding all of it: the bytes a stream cut there (a
// chunk, a bound) may leave of a secret, which the host holds back until
// the next bytes, or drops at a cut. 0 when none; linear in len(b) and
// the echoes' lengths.
func EchoPrefixLen(b []byte, echoes []Echo) int {
	best := 0
	for _, e := range echoes {
		for _, f := range echoForms(e.Value) {
			best = max(best, prefixAtEnd(b, f))
		}
		best = max(best, escapedPrefixLen(b, e.Value))
	}
	return best
}

// prefixAtEnd is the length of the longest proper prefix of f that b
// ends with (Knuth–Morris–Pratt over b's last len(f)-1 bytes).
func prefixAtEnd(b, f []byte) int {
	if len(f) < 2 {
		return 0
	}
	fail := make([]int, len(f)) // fail[i]: longest proper border of f[:i+1]
	for i, k := 1, 0; i < len(f); i++ {
		for k > 0 && f[i] != f[k] {
			k = fail[k-1]
		}
		if f[i] == f[k] {
			k++
		}
		fail[i] = k
	}
	k := 0
	for _, c := range b[max(0, len(b)-(len(f)-1)):] {
		for k > 0 && (k == len(f) || c != f[k]) {
			k = fail[k-1]
		}
		if c == f[k] {
			k++
		}
	}
	if k == len(f) {
		k = fail[k-1]
	}
	return k
}

// echoForms are the spellings of s searched: as is, and inside a quote
// when quoting changes it — JSON's (ours and encoding/json's) and Go's
// (%q and %+q, which the host's verdicts quote a module's text with:
// \U000e0001, \a and \x07 are not JSON escapes).
func echoForms(s string) [][]byte {
	forms := [][]byte{[]byte(s)}
	add := func(q []byte) {
		if len(q) < 2 {
			return
		}
		if inner := q[1 : len(q)-1]; string(inner) != s && !slices.ContainsFunc(forms, func(f []byte) bool { return bytes.Equal(f, inner) }) {
			forms = append(forms, inner)
		}
	}
	if q, err := modproto.EncodeJSON(s); err == nil {
		add(q)
	}
	if q, err := json.Marshal(s); err == nil {
		add(q)
	}
	add([]byte(strconv.Quote(s)))
	add([]byte(strconv.QuoteToASCII(s)))
	return forms
}

// MaskEchoesJSON is MaskEchoes for a JSON value (a reply's result), which
// stays JSON: an echo inside a string is replaced in place; a number that
// holds an echo among its characters becomes its Label as a string (the value then re-encoded,
// its keys in source order).
func MaskEchoesJSON(raw json.RawMessage, echoes []Echo) (json.RawMessage, int) {
	out, n := MaskEchoes(raw, echoes)
	// A secret that reads as a number may come back spelt otherwise
	// (1.2345e4 for 12345): with one, the value is always walked.
	numeric := slices.ContainsFunc(echoes, func(e Echo) bool { _, ok := echoNumber(e.Value); return ok })
	if !numeric && (n == 0 || json.Valid(out)) {
		return out, n
	}
	v, err := decodeOrdered(raw)
	if err != nil {
		return out, n
	}
	nums := numberEchoesFor(echoes)
	var many *echoMatcher
	if len(echoes) > manyEchoes {
		many = matcherFor(echoes)
	}
	rawN := n
	n = 0
	numbers := 0 // numbers masked
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case string:
			b, c := MaskEchoes([]byte(x), echoes)
			n += c
			return string(b)
		case json.Number:
			// A number that spells an echo among its digits ("-48213",
			// "48213.0") or equals one in value ("0.48213e5") is masked
			// whole (echonumbers.go).
			e, ok := nums.byValue(x.String())
			if !ok {
				e, ok = within(echoes, many, x.String())
			}
			if ok {
				n++
				numbers++
				return e.Label()
			}
		case *orderedObject:
			o := &orderedObject{m: make(map[string]any, len(x.keys))}
			for _, k := range x.keys {
				kb, kc := MaskEchoes([]byte(k), echoes)
				n += kc
				if _, dup := o.m[string(kb)]; !dup {
					o.keys = append(o.keys, string(kb))
				}
				o.m[string(kb)] = walk(x.m[k])
			}
			return o
		case []any:
			for i, c := range x {
				x[i] = walk(c)
			}
		}
		return v
	}
	w := walk(v)
	if numbers == 0 && json.Valid(out) {
		return out, rawN // masked in place: the other bytes as sent
	}
	b, err := modproto.EncodeJSON(w)
	if err != nil {
		return maskJSON(), max(n, 1)
	}
	return b, n
}

// echoNumber is s's value when s reads as a finite JSON or Go number.
func echoNumber(s string) (float64, bool) {
	if len(s) > 64 {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}

// recursiveAnchor is dynamicAnchors' key for the schemas with a
// "$recursiveAnchor" (no "$dynamicAnchor" name holds a space).
const recursiveAnchor = " recursive"

// dynamicAnchors is every schema of h's document with a
// "$dynamicAnchor", compiled, by the anchor's name, and with a
// "$recursiveAnchor" (true or not: the conservative union) under
// recursiveAnchor; nil when none has one; found once.
func (h *Compiled) dynamicAnchors() map[string][]*jsonschema.Schema {
	h.dynOnce.Do(func() {
		d, err := h.Doc()
		if err != nil || h.c == nil {
			return
		}
		for _, n := range d.Nodes() {
			name := ""
			switch {
			case n.Anchor != "" && slices.Contains(n.Keywords, "$dynamicAnchor"):
				name = n.Anchor
			case slices.Contains(n.Keywords, "$recursiveAnchor"):
				name = recursiveAnchor
			default:
				continue
			}
			if s := h.sub(n.Loc); s != nil {
				if h.dyn == nil {
					h.dyn = map[string][]*jsonschema.Schema{}
				}
				h.dyn[name] = append(h.dyn[name], s)
			}
		}
	})
	return h.dyn
}
