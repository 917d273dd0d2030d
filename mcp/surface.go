package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
)

// A server's resources and prompts are reached through hidden
// capabilities of its module (docs/protocol.md §17), so a read or a
// prompt goes through planning, the artifact checks, staging and the
// history like a tool call (docs/mcp.md, Resources and prompts). Their
// ids keep the capability id grammar (docs/protocol.md §13): a template's
// or prompt's name follows its prefix with every other character made
// '-' (surfaceID).
const (
	// CapRead reads one resource: input {"uri": URI}.
	CapRead = "mcp.resources.read"
	// TemplatePrefix starts the capability of a resource template: its
	// input is the template's variables, the URI is expanded from them
	// and read.
	TemplatePrefix = "mcp.resources.template."
	// PromptPrefix starts the capability of a prompt: its input is the
	// prompt's arguments.
	PromptPrefix = "mcp.prompts.get."
)

// Bounds of what is taken from a server's lists: past them the rest are
// left out with a warning (or More set), so a server cannot make the host
// hold an unbounded list.
const (
	// MaxPrompts and MaxTemplates bound the prompts and templates made
	// capabilities.
	MaxPrompts   = 200
	MaxTemplates = 200
	// MaxResources bounds the resources one listing keeps (all pages).
	MaxResources = 1000
	// maxPromptArgs bounds one prompt's (or template's) arguments.
	maxPromptArgs = 64
	// maxReadContents bounds the contents kept of one resources/read.
	maxReadContents = 64
	// maxListedText bounds each string kept of a listed item, in runes.
	maxListedText = 2048
	// MaxCompletions bounds the values kept of one completion/complete.
	MaxCompletions = 100
	// maxCompletionText bounds one completion value, in runes.
	maxCompletionText = 200
)

// readSchema is CapRead's request schema.
var readSchema = json.RawMessage(`{"type":"object","properties":{"uri":{"type":"string","title":"URI","description":"the resource's URI, as the server lists it"}},"required":["uri"],"additionalProperties":false}`)

// surfaceState is what the driver keeps of a server's resources,
// templates and prompts between calls.
type surfaceState struct {
	mu sync.Mutex
	// templates maps a template's capability id to its URI template,
	// prompts a prompt's to its name, as last listed (nil before).
	templates, prompts map[string]string
	// taskTools are the tools the last tools/list marked
	// execution.taskSupport "required" (noteTaskTools).
	taskTools map[string]bool
	// subs are the resources subscribed to, by URI, with the session the
	// subscription belongs to (a new session has none).
	subs map[string]*session
	// updates count the notifications/resources/updated per URI, with the
	// last one's time.
	updates map[string]Update
	// watchers get every change the server announces.
	watchers map[int]func(runner.Change)
	nextW    int
}

// Update is what is known of a subscribed resource's updates: how many
// notifications/resources/updated came, and when the last did.
type Update struct {
	Count int
	Last  time.Time
}

// surfaceOf lists the prompts and resource templates of s (all pages,
// bounded) when the server offers them, for the hidden capabilities.
func surfaceOf(ctx context.Context, s *session) (prompts []*sdk.Prompt, templates []*sdk.ResourceTemplate, problems []string) {
	caps := serverCaps(s)
	if caps.Prompts != nil {
		for p, err := range s.cs.Prompts(ctx, nil) {
			if err != nil {
				problems = append(problems, "prompts/list: "+oneLine(err.Error()))
				break
			}
			if p != nil {
				prompts = append(prompts, p)
			}
			if len(prompts) > MaxPrompts {
				break
			}
		}
	}
	if caps.Resources != nil {
		for t, err := range s.cs.ResourceTemplates(ctx, nil) {
			if err != nil {
				problems = append(problems, "resources/templates/list: "+oneLine(err.Error()))
				break
			}
			if t != nil {
				templates = append(templates, t)
			}
			if len(templates) > MaxTemplates {
				break
			}
		}
	}
	return prompts, templates, problems
}

// serverCaps is s's server capabilities, never nil.
func serverCaps(s *session) *sdk.ServerCapabilities {
	if ir := s.cs.InitializeResult(); ir != nil && ir.Capabilities != nil {
		return ir.Capabilities
	}
	return &sdk.ServerCapabilities{}
}

