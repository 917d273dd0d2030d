package schema

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"modbay/internal/jsonptr"
	"modbay/modproto"
)

// errorPrinter renders validation errors in English.
var errorPrinter = sync.OnceValue(func() *message.Printer { return message.NewPrinter(language.English) })

// ErrInputNotJSON is wrapped by Validate's error when the input, not the
// schema, is at fault.
var ErrInputNotJSON = errors.New("input is not JSON")

// ValidateInput validates input (a JSON value; empty reads as {}) against
// the schema document schema (a request schema, docs/protocol.md §9): Compile, then
// Validate. It is the form's Validator (ui/form) and the runner's check.
// The error is non-nil when the schema does not compile or input is not
// JSON (wrapping ErrInputNotJSON). Compiled schemas are cached by content,
// so calling this on every change is cheap.
func ValidateInput(schema json.RawMessage, input json.RawMessage) (modproto.ValidationErrors, error) {
	h, err := Compile(schema)
	if err != nil {
		return nil, err
	}
	return h.Validate(input)
}

// Validate validates input (a JSON value; empty reads as {}) against the
// schema. The result has one finding per leaf error: Path is the instance
// location as a JSON pointer ("" for the root, "/items/0/name"), Detail
// the broken rule in English, with any value the schema marks secret
// masked (Redact); sorted by Path, nil when valid. The error is
// non-nil when input is not JSON (wrapping ErrInputNotJSON) or the
// validation hit a bound of limits.go (a *BoundError): then nothing was
// judged.
func (h *Compiled) Validate(input json.RawMessage) (modproto.ValidationErrors, error) {
	return h.ValidateContext(nil, input)
}

// ValidateContext is Validate stopped by ctx (nil for none): the error
// wraps ErrCancelled when ctx ends first.
func (h *Compiled) ValidateContext(ctx context.Context, input json.RawMessage) (modproto.ValidationErrors, error) {
	return h.validateWithin(ctx, fullBudget, input)
}

// ValidateForm is ValidateInput for the cockpit's form, as the person
// types: bounded by MaxFormValidateSteps and MaxFormMatchCost, so a
// keystroke never waits long (the error is then a *BoundError naming
// them; the run's check uses the full bounds).
func ValidateForm(schema json.RawMessage, input json.RawMessage) (modproto.ValidationErrors, error) {
	h, err := Compile(schema)
	if err != nil {
		return nil, err
	}
	return h.validateWithin(nil, formBudget, input)
}

// validateWithin is Validate under ctx and budget b.
func (h *Compiled) validateWithin(ctx context.Context, b budget, input json.RawMessage) (modproto.ValidationErrors, error) {
	ve, rng, err := h.validate(ctx, b, input)
	if err != nil || ve == nil && len(rng) == 0 {
		return nil, err
	}
	var out modproto.ValidationErrors
	if ve != nil {
		leaves(ve, &out)
	}
	// A number no reader can hold is a finding wherever it is (number.go).
	out = append(out, rng...)
	// A finding names the rule, never a secret value (Redact's rule).
	h.maskFindings(input, out)
	slices.SortStableFunc(out, func(a, b modproto.ValidationError) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// validate returns the validator's error tree for input, nil when valid,
// and the numbers in input no reader can hold (numberRange); the last
// input's outcome is reused.
func (h *Compiled) validate(ctx context.Context, b budget, input json.RawMessage) (*jsonschema.ValidationError, modproto.ValidationErrors, error) {
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage(`{}`)
	}
	h.mu.Lock()
	if h.last.input != nil && bytes.Equal(h.last.input, input) {
		err, rng := h.last.err, h.last.rng
		h.mu.Unlock()
		ve, err := outcome(err)
		return ve, rng, err
	}
	h.mu.Unlock()
	var err error
	var rng modproto.ValidationErrors
	inst, uerr := jsonschema.UnmarshalJSON(bytes.NewReader(input))
	if uerr != nil {
		err = fmt.Errorf("%w: %v", ErrInputNotJSON, uerr)
	} else if err = checkNumbers(inst, nil, "input at "); err == nil {
		if merr := h.meteredWithin(ctx, b, func() {
			if h.meter.unique {
				h.meter.chargeUnique(inst)
			}
			err = h.root.Validate(inst)
		}); merr != nil {
			err = merr
		}
		numberRange(inst, nil, &rng)
	}
	if errors.Is(err, ErrCancelled) || IsBound(err) {
		// Not the input's outcome: another context or budget may judge it.
		ve, err := outcome(err)
		return ve, nil, err
	}
	h.mu.Lock()
	h.last = validation{input: bytes.Clone(input), err: err, rng: rng}
	h.mu.Unlock()
	ve, err := outcome(err)
	return ve, rng, err
}

// outcome splits a validator's result into the error tree and any other
// error.
func outcome(err error) (*jsonschema.ValidationError, error) {
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		return ve, nil
	}
	return nil, err
}

