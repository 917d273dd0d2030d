package schemalint

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// costlyRequired is a schema under every size bound that made the lint
// and Unsatisfiable quadratic: props boolean properties, a required list
// of reqs names none of them, a property referring to the root and a
// $defs chain of links (each a round of the solver, visiting the root).
func costlyRequired(props, reqs, links int) json.RawMessage {
	p := map[string]any{"self": map[string]any{"$ref": "#"}, "chain": map[string]any{"$ref": "#/$defs/t0"}}
	for i := range props {
		p[fmt.Sprintf("p%05d", i)] = true
	}
	defs := map[string]any{}
	for i := range links {
		var next any = true
		if i+1 < links {
			next = map[string]any{"$ref": fmt.Sprintf("#/$defs/t%d", i+1)}
		}
		defs[fmt.Sprintf("t%d", i)] = map[string]any{"type": "object", "required": []string{"x"}, "properties": map[string]any{"x": next}}
	}
	req := make([]string, reqs)
	for i := range req {
		req[i] = fmt.Sprintf("q%05d", i)
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "$defs": defs, "properties": p, "required": req})
	return b
}

// BenchmarkUnsatisfiableCostlyRequired: a hostile author's 877 KB schema
// (7,800 properties, 85,000 required names, a 30-link chain) took 2 m 46 s
// in Unsatisfiable and 1 m 21 s in the lint.
func BenchmarkUnsatisfiableCostlyRequired(b *testing.B) {
	raw := costlyRequired(7800, 85000, 30)
	for b.Loop() {
		unsatisfiable("costly", raw)
	}
}

// TestCostlyRequiredLintsBounded: that schema's lint lists at most
// maxRequiredFindings of its required names, counting the rest.
func TestCostlyRequiredLintsBounded(t *testing.T) {
	fs := Lint("costly", costlyRequired(100, 5000, 3))
	n := 0
	for _, f := range fs {
		if f.Rule == RuleRequired {
			n++
		}
	}
	if n != maxRequiredFindings+1 || fs[len(fs)-1].Message == "" {
		t.Errorf("%d required findings, want %d", n, maxRequiredFindings+1)
	}
}

// allOfWeb is a 14 KB schema (n=100) of $defs each an allOf of two
// others and a property referring to a third: refused at compile by
// schema.MaxSchemaExpansion, whose lint then flattened every node
// (6.8 s at n=100, 22 s at 200, past 10 min at 1500).
func allOfWeb(n int) json.RawMessage {
	defs := map[string]any{}
	ref := func(i int) map[string]any { return map[string]any{"$ref": fmt.Sprintf("#/$defs/d%d", i%n)} }
	for i := range n {
		defs[fmt.Sprintf("d%d", i)] = map[string]any{"allOf": []any{ref(i + 1), ref(3*i + 1)},
			"required": []string{fmt.Sprintf("p%d", i)}, "properties": map[string]any{fmt.Sprintf("p%d", i): ref(i + 2)}}
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "$defs": defs, "$ref": "#/$defs/d0"})
	return b
}

// TestLintStopsAtACompileBound: a schema refused by a bound on its cost
// is linted no further: its one finding names the bound.
func TestLintStopsAtACompileBound(t *testing.T) {
	fs := Lint("web", allOfWeb(200))
	if len(fs) != 1 || fs[0].Rule != RuleCompile || !strings.Contains(fs[0].Message, "MaxSchemaExpansion") {
		t.Fatalf("findings: %v", fs)
	}
}

// BenchmarkLintAllOfWeb: that schema's lint (6.8 s before it stopped at
// the bound).
func BenchmarkLintAllOfWeb(b *testing.B) {
	raw := allOfWeb(100)
	for b.Loop() {
		Lint("web", raw)
	}
}

// TestLintFindingsBounded: 600 misspelt keywords (and whatever else the
// lint says) are 500 findings and one that counts the rest.
func TestLintFindingsBounded(t *testing.T) {
	p := map[string]any{}
	for i := range 600 {
		p[fmt.Sprintf("p%03d", i)] = map[string]any{"minimun": 1}
	}
	raw, _ := json.Marshal(map[string]any{"properties": p})
	fs := Lint("flood", raw)
	if len(fs) != maxFindings+1 || !strings.HasSuffix(fs[maxFindings].Message, "more findings, not listed (at most 500)") {
		t.Fatalf("%d findings, last %+v", len(fs), fs[len(fs)-1])
	}
}
