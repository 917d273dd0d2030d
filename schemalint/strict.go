package schemalint

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"modbay/modproto"
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

// keywords reports every key of schema object m that is no JSON Schema
// keyword, at its pointer, with the closest keyword when one is near.
func (l *linter) keywords(m map[string]any, path string) {
	for _, k := range sortedNames(m) {
		if keywordSet[k] || tolerated[k] || strings.HasPrefix(k, "x-") {
			continue
		}
		msg := fmt.Sprintf("%q is not a JSON Schema keyword, so validators ignore it", k)
		if s := modproto.Closest(k, knownKeywords); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		l.add(path+"/"+escape(k), RuleKeyword, Warning, msg)
	}
}

// forbiddenRequired reports names that additionalProperties: false (with
// no patternProperties) forbids in schema object m but that m requires
// indirectly: through "then" or "else", through "allOf" (nested too), or
// through "dependentRequired". Each is at the pointer of the list that
// requires it; direct "required" is checked in walk.
func (l *linter) forbiddenRequired(m map[string]any, path string) {
	_, patterns := m["patternProperties"]
	if m["additionalProperties"] != false || patterns {
		return
	}
	props, _ := m["properties"].(map[string]any)
	check := func(req any, at, when string) {
		list, _ := req.([]any)
		for _, r := range list {
			name, _ := r.(string)
			if _, ok := props[name]; !ok {
				l.add(at, RuleRequired, Error, fmt.Sprintf("requires %q %s, which additionalProperties: false forbids: no such input can be valid", name, when))
			}
		}
	}
	for _, branch := range []string{"then", "else"} {
		if b, ok := m[branch].(map[string]any); ok {
			check(b["required"], path+"/"+branch+"/required", "when \"if\" "+map[string]string{"then": "matches", "else": "does not match"}[branch])
		}
	}
	var allOf func(node map[string]any, at string)
	allOf = func(node map[string]any, at string) {
		list, _ := node["allOf"].([]any)
		for i, s := range list {
			sm, ok := s.(map[string]any)
			if !ok {
				continue
			}
			p := fmt.Sprintf("%s/allOf/%d", at, i)
			check(sm["required"], p+"/required", "through allOf")
			allOf(sm, p)
		}
	}
	allOf(m, path)
	if dr, ok := m["dependentRequired"].(map[string]any); ok {
		for _, k := range sortedNames(dr) {
			check(dr[k], path+"/dependentRequired/"+escape(k), fmt.Sprintf("whenever %q is given", k))
		}
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
	targets := map[string]any{}
	var sites []refSite
	collectRefs(l.doc, "", func(site, target string) {
		if node, ok := lookupPointer(l.doc, target); ok {
			targets[target] = node
			sites = append(sites, refSite{site, target})
		}
	})
	if len(targets) == 0 {
		return
	}
	least, greatest := solveRefs(targets, false), solveRefs(targets, true)
	for _, s := range sites {
		if !least[s.target] && greatest[s.target] {
			l.add(s.site, RuleCycle, Error, fmt.Sprintf("$ref %q leads back to itself through required properties: no finite input satisfies it", "#"+s.target))
		}
	}
}

// solveRefs computes, for each $ref target (pointer → schema node),
// whether a finite value satisfies it, by iterating satisfiable from every
// target set to start until nothing changes (at most len(targets)+1
// rounds): start false gives the least solution, true the greatest.
func solveRefs(targets map[string]any, start bool) map[string]bool {
	val := make(map[string]bool, len(targets))
	for t := range targets {
		val[t] = start
	}
	for range len(targets) + 1 {
		changed := false
		for t, node := range targets {
			if v := satisfiable(node, val); v != val[t] {
				val[t], changed = v, true
			}
		}
		if !changed {
			break
		}
	}
	return val
}

// refSite is a $ref at pointer site naming the local pointer target.
type refSite struct{ site, target string }

// collectRefs calls f for every local $ref ("#" or "#/…") in doc, with
// the pointer of the schema holding it and the pointer it names.
func collectRefs(node any, path string, f func(site, target string)) {
	switch x := node.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok {
			if frag, ok := strings.CutPrefix(ref, "#"); ok && (frag == "" || strings.HasPrefix(frag, "/")) {
				if u, err := url.PathUnescape(frag); err == nil {
					f(path, u)
				}
			}
		}
		for _, k := range sortedNames(x) {
			switch k {
			case "const", "enum", "default", "examples", "example", "required", "dependentRequired":
				continue
			}
			collectRefs(x[k], path+"/"+escape(k), f)
		}
	case []any:
		for i, v := range x {
			collectRefs(v, fmt.Sprintf("%s/%d", path, i), f)
		}
	}
}

// lookupPointer is lookup, with "" naming the whole document.
func lookupPointer(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	return lookup(doc, ptr)
}

// satisfiable tells whether some finite value can meet schema node, given
// val, the current assumption about each $ref target. It is an
// approximation that errs towards "satisfiable": only false schemas,
// required properties, allOf, anyOf/oneOf and non-empty arrays are
// followed.
func satisfiable(node any, val map[string]bool) bool {
	switch x := node.(type) {
	case bool:
		return x
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok {
			if frag, ok := strings.CutPrefix(ref, "#"); ok {
				if u, err := url.PathUnescape(frag); err == nil {
					if v, known := val[u]; known && !v {
						return false
					}
				}
			}
		}
		if list, ok := x["allOf"].([]any); ok {
			for _, s := range list {
				if !satisfiable(s, val) {
					return false
				}
			}
		}
		for _, k := range []string{"anyOf", "oneOf"} {
			if list, ok := x[k].([]any); ok && len(list) > 0 {
				any := false
				for _, s := range list {
					if satisfiable(s, val) {
						any = true
						break
					}
				}
				if !any {
					return false
				}
			}
		}
		props, _ := x["properties"].(map[string]any)
		req, _ := x["required"].([]any)
		for _, r := range req {
			name, _ := r.(string)
			if p, ok := props[name]; ok {
				if !satisfiable(p, val) {
					return false
				}
				continue
			}
			if _, ok := x["patternProperties"]; ok {
				continue
			}
			if ap, ok := x["additionalProperties"]; ok && !satisfiable(ap, val) {
				return false
			}
		}
		if n, ok := x["minItems"].(float64); ok && n > 0 {
			if items, ok := x["items"].(map[string]any); ok && !satisfiable(items, val) {
				return false
			}
		}
		return true
	}
	return true
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
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
	var doc any
	if json.Unmarshal(raw, &doc) != nil {
		return Finding{}, false
	}
	targets := map[string]any{}
	collectRefs(doc, "", func(_, target string) {
		if node, ok := lookupPointer(doc, target); ok {
			targets[target] = node
		}
	})
	// The least solution: a $ref target is satisfiable only when a finite
	// value meets it.
	val := solveRefs(targets, false)
	findings := Lint(id, raw)
	if satisfiable(doc, val) {
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