// maxFindings and maxFindingPathBytes bound the findings one validation
// lists, and their pointers' bytes in all: a deep input with long keys
// failing at each level is a pointer as long as its path per level (a
// 900 KB input: 42 MB of pointers). The rest are counted in one finding.
const (
	maxFindings         = 1000
	maxFindingPathBytes = 1 << 20
)

// eachLeaf calls f on every error without causes under e, depth first.
func eachLeaf(e *jsonschema.ValidationError, f func(*jsonschema.ValidationError)) {
	if len(e.Causes) == 0 {
		f(e)
		return
	}
	for _, c := range e.Causes {
		eachLeaf(c, f)
	}
}

// leaves appends a finding for every error without causes under e, at
// most maxFindings and maxFindingPathBytes of pointers; past them, one
// finding at the root says how many more.
func leaves(e *jsonschema.ValidationError, out *modproto.ValidationErrors) {
	pathBytes, more := 0, 0
	eachLeaf(e, func(e *jsonschema.ValidationError) {
		if more > 0 || len(*out) >= maxFindings {
			more++
			return
		}
		n := 0
		for _, t := range e.InstanceLocation {
			n += len(t) + 1
		}
		if pathBytes += n; pathBytes > maxFindingPathBytes {
			more++
			return
		}
		*out = append(*out, modproto.ValidationError{
			Path:   Pointer(e.InstanceLocation),
			Detail: kindWords(e.ErrorKind),
		})
	})
	if more > 0 {
		*out = append(*out, modproto.ValidationError{
			Detail: fmt.Sprintf("and %d more problems, not listed (at most %d, or %d bytes of their locations)", more, maxFindings, maxFindingPathBytes),
		})
	}
}

// Pointer renders reference tokens (property names, item indexes) as an
// RFC 6901 JSON pointer: "" for none, "/a~1b/0" for ["a/b", "0"].
func Pointer(tokens []string) string { return jsonptr.Join(tokens) }

// Union is a oneOf or anyOf that refused a value, as OtherBranches shows
// it to the caller deciding which branches to keep.
type Union struct {
	// Instance is the JSON pointer of the value the union judged.
	Instance string
	// Keyword is "oneOf" or "anyOf".
	Keyword string
	// Branches are the locations of the failing branches that the
	// validator reports, each a JSON pointer into the document
	// ("/properties/shape/oneOf/1"), in its order.
	Branches []string
}

// OtherBranches validates value (JSON) and returns the findings that come
// from oneOf/anyOf branches the caller does not keep: for each union that
// refused a part of value, keep(u) returns which branch locations to keep
// (nil keeps them all), and every leaf finding under a branch not kept is
// returned, as Validate reports it (unsorted). Unions inside kept branches
// are judged the same way. Nil when value is valid or not JSON.
// santhosh-tekuri v6 reports the failures of each branch as causes of the
// union's error, with a schema location below ".../oneOf/<i>".
func (h *Compiled) OtherBranches(value json.RawMessage, keep func(u Union) func(loc string) bool) modproto.ValidationErrors {
	var out modproto.ValidationErrors
	for _, b := range h.BranchFindings(value, keep) {
		out = append(out, b.Finding)
	}
	return out
}

