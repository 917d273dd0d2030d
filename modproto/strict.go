package modproto

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
	// names are the fields' names, sorted; folded maps each name folded
	// as encoding/json matches keys (foldKey) to the name (prepareShapes).
	names  []string
	folded map[string]string
}

// prepareShapes fills names and folded of sh and every shape beneath it.
func prepareShapes(sh *shape) {
	if sh == nil || sh.names != nil {
		return
	}
	sh.names = keysOf(sh.fields)
	sh.folded = make(map[string]string, len(sh.fields))
	for _, n := range sh.names {
		sh.folded[foldKey(n)] = n
		prepareShapes(sh.fields[n])
	}
	prepareShapes(sh.elem)
}

func init() {
	prepareShapes(descriptorShape)
	prepareShapes(envelopeShape)
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
// Malformed JSON has no findings. It reads raw once to check it, then only
// the values of known fields: time linear in len(raw).
func CheckDescriptorKeys(raw json.RawMessage) (errs, warns ValidationErrors) {
	errs, warns, _ = checkKeysAgainst(context.Background(), raw, descriptorShape)
	return errs, warns
}

// CheckDescriptorKeysContext is CheckDescriptorKeys that stops when ctx
// ends (err is then ctx's, and the findings are not to be used).
func CheckDescriptorKeysContext(ctx context.Context, raw json.RawMessage) (errs, warns ValidationErrors, err error) {
	return checkKeysAgainst(ctx, raw, descriptorShape)
}

// CheckEnvelopeKeys walks an envelope's raw JSON (one object, as
// DecodeEnvelope accepted it) against Envelope's fields: unknown keys are
// warnings, values of the wrong JSON type errors (see CheckDescriptorKeys).
// The result is not walked.
func CheckEnvelopeKeys(raw []byte) (errs, warns ValidationErrors) {
	errs, warns, _ = checkKeysAgainst(context.Background(), raw, envelopeShape)
	return errs, warns
}

// CheckEnvelopeKeysContext is CheckEnvelopeKeys that stops when ctx ends
// (see CheckDescriptorKeysContext).
func CheckEnvelopeKeysContext(ctx context.Context, raw []byte) (errs, warns ValidationErrors, err error) {
	return checkKeysAgainst(ctx, raw, envelopeShape)
}

// checkKeysAgainst walks raw, when it is one JSON value, against sh.
func checkKeysAgainst(ctx context.Context, raw []byte, sh *shape) (errs, warns ValidationErrors, err error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return nil, nil, nil
	}
	w := &keyWalker{d: t, t: ticker{ctx: ctx}}
	end, _, err := scanValue(ctx, t, 0, nil)
	switch {
	case err != nil && !errors.Is(err, errSyntax):
		return nil, nil, err
	case err != nil || end != len(t):
		// Not one JSON value: only its first byte's kind is judged.
		w.shallow = true
	}
	w.walk(0, len(t), sh, "")
	if w.moreErrs > 0 {
		w.errs = append(w.errs, ValidationError{"(more)", fmt.Sprintf("%d more findings like these, not listed (the first %d are)", w.moreErrs, MaxKeyFindings)})
	}
	if w.moreWarns > 0 {
		w.warns = append(w.warns, ValidationError{"(more)", fmt.Sprintf("%d more unknown keys, ignored and not listed (the first %d are)", w.moreWarns, MaxKeyFindings)})
	}
	return w.errs, w.warns, w.err
}

// MaxKeyFindings bounds the errors and, apart, the warnings one key check
// lists (docs/protocol.md §14): past it they are counted in one more
// finding, so a describe of 300,000 unknown keys is not 300,000 lines.
const MaxKeyFindings = 1000

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

// keyWalker collects the findings of one walk over d, a document the
// scanner accepted.
type keyWalker struct {
	d           []byte
	errs, warns ValidationErrors
	key         []byte
	// shallow: d is not one JSON value, so nothing beneath its kind is
	// walked.
	shallow bool
	t       ticker
	err     error // the context's, once it ended
	// moreErrs, moreWarns: findings past MaxKeyFindings, counted only.
	moreErrs, moreWarns int
}

// walkMember is one member of an object being walked.
type walkMember struct {
	key    string
	v0, v1 int
}

