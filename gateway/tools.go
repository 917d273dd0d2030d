package gateway

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/internal/jsonptr"
	mcpsrc "modbay/mcp"
	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
)

// Bounds of the catalogue (docs/gateway.md "Names").
const (
	// MaxToolName is the longest tool name served: the model APIs clients
	// hand names to commonly accept ^[a-zA-Z0-9_-]{1,64}$.
	MaxToolName = 64
	// digestSuffix is how many hex digits of the id's digest end a name
	// that was cut or collided ("_" and these).
	digestSuffix = 8
	// MaxDescription bounds a tool's description in bytes: it is module
	// text the agent reads and obeys, so it is kept short.
	MaxDescription = 1024
	// maxSchemaDepth bounds how deep $ref inlining goes; a deeper (or
	// cyclic) reference becomes {} (any value), the module's own schema
	// still judging the input.
	maxSchemaDepth = 16
	// maxSchemaNodes bounds the nodes an adapted schema may hold.
	maxSchemaNodes = 4096
)

// Meta keys of a served tool (docs/gateway.md "Names").
const (
	MetaCapability = "modbay/capability"
	MetaModule     = "modbay/module"
	MetaServer     = "modbay/server"
	MetaTool       = "modbay/tool"
	MetaKind       = "modbay/kind"
	MetaCode       = "modbay/code"
	MetaRun        = "modbay/run"
)

// entry is one served tool: the capability it stands for.
type entry struct {
	tool   *mcp.Tool
	module *runner.Module
	cap    modproto.Capability
	// id is "<module> <capability>": what names are derived from.
	id string
}

// served reports whether a capability is offered as a tool: a ready
// module's non-hidden capability that is not the poll or cancel of
// another (docs/protocol.md §12, §17).
func served(m *runner.Module, c modproto.Capability) bool {
	if m.Status != runner.StatusReady || m.Descriptor == nil || c.Hidden {
		return false
	}
	for _, o := range m.Descriptor.Capabilities {
		if o.PollCapability == c.ID || o.CancelCapability == c.ID {
			return false
		}
	}
	return true
}

// isMCP reports whether m is a proxied MCP server (its capabilities are
// the server's tools).
func isMCP(m *runner.Module) bool {
	_, ok := m.Driver.(*mcpsrc.Driver)
	return ok
}

