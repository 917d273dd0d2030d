package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/config"
	"modbay/runner"
	"modbay/schema"
)

// TestToolSchemaKeepsPropertyOrder: a tool's inputSchema reaches the
// descriptor as the server wrote it, properties in its order (the SDK's
// decode into Go maps sorted them: dryRun, edits, path).
func TestToolSchemaKeepsPropertyOrder(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "fs", Version: "1.0.0"}, nil)
	in := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"edits":{"type":"array","items":{"type":"object","properties":{"oldText":{"type":"string"},"newText":{"type":"string"}}}},"dryRun":{"type":"boolean"}},"required":["path","edits"]}`)
	s.AddTool(&sdk.Tool{Name: "edit_file", Description: "Edits a file.", InputSchema: in},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
		})
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"fs": {URL: httpServer(t, s, nil)}})
	m := f.module("fs")
	if m.Status != runner.StatusReady {
		t.Fatalf("fs: %s %s", m.Status, m.Reason)
	}
	raw := m.Descriptor.RequestSchemas[m.Descriptor.Capabilities[0].RequestSchema]
	d, err := schema.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range d.Root().Props {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, ","); got != "path,edits,dryRun" {
		t.Errorf("properties in order %s, want path,edits,dryRun (schema %s)", got, raw)
	}
	if !strings.Contains(string(raw), `"oldText":{"type":"string"},"newText"`) {
		t.Errorf("nested properties reordered: %s", raw)
	}
}
