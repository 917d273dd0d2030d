package conform

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
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

// maxValueDepth bounds nesting while generating: a recursive schema is
// followed this deep, then its optional parts are left out.
const maxValueDepth = 8

// maxBoundaryCases bounds the boundary cases of one schema: a schema with
// dozens of bounded properties must not make a check run for minutes.
const maxBoundaryCases = 24

// maxInvalidProps bounds the properties invalid tries of the wrong type
// (required ones first), each a whole validation.
const maxInvalidProps = 60

// maxEnumMembers bounds the enum members tried per property.
const maxEnumMembers = 6

// Generate returns the cases for the request schema h: its examples and
// default, the defaults filled in, a minimal input, one with every optional
// property set, boundary values of each top-level property, and one
// invalid input. Duplicates (same JSON) are dropped. A nil h (a capability
// without a request schema) gives the empty object and no invalid input.
// Every valid case validates and every invalid one does not, or it is
// skipped with the reason; a pattern is never guessed (a pattern none of a
// few candidates match skips the case).
func Generate(h *schema.Compiled) []Case {
	cases, _ := GenerateContext(nil, h)
	return cases
}

// GenerateContext is Generate stopped by ctx (nil for none): it checks ctx
// before every value it makes and every validation it runs (which ctx
// stops too), and once ctx is done returns the cases made so far with an
// error wrapping schema.ErrCancelled and ctx's error.
func GenerateContext(ctx context.Context, h *schema.Compiled) ([]Case, error) {
	if h == nil {
		return []Case{{Kind: KindMinimal, Name: "minimal", Input: json.RawMessage(`{}`), Valid: true},
			{Kind: KindInvalid, Name: "invalid", Skip: "the capability has no request schema: every input is valid"}}, nil
	}
	doc, err := h.Doc()
	if err != nil {
		return []Case{{Kind: KindMinimal, Name: "minimal", Skip: err.Error()}}, nil
	}
	g := &gen{doc: doc, ctx: ctx}
	var cases []Case
	add := func(kind CaseKind, name string, v any, err error) {
		if g.stopped() == nil {
			cases = append(cases, g.check(h, kind, name, v, err))
		}
	}
	root := doc.Effective(doc.Root())
	for i, e := range root.Examples {
		add(KindExample, fmt.Sprintf("example %d", i+1), data(e), nil)
	}
	if root.Default != nil {
		add(KindDefault, "default", data(root.Default), nil)
	}
	if v, err := g.value(doc.Root(), modeDefaults, 0); err == nil && g.usedDefault {
		add(KindDefault, "defaults filled in", v, nil)
	}
	minimal, err := g.value(doc.Root(), modeMinimal, 0)
	add(KindMinimal, "minimal", minimal, err)
	full, err := g.value(doc.Root(), modeFull, 0)
	add(KindFull, "every optional field set", full, err)
	if err == nil || minimal != nil {
		for _, b := range g.boundaries(root, minimal) {
			add(KindBoundary, b.name, b.value, nil)
		}
	}
	if err := g.stopped(); err != nil {
		return dedupe(cases), err
	}
	inv := g.invalid(h, root, minimal)
	if err := g.stopped(); err != nil {
		return dedupe(cases), err
	}
	return dedupe(append(cases, inv)), nil
}

// stopped is nil while g's context goes on, else an error wrapping
// schema.ErrCancelled and the context's error.
func (g *gen) stopped() error {
	if g.ctx == nil || g.ctx.Err() == nil {
		return nil
	}
	return fmt.Errorf("generating inputs: %w: %w", schema.ErrCancelled, g.ctx.Err())
}

// data decodes a JSON value the document holds (const, default, an
// example); nil when it is not JSON, which the document never keeps.
func data(raw json.RawMessage) any {
	var v any
	_ = json.Unmarshal(raw, &v)
	return v
}

