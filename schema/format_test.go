package schema

import (
	"encoding/json"
	"strings"
	"testing"

	"modbay/modproto"
)

// Formats modbay knows are asserted by the one validator
// (the runner's, so invoke exits 5) under every draft, in plain words;
// formats it does not check are annotations under every draft.
func TestFormatsAssertedUnderEveryDraft(t *testing.T) {
	for _, draft := range []string{"", `"$schema":"` + Draft7 + `",`, `"$schema":"` + Draft2019 + `",`} {
		sch := `{` + draft + `"type":"object","properties":{"e":{"type":"string","format":"email"},"d":{"type":"string","format":"date"},"x":{"type":"string","format":"uri-reference"}}}`
		got, err := ValidateInput(json.RawMessage(sch), json.RawMessage(`{"e":"not-an-email","d":"2024-02-30","x":"::"}`))
		if err != nil {
			t.Fatal(err)
		}
		want := modproto.ValidationErrors{
			{Path: "/d", Detail: "not a valid date (YYYY-MM-DD)"},
			{Path: "/e", Detail: "not a valid email (name@example.com)"},
		}
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("%s: %+v, want %+v", draft, got, want)
		}
	}
}

// The keyword's meaning in plain words, numbers as
// written.
func TestMessagesInPlainWords(t *testing.T) {
	sch := json.RawMessage(`{"type":"object","properties":{
		"t":{"type":"string","maxLength":128},"l":{"type":"array","minItems":1},
		"p":{"type":"string","pattern":"^[a-z]+(-[a-z]+)*$"},"n":{"type":"number","maximum":10},
		"s":{"type":"string"}}}`)
	long := `"` + strings.Repeat("a", 130) + `"`
	got, err := ValidateInput(sch, json.RawMessage(`{"t":`+long+`,"l":[],"p":"A","n":12345678901234567890.5,"s":5}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"/t": "at most 128 characters (130 typed)",
		"/l": "at least 1 item (0 given)",
		"/p": "must match the pattern ^[a-z]+(-[a-z]+)*$",
		"/n": "must be at most 10 (12345678901234567890.5 given)",
		"/s": "must be a string, not a number",
	}
	if len(got) != len(want) {
		t.Fatalf("%+v", got)
	}
	for _, e := range got {
		if want[e.Path] != e.Detail {
			t.Errorf("%s: %q, want %q", e.Path, e.Detail, want[e.Path])
		}
	}
}

// TestLongPatternQuotedCut: a finding quotes a long pattern cut, saying
// how long it is; no finding's words pass maxFindingRunes by much.
func TestLongPatternQuotedCut(t *testing.T) {
	pat := "^[" + strings.Repeat("ab", 100000) + "]$" // one class: a short program
	sch, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{"p": map[string]any{"type": "string", "pattern": pat}}})
	v, err := ValidateInput(sch, json.RawMessage(`{"p":"c"}`))
	if err != nil || len(v) != 1 {
		t.Fatalf("ValidateInput = %v, %v", v, err)
	}
	if d := v[0].Detail; len(d) > 400 || !strings.Contains(d, "… (200004 characters in all)") {
		t.Errorf("the finding is %d bytes: %.300s", len(d), d)
	}
}
