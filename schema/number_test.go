package schema_test

import (
	"strings"
	"testing"

	"modbay/schema"
)

// A number no reader can hold is named, as typed.
func TestNumberProblem(t *testing.T) {
	for _, c := range []struct {
		s       string
		integer bool
		want    string // a part of the problem; "" for none
	}{
		{"1e999", false, "1e999 is too large for any reader: it arrives as infinity"},
		{"-1e999", false, "-1e999 is too large"},
		{"1e-400", false, "1e-400 is too small for any reader: it arrives as 0"},
		{"0e-400", false, ""},
		{"0.000", false, ""},
		{"1.7976931348623157e308", false, ""},
		{"5e-324", false, ""},
		{"12345678901234567890", false, ""},
		{"12345678901234567890", true, "12345678901234567890 loses digits in most readers"},
		{"9007199254740992", true, ""},
		{"-9007199254740992", true, ""},
		{"9007199254740993", true, "9007199254740993 loses digits"},
		{"-9007199254740993", true, "loses digits"},
		{"1e300", true, "1e300 loses digits"},
		{"1e999", true, "too large"},
		{"3", true, ""},
		{"abc", false, ""},
	} {
		got := schema.NumberProblem(c.s, c.integer)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("NumberProblem(%s, %v) = %q, want %q", c.s, c.integer, got, c.want)
		}
	}
}

// The validator reports such numbers wherever they are, an integer past
// 2^53 only where the schema says integer, and not from a union branch
// the value did not take.
func TestValidateFlagsNumbersNoReaderHolds(t *testing.T) {
	const doc = `{"type":"object","properties":{
		"n":{"type":"number"},"i":{"type":"integer"},"ni":{"type":["integer","null"]},
		"u":{"anyOf":[{"type":"integer"},{"type":"number"}]}}}`
	errs, err := schema.ValidateInput([]byte(doc), []byte(
		`{"n":12345678901234567890,"i":12345678901234567890,"ni":9007199254740993,"u":12345678901234567890,"free":{"x":[1e999,-1e999,1e-400]}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range errs {
		got[e.Path] += e.Detail + ";"
	}
	want := map[string]string{
		"/i":        "12345678901234567890 loses digits",
		"/ni":       "9007199254740993 loses digits",
		"/free/x/0": "1e999 is too large",
		"/free/x/1": "-1e999 is too large",
		"/free/x/2": "1e-400 is too small",
	}
	if len(got) != len(want) {
		t.Fatalf("findings %v, want at %v", got, want)
	}
	for p, w := range want {
		if !strings.Contains(got[p], w) {
			t.Errorf("at %s: %q, want %q", p, got[p], w)
		}
	}
	for _, draft := range []string{"http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-04/schema#", "https://json-schema.org/draft/2019-09/schema"} {
		errs, err := schema.ValidateInput([]byte(`{"$schema":"`+draft+`","properties":{"i":{"type":"integer"}}}`), []byte(`{"i":18446744073709551616}`))
		if err != nil || len(errs) != 1 || !strings.Contains(errs[0].Detail, "loses digits") {
			t.Errorf("%s: %v %v", draft, errs, err)
		}
	}
}

// An integer schema that declares wider integers (format int64, a bound
// past 2^53) is not held to a double's exact range; 1e999 still is.
func TestWideIntegersAreDeclared(t *testing.T) {
	for _, doc := range []string{
		`{"properties":{"i":{"type":"integer","format":"int64"}}}`,
		`{"properties":{"i":{"type":"integer","maximum":9223372036854775807}}}`,
		`{"properties":{"i":{"type":"integer","minimum":-9223372036854775808}}}`,
	} {
		errs, err := schema.ValidateInput([]byte(doc), []byte(`{"i":9223372036854775807,"j":1e999}`))
		if err != nil || len(errs) != 1 || errs[0].Path != "/j" {
			t.Errorf("%s: %v %v", doc, errs, err)
		}
	}
	errs, _ := schema.ValidateInput([]byte(`{"properties":{"i":{"type":"integer","maximum":9007199254740991}}}`), []byte(`{"i":9007199254740993}`))
	if len(errs) != 2 { // past the maximum, and past 2^53
		t.Errorf("maximum 2^53-1: %v", errs)
	}
	if !schema.WideIntegers("uint64") || schema.WideIntegers("int32", "0", "100") || schema.WideIntegers("") {
		t.Error("WideIntegers")
	}
}
