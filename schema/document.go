package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
)

// Doc is one schema document parsed: every subschema a Node, found by its
// location, its "$id" or its anchors, so references resolve without any
// I/O. It is the one reading of a schema's structure that the form, the
// conformance generator and the lint share. Safe for concurrent use once
// Parse returns.
type Doc struct {
	root  *Node
	order []*Node
	byLoc map[string]*Node
	// byID holds resources by absolute URL ("" for a document without
	// "$id") and anchors by URL#name.
	byID map[string]*Node
	// byDynamic holds the outermost "$dynamicAnchor" of each name;
	// recursive the outermost "$recursiveAnchor": true.
	byDynamic map[string]*Node
	recursive *Node

	// Parse state: nodes parsed, the current nesting depth and base URL.
	nodes, depth int
	base         string

	mu sync.Mutex
	// merged caches Effective by the document node it was computed from
	// (at most one entry per node); guarded by mu.
	merged map[*Node]*Node
}

// Parse reads a schema document (an object or a boolean). Draft-07 and
// 2020-12 spellings are both read whatever the draft: an "items" array is
// a tuple (Prefix), "dependencies" splits into DepRequired and DepSchemas,
// "definitions" sits beside "$defs", null keywords are absent. The error
// names the location of a subschema that is not one, or the bound
// (limits.go) the document passes.
func Parse(raw json.RawMessage) (*Doc, error) {
	if err := CheckSize(raw); err != nil {
		return nil, err
	}
	d := &Doc{byLoc: map[string]*Node{}, byID: map[string]*Node{}, byDynamic: map[string]*Node{}, merged: map[*Node]*Node{}}
	s, err := d.parse(raw, "")
	if err != nil {
		return nil, err
	}
	d.root = s
	if _, ok := d.byID[""]; !ok {
		d.byID[""] = s
	}
	return d, nil
}

// EmptyDoc is the document of the schema that accepts anything (a
// capability without a request schema).
func EmptyDoc() *Doc {
	d, _ := Parse(json.RawMessage(`{}`))
	return d
}

// Root is the document's root schema.
func (d *Doc) Root() *Node { return d.root }

// At returns the subschema at loc (a JSON pointer, "" for the root), nil
// when there is none.
func (d *Doc) At(loc string) *Node { return d.byLoc[loc] }

// Nodes returns every subschema in document order (a parent before its
// children, keywords as written). The caller must not modify it.
func (d *Doc) Nodes() []*Node { return d.order }

// anchor records s as anchor a of the current resource.
func (d *Doc) anchor(s *Node, a string) {
	if a == "" {
		return
	}
	s.Anchor = a
	if _, ok := d.byID[d.base+"#"+a]; !ok {
		d.byID[d.base+"#"+a] = s
	}
}

// joinURL resolves ref against base; ref as written when either is not a
// URL.
func joinURL(base, ref string) string {
	r, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	if base != "" {
		if b, err := url.Parse(base); err == nil {
			r = b.ResolveReference(r)
		}
	}
	r.Fragment, r.RawFragment = "", ""
	return strings.TrimSuffix(r.String(), "#")
}

// ErrRemoteRef is Resolve's error for a reference to a resource the
// document does not hold: modbay never loads one (RefusingLoader).
var ErrRemoteRef = errors.New("names a schema outside this document")

// Resolve returns the schema that ref, written in schema from, names:
// a JSON pointer, an anchor, or an "$id" of this document, resolved
// against from's base URL. The error says why nothing is named
// (ErrRemoteRef for another document's URL).
func (d *Doc) Resolve(from *Node, ref string) (*Node, error) {
	base := ""
	if from != nil {
		base = from.Base
	}
	res, frag, _ := strings.Cut(ref, "#")
	if res != "" {
		res = joinURL(base, res)
	} else {
		res = base
	}
	target, ok := d.byID[res]
	if !ok {
		if u, err := url.Parse(res); err == nil && u.IsAbs() {
			return nil, ErrRemoteRef
		}
		return nil, errors.New("names no $id in this document")
	}
	switch {
	case frag == "":
		return target, nil
	case !strings.HasPrefix(frag, "/"):
		if a, ok := d.byID[res+"#"+frag]; ok {
			return a, nil
		}
		return nil, errors.New("names no $anchor in this document")
	}
	if p, err := url.PathUnescape(frag); err == nil {
		frag = p
	}
	if n, ok := d.byLoc[target.Loc+frag]; ok {
		return n, nil
	}
	return nil, errors.New("resolves to nothing")
}

