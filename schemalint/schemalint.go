// Package schemalint checks a module's request schemas for what makes them
// unusable or unportable: schemas that do not compile, $refs that resolve
// to nothing, "required" names missing from "properties" (directly or
// through then/else, allOf and dependentRequired), keys that are no JSON
// Schema keyword (with the keyword meant), $ref cycles no finite input
// satisfies, and constructs
// that common model-provider tool APIs reject. `modbay validate` prints
// its findings; it never changes whether a module is valid under docs/protocol.md.
//
// Which provider constructs are flagged, and why: a module's request
// schema is often handed to a model as a tool's parameters, and the
// strictest common consumer is OpenAI's function calling in strict mode
// (Structured Outputs), whose documented subset is narrower than JSON
// Schema; Anthropic accepts any object schema, and Gemini's
// parametersJsonSchema accepts JSON Schema while its older OpenAPI
// "parameters" subset rejects far more (even $ref and anyOf), too much to
// be a useful bar. So the list is OpenAI strict mode's, plus the rule all
// three share: parameters are one object.
//   - top level: "type" must be "object", and no oneOf/anyOf/allOf/enum/not
//     there (every provider wants one object of named parameters);
//   - $ref only to the document itself (no provider fetches a URL, and
//     modbay never does);
//   - keywords outside OpenAI's strict subset: allOf, oneOf, not,
//     if/then/else, dependentRequired, dependentSchemas, dependencies,
//     patternProperties, propertyNames, unevaluatedProperties,
//     unevaluatedItems, contains, minProperties, maxProperties,
//     uniqueItems, prefixItems (tuples), $dynamicRef;
//   - formats outside its list: date-time, time, date, duration, email,
//     hostname, ipv4, ipv6, uuid.
//
// Provider findings are warnings: the module works in modbay regardless.
package schemalint

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"modbay/schema"
)

// Severity says whether a finding breaks the schema or only warns.
type Severity string

// Severities.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// Rules, as findings name them.
const (
	RuleCompile  = "compile"
	RuleDraft    = "draft"
	RuleRef      = "ref"
	RuleRequired = "required"
	RuleProvider = "provider"
)

// Finding is one problem in one schema.
type Finding struct {
	// Schema is the request schema's id.
	Schema string `json:"schema"`
	// Path is the JSON pointer of the offending subschema ("" for the
	// root).
	Path     string   `json:"path"`
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
}

// String renders a finding on one line.
func (f Finding) String() string {
	p := f.Path
	if p == "" {
		p = "(root)"
	}
	return fmt.Sprintf("%s %s %s: %s [%s]", f.Severity, f.Schema, p, f.Message, f.Rule)
}

// strictUnsupported are the keywords outside OpenAI's strict subset.
var strictUnsupported = []string{
	"allOf", "oneOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas",
	"dependencies", "patternProperties", "propertyNames", "unevaluatedProperties",
	"unevaluatedItems", "contains", "minProperties", "maxProperties", "uniqueItems",
	"prefixItems", "$dynamicRef",
}

// strictFormats are the string formats OpenAI's strict mode accepts.
var strictFormats = map[string]bool{
	"date-time": true, "time": true, "date": true, "duration": true, "email": true,
	"hostname": true, "ipv4": true, "ipv6": true, "uuid": true,
}

// Lint checks request schema id and returns its findings, errors first,
// then by path.
func Lint(id string, raw json.RawMessage) []Finding {
	l := &linter{id: id}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		l.add("", RuleCompile, Error, "not JSON: "+err.Error())
		return l.out
	}
	l.compile(raw)
	root, _ := doc.(map[string]any)
	if root == nil {
		if _, ok := doc.(bool); !ok {
			l.add("", RuleCompile, Error, "a schema must be an object or a boolean")
		}
		return l.sorted()
	}
	l.doc = doc
	l.ids = map[string]bool{}
	collectIDs(doc, l.ids)
	l.top(root)
	l.walk(doc, "")
	l.cycles()
	return l.sorted()
}

type linter struct {
	id   string
	doc  any
	ids  map[string]bool
	out  []Finding
	seen map[string]bool // provider keyword findings, one per keyword
}

func (l *linter) add(path, rule string, sev Severity, msg string) {
	l.out = append(l.out, Finding{Schema: l.id, Path: path, Rule: rule, Severity: sev, Message: msg})
}

func (l *linter) sorted() []Finding {
	sort.SliceStable(l.out, func(i, j int) bool {
		if l.out[i].Severity != l.out[j].Severity {
			return l.out[i].Severity == Error
		}
		return l.out[i].Path < l.out[j].Path
	})
	return l.out
}

// compile compiles the schema as the runner and the form do (package
// schema: 2020-12 unless it says otherwise, draft-07 when that fails and
// it declares nothing), warning when only draft-07 makes it compile.
func (l *linter) compile(raw json.RawMessage) {
	h, err := schema.Compile(raw)
	if err != nil {
		// The schema package calls the document "the schema"; a person
		// knows it by its id, given with every finding.
		l.add("", RuleCompile, Error, "does not compile: "+oneLine(err.Error()))
		return
	}
	if h.Fallback() {
		l.add("", RuleDraft, Warning, `declares no "$schema" and only compiles as draft-07: add "$schema": "http://json-schema.org/draft-07/schema#"`)
	}
}