// surfaceID is the capability id of the template or prompt called name
// under prefix: name's characters outside the id grammar become '-', cut
// to fit; an id taken (by a tool, or an earlier name) gets "-2", "-3", ….
// The server's order decides, so every listing gives the same ids.
func surfaceID(prefix, name string, taken map[string]bool) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '-'
		}
	}
	base := prefix + string(b)
	const room = modproto.MaxCapabilityIDBytes - len("-999")
	if len(base) > room {
		base = base[:room]
	}
	id := base
	for n := 2; taken[id]; n++ {
		id = fmt.Sprintf("%s-%d", base, n)
	}
	return id
}

// addSurface adds to d the hidden capabilities of s's resources (CapRead
// and one per template) and prompts, re-encoding env's result; what it
// leaves out becomes env's warnings. It keeps each template's URI and
// each prompt's name by capability id, for Invoke and Complete.
func (d *Driver) addSurface(ctx context.Context, s *session, desc *modproto.Descriptor, env *modproto.Envelope) {
	prompts, templates, problems := surfaceOf(ctx, s)
	env.Warnings = append(env.Warnings, problems...)
	eff := modproto.Effects{Local: d.srv.Transport() == "stdio"}
	taken := map[string]bool{}
	for _, c := range desc.Capabilities {
		taken[c.ID] = true
	}
	add := func(c modproto.Capability, schema json.RawMessage) {
		if taken[c.ID] {
			env.Warnings = append(env.Warnings, fmt.Sprintf("%s is a tool's name: modbay's reading of resources is not offered", render.SanitizeLine(c.ID)))
			return
		}
		taken[c.ID] = true
		c.Hidden, c.Effects = true, eff
		c.RequestSchema = c.ID + ".input"
		desc.RequestSchemas[c.RequestSchema] = schema
		desc.Capabilities = append(desc.Capabilities, c)
	}
	if serverCaps(s).Resources != nil {
		add(modproto.Capability{ID: CapRead, Title: "Read a resource", Summary: "MCP resources/read: the resource's contents, each an artifact",
			ArtifactSchemas: []string{KindResource}}, readSchema)
	}
	tmpl, names := map[string]string{}, map[string]string{}
	for i, t := range templates {
		if i >= MaxTemplates {
			env.Warnings = append(env.Warnings, fmt.Sprintf("the server lists more than %d resource templates; the rest are not offered", MaxTemplates))
			break
		}
		if t.Name == "" || t.URITemplate == "" {
			env.Warnings = append(env.Warnings, fmt.Sprintf("resource template #%d has no name or URI template; skipped", i))
			continue
		}
		vars, err := templateVars(t.URITemplate)
		if err != nil {
			env.Warnings = append(env.Warnings, fmt.Sprintf("resource template %s: %v; skipped", render.SanitizeLine(t.Name), err))
			continue
		}
		args := make([]argSpec, 0, len(vars))
		for _, v := range vars {
			args = append(args, argSpec{name: v.name, required: v.required})
		}
		summary := summaryOf(t.Description)
		if summary == "" {
			summary = "MCP resource template " + render.SanitizeLine(t.URITemplate)
		}
		id := surfaceID(TemplatePrefix, t.Name, taken)
		tmpl[id] = t.URITemplate
		add(modproto.Capability{ID: id, Title: render.SanitizeLine(firstNonEmpty(t.Title, t.Name)), Summary: summary,
			ArtifactSchemas: []string{KindResource}}, argsSchema(args))
	}
	for i, p := range prompts {
		if i >= MaxPrompts {
			env.Warnings = append(env.Warnings, fmt.Sprintf("the server lists more than %d prompts; the rest are not offered", MaxPrompts))
			break
		}
		if p.Name == "" {
			env.Warnings = append(env.Warnings, fmt.Sprintf("prompt #%d has no name; skipped", i))
			continue
		}
		var args []argSpec
		for _, a := range p.Arguments {
			if a == nil || a.Name == "" {
				continue
			}
			if len(args) == maxPromptArgs {
				env.Warnings = append(env.Warnings, fmt.Sprintf("prompt %s has more than %d arguments; the rest are left out", render.SanitizeLine(p.Name), maxPromptArgs))
				break
			}
			args = append(args, argSpec{name: a.Name, title: a.Title, description: a.Description, required: a.Required})
		}
		summary := summaryOf(p.Description)
		if summary == "" {
			summary = "MCP prompt " + render.SanitizeLine(p.Name) + " (the server gave no description)"
		}
		id := surfaceID(PromptPrefix, p.Name, taken)
		names[id] = p.Name
		add(modproto.Capability{ID: id, Title: render.SanitizeLine(firstNonEmpty(p.Title, p.Name)), Summary: summary,
			ArtifactSchemas: kinds}, argsSchema(args))
	}
	d.surf.mu.Lock()
	d.surf.templates, d.surf.prompts = tmpl, names
	d.surf.mu.Unlock()
	desc.Normalize()
	if b, err := json.Marshal(desc); err == nil {
		env.Result = b
	}
}

