package mcp

// A second real MCP server for the tests, on the standard library only:
// it answers tools/call with a result read byte for byte from
// testdata/content/<tool>.json, so a test can send what the SDK's own
// server never would (URL-safe base64, data: URLs, fields of newer
// revisions).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modbay/config"
)

// serverRaw selects the raw server; rawDirEnv names its results folder.
const (
	serverRaw = "raw"
	rawDirEnv = "MODBAY_MCP_TEST_RAW_DIR"
	// rawWarnEnv, set, makes it warn on stderr as it starts, as
	// server-filesystem does of a folder it cannot reach.
	rawWarnEnv = "MODBAY_MCP_TEST_RAW_WARN"
)

// rawServer is the config entry of the raw server over testdata/content.
func rawServer(t *testing.T) config.MCPServer {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "content"))
	if err != nil {
		t.Fatal(err)
	}
	return config.MCPServer{Command: exe, Env: map[string]string{serverEnv: serverRaw, rawDirEnv: dir}}
}

// serveRaw serves the tools of os.Getenv(rawDirEnv) on stdio, one
// JSON-RPC message a line.
func serveRaw() error {
	dir := os.Getenv(rawDirEnv)
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return err
	}
	var tools []map[string]any
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		tools = append(tools, map[string]any{"name": name, "inputSchema": map[string]any{"type": "object"},
			"annotations": map[string]any{"readOnlyHint": true, "openWorldHint": false}})
	}
	// "exit" ends the session mid-call.
	tools = append(tools, map[string]any{"name": "exit", "inputSchema": map[string]any{"type": "object"},
		"annotations": map[string]any{"readOnlyHint": true, "openWorldHint": false}})
	// "grumble" writes error-looking stderr lines and answers.
	tools = append(tools, map[string]any{"name": "grumble", "inputSchema": map[string]any{"type": "object"},
		"annotations": map[string]any{"readOnlyHint": true, "openWorldHint": false}})
	// "quit" ends it mid-call too, with no error line.
	tools = append(tools, map[string]any{"name": "quit", "inputSchema": map[string]any{"type": "object"},
		"annotations": map[string]any{"readOnlyHint": true, "openWorldHint": false}})
	// "deep" answers a result nesting 1,200 levels, past what the SDK reads.
	tools = append(tools, map[string]any{"name": "deep", "inputSchema": map[string]any{"type": "object"},
		"annotations": map[string]any{"readOnlyHint": true, "openWorldHint": false}})
	// "writes" gives readOnlyHint false, which the SDK's server omits.
	tools = append(tools, map[string]any{"name": "writes", "inputSchema": map[string]any{"type": "object"},
		"annotations": map[string]any{"readOnlyHint": false, "openWorldHint": false}})
	if os.Getenv(rawWarnEnv) != "" {
		fmt.Fprintln(os.Stderr, "Warning: Cannot access directory /nope\x1b[2J")
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		var result []byte
		switch m.Method {
		case "initialize":
			result = []byte(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":false}},"serverInfo":{"name":"raw","version":"1.0.0"},"instructions":"Call grumble first.\u001b[31m"}`)
		case "tools/list":
			result, _ = json.Marshal(map[string]any{"tools": tools})
		case "tools/call":
			switch m.Params.Name {
			case "exit":
				fmt.Fprint(os.Stderr, "Error: the raw server quits\nbye\n")
				os.Exit(2)
			case "quit":
				fmt.Fprint(os.Stderr, "shutting down\nbye\n")
				os.Exit(3)
			case "deep":
				fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[],"structuredContent":{"a":%s1%s}}}`+"\n", m.ID,
					strings.Repeat("[", 1200), strings.Repeat("]", 1200))
				continue
			case "grumble":
				fmt.Fprint(os.Stderr, "Error: an earlier, handled thing\nlogging/setLevel {\"level\": \"error\"}\n")
				fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[]}}`+"\n", m.ID)
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, filepath.Base(m.Params.Name)+".json"))
			if err != nil {
				fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"unknown tool"}}`+"\n", m.ID)
				continue
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, b); err != nil {
				return err
			}
			result = compact.Bytes()
		default:
			result = []byte(`{}`)
		}
		fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", m.ID, result)
	}
	return in.Err()
}
