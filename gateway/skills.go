package gateway

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/render"
	"modbay/runner"
	"modbay/skills"
)

// Skills for agents (docs/gateway.md "Skills"): each usable skill folder
// and each module skill is an MCP prompt; SKILL.md, a folder skill's
// resources and a module's skills and overlays are MCP resources.

// skillURIPrefix and moduleDocURIPrefix begin the skills' resource URIs.
const (
	skillURIPrefix     = "modbay://skills/"
	moduleDocURIPrefix = "modbay://modules/"
)

// offered is what one prompt or resource stands for: a folder skill (its
// record as listed, and a resource location in it, "" for SKILL.md), or
// a module document.
type offered struct {
	record *skills.Record
	loc    string
	doc    *skills.Doc
}

// refreshSkills replaces the served prompts and skill resources with
// those of the skill folders and of mods' descriptors.
func (s *Server) refreshSkills(mods []*runner.Module) {
	prompts := map[string]offered{}
	resources := map[string]offered{}
	var promptDefs []*mcp.Prompt
	var resourceDefs []*mcp.Resource
	if len(s.opts.SkillFolders) > 0 {
		cat := skills.Scan(s.opts.SkillFolders, s.opts.SkillWritableRoots)
		for i := range cat.Skills {
			r := &cat.Skills[i]
			if !r.Usable() {
				continue
			}
			name := ToolName("skill_"+r.Key.Name, false)
			if _, dup := prompts[name]; dup {
				continue
			}
			prompts[name] = offered{record: r}
			p := &mcp.Prompt{Name: name, Title: render.SanitizeLine(r.Key.Name), Description: oneLineCut(r.Description)}
			for _, a := range r.Arguments {
				p.Arguments = append(p.Arguments, &mcp.PromptArgument{Name: a.Name, Description: oneLineCut(a.Description)})
			}
			promptDefs = append(promptDefs, p)
			base := skillURIPrefix + url.PathEscape(r.Key.Name) + "/"
			resources[base+skills.FileName] = offered{record: r}
			resourceDefs = append(resourceDefs, &mcp.Resource{URI: base + skills.FileName, Name: name + "/" + skills.FileName,
				MIMEType: "text/markdown", Description: "The skill " + render.SanitizeLine(r.Key.Name) + " as its SKILL.md says it."})
			for _, loc := range r.Resources.Locations {
				uri := base + escapePath(loc)
				resources[uri] = offered{record: r, loc: loc}
				resourceDefs = append(resourceDefs, &mcp.Resource{URI: uri, Name: name + "/" + render.SanitizeLine(loc),
					Description: "A resource of the skill " + render.SanitizeLine(r.Key.Name) + "."})
			}
		}
	}
	for _, m := range mods {
		if m.Status != runner.StatusReady {
			continue
		}
		for _, d := range skills.Docs(m.ID, m.Dir, m.Descriptor) {
			kind := "skills"
			if d.Kind == skills.KindOverlay {
				kind = "overlays"
			}
			uri := moduleDocURIPrefix + url.PathEscape(m.ID) + "/" + kind + "/" + url.PathEscape(d.ID)
			resources[uri] = offered{doc: &d}
			resourceDefs = append(resourceDefs, &mcp.Resource{URI: uri, Name: render.SanitizeLine(m.ID + "/" + d.ID), MIMEType: "text/markdown",
				Description: oneLineCut(firstOf(d.Summary, d.Title, "The "+d.Kind+" "+d.ID+" of module "+m.ID))})
			if d.Kind != skills.KindSkill {
				continue
			}
			name := ToolName(m.ID+"_"+d.ID, false)
			if _, dup := prompts[name]; dup {
				continue
			}
			prompts[name] = offered{doc: &d}
			promptDefs = append(promptDefs, &mcp.Prompt{Name: name, Title: render.SanitizeLine(m.ID + "/" + d.ID),
				Description: oneLineCut(firstOf(d.Summary, d.Title, "A skill of module "+m.ID))})
		}
	}
	s.mu.Lock()
	s.prompts, s.resources = prompts, resources
	s.mu.Unlock()
	// Only what came, went or changed is removed and added: each removal
	// or addition sends the client a list_changed.
	nextPrompts := map[string]string{}
	for _, p := range promptDefs {
		nextPrompts[p.Name], _ = jsonOf(p)
	}
	nextResources := map[string]string{}
	for _, r := range resourceDefs {
		nextResources[r.URI], _ = jsonOf(r)
	}
	if gone := changedKeys(s.servedPrompts, nextPrompts); len(gone) > 0 {
		s.srv.RemovePrompts(gone...)
	}
	if gone := changedKeys(s.servedResources, nextResources); len(gone) > 0 {
		s.srv.RemoveResources(gone...)
	}
	for _, p := range promptDefs {
		if old, ok := s.servedPrompts[p.Name]; !ok || old != nextPrompts[p.Name] {
			s.srv.AddPrompt(p, s.getPrompt)
		}
	}
	for _, r := range resourceDefs {
		if old, ok := s.servedResources[r.URI]; !ok || old != nextResources[r.URI] {
			s.srv.AddResource(r, s.readSkillResource)
		}
	}
	s.servedPrompts, s.servedResources = nextPrompts, nextResources
}

