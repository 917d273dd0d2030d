// Package conform is modbay's conformance run of a module (`modbay
// check`): inputs generated from a capability's request
// schema (Generate), and the checklist of a module's describes, verdict
// and invokes judged by the host's own rules (Check).
//
// The generator reads the schema document for the keywords that shape a
// value (type, properties, required, enum, const, default, examples,
// minimum/maximum, minLength/maxLength, minItems, items, $ref to the
// document's own fragments, allOf/anyOf/oneOf) and then asks the schema
// package's compiled handle whether each value is what it claims: every
// valid case validates and every invalid case does not, or the case is
// skipped with the reason. It never guesses a regular expression: a
// pattern none of its few candidates match is skipped and listed.
package conform

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"modbay/schema"
)

// CaseKind says how a Case was made.
type CaseKind string

// Case kinds, in the order Generate returns them.
const (
	// KindExample is an entry of the schema's own "examples".
	KindExample CaseKind = "example"
	// KindDefault is the schema's "default", or the minimal input with
	// every property's "default" filled in.
	KindDefault CaseKind = "default"
	// KindMinimal is the smallest input: required properties only, each
	// at its smallest value.
	KindMinimal CaseKind = "minimal"
	// KindFull sets every property, optional ones included.
	KindFull CaseKind = "full"
	// KindBoundary is the minimal input with one property at a bound
	// (minimum, maximum, minLength, maxLength) or an enum member.
	KindBoundary CaseKind = "boundary"
	// KindInvalid is an input the schema refuses.
	KindInvalid CaseKind = "invalid"
)

// Case is one generated input for a capability.
type Case struct {
	// Kind says how the case was made; Name says which one in a few words
	// ("boundary /count maximum 3").
	Kind CaseKind
	Name string
	// Input is the JSON input; nil when Skip is set.
	Input json.RawMessage
	// Valid is true when the schema accepts Input (checked), false for
	// KindInvalid (checked too).
	Valid bool
	// Skip, when not empty, is why no input could be made for this case
	// (a pattern or format modbay cannot satisfy, a value that did not
	// validate); Input is then nil.
	Skip string
}

// maxRefDepth bounds $ref and nesting while generating: a recursive schema
// is followed this deep, then its optional parts are left out.
const maxRefDepth = 8

// maxBoundaryCases bounds the boundary cases of one schema: a schema with
// dozens of bounded properties must not make a check run for minutes.
const maxBoundaryCases = 24

// maxEnumMembers bounds the enum members tried per property.
const maxEnumMembers = 6

// Generate returns the cases for the request schema h: its examples and
// default, the defaults filled in, a minimal input, one with every optional
// property set, boundary values of each top-level property, and one
// invalid input. Duplicates (same JSON) are dropped. A nil h (a capability
// without a request schema) gives the empty object and no invalid input.
func Generate(h *schema.Compiled) []Case {
	if h == nil {
		return []Case{{Kind: KindMinimal, Name: "minimal", Input: json.RawMessage(`{}`), Valid: true},
			{Kind: KindInvalid, Name: "invalid", Skip: "the capability has no request schema: every input is valid"}}
	}
	var doc any
	if err := json.Unmarshal(h.Source(), &doc); err != nil {
		return []Case{{Kind: KindMinimal, Name: "minimal", Skip: "the schema is not JSON"}}
	}
	g := &gen{doc: doc}
	var cases []Case
	add := func(kind CaseKind, name string, v any, err error) {
		cases = append(cases, g.check(h, kind, name, v, err))
	}
	root := g.resolve(doc, 0)
	if m, ok := root.(map[string]any); ok {
		if ex, ok := m["examples"].([]any); ok {
			for i, e := range ex {
				add(KindExample, fmt.Sprintf("example %d", i+1), e, nil)
			}
		}
		if d, ok := m["default"]; ok {
			add(KindDefault, "default", d, nil)
		}
	}
	if v, err := g.value(doc, modeDefaults, 0); err == nil && g.usedDefault {
		add(KindDefault, "defaults filled in", v, nil)
	}
	minimal, err := g.value(doc, modeMinimal, 0)
	add(KindMinimal, "minimal", minimal, err)
	full, err := g.value(doc, modeFull, 0)
	add(KindFull, "every optional field set", full, err)
	if err == nil || minimal != nil {
		for _, b := range g.boundaries(root, minimal) {
			add(KindBoundary, b.name, b.value, nil)
		}
	}
	cases = append(cases, g.invalid(h, root, minimal))
	return dedupe(cases)
}

