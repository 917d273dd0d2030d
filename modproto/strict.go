package modproto

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// This file holds the strict key walk behind `modbay validate`: the raw JSON of a describe envelope or a descriptor is walked
// against the field sets of the protocol's types, so a misspelled key
// (which encoding/json drops without a word) is reported with the closest
// known name, and a value of the wrong JSON type is reported with the
// field, the JSON type expected and what was sent (never a Go type name).

// jsonKind is a JSON value's type as an author writes it.
type jsonKind int

// The JSON kinds a field may expect.
const (
	kindAny jsonKind = iota
	kindObject
	kindArray
	kindString
	kindBool
	kindNumber
	kindInteger
	kindMap // an object whose keys are free (schema maps, roots)
)

// shape is what one JSON value must look like: its kind, the fields of an
// object, the element of an array or map.
type shape struct {
	kind   jsonKind
	fields map[string]*shape
	elem   *shape
	// strict marks an object whose unknown keys are errors, not warnings:
	// effects and permissions, which decide what a call is approved for.
	strict bool
	// quiet are extra keys real modules send that are kept and shown,
	// never reported (requirements' "required" and "for", docs/protocol.md §9).
	quiet map[string]bool
}

func obj(fields map[string]*shape) *shape { return &shape{kind: kindObject, fields: fields} }
func arr(elem *shape) *shape              { return &shape{kind: kindArray, elem: elem} }

var (
	shString  = &shape{kind: kindString}
	shBool    = &shape{kind: kindBool}
	shNumber  = &shape{kind: kindNumber}
	shInteger = &shape{kind: kindInteger}
	shAny     = &shape{kind: kindAny}
	shStrings = arr(shString)
	// shSchemas is a schema map: free keys, each a schema document
	// (checked by ValidateDescriptor and schemalint, not here).
	shSchemas = &shape{kind: kindMap, elem: shAny}
)

// effectsShape is Effects; unknown keys are errors (a misspelled
// "network" would run a networked call without approval).
var effectsShape = &shape{kind: kindObject, strict: true, fields: map[string]*shape{
	"local": shBool, "network": shBool, "external_writes": shBool, "provider": shString, "cost_known": shBool,
}}

// permissionsShape is Permissions; unknown keys are errors, as for effects.
var permissionsShape = &shape{kind: kindObject, strict: true, fields: map[string]*shape{
	"filesystem_read": shStrings, "filesystem_write": shStrings, "network": shStrings,
	"credentials": shStrings, "paid_providers": shStrings, "publish": shBool, "subprocess": shStrings,
}}

// capabilityShape is Capability, with cancel_capability (modbay's
// extension beside poll_capability, docs/protocol.md §12) and hidden (§17)
// known.
var capabilityShape = obj(map[string]*shape{
	"id": shString, "title": shString, "summary": shString,
	"request_schema": shString, "result_schema": shString, "artifact_schemas": shStrings,
	"effects": effectsShape, "skills": shStrings, "long_running": shBool,
	"poll_capability": shString, "cancel_capability": shString, "hidden": shBool,
})

// overlayShape is Overlay; skillShape is Skill.
var overlayShape = obj(map[string]*shape{"id": shString, "title": shString, "path": shString, "digest": shString, "tokens": shInteger})
var skillShape = obj(map[string]*shape{"id": shString, "title": shString, "summary": shString, "path": shString, "digest": shString, "tokens": shInteger})

var requirementShape = &shape{kind: kindObject, quiet: map[string]bool{"required": true, "for": true}, fields: map[string]*shape{
	"kind": shString, "name": shString, "available": shBool, "detail": shString,
}}

// descriptorShape is Descriptor.
var descriptorShape = obj(map[string]*shape{
	"module": shString, "name": shString, "version": shString, "protocol_versions": shStrings,
	"capabilities": arr(capabilityShape), "request_schemas": shSchemas, "result_schemas": shSchemas,
	"artifact_schemas": shSchemas, "agent_overlays": arr(overlayShape), "skills": arr(skillShape),
	"permissions": permissionsShape, "requirements": arr(requirementShape),
})

