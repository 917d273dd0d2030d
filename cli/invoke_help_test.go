package cli

import (
	"strings"
	"testing"
)

// TestInvokeHelpApprovalRule checks that invoke's help states the
// approval rule of both sources (docs/protocol.md §11): a module's unknown cost
// asks, an MCP tool's does not (its annotations decide).
func TestInvokeHelpApprovalRule(t *testing.T) {
	cmd := newInvokeCommand(&globals{}, nil)
	long := strings.Join(strings.Fields(cmd.Long), " ")
	for _, want := range []string{
		"cost an unknown amount needs approval",
		"An MCP tool has no cost declaration, so its unknown cost alone does not ask",
		"its annotations decide (docs/mcp.md)",
		"read-only and stays in a closed world runs at once",
	} {
		if !strings.Contains(long, want) {
			t.Errorf("invoke --help lacks %q:\n%s", want, cmd.Long)
		}
	}
}
