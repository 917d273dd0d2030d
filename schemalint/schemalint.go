package schemalint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"modbay/internal/jsonptr"
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
	// RuleCompile: the schema is not JSON or does not compile.
	RuleCompile = "compile"
	// RuleDraft: no "$schema", and the schema compiles only as draft-07.
	RuleDraft = "draft"
	// RuleRef: a $ref that is remote or resolves to nothing (cycles are
	// RuleCycle).
	RuleRef = "ref"
	// RuleRequired: a required name missing from "properties", or
	// required but forbidden.
	RuleRequired = "required"
	// RuleProvider: a construct model-provider tool APIs reject
	// (strictUnsupported); a warning.
	RuleProvider = "provider"
	// RuleBounds: a lower bound above its upper bound (after $ref and
	// allOf are merged), so no value of the field is valid.
	RuleBounds = "bounds"
)

// Finding is one problem in one schema.
type Finding struct {
	// Schema is the request schema's id; "" for a finding about the
	// descriptor's request schemas together.
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
	if f.Schema == "" { // a finding about the request schemas together
		return fmt.Sprintf("%s request schemas: %s [%s]", f.Severity, f.Message, f.Rule)
	}
	return fmt.Sprintf("%s %s %s: %s [%s]", f.Severity, f.Schema, p, f.Message, f.Rule)
}

// strictUnsupported are the keywords outside OpenAI's strict subset. A
// request schema is often handed to a model as a tool's parameters, and
// the strictest common consumer is OpenAI's function calling in strict
// mode, whose documented subset is narrower than JSON Schema (Anthropic
// accepts any object schema; Gemini's older OpenAPI subset rejects too
// much to be a useful bar). So the provider findings are strict mode's
// list, plus the rule all three share: the top level is one object (type
// "object", no oneOf/anyOf/allOf/enum/not there), $ref only within the
// document, and formats only those of strictFormats.
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
func Lint(id string, raw json.RawMessage) []Finding { return LintContext(nil, id, raw) }

// LintContext is Lint whose compile stops with ctx (nil for none): a
// cancelled lint returns what it found so far, nothing about the compile.
func LintContext(ctx context.Context, id string, raw json.RawMessage) []Finding {
	l := &linter{id: id, ctx: ctx, props: propIndex{}}
	if !json.Valid(raw) {
		var v any
		err := json.Unmarshal(raw, &v)
		l.add("", RuleCompile, Error, "not JSON: "+err.Error())
		return l.out
	}
	compiled, bound := l.compile(raw)
	if ctx != nil && ctx.Err() != nil {
		return l.out
	}
	if bound {
		// Refused by a bound on its cost (docs/protocol.md §14): reading
		// it further would pay that cost (a 14 KB schema of allOf and
		// $ref took minutes to flatten).
		return l.sorted()
	}
	doc, err := schema.Parse(raw)
	if err != nil {
		if compiled {
			l.add("", RuleCompile, Error, "cannot be read: "+oneLine(err.Error()))
		}
		return l.sorted()
	}
	root := doc.Root()
	if root.Bool != nil {
		return l.sorted()
	}
	l.doc = doc
	l.top(root)
	for _, n := range doc.Nodes() {
		if ctx != nil && ctx.Err() != nil {
			return l.sorted() // stopped: what was found so far
		}
		l.node(n)
	}
	l.cycles()
	return l.sorted()
}

type linter struct {
	ctx  context.Context
	id   string
	doc  *schema.Doc
	out  []Finding
	seen map[string]bool // provider keyword findings, one per keyword
	// props indexes large properties lists (property).
	props propIndex
}

func (l *linter) add(path, rule string, sev Severity, msg string) {
	l.out = append(l.out, Finding{Schema: l.id, Path: path, Rule: rule, Severity: sev, Message: msg})
}

// sorted is the findings, errors first, each by path: at most
// maxFindings, then one more that counts the rest (one cause can be found
// at every subschema, each path up to schema.MaxSchemaLocation).
func (l *linter) sorted() []Finding {
	sort.SliceStable(l.out, func(i, j int) bool {
		if l.out[i].Severity != l.out[j].Severity {
			return l.out[i].Severity == Error
		}
		return l.out[i].Path < l.out[j].Path
	})
	if n := len(l.out); n > maxFindings {
		l.out = append(l.out[:maxFindings:maxFindings], Finding{Schema: l.id, Rule: l.out[maxFindings].Rule, Severity: l.out[maxFindings].Severity,
			Message: fmt.Sprintf("and %d more findings, not listed (at most %d)", n-maxFindings, maxFindings)})
	}
	return l.out
}

// maxFindings bounds the findings one schema's lint lists.
const maxFindings = 500

// compile compiles the schema as the runner and the form do (package
// schema: 2020-12 unless it says otherwise, draft-07 when that fails and
// it declares nothing), warning when only draft-07 makes it compile. It
// reports whether the schema compiled.
func (l *linter) compile(raw json.RawMessage) (compiled, bound bool) {
	h, err := schema.CompileContext(l.ctx, raw)
	if errors.Is(err, schema.ErrCancelled) {
		return false, false
	}
	if err != nil {
		// The schema package calls the document "the schema"; a person
		// knows it by its id, given with every finding.
		l.add("", RuleCompile, Error, "does not compile: "+oneLine(err.Error()))
		return false, schema.IsBound(err)
	}
	if h.Fallback() {
		l.add("", RuleDraft, Warning, `declares no "$schema" and only compiles as draft-07: add "$schema": "http://json-schema.org/draft-07/schema#"`)
	}
	return true, false
}

