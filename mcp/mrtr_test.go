package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/config"
	"modbay/runner"
)

// TestMultiRoundTripServer: a server written for 2026-07-28, whose tool
// asks for a sampling reply and an elicitation as input requests
// (multi-round-trip) rather than requests of its own, is served to modbay
// (which speaks 2025-11-25) as sampling/createMessage and
// elicitation/create; the person's answers come back to the tool as its
// input responses.
func TestMultiRoundTripServer(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "mrtr", Version: "1.0.0"}, nil)
	s.AddTool(&sdk.Tool{Name: "plan", Description: "Asks twice.", InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			in := req.Params.InputResponses
			if in == nil {
				return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{
					"reply": &sdk.CreateMessageParams{MaxTokens: 10, SystemPrompt: "Plan.",
						Messages: []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: "Next step?"}}}},
					"ok": &sdk.ElicitParams{Mode: "form", Message: "Go ahead?", RequestedSchema: map[string]any{"type": "object",
						"properties": map[string]any{"go": map[string]any{"type": "boolean"}}}},
				}}, nil
			}
			reply, _ := in["reply"].(*sdk.CreateMessageWithToolsResult)
			ok, _ := in["ok"].(*sdk.ElicitResult)
			if reply == nil || ok == nil || len(reply.Content) != 1 {
				return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("input responses missing: %T %T", in["reply"], in["ok"])}}}, nil
			}
			text, _ := reply.Content[0].(*sdk.TextContent)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "reply=" + text.Text + " ok=" + ok.Action}}}, nil
		})
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"mrtr": {URL: httpServer(t, s, nil)}})
	m := f.module("mrtr")
	if m.Status != runner.StatusReady {
		t.Fatalf("mrtr: %s %s", m.Status, m.Reason)
	}
	var sampled, elicited bool
	res := f.run(m, "plan", `{}`, runner.RunOptions{Elicit: func(_ context.Context, e runner.Elicitation) (runner.ElicitAnswer, error) {
		if e.Sampling != nil {
			sampled = e.Sampling.SystemPrompt == "Plan." && len(e.Sampling.Messages) == 1
			return runner.ElicitAnswer{Action: runner.ElicitAccept, Content: json.RawMessage(`{"reply":"test it"}`)}, nil
		}
		elicited = e.Message == "Go ahead?"
		return runner.ElicitAnswer{Action: runner.ElicitAccept, Content: json.RawMessage(`{"go":true}`)}, nil
	}})
	if !res.OK() {
		t.Fatalf("plan: %+v %s", res.Host, staged(t, res))
	}
	if got := staged(t, res); !sampled || !elicited || !strings.Contains(got, "reply=test it ok=accept") {
		t.Errorf("sampled %v, elicited %v, the tool said %q", sampled, elicited, got)
	}
}
