package gateway

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/modproto"
	"modbay/runner"
)

// TestQuestionCarriesTheDescriptorFacts: the question sent to a cockpit
// carries the planned capability's facts (title, effects, provider, cost,
// module name), sanitized and bounded, so a cockpit that has not
// discovered the module shows them true.
func TestQuestionCarriesTheDescriptorFacts(t *testing.T) {
	c := modproto.Capability{ID: "farm.render", Title: "Render\x1b[31m frames", LongRunning: true,
		Effects: modproto.Effects{Local: true, Provider: "local" + strings.Repeat("x", 2*maxFact), CostKnown: true}}
	mod := &runner.Module{ID: "farm", Descriptor: &modproto.Descriptor{Module: "farm", Name: "Render\nFarm", Capabilities: []modproto.Capability{c}}}
	plan := &runner.Plan{Module: mod, Capability: c, Approval: []string{"declares a provider"},
		Request: modproto.Request{RequestID: modproto.NewRequestID(), Input: json.RawMessage(`{"frames":40}`)}}
	q := question(&session{client: "agent"}, &entry{tool: &mcp.Tool{Name: "farm_render"}, module: mod, cap: c}, plan)
	if q.Effects == nil || !q.Effects.Local || !q.Effects.CostKnown || !strings.HasPrefix(q.Effects.Provider, "local") || len(q.Effects.Provider) > maxFact {
		t.Errorf("effects %+v", q.Effects)
	}
	if !q.LongRunning || strings.ContainsAny(q.Title, "\x1b") || !strings.Contains(q.Title, "frames") || strings.Contains(q.ModuleName, "\n") || !strings.Contains(q.ModuleName, "Farm") {
		t.Errorf("title %q module name %q long running %v", q.Title, q.ModuleName, q.LongRunning)
	}
}