// Target returns the schema s refers to: its "$ref", else its
// "$dynamicRef" (the outermost "$dynamicAnchor" of the name, else the
// plain reference) or "$recursiveRef" (the outermost
// "$recursiveAnchor": true, else the reference); nil when s refers to
// nothing or to nothing this document holds.
func (d *Doc) Target(s *Node) *Node {
	if s == nil {
		return nil
	}
	if s.Ref != "" {
		t, _ := d.Resolve(s, s.Ref)
		return t
	}
	if s.DynamicRef == "" {
		return nil
	}
	if a, ok := strings.CutPrefix(s.DynamicRef, "#"); ok && a != "" && !strings.HasPrefix(a, "/") {
		if t, ok := d.byDynamic[a]; ok {
			return t
		}
	}
	if s.DynamicRef == "#" && d.recursive != nil {
		return d.recursive
	}
	t, _ := d.Resolve(s, s.DynamicRef)
	return t
}

// Effective returns s with its reference chain and allOf merged in
// (Merge): the one schema a widget or a generated value is built from.
// oneOf/anyOf stay as lists, conditionals as they are. Cycles, chains
// past MaxRefChain and merges past MaxMergeVisits stop where they are.
// The result is shared: the caller must not modify it.
func (d *Doc) Effective(s *Node) *Node {
	if s == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if e, ok := d.merged[s]; ok {
		return e
	}
	w := &flattening{d: d, on: map[*Node]bool{}}
	e := w.flatten(s, 0)
	// Only the document's own nodes are remembered: a reader's merged
	// copies come and go, and the Doc lives as long as its compile.
	if d.byLoc[s.Loc] == s {
		d.merged[s] = e
	}
	return e
}

// flattening is one Effective call's walk: the schemas on the current
// path (a cycle stops at one) and the visits so far.
type flattening struct {
	d      *Doc
	on     map[*Node]bool
	visits int
}

// flatten merges s's chain in; called with d.mu held. Each document node
// is merged once and remembered (d.merged), however many schemas refer
// to it, so the work is linear in the document. Where a stop (a cycle,
// MaxRefChain, MaxMergeVisits) cut a chain, what is remembered is the
// chain as first merged: only the stopped node itself, which keeps its
// own keywords, is not remembered.
func (w *flattening) flatten(s *Node, depth int) *Node {
	w.visits++
	if s.Ref == "" && s.DynamicRef == "" && len(s.AllOf) == 0 {
		return s
	}
	if e, ok := w.d.merged[s]; ok {
		return e
	}
	out := *s
	out.Ref, out.DynamicRef, out.AllOf = "", "", nil
	if depth > MaxRefChain || w.visits > MaxMergeVisits || w.on[s] {
		return &out // its own keywords only
	}
	w.on[s] = true
	defer delete(w.on, s)
	// The referring schema's own keywords win over the target's.
	if t := w.d.Target(s); t != nil {
		Merge(&out, w.flatten(t, depth+1))
	}
	for _, a := range s.AllOf {
		Merge(&out, w.flatten(a, depth+1))
	}
	if w.d.byLoc[s.Loc] == s {
		w.d.merged[s] = &out
	}
	return &out
}

// ObjectKeys returns the keys of a JSON object in the order they appear
// in the bytes (a repeated key counts once, where it first appears) and
// the values by key (the last value of a repeated key, as encoding/json
// reads it). Go maps lose the order; forms show fields in the author's.
func ObjectKeys(raw json.RawMessage) ([]string, map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, errors.New("not a JSON object")
	}
	var keys []string
	m := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		if _, seen := m[k]; !seen {
			keys = append(keys, k)
		}
		m[k] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, err
	}
	return keys, m, nil
}

// compact returns raw as compact JSON, or nil when empty or invalid.
func compact(raw json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return nil
	}
	var buf bytes.Buffer
	if json.Compact(&buf, t) != nil {
		return nil
	}
	return buf.Bytes()
}

// Doc returns the handle's document parsed (Parse of Source, once).
func (h *Compiled) Doc() (*Doc, error) {
	h.parsed.once.Do(func() {
		h.parsed.d, h.parsed.err = Parse(h.source)
		if h.parsed.err != nil {
			h.parsed.err = fmt.Errorf("schema: %w", h.parsed.err)
		}
	})
	return h.parsed.d, h.parsed.err
}
