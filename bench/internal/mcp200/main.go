// Command mcp200 is the benchmark suite's MCP server (bench/run, MCP
// section): it serves 200 tools over stdio whose input schemas are the
// JSON schema files of the folder it is given (the corpus's real tool
// schemas), repeated, fifty a page. Tool ping_000 is read-only and
// closed-world and answers "pong" at once; the others answer "ok".
//
//	mcp200 SCHEMA_DIR
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// tools is how many tools the server lists; pageSize how many a page.
const (
	tools    = 200
	pageSize = 50
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: mcp200 SCHEMA_DIR")
		os.Exit(2)
	}
	if err := serve(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "mcp200:", err)
		os.Exit(1)
	}
}

func serve(dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no *.json schemas in %s", dir)
	}
	slices.Sort(files)
	var schemas []map[string]any
	var names []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var m map[string]any
		if json.Unmarshal(b, &m) != nil || m["type"] != "object" {
			continue
		}
		schemas = append(schemas, m)
		_, n, _ := strings.Cut(strings.TrimSuffix(filepath.Base(f), ".json"), "__")
		names = append(names, strings.ReplaceAll(n, "-", "_"))
	}
	if len(schemas) == 0 {
		return fmt.Errorf("no object schemas in %s", dir)
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "mcp200", Version: "1.0.0"}, &sdk.ServerOptions{PageSize: pageSize})
	text := func(t string) sdk.ToolHandler {
		return func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: t}}}, nil
		}
	}
	closed := false
	s.AddTool(&sdk.Tool{Name: "ping_000", Description: "Answers pong.", InputSchema: map[string]any{"type": "object"},
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &closed}}, text("pong"))
	for i := 1; i < tools; i++ {
		k := i % len(schemas)
		s.AddTool(&sdk.Tool{Name: fmt.Sprintf("%s_%03d", names[k], i), Description: "A copy of " + names[k] + ".",
			InputSchema: schemas[k]}, text("ok"))
	}
	return s.Run(context.Background(), &sdk.StdioTransport{})
}