// artifactShape is Artifact.
var artifactShape = obj(map[string]*shape{
	"id": shString, "kind": shString, "path": shString, "root": shString, "presentation": shString,
	"media_type": shString, "bytes": shInteger, "digest": shString, "title": shString,
})

// envelopeShape is Envelope; result is free (a descriptor on describe is
// walked separately, a capability's result is its own).
var envelopeShape = obj(map[string]*shape{
	"protocol": shString, "module": shString, "operation": shString, "request_id": shString,
	"ok": shBool, "result": shAny, "warnings": shStrings,
	"error": obj(map[string]*shape{"code": shString, "message": shString, "retryable": shBool, "details": shAny}),
	"execution": obj(map[string]*shape{
		"local": shBool, "network": shBool, "external_writes": shBool, "provider": shString,
		"estimated_cost": shNumber, "actual_cost": shNumber, "artifacts": arr(artifactShape),
	}),
})

// CheckDescriptorKeys walks a descriptor's raw JSON (a describe envelope's
// result) against Descriptor's fields. It returns errors (an unknown key in
// effects or permissions, which change what is approved; a value of the
// wrong JSON type) and warnings (an unknown key anywhere else), each at the
// key's path (e.g. `capabilities[0].effects.netwrok`) and, when one is
// close, naming the known key meant. Unknown keys in requirements entries
// named "required" and "for" are kept and not reported (docs/protocol.md §9). The
// contents of schema maps are not walked here (see package schemalint).
func CheckDescriptorKeys(raw json.RawMessage) (errs, warns ValidationErrors) {
	w := &keyWalker{}
	w.walk(bytes.TrimSpace(raw), descriptorShape, "")
	return w.errs, w.warns
}

// CheckEnvelopeKeys walks an envelope's raw JSON (one object, as
// DecodeEnvelope accepted it) against Envelope's fields: unknown keys are
// warnings, values of the wrong JSON type errors (see CheckDescriptorKeys).
// The result is not walked.
func CheckEnvelopeKeys(raw []byte) (errs, warns ValidationErrors) {
	w := &keyWalker{}
	w.walk(bytes.TrimSpace(raw), envelopeShape, "")
	return w.errs, w.warns
}

// WrongTypeDetail explains why an envelope that is one JSON object could
// not be decoded: the first field whose value has the wrong JSON type,
// with the type expected and what was sent (e.g. `field "error" must be an
// object, got a string "cannot open db"`). It returns "" when no field has
// the wrong type.
func WrongTypeDetail(raw []byte) string {
	errs, _ := CheckEnvelopeKeys(raw)
	if len(errs) == 0 {
		return ""
	}
	s := errs[0].Error()
	if len(errs) > 1 {
		s += fmt.Sprintf(" (and %d more)", len(errs)-1)
	}
	return s
}

// keyWalker collects the findings of one walk.
type keyWalker struct {
	errs, warns ValidationErrors
}

// walk checks raw against sh at path p.
func (w *keyWalker) walk(raw []byte, sh *shape, p string) {
	if sh == nil || sh.kind == kindAny || len(raw) == 0 {
		return
	}
	if bytes.Equal(raw, []byte("null")) {
		return // null reads as the zero value; ValidateEnvelope judges presence
	}
	if got := kindOf(raw); !fits(got, sh.kind, raw) {
		w.errs = append(w.errs, ValidationError{fieldPath(p), fmt.Sprintf("must be %s, got %s", kindName(sh.kind), sentValue(raw))})
		return
	}
	switch sh.kind {
	case kindArray:
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return
		}
		for i, it := range items {
			w.walk(bytes.TrimSpace(it), sh.elem, fmt.Sprintf("%s[%d]", p, i))
		}
	case kindMap:
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			w.walk(bytes.TrimSpace(m[k]), sh.elem, fmt.Sprintf("%s[%q]", p, k))
		}
	case kindObject:
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			kp := joinPath(p, k)
			f, known := sh.fields[k]
			if known {
				w.walk(bytes.TrimSpace(m[k]), f, kp)
				continue
			}
			if sh.quiet[k] {
				continue
			}
			detail := "unknown key"
			if s := closest(k, keysOf(sh.fields)); s != "" {
				detail += fmt.Sprintf("; did you mean %q?", s)
			}
			if sh.strict {
				w.errs = append(w.errs, ValidationError{kp, detail + " (an unknown key here could change what is approved, so the module is refused)"})
			} else {
				w.warns = append(w.warns, ValidationError{kp, detail + " (ignored)"})
			}
		}
	}
}