// argSpec is one string argument of a prompt or template.
type argSpec struct {
	name, title, description string
	required                 bool
}

// argsSchema is the request schema of string arguments: an object of
// string properties, the required ones required, nothing else allowed.
func argsSchema(args []argSpec) json.RawMessage {
	props := map[string]any{}
	required := []string{}
	for _, a := range args {
		p := map[string]any{"type": "string"}
		if a.title != "" {
			p["title"] = a.title
		}
		if a.description != "" {
			p["description"] = a.description
		}
		props[a.name] = p
		if a.required {
			required = append(required, a.name)
		}
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false})
	return b
}

// surfaceCall answers a call of a hidden capability (CapRead,
// TemplatePrefix, PromptPrefix) on s, raw giving the result as the
// server sent it once answered: the envelope and content blocks;
// handled is false for any other capability (a tool). An input it
// cannot send is an error envelope (invalid_request); err is the
// request's failure (a JSON-RPC error, a broken session).
func (d *Driver) surfaceCall(ctx context.Context, s *session, req modproto.Request, raw func() json.RawMessage) (env []byte, blocks []runner.ContentBlock, handled bool, err error) {
	capID := req.Capability
	var args map[string]string
	if capID != CapRead {
		if !strings.HasPrefix(capID, TemplatePrefix) && !strings.HasPrefix(capID, PromptPrefix) {
			return nil, nil, false, nil
		}
		if len(req.Input) > 0 {
			if e := json.Unmarshal(req.Input, &args); e != nil {
				return refusal(d.id, req, "the input is not an object of strings"), nil, true, nil
			}
		}
	}
	switch {
	case capID == CapRead:
		var in struct {
			URI string `json:"uri"`
		}
		if e := json.Unmarshal(req.Input, &in); e != nil || in.URI == "" {
			return refusal(d.id, req, "the input names no uri"), nil, true, nil
		}
		env, blocks, err = d.read(ctx, s, req, in.URI, raw)
	case strings.HasPrefix(capID, TemplatePrefix):
		tmpl, e := d.surfaceName(ctx, s, capID)
		if e != nil {
			return refusal(d.id, req, e.Error()), nil, true, nil
		}
		uri, e := expandTemplate(tmpl, args)
		if e != nil {
			return refusal(d.id, req, render.SanitizeLine(e.Error())), nil, true, nil
		}
		env, blocks, err = d.read(ctx, s, req, uri, raw)
	default:
		name, e := d.surfaceName(ctx, s, capID)
		if e != nil {
			return refusal(d.id, req, e.Error()), nil, true, nil
		}
		env, blocks, err = d.getPrompt(ctx, s, req, name, args, raw)
	}
	return env, blocks, true, err
}

