package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
	"modbay/schema"
)

// CodeToolError is the error code of a tool result with isError: true:
// the tool ran and failed (a module error, exit 1).
const CodeToolError = "tool_error"

// CodeMCPError is the host verdict of a call the server answered with a
// JSON-RPC error (an unknown tool, invalid params): Detail carries the
// JSON-RPC code and message.
const CodeMCPError = "host.mcp_error"

// maxErrorMessage bounds an isError message taken from the tool's text.
const maxErrorMessage = 500

// replyOf turns a tools/call result into an invoke envelope answering req
// and its content blocks: each content
// block becomes a ContentBlock the host verifies and stages — text as
// markdown (JSON text as json), images and audio by their media type,
// embedded resources by theirs, resource links as a JSON record of the
// link. structuredContent is the envelope's result, checked against the
// tool's outputSchema (a failure is a warning naming each violation);
// without it the result lists the blocks. isError makes an error
// envelope (CodeToolError) whose message is the first text block.
func replyOf(module string, req modproto.Request, res *sdk.CallToolResult, outputSchema json.RawMessage) ([]byte, []runner.ContentBlock) {
	env := &modproto.Envelope{
		Protocol: modproto.ProtocolID, Module: module, Operation: modproto.OperationInvoke, RequestID: req.RequestID,
		Warnings: []string{}, Execution: modproto.Execution{Artifacts: []modproto.Artifact{}},
	}
	var blocks []runner.ContentBlock
	type summary struct {
		Type     string `json:"type"`
		Artifact string `json:"artifact"`
	}
	listed := []summary{}
	firstText := ""
	for i, c := range res.Content {
		b, typ := blockOf(i, c)
		if b == nil {
			env.Warnings = append(env.Warnings, fmt.Sprintf("content block %d: type %s is not shown", i, typ))
			continue
		}
		if t, ok := c.(*sdk.TextContent); ok && firstText == "" {
			firstText = t.Text
		}
		blocks = append(blocks, *b)
		listed = append(listed, summary{Type: typ, Artifact: b.Artifact.ID})
	}
	if res.IsError {
		msg := summaryOf(firstText)
		if msg == "" {
			msg = "the tool reported an error without text"
		}
		if len(msg) > maxErrorMessage {
			msg = msg[:maxErrorMessage]
		}
		env.Error = &modproto.Error{Code: CodeToolError, Message: msg, Details: map[string]any{"is_error": true}}
	} else {
		var result []byte
		if res.StructuredContent != nil {
			b, err := json.Marshal(res.StructuredContent)
			if err == nil {
				result = b
				if outputSchema != nil {
					env.Warnings = append(env.Warnings, checkOutput(outputSchema, b)...)
				}
			}
		} else if outputSchema != nil {
			env.Warnings = append(env.Warnings, "the tool declares an outputSchema but sent no structuredContent")
		}
		if result == nil {
			result, _ = json.Marshal(map[string]any{"content": listed})
		}
		env.OK, env.Result = true, result
	}
	out, err := json.Marshal(env)
	if err != nil {
		return nil, nil
	}
	return out, blocks
}

// checkOutput validates structuredContent against outputSchema and says
// what is wrong, one warning per violation; nil when it is valid.
func checkOutput(outputSchema, content json.RawMessage) []string {
	v, err := schema.ValidateInput(outputSchema, content)
	if err != nil {
		return []string{"the tool's outputSchema does not compile: " + oneLine(err.Error())}
	}
	var w []string
	for _, e := range v {
		p := e.Path
		if p == "" {
			p = "(root)"
		}
		w = append(w, fmt.Sprintf("structuredContent breaks the tool's outputSchema at %s: %s", p, e.Detail))
	}
	return w
}

// blockOf is content block i as a ContentBlock, and its MCP type; nil for
// a type modbay does not know.
func blockOf(i int, c sdk.Content) (*runner.ContentBlock, string) {
	id := fmt.Sprintf("content-%d", i)
	mk := func(kind, media, title string, data []byte) *runner.ContentBlock {
		return &runner.ContentBlock{
			Artifact: modproto.Artifact{ID: id, Kind: kind, MediaType: media, Title: render.SanitizeLine(title), Path: id + extOf(media)},
			Data:     data,
		}
	}
	switch c := c.(type) {
	case *sdk.TextContent:
		media := "text/markdown"
		if t := strings.TrimSpace(c.Text); (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t)) {
			media = "application/json"
		}
		return mk(KindText, media, "", []byte(c.Text)), "text"
	case *sdk.ImageContent:
		return mk(KindImage, mediaOr(c.MIMEType, "image/png"), "", c.Data), "image"
	case *sdk.AudioContent:
		return mk(KindAudio, mediaOr(c.MIMEType, "audio/wav"), "", c.Data), "audio"
	case *sdk.EmbeddedResource:
		r := c.Resource
		if r == nil {
			return nil, "resource"
		}
		if r.Blob != nil {
			return mk(KindResource, mediaOr(r.MIMEType, "application/octet-stream"), r.URI, r.Blob), "resource"
		}
		return mk(KindResource, mediaOr(r.MIMEType, "text/plain"), r.URI, []byte(r.Text)), "resource"
	case *sdk.ResourceLink:
		b, _ := json.MarshalIndent(map[string]any{"uri": c.URI, "name": c.Name, "title": c.Title, "mimeType": c.MIMEType, "size": c.Size}, "", "  ")
		return mk(KindLink, "application/json", firstNonEmpty(c.Title, c.Name, c.URI), b), "resource_link"
	}
	return nil, fmt.Sprintf("%T", c)
}

// mediaOr is m with parameters kept, or def when m is empty or not a
// media type.
func mediaOr(m, def string) string {
	if _, _, err := mime.ParseMediaType(m); err != nil {
		return def
	}
	return m
}

// extOf is a file extension for a media type ("" when none is known), so
// a staged block opens in the right program.
func extOf(media string) string {
	mt, _, _ := mime.ParseMediaType(media)
	switch mt {
	case "text/markdown":
		return ".md"
	case "text/plain":
		return ".txt"
	case "application/json":
		return ".json"
	case "image/png":
		return ".png"
	case "image/jpeg":
		return ".jpg"
	case "image/gif":
		return ".gif"
	case "image/webp":
		return ".webp"
	case "image/svg+xml":
		return ".svg"
	case "audio/wav", "audio/x-wav":
		return ".wav"
	case "audio/mpeg":
		return ".mp3"
	}
	return ""
}

// callFailure is the host verdict of a tools/call that returned a Go
// error: a JSON-RPC error keeps its code (CodeMCPError); anything else
// means the session failed (the server died mid-call).
func callFailure(err error) *runner.HostError {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return &runner.HostError{Code: CodeMCPError, Detail: fmt.Sprintf("JSON-RPC error %d: %s", we.Code, oneLine(we.Message))}
	}
	return &runner.HostError{Code: modproto.CodeHostSpawnFailed, Detail: "the server's session failed: " + oneLine(err.Error())}
}
