package form

import (
	"encoding/json"
	"slices"
	"strings"

	"modbay/modproto"
	"modbay/schema"
)

// otherBranches returns the validator's findings about value that come
// from oneOf/anyOf branches the person did not pick: when a union has a
// chosen variant, the other branches' complaints ("missing property
// 'side'" under Circle) are about a shape nobody asked for. A nullable
// field that is not null likewise hides its null branch's "want null".
// Each finding is a leaf as the Validator reports it (instance pointer
// and English detail), for removal from its list; package schema walks
// the validator's errors (Compiled.BranchFindings), the form decides which
// branches to keep (keptBranch).
//
// A union whose branches only name required properties (Notion's parent:
// oneOf [{required: [page_id]}, {required: [database_id]}]) has no picker:
// its findings come back apart, in sets, with the one problem that replaces
// them at the object ("set one of: page_id or database_id"), by the
// object's pointer, so no field is marked "required" for a branch nobody
// chose.
func (f *Form) otherBranches(value json.RawMessage) (hidden, replaced modproto.ValidationErrors, sets map[string]string) {
	if f.comp == nil {
		return nil, nil, nil
	}
	keep := func(u schema.Union) func(loc string) bool {
		if msg, ok := f.requiredSets(u); ok {
			if sets == nil {
				sets = map[string]string{}
			}
			sets[u.Instance] = msg
			return func(string) bool { return false }
		}
		return f.keptBranch(u)
	}
	for _, b := range f.comp.BranchFindings(value, keep) {
		if _, ok := sets[b.Instance]; ok {
			replaced = append(replaced, b.Finding)
		} else {
			hidden = append(hidden, b.Finding)
		}
	}
	return hidden, replaced, sets
}

// requiredSets reports whether union u only names sets of required
// properties (each branch {"required": [...]}, a null branch aside), and
// then the problem that says so in words: "set one of: page_id or
// database_id" for a oneOf, "set at least one of: …" for an anyOf; a set
// of several names reads "a and b".
func (f *Form) requiredSets(u schema.Union) (string, bool) {
	var alts []string
	for _, loc := range u.Branches {
		s := f.doc.At(loc)
		if s == nil {
			return "", false
		}
		e := f.doc.Effective(s)
		switch {
		case e.IsNullOnly():
		case onlyRequires(e):
			alts = append(alts, strings.Join(e.Required, " and "))
		default:
			return "", false
		}
	}
	if len(alts) == 0 {
		return "", false
	}
	lead := "set one of: "
	if u.Keyword == "anyOf" {
		lead = "set at least one of: "
	}
	return lead + orJoin(alts), true
}

// orJoin is "a", "a or b", "a, b or c".
func orJoin(xs []string) string {
	if len(xs) <= 1 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

// keptBranch decides, for the union u, which branch locations to keep;
// nil keeps all.
func (f *Form) keptBranch(u schema.Union) func(loc string) bool {
	n, rest := f.Find(u.Instance)
	if rest != "" {
		return nil
	}
	for n.Kind == KindEntry {
		n = n.Children[0]
	}
	if n.Kind == KindUnion && n.Variant >= 0 && n.Variant < len(n.Variants) && n.Variants[n.Variant].Type == "" {
		chosen := n.Variants[n.Variant].Src.Loc
		if !slices.Contains(u.Branches, chosen) {
			// The chosen branch is not among the failures (or lives
			// elsewhere): nothing can be said about the others.
			return nil
		}
		return func(loc string) bool { return loc == chosen }
	}
	if n.Nullable && !n.Null {
		return func(loc string) bool {
			s := f.doc.At(loc)
			return s == nil || !f.doc.Effective(s).IsNullOnly()
		}
	}
	return nil
}

// withoutFindings returns errs less one occurrence of each of drop, and how
// many were dropped.
func withoutFindings(errs, drop modproto.ValidationErrors) (modproto.ValidationErrors, int) {
	if len(drop) == 0 {
		return errs, 0
	}
	left := map[modproto.ValidationError]int{}
	for _, d := range drop {
		left[d]++
	}
	var out modproto.ValidationErrors
	for _, e := range errs {
		if left[e] > 0 {
			left[e]--
			continue
		}
		out = append(out, e)
	}
	return out, len(errs) - len(out)
}

// RequiredSets returns the property-name sets of object n's union of
// required sets (oneOf, else anyOf; each branch only {"required": [...]}):
// the choices its "set one of" problem names, for a view's hint or a
// filler; nil when n has no such union.
func (f *Form) RequiredSets(n *Node) [][]string {
	if n == nil || n.Kind != KindObject || n.Schema == nil {
		return nil
	}
next:
	for _, branches := range [][]*Schema{n.Schema.OneOf, n.Schema.AnyOf} {
		var sets [][]string
		for _, b := range branches {
			e := f.doc.Effective(b)
			switch {
			case e.IsNullOnly():
			case onlyRequires(e):
				sets = append(sets, e.Required)
			default:
				continue next
			}
		}
		if len(sets) > 0 {
			return sets
		}
	}
	return nil
}

// onlyRequires reports whether s says nothing but "required": a branch of
// a union of required sets.
func onlyRequires(s *Schema) bool {
	return len(s.Required) > 0 && !s.IsStructural() && s.Not == nil && s.If == nil && s.MinProps == nil
}
