package form

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"modbay/modproto"
	"modbay/schema"
)

// ---- validation ----------------------------------------------------------

// Validator checks an input against a request schema and returns one
// error per broken rule, each located by a JSON pointer into the input
// (schema.ValidateInput). A non-nil error means the schema itself could
// not be used.
type Validator func(schema, input json.RawMessage) (modproto.ValidationErrors, error)

// Problems are the form's validation findings, placed where they belong.
type Problems struct {
	// Fields maps a node's JSON pointer (Node.Pointer) to its messages.
	Fields map[string][]string
	// Root holds findings about the input as a whole.
	Root []string
	// Hidden counts the validator's findings from oneOf/anyOf branches
	// the person did not pick: not shown at any field (they describe a
	// shape nobody chose) but still counted, since the validator refuses
	// the value for them too.
	Hidden int
}

// Count is the number of findings, hidden ones included.
func (p Problems) Count() int {
	n := len(p.Root) + p.Hidden
	for _, m := range p.Fields {
		n += len(m)
	}
	return n
}

// At returns the messages for the node at ptr.
func (p Problems) At(ptr string) []string { return p.Fields[ptr] }

// Merge adds q's findings to p; a message already at a field is not
// repeated there.
func (p *Problems) Merge(q Problems) {
	for ptr, msgs := range q.Fields {
		p.add(ptr, msgs...)
	}
	p.Root = append(p.Root, q.Root...)
	p.Hidden += q.Hidden
}

func (p *Problems) add(ptr string, msgs ...string) {
	if p.Fields == nil {
		p.Fields = map[string][]string{}
	}
	for _, m := range msgs {
		if !slices.Contains(p.Fields[ptr], m) {
			p.Fields[ptr] = append(p.Fields[ptr], m)
		}
	}
}

// Check builds the value and validates it: first the fields' own problems,
// then, with validate (nil skips it), the schema's verdict on the value.
// A field with a problem of its own shows only that one; where a union has
// a chosen variant, only that variant's findings are placed (see
// Problems.Hidden). The value is returned even when there are problems.
func (f *Form) Check(validate Validator) (json.RawMessage, Problems) {
	value, local := f.Value()
	var p Problems
	for ptr, msgs := range local {
		p.add(ptr, msgs...)
	}
	if validate == nil || len(f.Schema) == 0 {
		return value, p
	}
	remote, err := validate(f.Schema, value)
	if schema.IsBound(err) {
		p.Root = append(p.Root, "validation stopped at a bound, nothing was checked: "+err.Error())
		return value, p
	}
	if err != nil {
		p.Root = append(p.Root, "request schema cannot be used: "+err.Error())
		return value, p
	}
	var sets map[string]string
	if len(remote) > 0 {
		// Findings from branches not picked go uncounted at any field;
		// the summary still counts them (Hidden). A union of required
		// sets is one problem at its object instead.
		var hidden, replaced modproto.ValidationErrors
		hidden, replaced, sets = f.otherBranches(value)
		remote, p.Hidden = withoutFindings(remote, hidden)
		remote, _ = withoutFindings(remote, replaced)
	}
	q := f.Place(remote)
	for ptr, msgs := range q.Fields {
		if _, own := local[ptr]; !own {
			p.add(ptr, msgs...)
		}
	}
	p.Root = append(p.Root, q.Root...)
	for _, ptr := range slices.Sorted(maps.Keys(sets)) {
		n, _ := f.Find(ptr)
		if n == f.Root && f.Root.Kind == KindObject {
			p.Root = append(p.Root, sets[ptr])
			continue
		}
		p.add(n.Pointer(), sets[ptr])
	}
	return value, p
}

