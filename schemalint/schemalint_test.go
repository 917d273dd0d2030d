package schemalint

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modbay/internal/testcorpus"
)

func rules(fs []Finding) string {
	var out []string
	for _, f := range fs {
		out = append(out, string(f.Severity)+":"+f.Rule+"@"+f.Path)
	}
	return strings.Join(out, " ")
}

func TestLintFindings(t *testing.T) {
	cases := []struct {
		name, schema string
		want         []string // substrings of rules(...)
		none         []string
	}{
		{"clean", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`, nil, []string{"error", "warning"}},
		{"not compiling", `{"type":"object","properties":{"a":{"type":"strung"}}}`, []string{"error:compile@"}, nil},
		{"draft-07 undeclared", `{"type":"object","properties":{"p":{"type":"array","items":[{"type":"string"}]}}}`, []string{"warning:draft@"}, []string{"error:compile"}},
		{"broken ref", `{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`, []string{"error:ref@/properties/a"}, nil},
		{"remote ref", `{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`, []string{"error:ref@/properties/a"}, nil},
		{"required not in properties", `{"type":"object","properties":{"a":{}},"required":["b"]}`, []string{"warning:required@"}, nil},
		{"required impossible", `{"type":"object","properties":{"a":{}},"required":["b"],"additionalProperties":false}`, []string{"error:required@"}, nil},
		{"top-level union", `{"oneOf":[{"type":"object"},{"type":"object"}]}`, []string{"warning:provider@"}, nil},
		{"strict keywords", `{"type":"object","properties":{"a":{"type":"string","format":"uri"},"b":{"allOf":[{}]}}}`, []string{"warning:provider@/properties/a/format", "warning:provider@/properties/b"}, nil},
	}
	for _, c := range cases {
		got := rules(Lint(c.name, json.RawMessage(c.schema)))
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: findings %q lack %q", c.name, got, w)
			}
		}
		for _, n := range c.none {
			if strings.Contains(got, n) {
				t.Errorf("%s: findings %q have %q", c.name, got, n)
			}
		}
	}
}

// TestCorpusHasNoErrors: every real request schema compiles and resolves.
func TestCorpusHasNoErrors(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testcorpus.Dir(t, "schemas"), "*.json"))
	if len(files) == 0 {
		t.Fatal("no schemas in the corpus")
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range Lint(filepath.Base(p), b) {
			if f.Severity == Error {
				t.Errorf("%s", f)
			}
		}
	}
}

// TestStrictRules: one case per strict-validate rule, each
// at its JSON pointer.
func TestStrictRules(t *testing.T) {
	cases := []struct {
		name, schema string
		want         string // rules(...) must contain it
		msg          string // and some message must contain this
	}{
		{"keyword typo", `{"type":"object","properties":{"n":{"type":"integer","minimun":1}}}`,
			"warning:keyword@/properties/n/minimun", `did you mean "minimum"?`},
		{"then requires forbidden", `{"type":"object","properties":{"a":{}},"additionalProperties":false,"if":{"required":["a"]},"then":{"required":["b"]}}`,
			"error:required@/then/required", `requires "b" when "if" matches`},
		{"allOf requires forbidden", `{"type":"object","properties":{"a":{}},"additionalProperties":false,"allOf":[{"allOf":[{"required":["c"]}]}]}`,
			"error:required@/allOf/0/allOf/0/required", `requires "c" through allOf`},
		{"dependentRequired forbidden", `{"type":"object","properties":{"a":{}},"additionalProperties":false,"dependentRequired":{"a":["z"]}}`,
			"error:required@/dependentRequired/a", `whenever "a" is given`},
		{"ref cycle", `{"type":"object","properties":{"node":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"next":{"$ref":"#/$defs/node"}},"required":["next"]}}}`,
			"error:cycle@/$defs/node/properties/next", "no finite input"},
	}
	for _, c := range cases {
		fs := Lint(c.name, json.RawMessage(c.schema))
		if got := rules(fs); !strings.Contains(got, c.want) {
			t.Errorf("%s: findings %q lack %q", c.name, got, c.want)
		}
		found := false
		for _, f := range fs {
			found = found || strings.Contains(f.Message, c.msg)
		}
		if !found {
			t.Errorf("%s: no message contains %q: %v", c.name, c.msg, fs)
		}
	}
	// A recursive schema whose recursion is optional is fine, and x- keys
	// and data under unknown keys are not keywords to check.
	ok := `{"type":"object","x-ui":{"widgt":1},"properties":{"tree":{"$ref":"#/$defs/t"}},"$defs":{"t":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/t"}}}}},"dependentRequired":{"tree":["tree"]}}`
	for _, f := range Lint("ok", json.RawMessage(ok)) {
		if f.Rule == RuleCycle || f.Rule == RuleKeyword || f.Severity == Error {
			t.Errorf("clean recursive schema: %s", f)
		}
	}
}
