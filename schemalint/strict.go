package schemalint

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"modbay/modproto"
	"modbay/schema"
)

// Rules added by strict validation.
const (
	// RuleKeyword: a key in a schema object that is no JSON Schema keyword
	// (a typo such as "minimun" is ignored by every validator, so the
	// constraint silently does not exist).
	RuleKeyword = "keyword"
	// RuleCycle: a $ref cycle through required properties, which no finite
	// input can satisfy.
	RuleCycle = "cycle"
)

// knownKeywords are the keywords of JSON Schema 2020-12, 2019-09 and
// draft-07, with the annotations and vocabulary keywords; a key outside
// them (and not "x-…" or OpenAPI's "example") is reported.
var knownKeywords = []string{
	"$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$comment",
	"$defs", "definitions", "$recursiveRef", "$recursiveAnchor",
	"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies",
	"prefixItems", "items", "additionalItems", "contains", "properties", "patternProperties",
	"additionalProperties", "propertyNames", "unevaluatedItems", "unevaluatedProperties",
	"type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
	"maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains",
	"minContains", "maxProperties", "minProperties", "required", "dependentRequired",
	"format", "contentEncoding", "contentMediaType", "contentSchema",
	"title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples",
}

// tolerated are keys outside JSON Schema that real schemas carry as
// annotations (OpenAPI's "example"; "enumNames", which the form reads as
// choice labels); validators ignore them and so does the lint.
var tolerated = map[string]bool{"example": true, "enumNames": true}

var keywordSet = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range knownKeywords {
		m[k] = true
	}
	return m
}()

// keywords reports every key of schema object n that is no JSON Schema
// keyword, at its pointer, with the closest keyword when one is near.
func (l *linter) keywords(n *schema.Node) {
	for _, k := range n.Keywords {
		if keywordSet[k] || tolerated[k] || strings.HasPrefix(k, "x-") {
			continue
		}
		msg := fmt.Sprintf("%q is not a JSON Schema keyword, so validators ignore it", k)
		if s := modproto.Closest(k, knownKeywords); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		l.add(n.Loc+"/"+escape(k), RuleKeyword, Warning, msg)
	}
}

// forbiddenRequired reports names that additionalProperties: false (with
// no patternProperties) forbids in schema n but that n requires
// indirectly: through "then" or "else", through "allOf" (nested too), or
// through "dependentRequired". Each is at the pointer of the list that
// requires it; direct "required" is checked in node.
func (l *linter) forbiddenRequired(n *schema.Node) {
	if !n.AdditionalFalse || n.Has("patternProperties") {
		return
	}
	check := func(req []string, at, when string) {
		for _, name := range req {
			if property(l.props, n, name) == nil {
				l.add(at, RuleRequired, Error, fmt.Sprintf("requires %q %s, which additionalProperties: false forbids: no such input can be valid", name, when))
			}
		}
	}
	if n.Then != nil {
		check(n.Then.Required, n.Then.Loc+"/required", `when "if" matches`)
	}
	if n.Else != nil {
		check(n.Else.Required, n.Else.Loc+"/required", `when "if" does not match`)
	}
	var allOf func(s *schema.Node)
	allOf = func(s *schema.Node) {
		for _, a := range s.AllOf {
			check(a.Required, a.Loc+"/required", "through allOf")
			allOf(a)
		}
	}
	allOf(n)
	kw := "dependentRequired"
	if !n.Has(kw) {
		kw = "dependencies"
	}
	for _, d := range n.DepRequired {
		check(d.Req, n.Loc+"/"+kw+"/"+escape(d.Name), fmt.Sprintf("whenever %q is given", d.Name))
	}
}

// cycles reports $refs that no finite input can satisfy: a schema that
// requires a property whose schema refers back to it, through any number
// of $refs, can only be met by an infinitely deep value. It compares the
// least and the greatest solution of "this $ref target is satisfiable":
// a target false in the least and true in the greatest is unsatisfiable
// only because of the cycle (a target false in both is unsatisfiable for a
// reason reported elsewhere, such as a forbidden required property).
func (l *linter) cycles() {
	var sites []*schema.Node
	targets := refTargets(l.doc, &sites)
	if len(targets) == 0 {
		return
	}
	least, okL := solveRefs(l.doc, targets, false)
	greatest, okG := solveRefs(l.doc, targets, true)
	if !okL || !okG {
		return // unsolved within the bound: no finding rather than a wrong one
	}
	for _, s := range sites {
		t := l.doc.Target(s)
		if !least[t] && greatest[t] {
			l.add(s.Loc, RuleCycle, Error, fmt.Sprintf("$ref %q leads back to itself through what every input must meet (required properties, allOf): no finite input satisfies it", s.Ref))
		}
	}
}

