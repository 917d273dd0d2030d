package form_test

import (
	"strings"
	"testing"

	modschema "modbay/schema"
)

// A number no reader can hold is flagged at its field,
// with or without a validator, and still sent exactly as typed (so "send
// anyway" sends what the person wrote, never a rounded number).
func TestNumbersNoReaderHolds(t *testing.T) {
	f := build(t, `{"type":"object","properties":{"n":{"type":"number"},"i":{"type":"integer"},"ok":{"type":"integer"}}}`)
	set(f, node(t, f, "/n"), "1e999")
	set(f, node(t, f, "/i"), "12345678901234567890")
	set(f, node(t, f, "/ok"), "9007199254740992")
	for _, validate := range []struct {
		name string
		v    func() (string, map[string][]string, int)
	}{
		{"local", func() (string, map[string][]string, int) {
			v, p := f.Check(nil)
			return string(v), p.Fields, p.Count()
		}},
		{"schema", func() (string, map[string][]string, int) {
			v, p := f.Check(modschema.ValidateInput)
			return string(v), p.Fields, p.Count()
		}},
	} {
		v, fields, count := validate.v()
		if v != `{"n":1e999,"i":12345678901234567890,"ok":9007199254740992}` {
			t.Fatalf("%s: sent %s, not the numbers as typed", validate.name, v)
		}
		if count != 2 || !strings.Contains(strings.Join(fields["/n"], ";"), "1e999 is too large for any reader") ||
			!strings.Contains(strings.Join(fields["/i"], ";"), "12345678901234567890 loses digits") {
			t.Fatalf("%s: %d problems %v", validate.name, count, fields)
		}
	}
	// A number field takes an integer past 2^53 (a double is what it is).
	set(f, node(t, f, "/i"), "")
	set(f, node(t, f, "/n"), "12345678901234567890")
	if _, p := f.Check(modschema.ValidateInput); p.Count() != 0 {
		t.Fatalf("a large number in a number field: %+v", p)
	}
}

// A field whose schema declares wider integers (format int64) takes them
// without a problem, in the form as in the validator.
func TestDeclaredWideIntegersAreNotFlagged(t *testing.T) {
	f := build(t, `{"type":"object","properties":{"id":{"type":"integer","format":"int64"}}}`)
	set(f, node(t, f, "/id"), "9223372036854775807")
	if v, p := f.Check(modschema.ValidateInput); p.Count() != 0 || string(v) != `{"id":9223372036854775807}` {
		t.Fatalf("%s: %+v", v, p)
	}
	if _, p := f.Check(nil); p.Count() != 0 {
		t.Fatalf("local: %+v", p)
	}
}
