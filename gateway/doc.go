// Package gateway serves the home's ready modules and configured MCP
// servers as MCP tools (`modbay mcp serve`, docs/gateway.md): one tool per
// served capability, each call planned, approved, contained, checked and
// recorded exactly as `modbay invoke` does it, results as MCP content.
package gateway
