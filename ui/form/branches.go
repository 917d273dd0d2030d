package form

import (
	"encoding/json"
	"slices"

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
// the validator's errors (Compiled.OtherBranches), the form decides which
// branches to keep (keptBranch).
func (f *Form) otherBranches(value json.RawMessage) modproto.ValidationErrors {
	if f.comp == nil {
		return nil
	}
	return f.comp.OtherBranches(value, f.keptBranch)
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
			s := f.doc.byLoc[loc]
			return s == nil || !f.doc.effective(s).isNullOnly()
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