// top checks the provider rules for the root.
func (l *linter) top(root *schema.Node) {
	if !slices.Equal(root.Types, []string{"object"}) {
		l.add("", RuleProvider, Warning, `top-level "type" is not "object": tool APIs take one object of named parameters`)
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf", "enum", "not"} {
		if root.Has(k) {
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

// node checks one subschema (Lint visits every one, in document order).
func (l *linter) node(n *schema.Node) {
	if n.Bool != nil {
		return
	}
	path := n.Loc
	if n.Ref != "" {
		l.ref(n)
	}
	l.keywords(n)
	l.bounds(n)
	l.forbiddenRequired(n)
	if n.Has("properties") {
		closed := n.AdditionalFalse && !n.Has("patternProperties")
		listed, more := 0, 0
		for _, name := range n.Required {
			if property(l.props, n, name) != nil {
				continue
			}
			if listed++; listed > maxRequiredFindings {
				more++
				continue
			}
			if closed {
				l.add(path, RuleRequired, Error, fmt.Sprintf("requires %q, which additionalProperties: false forbids: no input can be valid", name))
			} else {
				l.add(path, RuleRequired, Warning, fmt.Sprintf("requires %q, which is not in properties", name))
			}
		}
		if more > 0 {
			sev := Warning
			if closed {
				sev = Error
			}
			l.add(path, RuleRequired, sev, fmt.Sprintf("and %d more required names not in properties, not listed", more))
		}
	}
	for _, k := range strictUnsupported {
		if n.Has(k) && !l.seen[k] {
			l.mark(k)
			l.add(path, RuleProvider, Warning, fmt.Sprintf("%q is outside OpenAI strict mode's subset", k))
		}
	}
	if f := n.Format; f != "" && !strictFormats[f] && !l.seen["format:"+f] {
		l.mark("format:" + f)
		l.add(path+"/format", RuleProvider, Warning, fmt.Sprintf("format %q is outside OpenAI strict mode's list", f))
	}
}

// bounds warns when n's bounds, with its $ref and allOf merged
// (schema.Doc.Effective), leave no value: minimum above maximum, and the
// same for lengths and item counts. A schema that only refers to another
// is not reported again: the one it names is.
func (l *linter) bounds(n *schema.Node) {
	own := len(n.AllOf) > 0 || slices.ContainsFunc(n.Keywords, func(k string) bool { return boundKeywords[k] })
	if !own {
		return
	}
	e := l.doc.Effective(n)
	lo, loX := e.Minimum, false
	if e.ExclusiveMinimum != "" && (lo == "" || cmpNum(e.ExclusiveMinimum, lo) >= 0) {
		lo, loX = e.ExclusiveMinimum, true
	}
	hi, hiX := e.Maximum, false
	if e.ExclusiveMaximum != "" && (hi == "" || cmpNum(e.ExclusiveMaximum, hi) <= 0) {
		hi, hiX = e.ExclusiveMaximum, true
	}
	if lo != "" && hi != "" {
		if c := cmpNum(lo, hi); c > 0 || (c == 0 && (loX || hiX)) {
			l.add(n.Loc, RuleBounds, Warning, fmt.Sprintf("lower bound %s is not below upper bound %s: no number is valid", lo, hi))
		}
	}
	count := func(lo, hi *int, what string) {
		if lo != nil && hi != nil && *lo > *hi {
			l.add(n.Loc, RuleBounds, Warning, fmt.Sprintf("at least %d %s and at most %d: no value is valid", *lo, what, *hi))
		}
	}
	count(e.MinLength, e.MaxLength, "characters")
	count(e.MinItems, e.MaxItems, "items")
}

// boundKeywords are the keywords bounds compares.
var boundKeywords = map[string]bool{
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	"minLength": true, "maxLength": true, "minItems": true, "maxItems": true,
}

// cmpNum compares two JSON numbers as written, exactly; 0 when either is
// not a number.
func cmpNum(a, b string) int {
	x, okX := schema.Rat(a)
	y, okY := schema.Rat(b)
	if !okX || !okY {
		return 0
	}
	return x.Cmp(y)
}

// property returns the schema of property name of n, nil when n declares
// none.
func property(ix propIndex, n *schema.Node, name string) *schema.Node {
	if len(n.Props) > propIndexMin && ix != nil {
		m, ok := ix[n]
		if !ok {
			m = make(map[string]*schema.Node, len(n.Props))
			for _, p := range n.Props {
				if _, dup := m[p.Name]; !dup {
					m[p.Name] = p.Schema
				}
			}
			ix[n] = m
		}
		return m[name]
	}
	for _, p := range n.Props {
		if p.Name == name {
			return p.Schema
		}
	}
	return nil
}

// propIndex holds the properties of the schemas with more than
// propIndexMin of them by name, built on the first lookup: a schema that
// requires 85,000 names of its 7,800 properties made the lint quadratic.
type propIndex map[*schema.Node]map[string]*schema.Node

const propIndexMin = 16

// maxRequiredFindings is how many required names not in properties one
// schema's findings list; the rest are counted in one more.
const maxRequiredFindings = 100

// ref checks n's $ref: it must name something in this document.
func (l *linter) ref(n *schema.Node) {
	_, err := l.doc.Resolve(n, n.Ref)
	switch {
	case errors.Is(err, schema.ErrRemoteRef):
		l.add(n.Loc, RuleRef, Error, fmt.Sprintf("$ref %q is remote: modbay never loads it, and no tool API fetches it", n.Ref))
	case err != nil:
		l.add(n.Loc, RuleRef, Error, fmt.Sprintf("$ref %q %s", n.Ref, err))
	}
}

// escape is a JSON pointer reference token (RFC 6901).
func escape(tok string) string { return jsonptr.Escape(tok) }

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