// check turns a generated value into a Case, skipping it when generation
// failed or the schema does not accept it.
func (g *gen) check(h *schema.Compiled, kind CaseKind, name string, v any, err error) Case {
	c := Case{Kind: kind, Name: name}
	if err != nil {
		c.Skip = err.Error()
		return c
	}
	b, err := json.Marshal(v)
	if err != nil {
		c.Skip = "cannot encode the value: " + err.Error()
		return c
	}
	viol, err := h.Validate(b)
	switch {
	case err != nil:
		c.Skip = err.Error()
	case len(viol) > 0:
		c.Skip = "modbay's value does not validate (" + viol[0].Error() + ")"
	default:
		c.Input, c.Valid = b, true
	}
	return c
}

// dedupe drops cases whose input repeats an earlier one's (skipped cases
// are kept: they are listed).
func dedupe(cases []Case) []Case {
	seen := map[string]bool{}
	out := cases[:0]
	for _, c := range cases {
		if c.Input != nil {
			k := string(c.Input)
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		out = append(out, c)
	}
	return out
}

// mode is what a generated value aims at.
type mode int

const (
	// modeMinimal: required properties only, smallest values.
	modeMinimal mode = iota
	// modeDefaults: as minimal, with every "default" used.
	modeDefaults
	// modeFull: every property, examples and defaults first.
	modeFull
)

// gen generates values from one schema document.
type gen struct {
	doc any
	// usedDefault is set when a modeDefaults value used a "default".
	usedDefault bool
}

// cannotGenerate is the error of a value modbay cannot make.
type cannotGenerate struct{ what string }

func (e *cannotGenerate) Error() string { return "cannot generate " + e.what }

// resolve follows a local $ref ("#/…") chain from s; anything else is
// returned as is.
func (g *gen) resolve(s any, depth int) any {
	for i := 0; i < maxRefDepth; i++ {
		m, ok := s.(map[string]any)
		if !ok {
			return s
		}
		ref, ok := m["$ref"].(string)
		if !ok || !strings.HasPrefix(ref, "#") {
			return s
		}
		target := g.pointer(strings.TrimPrefix(ref, "#"))
		if target == nil {
			return s
		}
		// Sibling keywords of a $ref (2019-09 on) apply too.
		if len(m) > 1 {
			if tm, ok := target.(map[string]any); ok {
				merged := maps.Clone(tm)
				for k, v := range m {
					if k != "$ref" {
						merged[k] = v
					}
				}
				target = merged
			}
		}
		s = target
	}
	return s
}

// pointer returns the document's value at JSON pointer p, nil when absent.
func (g *gen) pointer(p string) any {
	cur := g.doc
	if p == "" || p == "/" {
		return cur
	}
	for _, tok := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		if cur, ok = m[tok]; !ok {
			return nil
		}
	}
	return cur
}

// value generates one value of schema s for mode.
func (g *gen) value(s any, md mode, depth int) (any, error) {
	if depth > maxRefDepth {
		return nil, &cannotGenerate{"a value this deep (the schema recurses)"}
	}
	s = g.resolve(s, depth)
	if b, ok := s.(bool); ok {
		if !b {
			return nil, &cannotGenerate{"a value for a schema that is false"}
		}
		return map[string]any{}, nil
	}
	m, ok := s.(map[string]any)
	if !ok {
		return map[string]any{}, nil
	}
	if c, ok := m["const"]; ok {
		return c, nil
	}
	if md == modeFull {
		if ex, ok := m["examples"].([]any); ok && len(ex) > 0 {
			return ex[0], nil
		}
	}
	if md != modeMinimal {
		if d, ok := m["default"]; ok {
			if md == modeDefaults {
				g.usedDefault = true
			}
			return d, nil
		}
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[0], nil
	}
	if all, ok := m["allOf"].([]any); ok && len(all) > 0 {
		return g.value(mergeAll(m, all, g, depth), md, depth+1)
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		if alts, ok := m[k].([]any); ok && len(alts) > 0 {
			base := maps.Clone(m)
			delete(base, k)
			return g.value(mergeAll(base, alts[:1], g, depth), md, depth+1)
		}
	}
	switch typeOf(m) {
	case "object":
		return g.object(m, md, depth)
	case "array":
		return g.array(m, md, depth)
	case "string":
		return g.str(m, md)
	case "integer":
		return number(m, md, true), nil
	case "number":
		return number(m, md, false), nil
	case "boolean":
		return md == modeFull, nil
	case "null":
		return nil, nil
	}
	return map[string]any{}, nil
}