// CheckValue is Check for a value typed elsewhere (JSON mode, $EDITOR):
// raw is loaded into a scratch tree of the same schema, as leaving JSON
// mode would load it into f, and checked there, so JSON mode reports the
// problems the form will show, counted the same way: one verdict, one
// list. f is not changed. Text that is not JSON is an error (JSONError).
func (f *Form) CheckValue(raw json.RawMessage, validate Validator) (Problems, error) {
	if err := JSONError(raw); err != nil {
		return Problems{}, err
	}
	g := &Form{Schema: f.Schema, Draft: f.Draft, Root: f.Root, doc: f.doc, comp: f.comp}
	g.prefer = f.chosenVariants()
	for k, c := range g.prefer {
		c.alt = nil // the scratch tree must not adopt f's nodes
		g.prefer[k] = c
	}
	g.loadRoot(raw)
	g.prefer = nil
	_, p := g.Check(validate)
	return p, nil
}

// Lines lists every finding as one line, for a view without fields (JSON
// mode): the root's first, then each field's as "pointer: message", by
// pointer.
func (p Problems) Lines() []string {
	out := append([]string(nil), p.Root...)
	ptrs := make([]string, 0, len(p.Fields))
	for ptr := range p.Fields {
		ptrs = append(ptrs, ptr)
	}
	slices.Sort(ptrs)
	for _, ptr := range ptrs {
		for _, m := range p.Fields[ptr] {
			if ptr == "" {
				out = append(out, m)
				continue
			}
			out = append(out, ptr+": "+m)
		}
	}
	return out
}

// missingRe finds the property names in a "missing property 'x'" or
// "missing properties 'x', 'y'" finding.
var missingRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`'([^']*)'|"([^"]*)"`) })

// Place puts each finding under the node its JSON pointer leads to (the
// deepest existing one; the rest of the pointer prefixes the message); a
// missing required property goes to that property's node as "required";
// findings about a root object go to Root.
func (f *Form) Place(errs modproto.ValidationErrors) Problems {
	var p Problems
	for _, e := range errs {
		n, rest := f.Find(e.Path)
		if in := inner(n); rest == "" && in.Kind == KindObject {
			if names := missingNames(e.Detail); len(names) > 0 {
				placed := false
				// By name, not a scan per name: one finding may list
				// thousands of missing properties.
				byName := make(map[string][]*Node, len(in.Children))
				for _, c := range in.Children {
					byName[c.Name] = append(byName[c.Name], c)
				}
				for _, name := range names {
					for _, c := range byName[name] {
						msg := MsgRequired
						if c.ReadOnly {
							msg = MsgReadOnlyRequired // says why it is missing
						}
						p.add(c.Pointer(), msg)
						placed = true
					}
				}
				if placed {
					continue
				}
			}
		}
		msg := e.Detail
		if rest != "" {
			msg = rest + ": " + msg
		}
		if n == f.Root && f.Root.Kind == KindObject {
			p.Root = append(p.Root, msg)
			continue
		}
		p.add(n.Pointer(), msg)
	}
	return p
}

// missingNames returns the names a "missing propert…" finding lists.
func missingNames(detail string) []string {
	if !strings.Contains(strings.ToLower(detail), "missing propert") {
		return nil
	}
	var out []string
	for _, m := range missingRe().FindAllStringSubmatch(detail, -1) {
		out = append(out, m[1]+m[2])
	}
	return out
}

// CheckField is Check for the one field n, for a form too large to check
// whole on every keystroke: n's own problems and the schema's verdict on
// n's value against n's subschema (schema.Compiled.ValidateAt, with the
// form's bounds), each under its pointer. What n's value does to the rest
// of the input (a conditional, a uniqueItems) waits for Check.
func (f *Form) CheckField(n *Node) Problems {
	ptr := n.Pointer()
	local := problemSink{}
	v, ok := f.value(n, local, ptr)
	var p Problems
	for q, msgs := range local {
		p.add(q, msgs...)
	}
	if !ok || f.comp == nil || n.Schema == nil || len(local[ptr]) > 0 {
		return p
	}
	remote, err := f.comp.ValidateAt(n.Schema.Loc, v)
	if schema.IsBound(err) {
		p.add(ptr, "not checked: "+err.Error())
		return p
	}
	if err != nil {
		return p
	}
	for i := range remote {
		remote[i].Path = ptr + remote[i].Path
	}
	q := f.Place(remote)
	for at, msgs := range q.Fields {
		if _, own := local[at]; !own {
			p.add(at, msgs...)
		}
	}
	return p
}
