package form

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"modbay/modproto"
)

// errorPrinter renders schema errors in English, as the runner's
// ValidateInput does, so a finding here reads exactly like the Validator's.
var errorPrinter = message.NewPrinter(language.English)

// otherBranches returns the validator's findings about value that come
// from oneOf/anyOf branches the person did not pick: when a union has a
// chosen variant, the other branches' complaints ("missing property
// 'side'" under Circle) are about a shape nobody asked for. A nullable
// field that is not null likewise hides its null branch's "want null".
// Each finding is a leaf as the Validator reports it (instance pointer
// and English detail), for removal from its list; santhosh-tekuri v6
// reports the failures of each branch under the oneOf/anyOf error, with a
// schema location below ".../oneOf/<i>".
func (f *Form) otherBranches(value json.RawMessage) modproto.ValidationErrors {
	if f.comp == nil {
		return nil
	}
	sch := f.comp.subs[""]
	if sch == nil {
		return nil
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(sch.Validate(inst), &ve) {
		return nil
	}
	var out modproto.ValidationErrors
	f.hideBranches(ve, &out)
	return out
}

// hideBranches walks e, appending to out the leaves of branches to hide.
func (f *Form) hideBranches(e *jsonschema.ValidationError, out *modproto.ValidationErrors) {
	kw := ""
	switch e.ErrorKind.(type) {
	case *kind.OneOf:
		kw = "oneOf"
	case *kind.AnyOf:
		kw = "anyOf"
	}
	if kw == "" || len(e.Causes) == 0 {
		for _, c := range e.Causes {
			f.hideBranches(c, out)
		}
		return
	}
	base := fragment(e.SchemaURL) + "/" + kw + "/"
	keep := f.keptBranch(pointerOf(e.InstanceLocation), base, e.Causes)
	for _, c := range e.Causes {
		loc, ok := branchLoc(fragment(c.SchemaURL), base)
		if ok && keep != nil && !keep(loc) {
			leaves(c, out)
			continue
		}
		f.hideBranches(c, out)
	}
}

// keptBranch decides, for the union at ptr whose branches sit at
// base+"<i>", which branch locations to keep; nil keeps all.
func (f *Form) keptBranch(ptr, base string, causes []*jsonschema.ValidationError) func(loc string) bool {
	n, rest := f.Find(ptr)
	if rest != "" {
		return nil
	}
	for n.Kind == KindEntry {
		n = n.Children[0]
	}
	if n.Kind == KindUnion && n.Variant >= 0 && n.Variant < len(n.Variants) && n.Variants[n.Variant].Type == "" {
		chosen := n.Variants[n.Variant].Src.Loc
		found := false
		for _, c := range causes {
			if loc, ok := branchLoc(fragment(c.SchemaURL), base); ok && loc == chosen {
				found = true
			}
		}
		if !found {
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

// branchLoc returns the branch location (base+"<i>") that frag lies in.
func branchLoc(frag, base string) (string, bool) {
	rest, ok := strings.CutPrefix(frag, base)
	if !ok {
		return "", false
	}
	i, _, _ := strings.Cut(rest, "/")
	if _, err := strconv.Atoi(i); err != nil {
		return "", false
	}
	return base + i, true
}

// leaves appends every finding without causes under e, as the Validator
// reports it.
func leaves(e *jsonschema.ValidationError, out *modproto.ValidationErrors) {
	if len(e.Causes) == 0 {
		*out = append(*out, modproto.ValidationError{Path: pointerOf(e.InstanceLocation), Detail: e.ErrorKind.LocalizedString(errorPrinter)})
		return
	}
	for _, c := range e.Causes {
		leaves(c, out)
	}
}

// fragment is the JSON pointer part of a schema URL ("" for the root).
func fragment(u string) string {
	_, frag, _ := strings.Cut(u, "#")
	return frag
}

// pointerOf renders instance tokens as an RFC 6901 pointer.
func pointerOf(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escape(t))
	}
	return b.String()
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
