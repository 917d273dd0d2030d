package mcp

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/modproto"
	"modbay/render"
)

// MaxTools bounds the tools taken from one server's list: past it the
// rest are dropped with a warning, so a server cannot make the host hold
// an unbounded descriptor.
const MaxTools = 1000

// maxSummaryRunes bounds a capability's summary (the tool's description,
// on one line): the cockpit lists it beside the tool.
const maxSummaryRunes = 300

// Artifact kinds of content blocks (the descriptor's artifact_schemas):
// every tool may produce any of them.
const (
	KindText     = "mcp.text"
	KindImage    = "mcp.image"
	KindAudio    = "mcp.audio"
	KindResource = "mcp.resource"
	KindLink     = "mcp.resource_link"
	// KindPrompt is a prompt's messages as one conversation (prompts/get;
	// promptDocument), beside each message's own block.
	KindPrompt = "mcp.prompt"
)

// artifactSchemas describe the content-block kinds (docs/protocol.md §9: each a
// JSON object).
var artifactSchemas = map[string]json.RawMessage{
	KindText:     json.RawMessage(`{"description":"an MCP text content block"}`),
	KindImage:    json.RawMessage(`{"description":"an MCP image content block"}`),
	KindAudio:    json.RawMessage(`{"description":"an MCP audio content block"}`),
	KindResource: json.RawMessage(`{"description":"an MCP embedded resource"}`),
	KindLink:     json.RawMessage(`{"description":"an MCP resource link (its URI, not its bytes)"}`),
	KindPrompt:   json.RawMessage(`{"description":"an MCP prompt's messages, as one Markdown conversation"}`),
}

// kinds lists artifactSchemas' keys in a stable order.
var kinds = []string{KindText, KindImage, KindAudio, KindResource, KindLink, KindPrompt}

// Hints are a tool's annotations with MCP's defaults applied to absent
// ones (docs/protocol.md §11, MCP tools): readOnlyHint false, destructiveHint
// true, openWorldHint true.
type Hints struct {
	ReadOnly, Destructive, OpenWorld bool
}

// HintsOf applies MCP's defaults to a (nil: no annotations).
func HintsOf(a *sdk.ToolAnnotations) Hints {
	h := Hints{Destructive: true, OpenWorld: true}
	if a == nil {
		return h
	}
	h.ReadOnly = a.ReadOnlyHint
	if a.DestructiveHint != nil {
		h.Destructive = *a.DestructiveHint
	}
	if a.OpenWorldHint != nil {
		h.OpenWorld = *a.OpenWorldHint
	}
	return h
}

// Effects are the capability effects of a tool with hints h on a server
// reached by transport ("stdio" runs locally): open world → network, not
// read-only → external writes; the cost is never known.
func (h Hints) Effects(transport string) modproto.Effects {
	return modproto.Effects{Local: transport == "stdio", Network: h.OpenWorld, ExternalWrites: !h.ReadOnly}
}