// top checks the provider rules for the root.
func (l *linter) top(root map[string]any) {
	if t, _ := root["type"].(string); t != "object" {
		l.add("", RuleProvider, Warning, `top-level "type" is not "object": tool APIs take one object of named parameters`)
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf", "enum", "not"} {
		if _, ok := root[k]; ok {
			l.add("", RuleProvider, Warning, fmt.Sprintf("top-level %q: tool APIs reject it at the root of parameters", k))
			l.mark(k)
		}
	}
}

func (l *linter) mark(k string) {
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	l.seen[k] = true
}

// walk visits every subschema.
func (l *linter) walk(node any, path string) {
	m, ok := node.(map[string]any)
	if !ok {
		return
	}
	if ref, ok := m["$ref"].(string); ok {
		l.ref(ref, path)
	}
	l.keywords(m, path)
	l.forbiddenRequired(m, path)
	if props, ok := m["properties"].(map[string]any); ok {
		if req, ok := m["required"].([]any); ok {
			_, patterns := m["patternProperties"]
			closed := m["additionalProperties"] == false && !patterns
			for _, r := range req {
				name, _ := r.(string)
				if _, ok := props[name]; ok {
					continue
				}
				if closed {
					l.add(path, RuleRequired, Error, fmt.Sprintf("requires %q, which additionalProperties: false forbids: no input can be valid", name))
				} else {
					l.add(path, RuleRequired, Warning, fmt.Sprintf("requires %q, which is not in properties", name))
				}
			}
		}
	}
	for _, k := range strictUnsupported {
		if _, ok := m[k]; ok && !l.seen[k] {
			l.mark(k)
			l.add(path, RuleProvider, Warning, fmt.Sprintf("%q is outside OpenAI strict mode's subset", k))
		}
	}
	if f, ok := m["format"].(string); ok && !strictFormats[f] && !l.seen["format:"+f] {
		l.mark("format:" + f)
		l.add(path+"/format", RuleProvider, Warning, fmt.Sprintf("format %q is outside OpenAI strict mode's list", f))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := m[k]
		switch k {
		case "const", "enum", "default", "examples", "example", "required", "dependentRequired", "$vocabulary":
			continue
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
			if sub, ok := v.(map[string]any); ok {
				names := make([]string, 0, len(sub))
				for n := range sub {
					names = append(names, n)
				}
				sort.Strings(names)
				for _, n := range names {
					l.walk(sub[n], path+"/"+k+"/"+escape(n))
				}
			}
			continue
		}
		if !keywordSet[k] {
			continue // not a keyword: its value is data, not a schema
		}
		switch x := v.(type) {
		case map[string]any:
			l.walk(x, path+"/"+escape(k))
		case []any:
			for i, s := range x {
				l.walk(s, fmt.Sprintf("%s/%s/%d", path, escape(k), i))
			}
		}
	}
}

// ref checks one $ref: it must name something in this document.
func (l *linter) ref(ref, path string) {
	base, frag, _ := strings.Cut(ref, "#")
	if base != "" {
		if u, err := url.Parse(base); err == nil && u.IsAbs() && !l.ids[strings.TrimSuffix(base, "#")] {
			l.add(path, RuleRef, Error, fmt.Sprintf("$ref %q is remote: modbay never loads it, and no tool API fetches it", ref))
			return
		}
		if !l.ids[base] {
			l.add(path, RuleRef, Error, fmt.Sprintf("$ref %q names no $id in this document", ref))
		}
		return
	}
	if frag == "" || !strings.HasPrefix(frag, "/") {
		if frag != "" && !l.ids["#"+frag] {
			l.add(path, RuleRef, Error, fmt.Sprintf("$ref %q names no $anchor in this document", ref))
		}
		return
	}
	frag, _ = url.PathUnescape(frag)
	if _, ok := lookup(l.doc, frag); !ok {
		l.add(path, RuleRef, Error, fmt.Sprintf("$ref %q resolves to nothing", ref))
	}
}

// lookup follows a JSON pointer into doc.
func lookup(doc any, ptr string) (any, bool) {
	cur := doc
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = pointerUnescaper.Replace(tok)
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			var i int
			if _, err := fmt.Sscanf(tok, "%d", &i); err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// collectIDs records every $id and $anchor ("#name") in doc.
func collectIDs(node any, ids map[string]bool) {
	switch x := node.(type) {
	case map[string]any:
		if id, ok := x["$id"].(string); ok {
			ids[strings.TrimSuffix(id, "#")] = true
		}
		if a, ok := x["$anchor"].(string); ok {
			ids["#"+a] = true
		}
		for k, v := range x {
			if k != "const" && k != "enum" && k != "default" && k != "examples" {
				collectIDs(v, ids)
			}
		}
	case []any:
		for _, v := range x {
			collectIDs(v, ids)
		}
	}
}

// pointerEscaper and pointerUnescaper turn a name into a JSON pointer
// reference token and back (RFC 6901), built once.
var (
	pointerEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// escape is a JSON pointer reference token (RFC 6901).
func escape(tok string) string { return pointerEscaper.Replace(tok) }

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
