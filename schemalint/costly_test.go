package schemalint

import (
	"encoding/json"
	"fmt"
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
