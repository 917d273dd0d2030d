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