// surfaceName is what capability capID stands for: a template's URI
// template, or a prompt's name. When this process has not listed them (a
// module described from the cache), it lists the server's tools, prompts
// and templates first, as a describe does, so the ids are the same.
func (d *Driver) surfaceName(ctx context.Context, s *session, capID string) (string, error) {
	look := func() (string, bool, bool) {
		d.surf.mu.Lock()
		defer d.surf.mu.Unlock()
		m := d.surf.prompts
		if strings.HasPrefix(capID, TemplatePrefix) {
			m = d.surf.templates
		}
		v, ok := m[capID]
		return v, ok, m != nil
	}
	v, ok, listed := look()
	if !ok && !listed {
		if _, _, err := d.list(ctx, s); err != nil {
			return "", err
		}
		v, ok, _ = look()
	}
	if !ok {
		return "", fmt.Errorf("the server lists no resource template or prompt that is %s now", render.SanitizeLine(capID))
	}
	return v, nil
}

// surfaceIDOf is the capability id of the template (kind "template") or
// prompt called name, as last listed; "" when unknown.
func (d *Driver) surfaceIDOf(kind, name string) string {
	d.surf.mu.Lock()
	defer d.surf.mu.Unlock()
	if kind == "template" {
		// Templates are keyed by their URI template's id; name them by
		// the listed template's URI.
		for id, t := range d.surf.templates {
			if t == name {
				return id
			}
		}
		return ""
	}
	best := ""
	for id, n := range d.surf.prompts {
		if n == name && (best == "" || len(id) < len(best) || len(id) == len(best) && id < best) {
			best = id
		}
	}
	return best
}

// read reads uri (resources/read) and makes its invoke envelope: result
// {"uri", "contents": [{"uri", "mimeType", "artifact"}]}, each content
// an mcp.resource block (text as given, a blob as its bytes), judged as
// the server sent it (raw, the result recorded for the call) when there
// is one, so a blob the SDK cannot decode is judged rather than failing
// the read.
func (d *Driver) read(ctx context.Context, s *session, req modproto.Request, uri string, raw func() json.RawMessage) ([]byte, []runner.ContentBlock, error) {
	params := &sdk.ReadResourceParams{URI: uri}
	params.SetProgressToken(req.RequestID)
	_, err := s.cs.ReadResource(ctx, params)
	sent := raw()
	if sent == nil {
		if err == nil {
			err = errors.New("no result was recorded for the read")
		}
		return nil, nil, err
	}
	var res struct {
		Contents []json.RawMessage `json:"contents"`
	}
	if e := json.Unmarshal(sent, &res); e != nil {
		return nil, nil, fmt.Errorf("the resources/read result is not a result object: %s", oneLine(e.Error()))
	}
	env := invokeEnvelope(d.id, req)
	type content struct {
		URI      string `json:"uri"`
		MIMEType string `json:"mimeType,omitempty"`
		Artifact string `json:"artifact"`
	}
	listed := []content{}
	var blocks []runner.ContentBlock
	for i, c := range res.Contents {
		if i == maxReadContents {
			env.Warnings = append(env.Warnings, fmt.Sprintf("the server sent more than %d contents; the rest are not kept", maxReadContents))
			break
		}
		var head struct {
			URI      string `json:"uri"`
			MIMEType string `json:"mimeType"`
		}
		_ = json.Unmarshal(c, &head)
		j := blockOf(i, json.RawMessage(`{"type":"resource","resource":`+string(c)+`}`))
		env.Warnings = append(env.Warnings, j.warnings...)
		if j.block == nil {
			continue
		}
		blocks = append(blocks, *j.block)
		listed = append(listed, content{URI: head.URI, MIMEType: head.MIMEType, Artifact: j.block.Artifact.ID})
	}
	if len(res.Contents) == 0 {
		env.Warnings = append(env.Warnings, "the server sent no contents")
	}
	env.OK = true
	env.Result, _ = json.Marshal(map[string]any{"uri": uri, "contents": listed})
	out, err := json.Marshal(env)
	return out, blocks, err
}

