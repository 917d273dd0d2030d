package mcp

// A real MCP server for the tests: this test binary re-executed with
// MODBAY_MCP_TEST_SERVER set serves these tools over stdio with the same
// SDK, as the SDK's own cmd_test.go does.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverEnv selects the server's behaviour: serverServe serves the tools,
// serverCrash writes to stderr and exits before the handshake (one that
// never answers it is testdata/servers/hang_server.sh).
const (
	serverEnv   = "MODBAY_MCP_TEST_SERVER"
	serverServe = "serve"
	serverCrash = "crash"
	// serverLinger serves, then keeps running after its stdin ends; it
	// writes its pid to the file lingerPIDEnv names.
	serverLinger = "linger"
	lingerPIDEnv = "MODBAY_MCP_TEST_PID"
)

func TestMain(m *testing.M) {
	switch os.Getenv(serverEnv) {
	case serverServe:
		if err := serve(); err != nil {
			fmt.Fprintln(os.Stderr, "test server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	case serverRaw:
		if err := serveRaw(); err != nil {
			fmt.Fprintln(os.Stderr, "raw test server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	case serverRoots:
		if err := serveRoots(); err != nil {
			fmt.Fprintln(os.Stderr, "roots test server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	case serverLinger:
		// Serves, then outlives its stdin's end: only the kill stops it.
		_ = os.WriteFile(os.Getenv(lingerPIDEnv), []byte(strconv.Itoa(os.Getpid())), 0o600)
		_ = serve()
		select {}
	case serverCrash:
		fmt.Fprintln(os.Stderr, "boom: GITHUB_TOKEN is not set")
		os.Exit(3)
	}
	os.Exit(m.Run())
}

func ptr[T any](v T) *T { return &v }

// testPNG is a 2×1 PNG.
func testPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 2, 1))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

type echoIn struct {
	Text string `json:"text"`
}
type echoOut struct {
	Echo string `json:"echo"`
}
type nameIn struct {
	Name string `json:"name,omitempty"`
}
type bigIn struct {
	KB int `json:"kb"`
}

// startsEnv names a file the test server appends a line to each time it
// starts, so a test counts connects.
const startsEnv = "MODBAY_MCP_TEST_STARTS"

// serve runs the test server on stdio, two tools a page.
func serve() error {
	if p := os.Getenv(startsEnv); p != "" {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return err
		}
		fmt.Fprintln(f, "start")
		f.Close()
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "testserver", Title: "Test Server", Version: "0.3.1"}, &sdk.ServerOptions{PageSize: 2})
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Title: "Echo", Description: "Echoes its text.\nRead-only, closed world.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, echoOut, error) {
			return nil, echoOut{Echo: in.Text}, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "plain", Description: "Says hello; no annotations."},
		func(_ context.Context, _ *sdk.CallToolRequest, in nameIn) (*sdk.CallToolResult, any, error) {
			return text("hello " + in.Name), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "image", Description: "Returns a PNG.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}},
		func(context.Context, *sdk.CallToolRequest, nameIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{Data: testPNG(), MIMEType: "image/png"},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///t.csv", MIMEType: "text/csv", Text: "a,b\n1,2\n"}}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Always fails.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}},
		func(context.Context, *sdk.CallToolRequest, nameIn) (*sdk.CallToolResult, any, error) {
			return nil, nil, errors.New("it broke on purpose")
		})
	sdk.AddTool(s, &sdk.Tool{Name: "progress", Description: "Reports progress, then waits for cancellation when asked.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}},
		func(ctx context.Context, req *sdk.CallToolRequest, in nameIn) (*sdk.CallToolResult, any, error) {
			tok := req.Params.GetProgressToken()
			for i := 1; i <= 2; i++ {
				_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 4, Message: fmt.Sprintf("step %d", i)})
			}
			_ = req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: "debug", Data: "detail"})
			_ = req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: "info", Data: "half way"})
			if in.Name == "hang" {
				<-ctx.Done()
				return nil, nil, ctx.Err()
			}
			return text("done"), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "later", Description: "Answers, then logs a warning once the call is over.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}},
		func(_ context.Context, req *sdk.CallToolRequest, _ nameIn) (*sdk.CallToolResult, any, error) {
			go func() {
				time.Sleep(100 * time.Millisecond)
				_ = req.Session.Log(context.Background(), &sdk.LoggingMessageParams{Level: "warning", Data: "between calls"})
			}()
			return text("answered"), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "ask", Description: "Asks whether to shout.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}},
		func(ctx context.Context, req *sdk.CallToolRequest, _ nameIn) (*sdk.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Shout?", RequestedSchema: map[string]any{
				"type": "object", "properties": map[string]any{"shout": map[string]any{"type": "boolean"}}, "required": []string{"shout"}}})
			if err != nil {
				return nil, nil, err
			}
			out := "hello (" + res.Action + ")"
			if res.Action == "accept" && res.Content["shout"] == true {
				out = strings.ToUpper(out)
			}
			return text(out), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "askdefaults", Description: "Asks with defaults; returns the answer's content as JSON.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}},
		func(ctx context.Context, req *sdk.CallToolRequest, _ nameIn) (*sdk.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Details?", RequestedSchema: map[string]any{
				"type": "object", "properties": map[string]any{
					"firstLine": map[string]any{"type": "string", "default": "Dear Sir"},
					"count":     map[string]any{"type": "integer", "default": 42}}}})
			if err != nil {
				return nil, nil, err
			}
			b, _ := json.Marshal(res.Content)
			return text(string(b)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "wipe", Description: "Deletes everything, it says.",
		Annotations: &sdk.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(false)}},
		func(context.Context, *sdk.CallToolRequest, nameIn) (*sdk.CallToolResult, any, error) {
			return text("wiped"), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "env", Description: "Lists its environment.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}},
		func(context.Context, *sdk.CallToolRequest, nameIn) (*sdk.CallToolResult, any, error) {
			env := os.Environ()
			slices.Sort(env)
			return text(strings.Join(env, "\n")), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "contradict", Description: "Read-only and destructive at once.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: ptr(true)}},
		func(context.Context, *sdk.CallToolRequest, nameIn) (*sdk.CallToolResult, any, error) {
			return text("?"), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "Exits mid-call, explaining on stderr as node does.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}},
		func(context.Context, *sdk.CallToolRequest, nameIn) (*sdk.CallToolResult, any, error) {
			fmt.Fprint(os.Stderr, "/srv/index.js:3\n    throw new Error('no database at /data');\n\nError: no database at /data\n    at Object.<anonymous> (/srv/index.js:3:7)\n\nNode.js v20.20.2\n")
			os.Exit(7)
			return nil, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "big", Description: "Returns kb KiB of text.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}},
		func(_ context.Context, _ *sdk.CallToolRequest, in bigIn) (*sdk.CallToolResult, any, error) {
			return text(strings.Repeat("x", in.KB<<10)), nil, nil
		})
	s.AddResource(&sdk.Resource{Name: "readme", Title: "Read me\x1b[31m", URI: "file:///readme.md", MIMEType: "text/markdown"},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "file:///readme.md", Text: "# hi"}}}, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "review", Description: "Reviews a change.", Arguments: []*sdk.PromptArgument{{Name: "diff", Required: true}, {Name: "tone"}}},
		func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{}, nil
		})
	return s.Run(context.Background(), &sdk.StdioTransport{})
}
