package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/render"
)

// NeedsTasks is why a tool whose execution.taskSupport is "required" is
// not offered: the MCP Go SDK modbay is built on has no tasks yet, so
// such a call could only fail (docs/mcp.md).
const NeedsTasks = "needs MCP tasks, which modbay does not support yet"

// noteTaskTools reads a tools/list answer as it arrives (the SDK's Tool
// has no execution field) and keeps the names of the tools that require
// tasks; any other message is left alone. It runs on the session's
// reader, so the list is noted before the SDK hands it over.
func (d *Driver) noteTaskTools(m jsonrpc.Message) {
	r, ok := m.(*jsonrpc.Response)
	if !ok || r.Error != nil || !bytes.Contains(r.Result, []byte(`"taskSupport"`)) {
		return
	}
	var res struct {
		Tools []struct {
			Name      string `json:"name"`
			Execution *struct {
				TaskSupport string `json:"taskSupport"`
			} `json:"execution"`
		} `json:"tools"`
	}
	if json.Unmarshal(r.Result, &res) != nil || res.Tools == nil {
		return
	}
	d.surf.mu.Lock()
	defer d.surf.mu.Unlock()
	if d.surf.taskTools == nil || len(d.surf.taskTools) > MaxTools {
		d.surf.taskTools = map[string]bool{}
	}
	for _, t := range res.Tools {
		if t.Execution != nil && t.Execution.TaskSupport == "required" {
			d.surf.taskTools[t.Name] = true
		}
	}
}

// withoutTaskTools is tools without those that require tasks, and a
// warning naming each one left out (NeedsTasks).
func (d *Driver) withoutTaskTools(tools []*sdk.Tool) ([]*sdk.Tool, []string) {
	d.surf.mu.Lock()
	defer d.surf.mu.Unlock()
	if len(d.surf.taskTools) == 0 {
		return tools, nil
	}
	var kept []*sdk.Tool
	var warnings []string
	for _, t := range tools {
		if t != nil && d.surf.taskTools[t.Name] {
			warnings = append(warnings, fmt.Sprintf("tool %s %s: it is not offered", render.SanitizeLine(t.Name), NeedsTasks))
			continue
		}
		kept = append(kept, t)
	}
	return kept, warnings
}