// refTargets returns every schema a $ref of doc names (the document's own
// resolution: pointers, anchors, $ids), appending the referring schemas
// to sites when it is not nil.
func refTargets(doc *schema.Doc, sites *[]*schema.Node) []*schema.Node {
	var out []*schema.Node
	seen := map[*schema.Node]bool{}
	for _, n := range doc.Nodes() {
		if n.Ref == "" {
			continue
		}
		t := doc.Target(n)
		if t == nil {
			continue
		}
		if sites != nil {
			*sites = append(*sites, n)
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// solveRefs computes, for each $ref target, whether a finite value
// satisfies it, by iterating satisfiable from every target set to start
// until nothing changes (at most len(targets)+1 rounds): start false gives
// the least solution, true the greatest. Past schema.MaxSolveVisits it
// stops, every target satisfiable, and reports false.
func solveRefs(doc *schema.Doc, targets []*schema.Node, start bool) (map[*schema.Node]bool, bool) {
	ix := propIndex{}
	val := make(map[*schema.Node]bool, len(targets))
	for _, t := range targets {
		val[t] = start
	}
	visits := 0
	for range len(targets) + 1 {
		changed := false
		for _, t := range targets {
			if v := satisfiable(doc, ix, t, val, &visits); v != val[t] {
				val[t], changed = v, true
			}
		}
		if visits > schema.MaxSolveVisits {
			for _, t := range targets {
				val[t] = true // unsolved: refuse nothing
			}
			return val, false
		}
		if !changed {
			break
		}
	}
	return val, true
}

// satisfiable tells whether some finite value can meet schema n, given
// val, the current assumption about each $ref target, counting the
// schemas it visits in visits (past schema.MaxSolveVisits: satisfiable). It is an
// approximation that errs towards "satisfiable": only false schemas,
// required properties, allOf, anyOf/oneOf and non-empty arrays are
// followed.
func satisfiable(doc *schema.Doc, ix propIndex, n *schema.Node, val map[*schema.Node]bool, visits *int) bool {
	*visits++
	if n == nil || *visits > schema.MaxSolveVisits {
		return true
	}
	if n.Bool != nil {
		return *n.Bool
	}
	if n.Ref != "" {
		if v, known := val[doc.Target(n)]; known && !v {
			return false
		}
	}
	for _, s := range n.AllOf {
		if !satisfiable(doc, ix, s, val, visits) {
			return false
		}
	}
	for _, list := range [][]*schema.Node{n.AnyOf, n.OneOf} {
		if len(list) == 0 {
			continue
		}
		ok := false
		for _, s := range list {
			if satisfiable(doc, ix, s, val, visits) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	for _, name := range n.Required {
		// Each name is work: a schema may list 85,000.
		if *visits++; *visits > schema.MaxSolveVisits {
			return true
		}
		if p := property(ix, n, name); p != nil {
			if !satisfiable(doc, ix, p, val, visits) {
				return false
			}
			continue
		}
		if n.Has("patternProperties") {
			continue
		}
		if n.AdditionalFalse || (n.Additional != nil && !satisfiable(doc, ix, n.Additional, val, visits)) {
			return false
		}
	}
	if n.MinItems != nil && *n.MinItems > 0 && n.Items != nil && n.Items.Bool == nil && !satisfiable(doc, ix, n.Items, val, visits) {
		return false
	}
	return true
}

// Unsatisfiable reports whether request schema id admits no finite input
// at all (the capability is refused, not only warned about):
// its root requires a property that additionalProperties: false forbids,
// directly or through allOf, or reaches a $ref cycle through required
// properties. It returns the finding that explains it (the first error of
// rule RuleRequired or RuleCycle, with its JSON pointer). Like the lint it
// errs towards "satisfiable": a rule only some inputs meet (a then branch,
// an optional property's subschema) never refuses. Answers are
// remembered by content (unsatisfiableMemo): a list of 200 tools judged
// again lints none of its unchanged schemas again.
func Unsatisfiable(id string, raw json.RawMessage) (Finding, bool) {
	return memoUnsatisfiable(id, raw, unsatisfiable)
}

// unsatisfiable is Unsatisfiable without the memo.
func unsatisfiable(id string, raw json.RawMessage) (Finding, bool) {
	doc, err := schema.Parse(raw)
	if err != nil {
		return Finding{}, false
	}
	targets := refTargets(doc, nil)
	// The least solution: a $ref target is satisfiable only when a finite
	// value meets it.
	val, _ := solveRefs(doc, targets, false)
	findings := Lint(id, raw)
	visits := 0
	if satisfiable(doc, propIndex{}, doc.Root(), val, &visits) {
		// The root's own allOf branches are as unconditional as its
		// required list: one that requires a forbidden name refuses.
		for _, f := range findings {
			if f.Severity == Error && f.Rule == RuleRequired && rootAllOfRequired.MatchString(f.Path) {
				return f, true
			}
		}
		return Finding{}, false
	}
	for _, f := range findings {
		if f.Severity == Error && (f.Rule == RuleRequired || f.Rule == RuleCycle) {
			return f, true
		}
	}
	return Finding{Schema: id, Rule: RuleRequired, Severity: Error, Message: "no input can satisfy this schema"}, true
}

// rootAllOfRequired matches the pointer of a required list in the root's
// allOf, at any depth of allOf.
var rootAllOfRequired = regexp.MustCompile(`^(/allOf/[0-9]+)+/required$`)