// getPrompt gets prompt name with args (prompts/get) and makes its invoke
// envelope: result {"description", "messages": [{"role", "type",
// "artifact"}]}, each message's content judged as a tool result's block
// would be (blockOf), as the server sent it (raw).
func (d *Driver) getPrompt(ctx context.Context, s *session, req modproto.Request, name string, args map[string]string, raw func() json.RawMessage) ([]byte, []runner.ContentBlock, error) {
	params := &sdk.GetPromptParams{Name: name, Arguments: args}
	params.SetProgressToken(req.RequestID)
	_, err := s.cs.GetPrompt(ctx, params)
	sent := raw()
	if sent == nil {
		if err == nil {
			err = errors.New("no result was recorded for the prompt")
		}
		return nil, nil, err
	}
	var res struct {
		Description string `json:"description"`
		Messages    []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if e := json.Unmarshal(sent, &res); e != nil {
		return nil, nil, fmt.Errorf("the prompts/get result is not a result object: %s", oneLine(e.Error()))
	}
	env := invokeEnvelope(d.id, req)
	msgs := []promptMessage{}
	blocks := []runner.ContentBlock{{}} // the conversation, first
	for i, m := range res.Messages {
		var head struct {
			Type string `json:"type"`
			URI  string `json:"uri"`
		}
		_ = json.Unmarshal(m.Content, &head)
		j := blockOf(i, m.Content)
		env.Warnings = append(env.Warnings, j.warnings...)
		pm := promptMessage{Role: m.Role, Type: head.Type, text: j.text, uri: head.URI}
		if j.block != nil {
			blocks = append(blocks, *j.block)
			pm.Artifact, pm.media = j.block.Artifact.ID, j.block.Artifact.MediaType
		}
		msgs = append(msgs, pm)
	}
	blocks[0] = runner.ContentBlock{
		Artifact: modproto.Artifact{ID: promptArtifact, Kind: KindPrompt, MediaType: "text/markdown",
			Title: render.SanitizeLine(cutRunes("Prompt "+name, maxPromptTitle)), Path: promptArtifact + ".md"},
		Data: promptDocument(name, res.Description, msgs),
	}
	env.OK = true
	env.Result, _ = json.Marshal(map[string]any{"description": res.Description, "messages": msgs, "conversation": promptArtifact})
	out, err := json.Marshal(env)
	return out, blocks, err
}

// promptArtifact is the id (and file name) of a prompt's conversation.
const promptArtifact = "conversation"

// maxPromptTitle bounds the conversation's title, in runes.
const maxPromptTitle = 120

// promptMessage is one message of a prompt's result: as the invoke
// result lists it (role, content type, its block's artifact), and what
// the conversation shows of it.
type promptMessage struct {
	Role     string `json:"role"`
	Type     string `json:"type"`
	Artifact string `json:"artifact,omitempty"`
	text     *string
	uri      string
	media    string
}

// promptDocument is a prompt's messages as one Markdown conversation: the
// prompt's name and description as the title, then per message a heading
// with its number and role and its text as a block quote, so no heading
// a server writes in a message reads as the next message's; a block
// other than text is named with its artifact. Every string is the
// server's: the heading's are made one line; the text is left to the
// Markdown renderer, which sanitizes.
func promptDocument(name, description string, msgs []promptMessage) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Prompt %s\n\n", mdLine(name))
	if description != "" {
		fmt.Fprintf(&b, "%s\n\n", mdLine(description))
	}
	if len(msgs) == 0 {
		b.WriteString("*The server returned no messages.*\n")
	}
	for i, m := range msgs {
		role := m.Role
		if role != "user" && role != "assistant" {
			role = "role “" + mdLine(cutRunes(role, 40)) + "”"
		}
		fmt.Fprintf(&b, "## %d of %d · %s\n\n", i+1, len(msgs), role)
		switch {
		case m.text != nil:
			for _, l := range strings.Split(strings.TrimRight(*m.text, "\n"), "\n") {
				b.WriteString(strings.TrimRight("> "+l, " ") + "\n")
			}
		case m.Artifact != "":
			what := mdLine(m.Type) + " content"
			if m.media != "" {
				what += ", " + mdLine(m.media)
			}
			if m.uri != "" {
				what += ", " + mdLine(cutRunes(m.uri, 200))
			}
			fmt.Fprintf(&b, "*(%s: artifact `%s`)*\n", what, m.Artifact)
		default:
			fmt.Fprintf(&b, "*(%s content, not kept: see the warnings)*\n", mdLine(m.Type))
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// mdLine is s on one line, sanitized, with Markdown's inline marks
// escaped: a heading's or a note's text as the server sent it.
func mdLine(s string) string {
	s = render.SanitizeLine(s)
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]<>#|~", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// refusal is an error envelope answering req: the bridge cannot send
// it (CodeInvalidRequest, msg).
func refusal(module string, req modproto.Request, msg string) []byte {
	env := invokeEnvelope(module, req)
	env.Error = &modproto.Error{Code: modproto.CodeInvalidRequest, Message: msg, Details: map[string]any{}}
	out, _ := json.Marshal(env)
	return out
}

// invokeEnvelope is an empty invoke envelope answering req.
func invokeEnvelope(module string, req modproto.Request) *modproto.Envelope {
	return &modproto.Envelope{Protocol: modproto.ProtocolID, Module: module, Operation: modproto.OperationInvoke, RequestID: req.RequestID,
		Warnings: []string{}, Execution: modproto.Execution{Artifacts: []modproto.Artifact{}}}
}

// Resources lists the server's resources (resources/list, every page, at
// most MaxResources; more says the server listed more), connecting when
// needed; strings as sent, each bounded (sanitize to show). A server
// without resources lists none.
func (d *Driver) Resources(ctx context.Context) (out []runner.Resource, more bool, err error) {
	s, err := d.connect(ctx)
	if err != nil {
		return nil, false, err
	}
	if serverCaps(s).Resources == nil {
		return nil, false, nil
	}
	for r, err := range s.cs.Resources(ctx, nil) {
		if err != nil {
			return out, false, fmt.Errorf("resources/list: %w", err)
		}
		if r == nil {
			continue
		}
		if len(out) == MaxResources {
			return out, true, nil
		}
		res := runner.Resource{URI: bounded(r.URI), Name: bounded(r.Name), Title: bounded(r.Title),
			Description: bounded(r.Description), MIMEType: bounded(r.MIMEType), Size: r.Size}
		res.Audience, res.Priority, res.LastModified, res.Icons = resourceMeta(r)
		out = append(out, res)
	}
	return out, false, nil
}

// bounded is s cut to maxListedText runes.
func bounded(s string) string {
	if utf8.RuneCountInString(s) <= maxListedText {
		return s
	}
	return string([]rune(s)[:maxListedText]) + "…"
}

// ReadCapability is the id of the capability that reads a resource by
// URI (CapRead), for the cockpit's resources view and resource links.
func (d *Driver) ReadCapability() string { return CapRead }

// ConversationKind is the artifact kind of a prompt's messages as one
// conversation (KindPrompt): the cockpit opens it when the prompt's
// result comes.
func (d *Driver) ConversationKind() string { return KindPrompt }

// LinkKind is the artifact kind of a resource link (KindLink): its
// staged record's "uri" is read with ReadCapability.
func (d *Driver) LinkKind() string { return KindLink }

// SurfaceKind says what hidden capability capID stands for: "template"
// (a resource template), "prompt", or "" (anything else).
func (d *Driver) SurfaceKind(capID string) string {
	switch {
	case strings.HasPrefix(capID, TemplatePrefix):
		return "template"
	case strings.HasPrefix(capID, PromptPrefix):
		return "prompt"
	}
	return ""
}

// PromptCapability is the capability id of the prompt called name,
// connecting and listing when this process has not listed the server;
// an error when it lists no such prompt.
func (d *Driver) PromptCapability(ctx context.Context, name string) (string, error) {
	if id := d.surfaceIDOf("prompt", name); id != "" {
		return id, nil
	}
	s, err := d.connect(ctx)
	if err != nil {
		return "", err
	}
	if _, _, err := d.list(ctx, s); err != nil {
		return "", err
	}
	if id := d.surfaceIDOf("prompt", name); id != "" {
		return id, nil
	}
	return "", fmt.Errorf("the server lists no prompt named %q", render.SanitizeLine(name))
}

// TemplateURI is the URI template capability capID expands, as last
// listed in this process; "" when unknown. It does no I/O.
func (d *Driver) TemplateURI(capID string) string {
	d.surf.mu.Lock()
	defer d.surf.mu.Unlock()
	return d.surf.templates[capID]
}