// value generates one value of schema s for mode.
func (g *gen) value(s *schema.Node, md mode, depth int) (any, error) {
	if err := g.stopped(); err != nil {
		return nil, err
	}
	if depth > maxValueDepth {
		return nil, &cannotGenerate{"a value this deep (the schema recurses)"}
	}
	if g.items++; g.items > schema.MaxBuildTotalItems {
		return nil, &cannotGenerate{fmt.Sprintf("more than %d values in all (schema.MaxBuildTotalItems)", schema.MaxBuildTotalItems)}
	}
	if s == nil {
		return map[string]any{}, nil
	}
	s = g.doc.Effective(s)
	if s.Bool != nil {
		if !*s.Bool {
			return nil, &cannotGenerate{"a value for a schema that is false"}
		}
		return map[string]any{}, nil
	}
	if s.Const != nil {
		return data(s.Const), nil
	}
	if s.ReadOnly && s.Default != nil {
		return data(s.Default), nil // what a form sends: no one edits it
	}
	if md == modeFull && len(s.Examples) > 0 {
		return data(s.Examples[0]), nil
	}
	if md != modeMinimal && s.Default != nil {
		if md == modeDefaults {
			g.usedDefault = true
		}
		return data(s.Default), nil
	}
	if len(s.Enum) > 0 {
		return data(s.Enum[0]), nil
	}
	for _, alts := range [][]*schema.Node{s.OneOf, s.AnyOf} {
		if len(alts) > 0 {
			// The first branch, merged with the keywords beside the list.
			base := *s
			base.OneOf, base.AnyOf = nil, nil
			alt := g.doc.Effective(alts[0])
			// The merge's work is linear in both property lists.
			if g.items += len(base.Props) + len(alt.Props); g.items > schema.MaxBuildTotalItems {
				return nil, &cannotGenerate{fmt.Sprintf("more than %d values and properties in all (schema.MaxBuildTotalItems)", schema.MaxBuildTotalItems)}
			}
			schema.Merge(&base, alt)
			return g.value(&base, md, depth+1)
		}
	}
	switch typeOf(s) {
	case "object":
		return g.object(s, md, depth)
	case "array":
		return g.array(s, md, depth)
	case "string":
		return g.str(s, md)
	case "integer":
		return number(s, md, true), nil
	case "number":
		return number(s, md, false), nil
	case "boolean":
		return md == modeFull, nil
	case "null":
		return nil, nil
	}
	return map[string]any{}, nil
}

// typeOf is the type to generate for s: its "type" (the first non-null
// one of a list), else what its keywords imply.
func typeOf(s *schema.Node) string {
	for _, t := range s.Types {
		if t != "null" {
			return t
		}
	}
	if len(s.Types) > 0 {
		return "null"
	}
	switch {
	case len(s.Props) > 0 || len(s.Required) > 0 || s.Additional != nil || s.AdditionalFalse:
		return "object"
	case s.Items != nil || s.MinItems != nil || len(s.Prefix) > 0:
		return "array"
	case s.MinLength != nil || s.MaxLength != nil || s.Pattern != "" || s.Format != "":
		return "string"
	case s.Minimum != "" || s.Maximum != "" || s.ExclusiveMinimum != "" || s.ExclusiveMaximum != "" || s.MultipleOf != "":
		return "number"
	}
	return ""
}

// property returns the schema of property n of s, nil when s declares none.
func property(s *schema.Node, n string) *schema.Node {
	for _, p := range s.Props {
		if p.Name == n {
			return p.Schema
		}
	}
	return nil
}

