package form_test

import (
	"strings"
	"testing"

	"modbay/ui/form"
)

// Invalid JSON is said in plain words, with where.
func TestJSONErrorInPlainWords(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a": hello}`, `not valid JSON — strings need quotes: write "hello", not hello (line 1, column 7)`},
		{"{\n  \"a\": 1,\n  \"b\": some text\n}", `not valid JSON — strings need quotes: write "some", not some (line 3, column 8)`},
		{`{"a": nothing}`, `strings need quotes: write "nothing", not nothing (line 1, column 7)`},
		{`{a: 1}`, `strings need quotes: write "a", not a (line 1, column 2)`},
		{`{"a": tru}`, `tru is not a value: did you mean true?`},
		{`{"a": 'x'}`, `strings need double quotes ("…"), not single quotes (line 1, column 7)`},
		{`{"a": 1,}`, `a comma with nothing after it (remove the last comma) (line 1, column 9)`},
		{`[1, 2,]`, `a comma with nothing after it`},
		{`{"a": 1 "b": 2}`, `a comma is missing between two values (line 1, column 9)`},
		{`{"a": 1`, `it ends too early: a closing }, ] or " is missing (line 1, column 8)`},
		{`{"a": 1}}`, `there is more after the value ended`},
		{"{\"a\": \"x\ty\"}", `a string cannot hold a raw tab or line break`},
		{`{"é": ünquoted}`, `write "ünquoted", not ünquoted (line 1, column 7)`},
		{`   `, `there is nothing here`},
	} {
		err := form.JSONError([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), form.MsgBadJSON) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
	if err := form.JSONError([]byte(`{"a":"hello"}`)); err != nil {
		t.Fatal(err)
	}
}
