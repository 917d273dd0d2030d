// Package mcp makes MCP servers modules: each configured server
// (config.yaml mcp_servers) is a module driven through runner.Driver, each
// of its tools a capability, so planning, approval, grants, envelope and
// artifact checks and staging stay the host's, whatever the source. It is built on the
// official Go SDK (github.com/modelcontextprotocol/go-sdk). The runner
// never imports it: the commands and the cockpit add a Source to the host
// (runner.Host.AddSource).
package mcp