// object generates an object: required properties always, the others
// in modeFull (a required name without a property schema gets "").
func (g *gen) object(s *schema.Node, md mode, depth int) (any, error) {
	// Every property looked at counts, generated or not: 7,000 properties
	// each referring to their parent are 7,000 looks per object.
	if g.items += len(s.Props); g.items > schema.MaxBuildTotalItems {
		return nil, &cannotGenerate{fmt.Sprintf("more than %d values and properties in all (schema.MaxBuildTotalItems)", schema.MaxBuildTotalItems)}
	}
	required := requiredSet(s)
	out := map[string]any{}
	for _, p := range s.Props {
		if err := g.stopped(); err != nil {
			return nil, err
		}
		req := required[p.Name]
		if !req && md != modeFull && !(md == modeDefaults && g.doc.Effective(p.Schema).Default != nil) {
			continue
		}
		if !req && g.doc.Effective(p.Schema).ReadOnly {
			continue // an optional read-only field is never sent (the form's rule)
		}
		v, err := g.value(p.Schema, md, depth+1)
		if err != nil {
			if !req && g.stopped() == nil {
				continue
			}
			return nil, fmt.Errorf("/%s: %w", p.Name, err)
		}
		out[p.Name] = v
	}
	for _, n := range s.Required {
		if _, ok := out[n]; !ok && property(s, n) == nil {
			out[n] = ""
		}
	}
	if s.MinProps != nil {
		for i := 0; len(out) < *s.MinProps && i < len(s.Props) && g.stopped() == nil; i++ {
			p := s.Props[i]
			if _, ok := out[p.Name]; !ok {
				if v, err := g.value(p.Schema, md, depth+1); err == nil {
					out[p.Name] = v
				}
			}
		}
	}
	return out, nil
}

// requiredSet is s's required names as a set.
func requiredSet(s *schema.Node) map[string]bool {
	set := make(map[string]bool, len(s.Required))
	for _, n := range s.Required {
		set[n] = true
	}
	return set
}