// ToolName is the served name of id: every character outside
// [A-Za-z0-9_-] replaced by "_", at most MaxToolName bytes; cut (or
// suffixed, when suffix) with "_" and a digest of id.
func ToolName(id string, suffix bool) string {
	var b strings.Builder
	for _, r := range id {
		if r < utf8.RuneSelf && (r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	n := b.String()
	if n == "" {
		n = "tool"
	}
	if !suffix && len(n) <= MaxToolName {
		return n
	}
	sum := sha256.Sum256([]byte(id))
	tail := "_" + hex.EncodeToString(sum[:])[:digestSuffix]
	if len(n) > MaxToolName-len(tail) {
		n = n[:MaxToolName-len(tail)]
	}
	return n + tail
}

// catalogue builds the served tools of mods, named without collision and
// filtered by tools/exclude (patterns over SelectID, MatchSelect).
func catalogue(mods []*runner.Module, tools, exclude []string) map[string]*entry {
	var all []*entry
	for _, m := range mods {
		if m.Descriptor == nil {
			continue
		}
		for _, c := range m.Descriptor.Capabilities {
			if !served(m, c) {
				continue
			}
			if _, refused := m.Refused[c.ID]; refused {
				continue
			}
			all = append(all, &entry{module: m, cap: c, id: m.ID + " " + c.ID})
		}
	}
	// The plain name of each; a name two entries share is suffixed in
	// both, so neither depends on the other's presence order, and so is
	// one of the gateway's own tools' names. A module's capability id is
	// its word about itself: it never takes the name of a job tool, nor
	// the suffixed name of another module's tool (a capability called
	// notes_report_<digest> beside one that forces notes.report's suffix).
	plain := map[string]int{}
	for _, e := range all {
		plain[ToolName(baseID(e), false)]++
	}
	suffixed := func(e *entry) string { return ToolName(baseID(e)+"\x00"+e.module.ID, true) }
	names := make([]string, len(all))
	taken := map[string]bool{}
	for i, e := range all {
		if n := ToolName(baseID(e), false); plain[n] > 1 || reservedTools[n] {
			names[i] = suffixed(e)
			taken[names[i]] = true
		}
	}
	for i, e := range all {
		if names[i] == "" {
			if names[i] = ToolName(baseID(e), false); taken[names[i]] {
				names[i] = suffixed(e)
			}
		}
	}
	count := map[string]int{}
	for _, n := range names {
		count[n]++
	}
	out := map[string]*entry{}
	for i, e := range all {
		name := names[i]
		if count[name] > 1 || !chosen(e, tools, exclude) {
			// Two tools under one name even with the digest (an id made
			// to collide with another's): neither is served, so neither
			// answers for the other.
			continue
		}
		e.tool = toolOf(name, e)
		out[name] = e
	}
	return out
}

// reservedTools are the gateway's own tools' names, which no module's or
// server's tool is served under.
var reservedTools = map[string]bool{ToolJobStatus: true, ToolJobWait: true, ToolJobCancel: true}

// baseID is what a tool's name is made from: the capability id for a
// module, "<server id>.<tool>" for an MCP server.
func baseID(e *entry) string {
	if isMCP(e.module) {
		return e.module.ID + "." + e.cap.ID
	}
	return e.cap.ID
}

// chosen applies --tools / --exclude (and mcp_serve:) to one tool: each
// pattern is matched against SelectID, never against the served name or
// the capability id alone, which the module chooses (docs/gateway.md
// "Choosing the tools").
func chosen(e *entry, tools, exclude []string) bool {
	id := SelectID(e.module.ID, e.cap.ID)
	match := func(pats []string) bool {
		return slices.ContainsFunc(pats, func(p string) bool { return MatchSelect(p, id) })
	}
	return (len(tools) == 0 || match(tools)) && !match(exclude)
}

// SelectID is what --tools and --exclude patterns match for a capability
// of a module (or a tool of an MCP server): "<module id>/<capability id>".
// The module id is the host's name for the module (its directory, its
// executable's name, its mcp_servers key: docs/protocol.md §13), and
// neither id may hold a "/", so no module can make its tools answer to a
// pattern written for another module's.
func SelectID(module, capability string) string { return module + "/" + capability }

// MatchSelect reports whether pattern p (path.Match syntax, "*" never
// crossing the "/") selects the tool whose SelectID is id: a pattern with
// a "/" is matched against the whole id, one without against the module
// id alone ("notes" is "notes/*"). A malformed pattern matches nothing
// (config.yaml's and the flags' patterns are checked before use).
func MatchSelect(p, id string) bool {
	if !strings.Contains(p, "/") {
		id, _, _ = strings.Cut(id, "/")
	}
	ok, _ := path.Match(p, id)
	return ok
}

// toolOf is the MCP tool for e, named name.
func toolOf(name string, e *entry) *mcp.Tool {
	d := e.module.Descriptor
	t := &mcp.Tool{Name: name, Title: render.SanitizeLine(baseID(e)), Description: description(e)}
	t.Meta = mcp.Meta{MetaModule: e.module.ID, MetaCapability: e.cap.ID}
	if isMCP(e.module) {
		t.Meta = mcp.Meta{MetaServer: e.module.ID, MetaTool: e.cap.ID}
	}
	var req json.RawMessage
	if e.cap.RequestSchema != "" {
		req = d.RequestSchemas[e.cap.RequestSchema]
	}
	t.InputSchema = InputSchema(req)
	if e.cap.ResultSchema != "" && !e.cap.LongRunning {
		t.OutputSchema = OutputSchema(d.ResultSchemas[e.cap.ResultSchema])
	}
	t.Annotations = annotations(d, e.cap)
	return t
}

// description is the capability's summary (or title), sanitized to one
// line and bounded by MaxDescription, with what the tool declares it does.
func description(e *entry) string {
	s := e.cap.Summary
	if s == "" {
		s = e.cap.Title
	}
	s = render.SanitizeLine(s)
	if len(s) > MaxDescription {
		s = strings.ToValidUTF8(s[:MaxDescription], "") + "…"
	}
	if e.cap.LongRunning {
		summary := s
		s += " (Long-running: the call follows the job and may return its handle; the modbay_job_* tools follow it."
		// The summary may name the poll or cancel capability, which are
		// not served (docs/protocol.md §12): say what stands for them.
		for _, hidden := range []struct{ id, tool string }{{e.cap.PollCapability, ToolJobStatus}, {e.cap.CancelCapability, ToolJobCancel}} {
			if hidden.id != "" && strings.Contains(summary, hidden.id) {
				s += " " + render.SanitizeLine(hidden.id) + " is not a tool here: call " + hidden.tool + " with the run id instead."
			}
		}
		s += ")"
	}
	return s
}

// annotations derives the hints from the declared effects: read-only with
// no writes and no network, open world with network, destructive with
// external writes.
func annotations(d *modproto.Descriptor, c modproto.Capability) *mcp.ToolAnnotations {
	ef := c.Effects
	writes := ef.ExternalWrites || len(d.Permissions.FilesystemWrite) > 0
	network, destructive := ef.Network, ef.ExternalWrites
	return &mcp.ToolAnnotations{ReadOnlyHint: !writes && !ef.Network, OpenWorldHint: &network, DestructiveHint: &destructive}
}

// InputSchema adapts a request schema for tools/list (docs/gateway.md
// "Input schemas"): the root is an object (a non-object root, or none,
// is served as {"type": "object"} and the module's schema still judges
// the input), local $refs are inlined up to maxSchemaDepth and
// maxSchemaNodes, and host-owned fields of a whole-request schema are
// stripped (the host sets them, docs/protocol.md §4).
func InputSchema(doc json.RawMessage) map[string]any {
	var root map[string]any
	if len(doc) == 0 || json.Unmarshal(doc, &root) != nil || root == nil {
		return map[string]any{"type": "object"}
	}
	if t, ok := root["type"]; ok && t != "object" {
		return map[string]any{"type": "object"}
	}
	nodes := 0
	out, _ := inline(root, root, 0, &nodes).(map[string]any)
	if out == nil {
		return map[string]any{"type": "object"}
	}
	out["type"] = "object"
	if modproto.IsWholeRequestSchema(doc) {
		if props, ok := out["properties"].(map[string]any); ok {
			for k := range props {
				if hostSet(k) {
					delete(props, k)
				}
			}
		}
		if req, ok := out["required"].([]any); ok {
			out["required"] = slices.DeleteFunc(req, func(v any) bool {
				s, _ := v.(string)
				return hostSet(s)
			})
		}
	}
	delete(out, "$defs")
	delete(out, "definitions")
	delete(out, "$id")
	delete(out, "$schema")
	return out
}

// hostSet reports whether the host sets request key k itself: every
// host-owned key but "input", which SplitWholeRequest takes from the
// value given (docs/protocol.md §4).
func hostSet(k string) bool { return k != "input" && modproto.IsHostOwnedKey(k) }

// OutputSchema is a result schema as outputSchema, or nil unless its root
// is an object (MCP requires an object there).
func OutputSchema(doc json.RawMessage) map[string]any {
	var root map[string]any
	if len(doc) == 0 || json.Unmarshal(doc, &root) != nil || root["type"] != "object" {
		return nil
	}
	nodes := 0
	out, _ := inline(root, root, 0, &nodes).(map[string]any)
	if out != nil {
		delete(out, "$defs")
		delete(out, "definitions")
		delete(out, "$id")
		delete(out, "$schema")
	}
	return out
}

// inline copies v with every local "$ref" ("#/$defs/x", "#/definitions/x",
// "#/...") replaced by what it names; past the bounds a reference is {}.
func inline(root map[string]any, v any, depth int, nodes *int) any {
	*nodes++
	if *nodes > maxSchemaNodes || depth > maxSchemaDepth {
		return map[string]any{}
	}
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok {
			target, found := resolvePointer(root, ref)
			if !found {
				return map[string]any{}
			}
			return inline(root, target, depth+1, nodes)
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			if k == "$defs" || k == "definitions" {
				continue
			}
			out[k] = inline(root, e, depth, nodes)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = inline(root, e, depth, nodes)
		}
		return out
	}
	return v
}

// resolvePointer follows a local JSON pointer reference ("#/a/b") in root.
func resolvePointer(root map[string]any, ref string) (any, bool) {
	p, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	var cur any = root
	for tok := range strings.SplitSeq(strings.TrimPrefix(p, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = jsonptr.Unescape(tok)
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[tok]; !ok {
			return nil, false
		}
	}
	return cur, true
}