// mergeAll merges the subschemas subs into base (properties and required
// united, other keywords from the later one): good enough to generate a
// candidate, which the compiled handle then judges.
func mergeAll(base map[string]any, subs []any, g *gen, depth int) map[string]any {
	out := maps.Clone(base)
	delete(out, "allOf")
	props := map[string]any{}
	if p, ok := out["properties"].(map[string]any); ok {
		maps.Copy(props, p)
	}
	req, _ := out["required"].([]any)
	req = slices.Clone(req)
	for _, s := range subs {
		sm, ok := g.resolve(s, depth).(map[string]any)
		if !ok {
			continue
		}
		for k, v := range sm {
			switch k {
			case "properties":
				if p, ok := v.(map[string]any); ok {
					maps.Copy(props, p)
				}
			case "required":
				if r, ok := v.([]any); ok {
					req = append(req, r...)
				}
			default:
				out[k] = v
			}
		}
	}
	if len(props) > 0 {
		out["properties"] = props
	}
	if len(req) > 0 {
		out["required"] = req
	}
	return out
}

// typeOf is the type to generate for m: its "type" (the first non-null
// one of a list), else what its keywords imply.
func typeOf(m map[string]any) string {
	switch t := m["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				return s
			}
		}
		if len(t) > 0 {
			return "null"
		}
	}
	switch {
	case m["properties"] != nil || m["required"] != nil || m["additionalProperties"] != nil:
		return "object"
	case m["items"] != nil || m["minItems"] != nil || m["prefixItems"] != nil:
		return "array"
	case m["minLength"] != nil || m["maxLength"] != nil || m["pattern"] != nil || m["format"] != nil:
		return "string"
	case m["minimum"] != nil || m["maximum"] != nil || m["exclusiveMinimum"] != nil || m["exclusiveMaximum"] != nil || m["multipleOf"] != nil:
		return "number"
	}
	return ""
}

// properties returns m's property names, sorted, and its required set.
func properties(m map[string]any) ([]string, map[string]any, map[string]bool) {
	props, _ := m["properties"].(map[string]any)
	req := map[string]bool{}
	if r, ok := m["required"].([]any); ok {
		for _, x := range r {
			if s, ok := x.(string); ok {
				req[s] = true
			}
		}
	}
	names := slices.Sorted(maps.Keys(props))
	return names, props, req
}

// object generates an object: required properties always, the others
// in modeFull (a required name without a property schema gets "").
func (g *gen) object(m map[string]any, md mode, depth int) (any, error) {
	names, props, req := properties(m)
	out := map[string]any{}
	for _, n := range names {
		if !req[n] && md != modeFull && !(md == modeDefaults && hasDefault(g.resolve(props[n], depth))) {
			continue
		}
		v, err := g.value(props[n], md, depth+1)
		if err != nil {
			if !req[n] {
				continue
			}
			return nil, fmt.Errorf("/%s: %w", n, err)
		}
		out[n] = v
	}
	for n := range req {
		if _, ok := out[n]; !ok {
			if _, declared := props[n]; !declared {
				out[n] = ""
			}
		}
	}
	if mp, ok := m["minProperties"].(float64); ok {
		for i := 0; len(out) < int(mp) && i < len(names); i++ {
			if _, ok := out[names[i]]; !ok {
				if v, err := g.value(props[names[i]], md, depth+1); err == nil {
					out[names[i]] = v
				}
			}
		}
	}
	return out, nil
}

// hasDefault reports whether schema s has a "default".
func hasDefault(s any) bool {
	m, ok := s.(map[string]any)
	_, has := m["default"]
	return ok && has
}

