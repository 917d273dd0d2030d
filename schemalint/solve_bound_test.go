package schemalint

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"modbay/schema"
)

// chainToFalse is a schema whose root requires a $ref chain of n links
// ending in false: the greatest solution learns it one link a round.
func chainToFalse(n int) json.RawMessage {
	var defs []string
	for i := range n {
		next := fmt.Sprintf(`{"$ref":"#/$defs/n%d"}`, i+1)
		if i == n-1 {
			next = "false"
		}
		// In chain order, so each round settles one more link.
		defs = append(defs, fmt.Sprintf(`"n%d":{"type":"object","required":["x"],"properties":{"x":%s}}`, i, next))
	}
	return json.RawMessage(`{"type":"object","required":["a"],"properties":{"a":{"$ref":"#/$defs/n0"}},"$defs":{` + strings.Join(defs, ",") + `}}`)
}

// TestSolveIsBounded: a short chain is solved; one whose solving passes
// schema.MaxSolveVisits stops unsolved, and the lint then reports no
// cycle rather than a wrong one.
func TestSolveIsBounded(t *testing.T) {
	for _, c := range []struct {
		links  int
		solved bool
	}{{4, true}, {2000, false}} {
		doc, err := schema.Parse(chainToFalse(c.links))
		if err != nil {
			t.Fatal(err)
		}
		_, ok := solveRefs(doc, refTargets(doc, nil), true)
		if ok != c.solved {
			t.Errorf("%d links: solved %v, want %v", c.links, ok, c.solved)
		}
		for _, f := range Lint("chain", chainToFalse(c.links)) {
			if f.Rule == RuleCycle {
				t.Errorf("%d links: %s", c.links, f)
			}
		}
	}
}