// walk checks the value d[v0:v1] against sh at path p.
func (w *keyWalker) walk(v0, v1 int, sh *shape, p string) {
	if sh == nil || sh.kind == kindAny || v1 <= v0 {
		return
	}
	raw := w.d[v0:v1]
	if string(raw) == "null" {
		return // null reads as the zero value; ValidateEnvelope judges presence
	}
	if got := kindOf(raw); !fits(got, sh.kind, raw) {
		if len(w.errs) >= MaxKeyFindings {
			w.moreErrs++
			return
		}
		w.errs = appendDoubling(w.errs, ValidationError{fieldPath(p), fmt.Sprintf("must be %s, got %s", kindName(sh.kind), sentValue(raw))})
		return
	}
	if w.shallow {
		return
	}
	switch sh.kind {
	case kindArray:
		if sh.elem == nil || sh.elem.kind == kindAny {
			return
		}
		i := 0
		eachElement(w.d, v0, func(e0, e1 int) bool {
			if w.err == nil {
				w.err = w.t.at(e1)
			}
			if w.err != nil {
				return false
			}
			w.walkElement(e0, e1, sh.elem, p, i)
			i++
			return true
		})
	case kindMap:
		if sh.elem == nil || sh.elem.kind == kindAny {
			return
		}
		for _, m := range w.members(v0) {
			w.walk(m.v0, m.v1, sh.elem, fmt.Sprintf("%s[%q]", p, m.key))
		}
	case kindObject:
		for _, m := range w.members(v0) {
			if w.err == nil {
				w.err = w.t.at(m.v1)
			}
			if w.err != nil {
				return
			}
			kp := joinPath(p, m.key)
			f, known := sh.fields[m.key]
			if known {
				w.walk(m.v0, m.v1, f, kp)
				continue
			}
			if sh.quiet[m.key] {
				continue
			}
			if sh.strict && len(w.errs) >= MaxKeyFindings {
				w.moreErrs++
				continue
			}
			if !sh.strict && len(w.warns) >= MaxKeyFindings {
				w.moreWarns++
				continue
			}
			detail := "unknown key"
			if s := closest(m.key, sh.names); s != "" {
				detail += fmt.Sprintf("; did you mean %q?", s)
			}
			if sh.strict {
				w.errs = appendDoubling(w.errs, ValidationError{kp, detail + " (an unknown key here could change what is approved, so the module is refused)"})
			} else {
				w.warns = appendDoubling(w.warns, ValidationError{kp, detail + " (ignored)"})
			}
		}
	}
}

// walkElement walks element i of the array at path p; its path is built
// only when the element is reported or walked into.
func (w *keyWalker) walkElement(e0, e1 int, sh *shape, p string, i int) {
	raw := w.d[e0:e1]
	if sh.kind != kindObject && sh.kind != kindArray && sh.kind != kindMap {
		if string(raw) == "null" || fits(kindOf(raw), sh.kind, raw) {
			return
		}
	}
	w.walk(e0, e1, sh, p+"["+itoa(i)+"]")
}

// sortMembers sorts ms by key, stably, merging runs of doubling length
// and looking at the context between merges (a hostile object's hundreds
// of thousands of keys take a tenth of a second to sort); false when it
// ended first.
func (w *keyWalker) sortMembers(ms []walkMember) bool {
	const run = 32
	less := func(a, b walkMember) bool { return a.key < b.key }
	for i := 0; i < len(ms); i += run {
		part := ms[i:min(i+run, len(ms))]
		for j := 1; j < len(part); j++ { // insertion sort: stable
			for k := j; k > 0 && less(part[k], part[k-1]); k-- {
				part[k], part[k-1] = part[k-1], part[k]
			}
		}
	}
	if len(ms) <= run {
		return true
	}
	buf := make([]walkMember, len(ms))
	src, dst := ms, buf
	done := 0
	for width := run; width < len(ms); width *= 2 {
		for lo := 0; lo < len(ms); lo += 2 * width {
			mid, hi := min(lo+width, len(ms)), min(lo+2*width, len(ms))
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				if less(src[j], src[i]) {
					dst[k], j = src[j], j+1
				} else {
					dst[k], i = src[i], i+1
				}
				k++
			}
			k += copy(dst[k:], src[i:mid])
			copy(dst[k:], src[j:hi])
			if done += hi - lo; done >= scanCheckEvery/8 {
				done = 0
				if w.t.ctx != nil && w.t.ctx.Err() != nil {
					w.err = w.t.ctx.Err()
					return false
				}
			}
		}
		src, dst = dst, src
	}
	if &src[0] != &ms[0] {
		copy(ms, src)
	}
	return true
}