// kindOf is the JSON kind of a non-empty, trimmed value.
func kindOf(raw []byte) jsonKind {
	switch raw[0] {
	case '{':
		return kindObject
	case '[':
		return kindArray
	case '"':
		return kindString
	case 't', 'f':
		return kindBool
	default:
		return kindNumber
	}
}

// fits reports whether a value of kind got satisfies want.
func fits(got, want jsonKind, raw []byte) bool {
	switch want {
	case kindMap:
		return got == kindObject
	case kindInteger:
		if got != kindNumber {
			return false
		}
		var n int64
		return json.Unmarshal(raw, &n) == nil
	}
	return got == want
}

// kindName is a JSON type with its article, as a person reads it.
func kindName(k jsonKind) string {
	switch k {
	case kindObject, kindMap:
		return "an object"
	case kindArray:
		return "an array"
	case kindString:
		return "a string"
	case kindBool:
		return "a boolean (true or false)"
	case kindNumber:
		return "a number"
	case kindInteger:
		return "an integer"
	}
	return "a JSON value"
}

// maxSentQuote bounds how much of a wrongly typed value a message quotes,
// in runes.
const maxSentQuote = 40

// sentValue describes what was sent: its JSON type and a short quote.
func sentValue(raw []byte) string {
	k := kindOf(raw)
	name := kindName(k)
	if k == kindNumber {
		var n int64
		if json.Unmarshal(raw, &n) != nil {
			name = "a number that is not an integer"
		}
	}
	q := string(raw)
	if utf8.RuneCountInString(q) > maxSentQuote {
		q = string([]rune(q)[:maxSentQuote]) + "…"
	}
	return name + " " + q
}

// joinPath appends key k to path p, as ValidationError paths read.
func joinPath(p, k string) string {
	if p == "" {
		return k
	}
	return p + "." + k
}

// fieldPath is p, or "(root)" for the value walked itself.
func fieldPath(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

func keysOf(m map[string]*shape) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Closest returns the candidate nearest to name by edit distance
// (insertions, deletions, substitutions and swaps of neighbours count one
// each, case ignored), or "" when none is close enough to be a typo: at
// most a third of the name's length, and at least 1. Ties go to the first
// in candidates' order.
func Closest(name string, candidates []string) string { return closest(name, candidates) }

func closest(name string, candidates []string) string {
	best, bestD := "", -1
	limit := max(1, utf8.RuneCountInString(name)/3)
	if limit > 3 {
		limit = 3
	}
	for _, c := range candidates {
		d := editDistance(strings.ToLower(name), strings.ToLower(c))
		if d <= limit && (bestD < 0 || d < bestD) {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b, over
// runes.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

// CheckDescriptorShape reports descriptor-level problems no single field
// shows: a descriptor with no capability (nothing can be invoked), and a
// request schema no capability references (unused: often a misspelled
// request_schema id). Both are warnings, at their path.
func CheckDescriptorShape(d *Descriptor) (warns ValidationErrors) {
	if len(d.Capabilities) == 0 {
		warns = append(warns, ValidationError{"capabilities", "declares no capability: there is nothing to invoke"})
	}
	used := map[string]bool{}
	for _, c := range d.Capabilities {
		used[c.RequestSchema] = true
	}
	for _, k := range slices.Sorted(maps.Keys(d.RequestSchemas)) {
		if !used[k] {
			warns = append(warns, ValidationError{fmt.Sprintf("request_schemas[%q]", k), "no capability's request_schema references it"})
		}
	}
	return warns
}
