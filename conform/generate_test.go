package conform

import (
	"encoding/json"
	"strings"
	"testing"

	"modbay/schema"
)

// generateSchemas are request schemas of the shapes modules send: every
// case Generate makes for them must be what it claims.
var generateSchemas = map[string]string{
	"template": `{"type":"object","additionalProperties":false,"required":["title","tone"],
		"properties":{"title":{"type":"string","minLength":1,"maxLength":40},
		"tone":{"type":"string","enum":["plain","warm"]},
		"count":{"type":"integer","minimum":1,"maximum":5,"default":2},
		"ratio":{"type":"number","exclusiveMinimum":0,"maximum":1},
		"options":{"type":"object","properties":{"upper":{"type":"boolean"}}}}}`,
	"examples":    `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"examples":[{"q":"cats"},{"q":"dogs"}]}`,
	"formats":     `{"type":"object","required":["when","site"],"properties":{"when":{"type":"string","format":"date-time"},"site":{"type":"string","format":"uri"},"mail":{"type":"string","format":"email"}}}`,
	"pattern":     `{"type":"object","required":["code"],"properties":{"code":{"type":"string","pattern":"^[A-Z]{3}$"}}}`,
	"unmatchable": `{"type":"object","required":["key"],"properties":{"key":{"type":"string","pattern":"^sk-[0-9a-f]{40}$"}}}`,
	"refs": `{"$defs":{"item":{"type":"object","required":["id"],"properties":{"id":{"type":"integer","minimum":10}}}},
		"type":"object","required":["items"],"properties":{"items":{"type":"array","minItems":1,"maxItems":3,"items":{"$ref":"#/$defs/item"}}}}`,
	"allOf":      `{"allOf":[{"type":"object","required":["a"],"properties":{"a":{"type":"string"}}},{"required":["b"],"properties":{"b":{"type":"number","multipleOf":0.5,"minimum":0.2}}}]}`,
	"oneOf":      `{"oneOf":[{"type":"object","required":["url"],"properties":{"url":{"type":"string","format":"uri"}},"additionalProperties":false},{"type":"object","required":["path"],"properties":{"path":{"type":"string"}},"additionalProperties":false}]}`,
	"empty":      `{}`,
	"trueSchema": `true`,
	"nullable":   `{"type":"object","properties":{"n":{"type":["null","integer"],"maximum":-3}}}`,
	"draft7":     `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"number","exclusiveMaximum":10,"minimum":9.5}},"required":["n"]}`,
	"defaults":   `{"type":"object","properties":{"lang":{"type":"string","default":"en"},"n":{"type":"integer","default":3}}}`,
}

// TestGeneratedCasesAreWhatTheyClaim: every valid case validates against
// the compiled handle, every invalid one does not, a skipped one has no
// input and a reason.
func TestGeneratedCasesAreWhatTheyClaim(t *testing.T) {
	for name, src := range generateSchemas {
		t.Run(name, func(t *testing.T) {
			h, err := schema.Compile(json.RawMessage(src))
			if err != nil {
				t.Fatal(err)
			}
			cases := Generate(h)
			if len(cases) == 0 {
				t.Fatal("no cases")
			}
			for _, c := range cases {
				if c.Skip != "" {
					if c.Input != nil {
						t.Errorf("%s: skipped with an input", c.Name)
					}
					continue
				}
				viol, err := h.Validate(c.Input)
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				if c.Valid != (len(viol) == 0) || c.Valid == (c.Kind == KindInvalid) {
					t.Errorf("%s (%s) %s: valid %v, violations %v", c.Name, c.Kind, c.Input, c.Valid, viol)
				}
			}
		})
	}
}

// TestGenerateCoversTheSchema: the template schema gives its minimal
// input, the full one, the bounds and enum members, the defaults, and one
// invalid input.
func TestGenerateCoversTheSchema(t *testing.T) {
	h, err := schema.Compile(json.RawMessage(generateSchemas["template"]))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range Generate(h) {
		got[c.Name] = string(c.Input)
	}
	want := map[string]string{
		"minimal":                              `{"title":"a","tone":"plain"}`,
		"every optional field set":             `{"count":2,"options":{"upper":true},"ratio":1,"title":"aaa","tone":"plain"}`,
		"defaults filled in":                   `{"count":2,"title":"a","tone":"plain"}`,
		"boundary /count minimum 1":            `{"count":1,"title":"a","tone":"plain"}`,
		"boundary /count maximum 5":            `{"count":5,"title":"a","tone":"plain"}`,
		"boundary /ratio maximum 1":            `{"ratio":1,"title":"a","tone":"plain"}`,
		"boundary /title maxLength 40":         `{"title":"` + strings.Repeat("a", 40) + `","tone":"plain"}`,
		`boundary /tone enum member 2 "warm"`:  `{"title":"a","tone":"warm"}`,
		"invalid: /title is 12345":             `{"title":12345,"tone":"plain"}`,
		"boundary /ratio minimum 0.001":        `{"ratio":0.001,"title":"a","tone":"plain"}`,
		`boundary /tone enum member 1 "plain"`: ``, // the minimal input again: dropped
		"boundary /title minLength 1":          ``, // likewise
	}
	for name, input := range want {
		g, ok := got[name]
		if input == "" {
			if ok {
				t.Errorf("%s: a duplicate was kept: %s", name, g)
			}
			continue
		}
		if g != input {
			t.Errorf("%s: got %q, want %q", name, g, input)
		}
	}
}

// TestGenerateSkipsWhatItCannotMake: a pattern none of the candidates
// match is skipped and says which pattern; a pattern one matches is used.
func TestGenerateSkipsWhatItCannotMake(t *testing.T) {
	for name, want := range map[string]string{"unmatchable": `cannot generate a string for pattern "^sk-[0-9a-f]{40}$"`, "pattern": ""} {
		h, err := schema.Compile(json.RawMessage(generateSchemas[name]))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range Generate(h) {
			if c.Kind != KindMinimal {
				continue
			}
			if !strings.Contains(c.Skip, want) || (want == "") != (c.Skip == "") {
				t.Errorf("%s: skip %q, want %q", name, c.Skip, want)
			}
		}
	}
}
