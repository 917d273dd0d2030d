package modproto

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestCheckDescriptorKeys: a typo is reported at its path with the key
// meant; in effects and permissions it is an error, elsewhere a warning;
// requirements keep "required" and "for" silently.
func TestCheckDescriptorKeys(t *testing.T) {
	raw := `{"module":"m","name":"M","version":"1","protocol_versions":["xibodev.module/v1"],
	"capabilites":[],
	"capabilities":[{"id":"a","summary":"s","request_shema":"x","artefact_schemas":[],
		"effects":{"local":true,"netwrok":true}}],
	"permissions":{"subproces":["jq"]},
	"requirements":[{"kind":"binary","name":"jq","required":true,"for":"digests","detial":"x"}],
	"skills":[{"id":"s","path":"a.md","digest":"x","tokens":"many"}]}`
	errs, warns := CheckDescriptorKeys([]byte(raw))
	wantErr := []string{
		`capabilities[0].effects.netwrok: unknown key; did you mean "network"?`,
		`permissions.subproces: unknown key; did you mean "subprocess"?`,
		`skills[0].tokens: must be an integer, got a string "many"`,
	}
	wantWarn := []string{
		`capabilites: unknown key; did you mean "capabilities"?`,
		`capabilities[0].request_shema: unknown key; did you mean "request_schema"?`,
		`capabilities[0].artefact_schemas: unknown key; did you mean "artifact_schemas"?`,
		`requirements[0].detial: unknown key; did you mean "detail"?`,
	}
	for _, w := range wantErr {
		if !strings.Contains(errs.Error(), w) {
			t.Errorf("errors lack %q:\n%s", w, errs)
		}
	}
	for _, w := range wantWarn {
		if !strings.Contains(warns.Error(), w) {
			t.Errorf("warnings lack %q:\n%s", w, warns)
		}
	}
	if s := errs.Error() + warns.Error(); strings.Contains(s, "required") || strings.Contains(s, ".for") {
		t.Errorf("requirements' required/for reported:\n%s", s)
	}
	if len(errs) != len(wantErr) || len(warns) != len(wantWarn) {
		t.Errorf("got %d errors, %d warnings:\n%s\n%s", len(errs), len(warns), errs, warns)
	}
}

// TestCheckEnvelopeKeys: an unknown envelope key is a warning; a wrong
// type names the field, the JSON type expected and what was sent, never
// a Go type.
func TestCheckEnvelopeKeys(t *testing.T) {
	errs, warns := CheckEnvelopeKeys([]byte(`{"protocol":"xibodev.module/v1","ok":false,"eror":1,"error":"cannot open db","warnings":[],"execution":{}}`))
	if len(warns) != 1 || !strings.Contains(warns[0].Error(), `eror: unknown key; did you mean "error"?`) {
		t.Errorf("warnings: %v", warns)
	}
	if len(errs) != 1 || errs[0].Error() != `error: must be an object, got a string "cannot open db"` {
		t.Errorf("errors: %v", errs)
	}
	d := WrongTypeDetail([]byte(`{"ok":"yes","execution":{"artifacts":[{"bytes":1.5}]}}`))
	for _, w := range []string{`execution.artifacts[0].bytes: must be an integer, got a number that is not an integer 1.5`, "(and 1 more)"} {
		if !strings.Contains(d, w) {
			t.Errorf("detail %q lacks %q", d, w)
		}
	}
	if strings.Contains(d, "Go ") || strings.Contains(d, "modproto.") || strings.Contains(d, "int64") {
		t.Errorf("detail names a Go type: %q", d)
	}
}

func TestClosest(t *testing.T) {
	cases := map[string]string{"netwrok": "network", "capabilites": "capabilities", "zzz": "", "locl": "local"}
	for in, want := range cases {
		if got := Closest(in, []string{"local", "network", "capabilities"}); got != want {
			t.Errorf("Closest(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCheckDescriptorShape(t *testing.T) {
	d := &Descriptor{RequestSchemas: map[string]json.RawMessage{"unused/v1": json.RawMessage(`{}`)}}
	w := CheckDescriptorShape(d).Error()
	for _, s := range []string{"capabilities: declares no capability", `request_schemas["unused/v1"]: no capability's request_schema references it`} {
		if !strings.Contains(w, s) {
			t.Errorf("%q lacks %q", w, s)
		}
	}
}

// TestHiddenIsAKnownKey: "hidden" (docs/protocol.md §17) is no unknown key;
// a misspelling of it is named.
func TestHiddenIsAKnownKey(t *testing.T) {
	_, warns := CheckDescriptorKeys([]byte(`{"capabilities":[{"id":"a","hidden":true},{"id":"b","hiden":true}]}`))
	got := warns.Error()
	if strings.Contains(got, "capabilities[0]") || !strings.Contains(got, `capabilities[1].hiden: unknown key; did you mean "hidden"?`) {
		t.Fatalf("warnings %q", got)
	}
}

// TestKeyFindingsBounded: a descriptor of 5,000 unknown keys lists the
// first MaxKeyFindings and counts the rest in one more finding.
func TestKeyFindingsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"module":"m"`)
	for i := range 5000 {
		fmt.Fprintf(&b, `,"zz%d":1`, i)
	}
	b.WriteString(`}`)
	_, warns := CheckDescriptorKeys(json.RawMessage(b.String()))
	if len(warns) != MaxKeyFindings+1 || !strings.Contains(warns[MaxKeyFindings].Detail, "4000 more unknown keys") {
		t.Fatalf("%d warnings, last %+v", len(warns), warns[len(warns)-1])
	}
}