// array generates minItems items (one in modeFull when minItems is 0).
func (g *gen) array(s *schema.Node, md mode, depth int) (any, error) {
	n := 0
	if s.MinItems != nil {
		n = *s.MinItems
	}
	if md == modeFull && n == 0 && (s.MaxItems == nil || *s.MaxItems >= 1) {
		n = 1
	}
	if n > schema.MaxBuildItems {
		return nil, &cannotGenerate{fmt.Sprintf("an array of %d items (more than schema.MaxBuildItems)", n)}
	}
	out := []any{}
	for i := 0; i < n; i++ {
		item := s.Items
		if i < len(s.Prefix) {
			item = s.Prefix[i]
		}
		v, err := g.value(item, md, depth+1)
		if err != nil {
			return nil, fmt.Errorf("/%d: %w", i, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// str generates a string: a format sample, a pattern candidate, or "a"
// repeated to minLength ("abc"-long in modeFull).
func (g *gen) str(s *schema.Node, md mode) (any, error) {
	minLen, maxLen := intOr(s.MinLength, 0), intOr(s.MaxLength, -1)
	fits := func(v string) bool {
		n := len([]rune(v))
		return n >= minLen && (maxLen < 0 || n <= maxLen)
	}
	if s.Pattern != "" {
		re, insts, err := schema.CompilePattern(s.Pattern)
		if err != nil {
			return nil, &cannotGenerate{fmt.Sprintf("a string for pattern %q (not a Go regular expression)", s.Pattern)}
		}
		cands := patternCandidates
		if formatSamples[s.Format] != "" {
			cands = append([]string{formatSamples[s.Format]}, cands...)
		}
		for _, c := range cands {
			if re.MatchString(c) && fits(c) {
				return c, nil
			}
		}
		n := min(max(minLen, 1), schema.MaxBuildString)
		if insts*n > schema.MaxMatchCost {
			// One match costs up to program × text: a 20,000-instruction
			// pattern against 1 MiB is seconds no context stops.
			return nil, &cannotGenerate{fmt.Sprintf("a string of %d characters for pattern %q (matching it passes schema.MaxMatchCost)", n, s.Pattern)}
		}
		if err := g.spend(n); err != nil {
			return nil, err
		}
		if v := strings.Repeat("a", n); re.MatchString(v) && fits(v) {
			return v, nil
		}
		return nil, &cannotGenerate{fmt.Sprintf("a string for pattern %q", s.Pattern)}
	}
	if s.Format != "" {
		v, known := formatSamples[s.Format]
		if !known {
			return nil, &cannotGenerate{fmt.Sprintf("a string of format %q", s.Format)}
		}
		if fits(v) {
			return v, nil
		}
	}
	n := minLen
	if md == modeFull && n < 3 {
		n = 3
	}
	if maxLen >= 0 && n > maxLen {
		n = maxLen
	}
	if n > schema.MaxBuildString {
		return nil, &cannotGenerate{fmt.Sprintf("a string of %d characters (more than schema.MaxBuildString)", n)}
	}
	if err := g.spend(n); err != nil {
		return nil, err
	}
	return strings.Repeat("a", n), nil
}

// intOr is *p when it is a non-negative integer keyword, def otherwise.
func intOr(p *int, def int) int {
	if p != nil && *p >= 0 {
		return *p
	}
	return def
}

// number generates 0 moved inside the bounds (1 more in modeFull when
// the upper bound allows it); integer gives a whole number; multipleOf is
// honoured.
func number(s *schema.Node, md mode, integer bool) any {
	lo, hasLo := bound(s.Minimum, s.ExclusiveMinimum, +1, integer)
	hi, hasHi := bound(s.Maximum, s.ExclusiveMaximum, -1, integer)
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
	if mo, err := strconv.ParseFloat(s.MultipleOf, 64); err == nil && mo > 0 {
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

// bound reads an inclusive bound and its exclusive form (numbers as
// written), returning the closest allowed value; step is +1 for a lower
// bound, -1 for an upper one. When both are given the tighter binds.
func bound(incl, excl string, step float64, integer bool) (float64, bool) {
	delta := step
	if !integer {
		delta = step / 1000
	}
	var got []float64
	if x, err := strconv.ParseFloat(excl, 64); err == nil {
		if integer {
			// The first integer past it: exclusiveMinimum 0.5 is 1.
			if step > 0 {
				x = math.Floor(x) + 1
			} else {
				x = math.Ceil(x) - 1
			}
			got = append(got, x)
		} else {
			got = append(got, x+delta)
		}
	}
	if x, err := strconv.ParseFloat(incl, 64); err == nil {
		if integer {
			if step > 0 {
				x = math.Ceil(x)
			} else {
				x = math.Floor(x)
			}
		}
		got = append(got, x)
	}
	if len(got) == 0 {
		return 0, false
	}
	if step > 0 {
		return slices.Max(got), true
	}
	return slices.Min(got), true
}

// boundary is one boundary value of a top-level property.
type boundary struct {
	name  string
	value any
}

// boundaries returns the minimal input with one top-level property at each
// of its bounds or enum members, in property order.
func (g *gen) boundaries(root *schema.Node, minimal any) []boundary {
	base, ok := minimal.(map[string]any)
	if !ok {
		return nil
	}
	var out []boundary
	with := func(n, label string, v any) {
		if len(out) >= maxBoundaryCases {
			return
		}
		cp := maps.Clone(base)
		cp[n] = v
		out = append(out, boundary{fmt.Sprintf("boundary /%s %s", n, label), cp})
	}
	for _, prop := range root.Props {
		n, p := prop.Name, g.doc.Effective(prop.Schema)
		if p.Bool != nil {
			continue
		}
		if len(p.Enum) > 0 {
			for i, x := range p.Enum[:min(len(p.Enum), maxEnumMembers)] {
				with(n, fmt.Sprintf("enum member %d %s", i+1, x), data(x))
			}
			continue
		}
		switch t := typeOf(p); t {
		case "integer", "number":
			if lo, ok := bound(p.Minimum, p.ExclusiveMinimum, +1, t == "integer"); ok {
				with(n, "minimum "+fmtNum(lo, t == "integer"), numOf(lo, t == "integer"))
			}
			if hi, ok := bound(p.Maximum, p.ExclusiveMaximum, -1, t == "integer"); ok {
				with(n, "maximum "+fmtNum(hi, t == "integer"), numOf(hi, t == "integer"))
			}
		case "string":
			if p.Pattern != "" || p.Format != "" {
				continue
			}
			if p.MinLength != nil && *p.MinLength >= 0 && *p.MinLength <= schema.MaxBuildString {
				with(n, fmt.Sprintf("minLength %d", *p.MinLength), strings.Repeat("a", *p.MinLength))
			}
			if p.MaxLength != nil && *p.MaxLength >= 0 && *p.MaxLength <= schema.MaxBuildString {
				with(n, fmt.Sprintf("maxLength %d", *p.MaxLength), strings.Repeat("a", *p.MaxLength))
			}
		case "array":
			if mx := intOr(p.MaxItems, -1); mx >= 1 && mx <= schema.MaxBuildItems {
				if item, err := g.value(p.Items, modeMinimal, 1); err == nil {
					with(n, fmt.Sprintf("maxItems %d", mx), slices.Repeat([]any{item}, mx))
				}
			}
		}
	}
	return out
}

// invalid returns one input the schema refuses: a property of the wrong
// type, the required ones left out, or a value of another type; skipped
// when the schema accepts every candidate.
func (g *gen) invalid(h *schema.Compiled, root *schema.Node, minimal any) Case {
	base, _ := minimal.(map[string]any)
	with := func(n string, v any) map[string]any {
		cp := maps.Clone(base)
		if cp == nil {
			cp = map[string]any{}
		}
		cp[n] = v
		return cp
	}
	// try validates one candidate: true when the schema refuses it (the
	// case), or when the context ended.
	var found Case
	try := func(name string, v any) bool {
		if g.stopped() != nil {
			return true
		}
		b, _ := json.Marshal(v)
		if viol, err := h.ValidateContext(g.ctx, b); err == nil && len(viol) > 0 {
			found = Case{Kind: KindInvalid, Name: name, Input: b}
			return true
		}
		return false
	}
	// Required properties first: a module must check those.
	required := requiredSet(root)
	props := slices.Clone(root.Props)
	sort.SliceStable(props, func(i, j int) bool { return required[props[i].Name] && !required[props[j].Name] })
	for _, p := range props[:min(len(props), maxInvalidProps)] {
		w := wrongType(g.doc.Effective(p.Schema))
		b, _ := json.Marshal(w)
		if try(fmt.Sprintf("invalid: /%s is %s", p.Name, b), with(p.Name, w)) {
			break
		}
	}
	if found.Name == "" && len(root.Required) > 0 {
		try("invalid: required properties left out", map[string]any{})
	}
	if found.Name == "" && root.AdditionalFalse {
		try("invalid: an undeclared property", with("modbay_check_unknown", true))
	}
	if found.Name == "" {
		_ = try("invalid: a number instead of an object", 42) || try("invalid: a string", "modbay check")
	}
	if found.Name != "" {
		return found
	}
	return Case{Kind: KindInvalid, Name: "invalid", Skip: "the schema accepts every input modbay tried"}
}

// wrongType returns a value whose JSON type the property schema p does not
// allow (a number for a string, a string otherwise).
func wrongType(p *schema.Node) any {
	switch typeOf(p) {
	case "string":
		return 12345
	case "":
		if len(p.Enum) > 0 && p.Enum[0][0] == '"' {
			return "modbay-not-a-member"
		}
		return []any{[]any{}}
	}
	return "modbay-wrong-type"
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
	viol, err := h.ValidateContext(g.ctx, b)
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
	doc *schema.Doc
	// ctx stops the generation (nil: never).
	ctx context.Context
	// usedDefault is set when a modeDefaults value used a "default".
	usedDefault bool
	// items and bytes are the values and string bytes generated so far,
	// over every case, against schema.MaxBuildTotalItems and
	// MaxBuildTotalString (nested minItems multiply).
	items, bytes int
}

// spend books n string bytes and refuses past the total budget.
func (g *gen) spend(n int) error {
	if g.bytes += n; g.bytes > schema.MaxBuildTotalString {
		return &cannotGenerate{fmt.Sprintf("more than %d string bytes in all (schema.MaxBuildTotalString)", schema.MaxBuildTotalString)}
	}
	return nil
}

// cannotGenerate is the error of a value modbay cannot make.
type cannotGenerate struct{ what string }

func (e *cannotGenerate) Error() string { return "cannot generate " + e.what }

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