// appendDoubling is append that doubles a full slice's capacity (append
// grows large slices by a quarter, copying a long list many times).
func appendDoubling[S ~[]E, E any](s S, e E) S {
	if len(s) == cap(s) && len(s) >= 256 {
		s = append(make(S, 0, 2*len(s)), s...)
	}
	return append(s, e)
}

// members are the members of the object at d[v0] as a map decodes them:
// keys decoded, the last of a repeated key kept, in key order.
func (w *keyWalker) members(v0 int) []walkMember {
	var ms []walkMember
	eachMember(w.d, v0, func(m member) bool {
		if w.err == nil {
			w.err = w.t.at(m.v1)
		}
		if w.err != nil {
			return false
		}
		w.key = appendUnquoted(w.key[:0], m.key)
		ms = appendDoubling(ms, walkMember{string(w.key), m.v0, m.v1})
		return true
	})
	// By key, then in document order.
	if !w.sortMembers(ms) {
		return nil
	}
	// Of a repeated key, the last (in document order) stays.
	out := ms[:0]
	for i, m := range ms {
		if i+1 < len(ms) && ms[i+1].key == m.key {
			continue
		}
		out = append(out, m)
	}
	return out
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
	// The first maxSentQuote runes, converted alone (raw may be megabytes).
	n, cut := 0, 0
	for cut < len(raw) && n <= maxSentQuote {
		_, size := utf8.DecodeRune(raw[cut:])
		cut += size
		n++
	}
	var q string
	if n > maxSentQuote {
		q = string([]rune(string(raw[:cut]))[:maxSentQuote]) + "…"
	} else {
		q = string(raw)
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
	n := utf8.RuneCountInString(name)
	limit := max(1, n/3)
	if limit > 3 {
		limit = 3
	}
	lower := strings.ToLower(name)
	for _, c := range candidates {
		// The distance is at least the difference in length: a long
		// name (a hostile key) costs no alignment.
		if d := utf8.RuneCountInString(c) - n; d > limit || -d > limit {
			continue
		}
		// Nor a name with more than limit letters the candidate lacks.
		if lacking(lower, strings.ToLower(c), limit) {
			continue
		}
		d := boundedEditDistance(lower, strings.ToLower(c), limit)
		if d <= limit && (bestD < 0 || d < bestD) {
			best, bestD = c, d
		}
	}
	return best
}

// lacking reports whether more than limit runes of a (with repeats) are
// not in b, when b is ASCII: each such rune costs an edit, so the
// distance is above limit.
func lacking(a, b string, limit int) bool {
	var set [2]uint64
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c >= utf8.RuneSelf {
			return false
		}
		set[c>>6] |= 1 << (c & 63)
	}
	n := 0
	for _, r := range a {
		if r >= utf8.RuneSelf || set[r>>6]&(1<<(r&63)) == 0 {
			if n++; n > limit {
				return true
			}
		}
	}
	return false
}

// editDistance is the optimal string alignment distance of a and b, over
// runes, in three rows of the table.
func editDistance(a, b string) int { return boundedEditDistance(a, b, -1) }

// boundedEditDistance is editDistance, or some value above limit as soon
// as two rows of the table are above it (no later row can come back
// under); limit < 0 is no bound.
func boundedEditDistance(a, b string, limit int) int {
	var xa, ya [64]rune
	x, y := appendRunes(xa[:0], a), appendRunes(ya[:0], b)
	var ra, rb, rc [65]int
	var prev2, prev, cur []int
	if len(y) < len(rb) {
		prev2, prev, cur = ra[:len(y)+1], rb[:len(y)+1], rc[:len(y)+1]
	} else {
		prev2, prev, cur = make([]int, len(y)+1), make([]int, len(y)+1), make([]int, len(y)+1)
	}
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		if limit >= 0 && slices.Min(cur) > limit && slices.Min(prev) > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(y)]
}

// appendRunes appends the runes of s to dst.
func appendRunes(dst []rune, s string) []rune {
	for _, r := range s {
		dst = append(dst, r)
	}
	return dst
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
