package schema

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/message"

	"modbay/modproto"
)

// Numbers no reader can hold. JSON puts no bound on a
// number, but the module reading the input does: nearly every JSON reader
// (JavaScript, Python's float, Go's float64) holds a number as an IEEE 754
// double, so "1e999" arrives as Infinity, "1e-400" as 0, and an integer
// past 2^53 loses its last digits. modbay flags such a number wherever it
// appears, in every draft, the way it flags a malformed format: the form,
// JSON mode, the runner and invoke all refuse it, and "send anyway" is the
// one way past.

// maxExactInt is 2^53, the largest integer magnitude from which every
// smaller integer is exactly a double (IEEE 754 binary64's 53-bit
// significand).
var maxExactInt = new(big.Rat).SetInt64(1 << 53)

// MaxExactInteger is maxExactInt's digits, for messages.
const MaxExactInteger = "9007199254740992"

// NumberProblem returns why a reader cannot hold the JSON number text s as
// written, in plain words with s as typed ("1e999 is too large for any
// reader: it arrives as infinity"); integer asks the integer check too
// (|n| > 2^53 loses digits). "" when s is fine or is not a JSON number.
func NumberProblem(s string, integer bool) string {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		return "" // not a number at all: the type check says so
	}
	switch {
	case math.IsInf(f, 0):
		return s + " is too large for any reader: it arrives as infinity (the largest is about 1.8e308)"
	case f == 0 && nonZero(s):
		return s + " is too small for any reader: it arrives as 0 (the smallest is about 5e-324)"
	case integer && math.Abs(f) >= 1<<53:
		// Only here is the exact value needed (and small enough to hold:
		// a double's range bounds it).
		r, ok := new(big.Rat).SetString(s)
		if ok && r.IsInt() && r.Abs(r).Cmp(maxExactInt) > 0 {
			return s + " loses digits in most readers: integers are exact only up to " + MaxExactInteger + " (2^53)"
		}
	}
	return ""
}

// nonZero reports whether a JSON number's digits (before any exponent)
// are not all zero.
func nonZero(s string) bool {
	for _, c := range s {
		switch {
		case c == 'e' || c == 'E':
			return false
		case c >= '1' && c <= '9':
			return true
		}
	}
	return false
}

// WideIntegers reports whether an integer schema says its reader holds
// integers past 2^53: its format is int64 or uint64, or a bound (minimum,
// maximum, exclusive ones; numbers as written, "" for none) lies past
// ±2^53. Such a schema is not held to the double's exact range: its
// author declared the range the module reads (a Go or Rust int64 holds
// 2^63-1 exactly).
func WideIntegers(format string, bounds ...string) bool {
	if format == "int64" || format == "uint64" {
		return true
	}
	for _, b := range bounds {
		if r, ok := new(big.Rat).SetString(b); ok && b != "" && r.Abs(r).Cmp(maxExactInt) > 0 {
			return true
		}
	}
	return false
}

// numberRange walks a decoded instance (jsonschema.UnmarshalJSON: numbers
// are json.Number) and returns a finding for every number outside a
// double's range, at its pointer. Integers past 2^53 are judged where the
// schema says "integer" (integerVocab), since a "number" field reads as a
// double anyway.
func numberRange(v any, tokens []string, out *modproto.ValidationErrors) {
	switch v := v.(type) {
	case json.Number:
		if p := NumberProblem(string(v), false); p != "" {
			*out = append(*out, modproto.ValidationError{Path: Pointer(tokens), Detail: p})
		}
	case map[string]any:
		for k, c := range v {
			numberRange(c, append(tokens[:len(tokens):len(tokens)], k), out)
		}
	case []any:
		for i, c := range v {
			numberRange(c, append(tokens[:len(tokens):len(tokens)], strconv.Itoa(i)), out)
		}
	}
}

// integerVocabURL names integerVocab; it is never fetched.
const integerVocabURL = "modbay:///vocab/exact-integer"

// integerVocab checks, at every schema whose "type" allows "integer" but
// not "number" and that does not declare wider integers (WideIntegers),
// that an integer instance is exactly a double (|n| ≤ 2^53).
// It runs inside the validator, so a finding from a union branch not
// chosen stays with that branch like any other.
var integerVocab = &jsonschema.Vocabulary{
	URL: integerVocabURL,
	Compile: func(_ *jsonschema.CompilerContext, obj map[string]any) (jsonschema.SchemaExt, error) {
		integer, number := false, false
		switch t := obj["type"].(type) {
		case string:
			integer = t == "integer"
		case []any:
			for _, x := range t {
				integer = integer || x == "integer"
				number = number || x == "number"
			}
		}
		if !integer || number {
			return nil, nil
		}
		format, _ := obj["format"].(string)
		var bounds []string
		for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
			if n, ok := obj[k].(json.Number); ok {
				bounds = append(bounds, string(n))
			}
		}
		if WideIntegers(format, bounds...) {
			return nil, nil
		}
		return exactInteger{}, nil
	},
}

// exactInteger is integerVocab's compiled check.
type exactInteger struct{}

// Validate adds an InexactInteger error for an integer past 2^53.
func (exactInteger) Validate(ctx *jsonschema.ValidatorContext, v any) {
	n, ok := v.(json.Number)
	if !ok {
		return
	}
	s := string(n)
	if NumberProblem(s, false) != "" {
		return // out of a double's range: numberRange says so once
	}
	if p := NumberProblem(s, true); p != "" {
		ctx.AddError(&InexactInteger{Text: s, Words: p})
	}
}

// InexactInteger is the validator's error kind for an integer no double
// holds exactly (integerVocab).
type InexactInteger struct {
	// Text is the number as written; Words the finding in plain words.
	Text, Words string
}

// KeywordPath names the keyword the finding belongs to: "type", since it
// is the integer type a reader cannot honour.
func (*InexactInteger) KeywordPath() []string { return []string{"type"} }

// LocalizedString returns the finding's plain words.
func (k *InexactInteger) LocalizedString(*message.Printer) string { return k.Words }

// useNumbers makes c check integers against a double's exact range
// (integerVocab), in every draft.
func useNumbers(c *jsonschema.Compiler) {
	c.AssertVocabs()
	c.RegisterVocabulary(integerVocab)
}