// BranchFinding is a finding OtherBranches returns, with the JSON pointer
// of the value whose union's branch produced it (Union.Instance).
type BranchFinding struct {
	// Instance is the pointer of the value the union judged.
	Instance string
	// Finding is the leaf finding, as Validate reports it.
	Finding modproto.ValidationError
}

// BranchFindings is OtherBranches with each finding's union named, so a
// caller can treat the findings of one union apart (the form words a
// union of required-property sets as one "set one of" problem). Nil when
// value is valid or not JSON.
func (h *Compiled) BranchFindings(value json.RawMessage, keep func(u Union) func(loc string) bool) []BranchFinding {
	if h == nil {
		return nil
	}
	ve, _, err := h.validate(nil, formBudget, value)
	if err != nil || ve == nil {
		return nil
	}
	var out []BranchFinding
	hideBranches(ve, keep, &out)
	return out
}

// hideBranches walks e, appending to out the leaves of branches not kept.
func hideBranches(e *jsonschema.ValidationError, keep func(Union) func(string) bool, out *[]BranchFinding) {
	kw := ""
	switch e.ErrorKind.(type) {
	case *kind.OneOf:
		kw = "oneOf"
	case *kind.AnyOf:
		kw = "anyOf"
	}
	if kw == "" || len(e.Causes) == 0 {
		for _, c := range e.Causes {
			hideBranches(c, keep, out)
		}
		return
	}
	base := fragment(e.SchemaURL) + "/" + kw + "/"
	u := Union{Instance: Pointer(e.InstanceLocation), Keyword: kw}
	for _, c := range e.Causes {
		if loc, ok := branchLoc(fragment(c.SchemaURL), base); ok {
			u.Branches = append(u.Branches, loc)
		}
	}
	kept := keep(u)
	for _, c := range e.Causes {
		loc, ok := branchLoc(fragment(c.SchemaURL), base)
		if ok && kept != nil && !kept(loc) {
			var found modproto.ValidationErrors
			leaves(c, &found)
			for _, f := range found {
				*out = append(*out, BranchFinding{Instance: u.Instance, Finding: f})
			}
			continue
		}
		hideBranches(c, keep, out)
	}
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

// fragment is the JSON pointer part of a schema URL ("" for the root).
func fragment(u string) string {
	_, frag, _ := strings.Cut(u, "#")
	return frag
}

// ValidateAt is ValidateForm for one value against the subschema at loc
// (a JSON pointer into the document, as Matches reads it): the check of
// the one field a person edited, its findings' paths relative to value.
// A subschema that does not compile is an error.
func (h *Compiled) ValidateAt(loc string, value json.RawMessage) (modproto.ValidationErrors, error) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInputNotJSON, err)
	}
	if err := checkNumbers(inst, nil, "input at "); err != nil {
		return nil, err
	}
	var verr error
	var sch *jsonschema.Schema
	if merr := h.meteredWithin(nil, formBudget, func() {
		sch = h.sub(loc)
		if sch == nil {
			verr = fmt.Errorf("the request schema at %q does not compile", loc)
			return
		}
		if h.meter.unique {
			h.meter.chargeUnique(inst)
		}
		verr = sch.Validate(inst)
	}); merr != nil {
		verr = merr
	}
	ve, err := outcome(verr)
	if err != nil || ve == nil {
		return nil, err
	}
	var out modproto.ValidationErrors
	leaves(ve, &out)
	h.maskFindingsOf(sch, value, out)
	slices.SortStableFunc(out, func(a, b modproto.ValidationError) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}