// changedKeys are the keys of old that next lacks or holds otherwise.
func changedKeys(old, next map[string]string) []string {
	var out []string
	for k, v := range old {
		if n, ok := next[k]; !ok || n != v {
			out = append(out, k)
		}
	}
	return out
}

// getPrompt renders a skill: a folder skill's body with the arguments
// given (as `modbay skills show` renders it), read again and refused when
// its SKILL.md changed since it was listed; a module skill's body, its
// declared digest checked.
func (s *Server) getPrompt(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	s.mu.Lock()
	o, ok := s.prompts[req.Params.Name]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("unknown prompt %q", req.Params.Name)
	}
	var text, desc string
	if o.doc != nil {
		b, err := o.doc.Load()
		if err != nil {
			return nil, fmt.Errorf("skill %s/%s: %v", o.doc.Module, o.doc.ID, err)
		}
		text, desc = o.doc.Body(b), o.doc.Summary
	} else {
		r, err := reindex(o.record)
		if err != nil {
			return nil, err
		}
		text, desc = skills.Render(r.Body, r.Arguments, req.Params.Arguments).Text, r.Description
	}
	return &mcp.GetPromptResult{Description: oneLineCut(desc),
		Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
}

// reindex reads r's folder again: an error when its SKILL.md no longer
// has the digest it had when listed (docs/skills.md).
func reindex(r *skills.Record) (skills.Record, error) {
	now, err := skills.Index(r.Key.Location)
	if err != nil {
		return now, fmt.Errorf("skill %s: %v", r.Key.Name, err)
	}
	if now.Digest != r.Digest {
		return now, fmt.Errorf("skill %s: its SKILL.md changed since it was listed (%s, now %s); list the prompts again", r.Key.Name, r.Digest, now.Digest)
	}
	return now, nil
}

// readSkillResource reads a skill's SKILL.md or resource (confined to
// the skill's folder), or a module's skill or overlay (its digest checked).
func (s *Server) readSkillResource(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	s.mu.Lock()
	o, ok := s.resources[uri]
	s.mu.Unlock()
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	c := &mcp.ResourceContents{URI: uri}
	switch {
	case o.doc != nil:
		b, err := o.doc.Load()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", uri, err)
		}
		c.MIMEType, c.Text = "text/markdown", string(b)
	case o.loc == "":
		if _, err := reindex(o.record); err != nil {
			return nil, err
		}
		b, err := skills.ReadResourceBytes(o.record.Key.Location, skills.FileName)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", uri, err)
		}
		c.MIMEType, c.Text = "text/markdown", string(b)
	default:
		res, err := skills.ReadResource(o.record.Key.Location, o.loc, "")
		if err != nil {
			b, berr := skills.ReadResourceBytes(o.record.Key.Location, o.loc)
			if berr != nil {
				return nil, fmt.Errorf("%s: %v", uri, berr)
			}
			c.Blob = b
		} else {
			c.Text = res.Content
		}
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
}

// escapePath escapes each segment of a slash-relative location.
func escapePath(loc string) string {
	parts := strings.Split(path.Clean(loc), "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}

// oneLineCut is module or skill text as one sanitized line of at most
// MaxDescription bytes.
func oneLineCut(s string) string {
	s = render.SanitizeLine(s)
	if len(s) > MaxDescription {
		s = cut(s[:MaxDescription])
	}
	return strings.TrimSuffix(s, "…")
}

func firstOf(ss ...string) string {
	i := slices.IndexFunc(ss, func(s string) bool { return s != "" })
	if i < 0 {
		return ""
	}
	return ss[i]
}
