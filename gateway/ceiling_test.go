package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/config"
	"modbay/modproto"
	"modbay/runner"
	"modbay/runner/runnertest"
)

func TestSpendingCeilingAsksAPerson(t *testing.T) {
	cfg, err := config.Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg.MCPServe.MaxCostPerSession = 1.5
	host := runner.NewHost(cfg)
	d := &modproto.Descriptor{Module: "gen", Name: "Gen", Version: "1.0.0", ProtocolVersions: []string{modproto.ProtocolID},
		Capabilities: []modproto.Capability{
			{ID: "gen.image", Summary: "Draws.", Effects: modproto.Effects{Local: true, Provider: "acme", CostKnown: true}},
			{ID: "gen.local", Summary: "Free.", Effects: modproto.Effects{Local: true, CostKnown: true}},
			{ID: "gen.other", Summary: "Draws otherwise.", Effects: modproto.Effects{Local: true, Provider: "acme", CostKnown: true}},
		},
		RequestSchemas: map[string]json.RawMessage{}, ResultSchemas: map[string]json.RawMessage{}, ArtifactSchemas: map[string]json.RawMessage{}}
	drv := runnertest.New(d, func(_ context.Context, call *runner.Call) *runner.Reply {
		env := runnertest.OK(call.Request, "gen", map[string]any{"ok": true})
		return &runner.Reply{Envelope: bytes.Replace(env, []byte(`"actual_cost":null`), []byte(`"actual_cost":0.6`), 1)}
	})
	host.AddSource(runnertest.Source{Drivers: []*runnertest.Driver{drv}})
	cs := connect(t, New(Options{Host: host}))
	call := func(name string) *mcp.CallToolResult {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// Each call costs 0.6: 0.6, then 1.2 (the last cost, 0.6, keeps it
	// within 1.5); a third gen.image would cross it (1.8), so it asks.
	for i := range 2 {
		if res := call("gen_image"); res.IsError {
			t.Fatalf("call %d below the ceiling: %s", i, textOf(res))
		}
	}
	res := call("gen_image")
	if !res.IsError || !strings.Contains(textOf(res), "would cross this agent session's spending ceiling (mcp_serve.max_cost_per_session: 1.5): 1.2 spent, and its last call in this session cost 0.6") ||
		!strings.Contains(textOf(res), "Approval required") {
		t.Errorf("a call that would cross the ceiling: %s", textOf(res))
	}
	// gen.other has no last cost: it runs (1.8), and then the ceiling is
	// reached for every call that may cost.
	if res := call("gen_other"); res.IsError {
		t.Fatalf("gen.other with no known cost below the ceiling: %s", textOf(res))
	}
	if res := call("gen_other"); !res.IsError || !strings.Contains(textOf(res), "reached its spending ceiling (mcp_serve.max_cost_per_session: 1.5)") {
		t.Errorf("over the ceiling: %s", textOf(res))
	}
	if n := drv.Invokes(); n != 3 {
		t.Errorf("%d invokes, want 3", n)
	}
	if res := call("gen_local"); res.IsError {
		t.Errorf("a local call with its cost reported was stopped by the ceiling: %s", textOf(res))
	}
}