// array generates minItems items (one in modeFull when minItems is 0).
func (g *gen) array(m map[string]any, md mode, depth int) (any, error) {
	n := 0
	if mi, ok := m["minItems"].(float64); ok {
		n = int(mi)
	}
	if md == modeFull && n == 0 {
		if mx, ok := m["maxItems"].(float64); !ok || mx >= 1 {
			n = 1
		}
	}
	out := []any{}
	prefix, _ := m["prefixItems"].([]any)
	for i := 0; i < n; i++ {
		item := m["items"]
		if i < len(prefix) {
			item = prefix[i]
		}
		v, err := g.value(item, md, depth+1)
		if err != nil {
			return nil, fmt.Errorf("/%d: %w", i, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// formatSamples are values of the string formats modbay can make.
var formatSamples = map[string]string{
	"date-time": "2024-01-02T03:04:05Z", "date": "2024-01-02", "time": "03:04:05Z",
	"email": "author@example.com", "idn-email": "author@example.com",
	"hostname": "example.com", "idn-hostname": "example.com",
	"ipv4": "192.0.2.1", "ipv6": "2001:db8::1",
	"uri": "https://example.com/", "iri": "https://example.com/", "uri-reference": "https://example.com/",
	"iri-reference": "https://example.com/", "url": "https://example.com/",
	"uuid": "123e4567-e89b-12d3-a456-426614174000", "duration": "PT1S",
	"json-pointer": "/a", "relative-json-pointer": "0", "regex": "a",
	"uri-template": "https://example.com/{id}", "password": "secret",
	"binary": "", "byte": "", "textarea": "", "path": "notes.md",
}

// patternCandidates are the strings tried against a "pattern": a few
// shapes authors' patterns commonly want.
var patternCandidates = []string{"a", "abc", "a1", "1", "123", "A", "ABC", "a-b", "a_b", "abc123", "example.com",
	"2024-01-02", "https://example.com/", "author@example.com", "*.md", "notes.md", "#ff0000", "v1.0.0", "x"}

// str generates a string: a format sample, a pattern candidate, or "a"
// repeated to minLength ("abc"-long in modeFull).
func (g *gen) str(m map[string]any, md mode) (any, error) {
	minLen, maxLen := intKeyword(m, "minLength", 0), intKeyword(m, "maxLength", -1)
	fits := func(s string) bool {
		n := len([]rune(s))
		return n >= minLen && (maxLen < 0 || n <= maxLen)
	}
	if p, ok := m["pattern"].(string); ok {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, &cannotGenerate{fmt.Sprintf("a string for pattern %q (not a Go regular expression)", p)}
		}
		cands := patternCandidates
		if f, ok := m["format"].(string); ok && formatSamples[f] != "" {
			cands = append([]string{formatSamples[f]}, cands...)
		}
		for _, c := range cands {
			if re.MatchString(c) && fits(c) {
				return c, nil
			}
		}
		if s := strings.Repeat("a", max(minLen, 1)); re.MatchString(s) && fits(s) {
			return s, nil
		}
		return nil, &cannotGenerate{fmt.Sprintf("a string for pattern %q", p)}
	}
	if f, ok := m["format"].(string); ok {
		s, known := formatSamples[f]
		if !known {
			return nil, &cannotGenerate{fmt.Sprintf("a string of format %q", f)}
		}
		if fits(s) {
			return s, nil
		}
	}
	n := minLen
	if md == modeFull && n < 3 {
		n = 3
	}
	if maxLen >= 0 && n > maxLen {
		n = maxLen
	}
	return strings.Repeat("a", n), nil
}

// intKeyword reads a non-negative integer keyword, def when absent.
func intKeyword(m map[string]any, k string, def int) int {
	if f, ok := m[k].(float64); ok && f >= 0 {
		return int(f)
	}
	return def
}

// number generates 0 moved inside the bounds (1 more in modeFull when
// the upper bound allows it); integer gives a whole number; multipleOf is
// honoured.
func number(m map[string]any, md mode, integer bool) any {
	lo, hasLo := bound(m, "minimum", "exclusiveMinimum", +1, integer)
	hi, hasHi := bound(m, "maximum", "exclusiveMaximum", -1, integer)
	v := 0.0
	if md == modeFull {
		v = 1
	}
	if hasLo && v < lo {
		v = lo
	}
	if hasHi && v > hi {
		v = hi
	}
	if mo, ok := m["multipleOf"].(float64); ok && mo > 0 {
		k := float64(int64(v / mo))
		if k*mo < v {
			k++
		}
		v = k * mo
	}
	if integer {
		return int64(v)
	}
	return v
}

// bound reads an inclusive bound and its exclusive form (a number from
// draft 6 on, a boolean beside the inclusive one in draft 4), returning
// the closest allowed value; step is +1 for a lower bound, -1 for an
// upper one.
func bound(m map[string]any, incl, excl string, step float64, integer bool) (float64, bool) {
	delta := step
	if !integer {
		delta = step / 1000
	}
	if x, ok := m[excl].(float64); ok {
		return x + delta, true
	}
	if x, ok := m[incl].(float64); ok {
		if b, ok := m[excl].(bool); ok && b {
			return x + delta, true
		}
		if integer {
			if step > 0 {
				return float64(int64(x + 0.999999)), true
			}
			return float64(int64(x)), true
		}
		return x, true
	}
	return 0, false
}

// boundary is one boundary value of a top-level property.
type boundary struct {
	name  string
	value any
}

// boundaries returns the minimal input with one top-level property at each
// of its bounds or enum members, in property order.
func (g *gen) boundaries(root any, minimal any) []boundary {
	m, ok := root.(map[string]any)
	base, okBase := minimal.(map[string]any)
	if !ok || !okBase {
		return nil
	}
	names, props, _ := properties(m)
	var out []boundary
	with := func(n, label string, v any) {
		if len(out) >= maxBoundaryCases {
			return
		}
		cp := maps.Clone(base)
		cp[n] = v
		out = append(out, boundary{fmt.Sprintf("boundary /%s %s", n, label), cp})
	}
	for _, n := range names {
		p, ok := g.resolve(props[n], 0).(map[string]any)
		if !ok {
			continue
		}
		if e, ok := p["enum"].([]any); ok {
			for i, x := range e[:min(len(e), maxEnumMembers)] {
				b, _ := json.Marshal(x)
				with(n, fmt.Sprintf("enum member %d %s", i+1, b), x)
			}
			continue
		}
		switch t := typeOf(p); t {
		case "integer", "number":
			if lo, ok := bound(p, "minimum", "exclusiveMinimum", +1, t == "integer"); ok {
				with(n, "minimum "+fmtNum(lo, t == "integer"), numOf(lo, t == "integer"))
			}
			if hi, ok := bound(p, "maximum", "exclusiveMaximum", -1, t == "integer"); ok {
				with(n, "maximum "+fmtNum(hi, t == "integer"), numOf(hi, t == "integer"))
			}
		case "string":
			if p["pattern"] != nil || p["format"] != nil {
				continue
			}
			if mn := intKeyword(p, "minLength", -1); mn >= 0 {
				with(n, fmt.Sprintf("minLength %d", mn), strings.Repeat("a", mn))
			}
			if mx := intKeyword(p, "maxLength", -1); mx >= 0 {
				with(n, fmt.Sprintf("maxLength %d", mx), strings.Repeat("a", mx))
			}
		case "array":
			if mx := intKeyword(p, "maxItems", -1); mx >= 1 {
				if item, err := g.value(p["items"], modeMinimal, 1); err == nil {
					with(n, fmt.Sprintf("maxItems %d", mx), slices.Repeat([]any{item}, mx))
				}
			}
		}
	}
	return out
}

func numOf(x float64, integer bool) any {
	if integer {
		return int64(x)
	}
	return x
}

func fmtNum(x float64, integer bool) string {
	if integer {
		return fmt.Sprint(int64(x))
	}
	return fmt.Sprint(x)
}

// invalid returns one input the schema refuses: a property of the wrong
// type, the required ones left out, or a value of another type; skipped
// when the schema accepts every candidate.
func (g *gen) invalid(h *schema.Compiled, root any, minimal any) Case {
	type cand struct {
		name  string
		value any
	}
	var cands []cand
	if m, ok := root.(map[string]any); ok {
		names, props, req := properties(m)
		base, _ := minimal.(map[string]any)
		// Required properties first: a module must check those.
		sort.SliceStable(names, func(i, j int) bool { return req[names[i]] && !req[names[j]] })
		for _, n := range names {
			p, _ := g.resolve(props[n], 0).(map[string]any)
			cp := maps.Clone(base)
			if cp == nil {
				cp = map[string]any{}
			}
			cp[n] = wrongType(p)
			b, _ := json.Marshal(cp[n])
			cands = append(cands, cand{fmt.Sprintf("invalid: /%s is %s", n, b), cp})
		}
		if len(req) > 0 {
			cands = append(cands, cand{"invalid: required properties left out", map[string]any{}})
		}
		if m["additionalProperties"] == false {
			cp := maps.Clone(base)
			if cp == nil {
				cp = map[string]any{}
			}
			cp["modbay_check_unknown"] = true
			cands = append(cands, cand{"invalid: an undeclared property", cp})
		}
	}
	cands = append(cands, cand{"invalid: a number instead of an object", 42}, cand{"invalid: a string", "modbay check"})
	for _, c := range cands {
		b, _ := json.Marshal(c.value)
		if viol, err := h.Validate(b); err == nil && len(viol) > 0 {
			return Case{Kind: KindInvalid, Name: c.name, Input: b}
		}
	}
	return Case{Kind: KindInvalid, Name: "invalid", Skip: "the schema accepts every input modbay tried"}
}

// wrongType returns a value whose JSON type the property schema p does not
// allow (a number for a string, a string otherwise).
func wrongType(p map[string]any) any {
	switch typeOf(p) {
	case "string":
		return 12345
	case "":
		if e, ok := p["enum"].([]any); ok && len(e) > 0 {
			if _, isStr := e[0].(string); isStr {
				return "modbay-not-a-member"
			}
		}
		return []any{[]any{}}
	}
	return "modbay-wrong-type"
}
