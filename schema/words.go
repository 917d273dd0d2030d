package schema

import (
	"fmt"
	"math/big"
	"modbay/internal/words"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// kindWords says a validation error in plain words, with the keyword's meaning
// rather than its name: "at most 128 characters (130
// typed)", "at least 1 item", "must match the pattern ^[a-z]+$" (the whole
// pattern), numbers as written ("1e999", never 1×10⁹⁹⁹). "missing
// property 'x'" keeps the validator's words (the form reads the names out
// of it). Kinds not listed keep the validator's English.
func kindWords(k jsonschema.ErrorKind) string {
	return cutFinding(findingWords(k), maxFindingRunes)
}

// maxFindingRunes bounds one finding's words, and maxPatternQuoted the
// pattern a finding quotes (a schema's pattern may be 200 KB).
const (
	maxFindingRunes  = 600
	maxPatternQuoted = 300
)

// cutFinding is s cut to n runes, marked with how long it was.
func cutFinding(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + fmt.Sprintf("… (%d characters in all)", utf8.RuneCountInString(s))
}

func findingWords(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Format:
		if w, ok := formatWords(k.Err); ok {
			return w
		}
	case *kind.MaxLength:
		return fmt.Sprintf("at most %s (%d typed)", words.Count(k.Want, "character", "characters"), k.Got)
	case *kind.MinLength:
		if k.Want == 1 && k.Got == 0 {
			return "must not be empty"
		}
		return fmt.Sprintf("at least %s (%d typed)", words.Count(k.Want, "character", "characters"), k.Got)
	case *kind.MinItems:
		return fmt.Sprintf("at least %s (%d given)", words.Count(k.Want, "item", "items"), k.Got)
	case *kind.MaxItems:
		return fmt.Sprintf("at most %s (%d given)", words.Count(k.Want, "item", "items"), k.Got)
	case *kind.MinProperties:
		return fmt.Sprintf("at least %s (%d given)", words.Count(k.Want, "entry", "entries"), k.Got)
	case *kind.Pattern:
		return "must match the pattern " + cutFinding(k.Want, maxPatternQuoted)
	case *kind.Minimum:
		return "must be at least " + ratText(k.Want) + " (" + ratText(k.Got) + " given)"
	case *kind.Maximum:
		return "must be at most " + ratText(k.Want) + " (" + ratText(k.Got) + " given)"
	case *kind.ExclusiveMinimum:
		return "must be more than " + ratText(k.Want) + " (" + ratText(k.Got) + " given)"
	case *kind.ExclusiveMaximum:
		return "must be less than " + ratText(k.Want) + " (" + ratText(k.Got) + " given)"
	case *kind.Type:
		return "must be " + orList(k.Want) + ", not " + article(k.Got)
	case *kind.OneOf:
		if len(k.Subschemas) >= 2 {
			return fmt.Sprintf("fits alternatives %d and %d at once: it must fit exactly one", k.Subschemas[0]+1, k.Subschemas[1]+1)
		}
		return "fits none of the alternatives"
	case *kind.AnyOf:
		return "fits none of the alternatives"
	case *kind.AdditionalProperties:
		return "not a known property: " + quoteAll(k.Properties)
	}
	return k.LocalizedString(errorPrinter())
}

// ratText prints an exact number as a decimal, never in float notation:
// an integer with all its digits, a fraction with as many as it needs (up
// to 40, then rounded, marked ≈).
func ratText(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	for d := 1; d <= 40; d++ {
		s := r.FloatString(d)
		if back, ok := new(big.Rat).SetString(s); ok && back.Cmp(r) == 0 {
			return s
		}
	}
	return "≈" + r.FloatString(40)
}

// orList is "a string", "a string or a number", "a string, a number or null".
func orList(types []string) string {
	out := make([]string, len(types))
	for i, t := range types {
		out[i] = article(t)
	}
	if len(out) <= 1 {
		return strings.Join(out, "")
	}
	return strings.Join(out[:len(out)-1], ", ") + " or " + out[len(out)-1]
}

// article puts "a"/"an" before a JSON type name ("null" stays bare).
func article(t string) string {
	switch t {
	case "null":
		return "null"
	case "object", "array", "integer":
		return "an " + t
	}
	return "a " + t
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	return strings.Join(q, ", ")
}