// describeEnvelope is server id as a module: its descriptor (module id =
// the config id; name and version from the server's implementation info;
// one capability per tool: id = name, title, summary = description on
// one line, request schema = inputSchema, result schema = outputSchema,
// effects from annotations) in an ok describe envelope, whose warnings
// name what was dropped or contradictory. It also returns each tool's
// outputSchema by name.
func describeEnvelope(id string, impl *sdk.Implementation, tools []*sdk.Tool, transport string, network bool, endpoint string) (*modproto.Envelope, *modproto.Descriptor, map[string]json.RawMessage) {
	d := &modproto.Descriptor{
		Module: id, Name: id, Version: "unknown", ProtocolVersions: []string{modproto.ProtocolID},
		RequestSchemas: map[string]json.RawMessage{}, ResultSchemas: map[string]json.RawMessage{},
		ArtifactSchemas: artifactSchemas,
	}
	if impl != nil {
		if n := firstNonEmpty(impl.Title, impl.Name); n != "" {
			d.Name = render.SanitizeLine(n)
		}
		if impl.Version != "" {
			d.Version = render.SanitizeLine(impl.Version)
		}
	}
	switch {
	case transport == "http":
		if u, err := url.Parse(endpoint); err == nil && u.Hostname() != "" {
			d.Permissions.Network = []string{u.Hostname()}
		}
	case network:
		d.Permissions.Network = []string{"*"}
	}
	warnings := []string{}
	outputs := map[string]json.RawMessage{}
	seen := map[string]bool{}
	for i, t := range tools {
		if i >= MaxTools {
			warnings = append(warnings, fmt.Sprintf("the server lists more than %d tools; the rest are not shown", MaxTools))
			break
		}
		if t == nil || t.Name == "" || seen[t.Name] {
			warnings = append(warnings, fmt.Sprintf("tool #%d has no name or repeats one; skipped", i))
			continue
		}
		seen[t.Name] = true
		if !modproto.ValidCapabilityID(t.Name) {
			// The server's tool name becomes a capability id: outside the
			// grammar (docs/protocol.md §13) the tool is left out, not the server.
			warnings = append(warnings, fmt.Sprintf("tool %q: its name breaks the id grammar (%s); skipped", render.SanitizeLine(t.Name), modproto.CapabilityIDRule))
			continue
		}
		c := modproto.Capability{ID: t.Name, ArtifactSchemas: kinds}
		title := t.Title
		if title == "" && t.Annotations != nil {
			title = t.Annotations.Title
		}
		c.Title = render.SanitizeLine(title)
		c.Summary = summaryOf(t.Description)
		if c.Summary == "" {
			c.Summary = "MCP tool " + render.SanitizeLine(t.Name) + " (the server gave no description)"
		}
		h := HintsOf(t.Annotations)
		c.Effects = h.Effects(transport)
		if a := t.Annotations; a != nil && a.ReadOnlyHint && a.DestructiveHint != nil && *a.DestructiveHint {
			warnings = append(warnings, fmt.Sprintf("tool %s: annotations say both read-only and destructive", render.SanitizeLine(t.Name)))
		}
		in := schemaOf(t.InputSchema)
		if in == nil {
			in = json.RawMessage(`{"type":"object"}`)
		}
		c.RequestSchema = schemaKey(t.Name, "input", t.InputSchema, in, d.RequestSchemas)
		d.RequestSchemas[c.RequestSchema] = in
		if out := schemaOf(t.OutputSchema); out != nil {
			c.ResultSchema = schemaKey(t.Name, "output", t.OutputSchema, out, d.ResultSchemas)
			d.ResultSchemas[c.ResultSchema] = out
			outputs[t.Name] = out
		}
		d.Capabilities = append(d.Capabilities, c)
	}
	d.Normalize()
	res, _ := json.Marshal(d)
	return &modproto.Envelope{
		Protocol: modproto.ProtocolID, Module: id, Operation: modproto.OperationDescribe,
		OK: true, Result: res, Warnings: warnings,
		Execution: modproto.Execution{Local: transport == "stdio", Network: transport == "http", Artifacts: []modproto.Artifact{}},
	}, d, outputs
}

// summaryOf is a description on one line, sanitized and bounded.
func summaryOf(desc string) string {
	s := strings.Join(strings.Fields(render.SanitizeLine(desc)), " ")
	if utf8.RuneCountInString(s) <= maxSummaryRunes {
		return s
	}
	r := []rune(s)
	return string(r[:maxSummaryRunes-1]) + "…"
}

// schemaOf is a tool schema (any value the SDK decoded) as JSON; nil when
// absent or not a JSON object.
func schemaOf(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil || len(b) == 0 || b[0] != '{' {
		return nil
	}
	return b
}

// schemaKey is the map key of a tool's schema (v as the SDK decoded it,
// raw its encoding): "<tool>.<role>", or the schema's own $id when it has
// one not yet used (docs/protocol.md §9: a present $id ends in its key). The $id
// is read from the decoded object when the SDK gave one (a scan of the
// encoding fewer per tool), else from raw.
func schemaKey(tool, role string, v any, raw json.RawMessage, used map[string]json.RawMessage) string {
	var id string
	if obj, ok := v.(map[string]any); ok {
		id, _ = obj["$id"].(string)
	} else {
		var head struct {
			ID string `json:"$id"`
		}
		if json.Unmarshal(raw, &head) == nil {
			id = head.ID
		}
	}
	if id != "" {
		if _, dup := used[id]; !dup {
			return id
		}
	}
	return tool + "." + role
}

// firstNonEmpty is the first of ss that is not "".
func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// oneLine is s on one line (for a lifecycle reason).
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
