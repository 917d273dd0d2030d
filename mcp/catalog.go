package mcp

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/render"
	"modbay/runner"
)

// MaxCatalog bounds the resources and the prompts kept of one server
// (each): the detail pane lists them, it does not browse them.
const MaxCatalog = 50

// maxCatalogLine bounds one catalog line, in runes.
const maxCatalogLine = 160

// Catalog is what a server offers beside its tools, shown read-only in
// the cockpit's detail pane: one line per
// resource ("name — uri · media type") and per prompt ("name — description
// (arguments)"), sanitized and bounded (MaxCatalog, maxCatalogLine).
// More says how many more the server listed past the bound.
type Catalog struct {
	Resources     []string `json:"resources,omitempty"`
	MoreResources bool     `json:"more_resources,omitempty"`
	Prompts       []string `json:"prompts,omitempty"`
	MorePrompts   bool     `json:"more_prompts,omitempty"`
	// Problems say which list the server failed to answer.
	Problems []string `json:"problems,omitempty"`
	// Listed is the same lists as records (describe --json).
	Listed *Listing `json:"listed,omitempty"`
}

// Listing is a server's resources, resource templates and prompts as
// records, the first MaxCatalog of each, every string sanitized and
// bounded; Subscribe and Completions say what the server offers. A
// template's and a prompt's Capability is the hidden capability that
// reads or gets it (surface.go).
type Listing struct {
	Resources   []ListedResource `json:"resources"`
	Templates   []ListedTemplate `json:"resource_templates"`
	Prompts     []ListedPrompt   `json:"prompts"`
	Subscribe   bool             `json:"subscribe"`
	Completions bool             `json:"completions"`
}

// ListedResource is one resource (MCP resources/list), with its
// annotations and its icons' metadata (never fetched).
type ListedResource struct {
	URI         string             `json:"uri"`
	Name        string             `json:"name"`
	Title       string             `json:"title,omitempty"`
	Description string             `json:"description,omitempty"`
	MIMEType    string             `json:"mimeType,omitempty"`
	Size        int64              `json:"size,omitempty"`
	Annotations *ListedAnnotations `json:"annotations,omitempty"`
	Icons       []ListedIcon       `json:"icons,omitempty"`
}

// ListedAnnotations are a resource's annotations as the server gave them.
type ListedAnnotations struct {
	Audience     []string `json:"audience,omitempty"`
	Priority     float64  `json:"priority,omitempty"`
	LastModified string   `json:"lastModified,omitempty"`
}

// ListedIcon is one icon's metadata: src is its URL, or a description of
// a data: URI (runner.Icon).
type ListedIcon struct {
	Source   string   `json:"src"`
	MIMEType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"`
}

// maxIcons and maxAudience bound the icons and audience roles kept of
// one resource.
const (
	maxIcons    = 8
	maxAudience = 8
	// maxIconURL bounds an icon's URL shown, in runes.
	maxIconURL = 200
)

// resourceMeta is r's annotations and icons, every string bounded (clean
// sanitizes them for describe; the cockpit sanitizes as it shows).
func resourceMeta(r *sdk.Resource) (audience []string, priority float64, modified string, icons []runner.Icon) {
	if a := r.Annotations; a != nil {
		for i, role := range a.Audience {
			if i == maxAudience {
				break
			}
			audience = append(audience, cutRunes(string(role), 40))
		}
		priority, modified = min(max(a.Priority, 0), 1), cutRunes(a.LastModified, 64)
	}
	for i, ic := range r.Icons {
		if i == maxIcons {
			break
		}
		src := ic.Source
		if rest, ok := strings.CutPrefix(src, "data:"); ok {
			media, _, _ := strings.Cut(rest, ",")
			media, _, _ = strings.Cut(media, ";")
			src = "data: URI (" + render.HumanBytes(int64(len(ic.Source))) + "), not shown"
			if ic.MIMEType == "" && media != "" {
				ic.MIMEType = media
			}
		}
		out := runner.Icon{Source: cutRunes(src, maxIconURL), MIMEType: cutRunes(ic.MIMEType, 100), Theme: cutRunes(string(ic.Theme), 20)}
		for j, sz := range ic.Sizes {
			if j == maxIcons {
				break
			}
			out.Sizes = append(out.Sizes, cutRunes(sz, 20))
		}
		icons = append(icons, out)
	}
	return audience, priority, modified, icons
}

// listedMeta is resourceMeta's as describe --json lists it, sanitized.
func listedMeta(r *sdk.Resource) (*ListedAnnotations, []ListedIcon) {
	audience, priority, modified, icons := resourceMeta(r)
	var ann *ListedAnnotations
	if len(audience) > 0 || priority > 0 || modified != "" {
		ann = &ListedAnnotations{Priority: priority, LastModified: clean(modified)}
		for _, a := range audience {
			ann.Audience = append(ann.Audience, clean(a))
		}
	}
	var out []ListedIcon
	for _, ic := range icons {
		li := ListedIcon{Source: clean(ic.Source), MIMEType: clean(ic.MIMEType), Theme: clean(ic.Theme)}
		for _, sz := range ic.Sizes {
			li.Sizes = append(li.Sizes, clean(sz))
		}
		out = append(out, li)
	}
	return ann, out
}

// ListedTemplate is one resource template (resources/templates/list).
type ListedTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Capability  string `json:"capability"`
}

// ListedPrompt is one prompt (prompts/list) with its arguments.
type ListedPrompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []ListedArgument `json:"arguments"`
	Capability  string           `json:"capability"`
}

// ListedArgument is one argument of a prompt.
type ListedArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required"`
}

// Listed is the server's resources, templates and prompts as last
// listed (by this process, or kept with the cached tool list); nil when
// none was. It does no I/O.
func (d *Driver) Listed() *Listing {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.catalog == nil {
		return nil
	}
	return d.catalog.Listed
}

// clean is a listed string on one sanitized, bounded line.
func clean(s string) string { return oneLine(render.SanitizeLine(bounded(s))) }

// Catalog is the server's resources and prompts as last listed (by this
// process, or kept with the cached tool list): resources, prompts and
// problems as lines, each sanitized and bounded; nil, nil, nil when none
// was listed. It does no I/O.
func (d *Driver) Catalog() (resources, prompts, problems []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	c := d.catalog
	if c == nil {
		return nil, nil, nil
	}
	resources, prompts = c.Resources, c.Prompts
	if c.MoreResources {
		resources = append(resources[:len(resources):len(resources)], fmt.Sprintf("… more past the first %d", MaxCatalog))
	}
	if c.MorePrompts {
		prompts = append(prompts[:len(prompts):len(prompts)], fmt.Sprintf("… more past the first %d", MaxCatalog))
	}
	return resources, prompts, c.Problems
}

// listCatalog lists the resources and prompts of s when the server
// offers them (its capabilities say so), the first MaxCatalog of each.
func (d *Driver) listCatalog(ctx context.Context, s *session) *Catalog {
	l := &Listing{Resources: []ListedResource{}, Templates: []ListedTemplate{}, Prompts: []ListedPrompt{}}
	c := &Catalog{Listed: l}
	ir := s.cs.InitializeResult()
	if ir == nil || ir.Capabilities == nil {
		return c
	}
	l.Completions = ir.Capabilities.Completions != nil
	if rc := ir.Capabilities.Resources; rc != nil {
		l.Subscribe = rc.Subscribe
		for t, err := range s.cs.ResourceTemplates(ctx, nil) {
			if err != nil {
				c.Problems = append(c.Problems, catalogLine("resources/templates/list: "+err.Error()))
				break
			}
			if len(l.Templates) == MaxCatalog {
				break
			}
			if t != nil {
				l.Templates = append(l.Templates, ListedTemplate{URITemplate: clean(t.URITemplate), Name: clean(t.Name), Title: clean(t.Title),
					Description: clean(t.Description), MIMEType: clean(t.MIMEType), Capability: d.surfaceIDOf("template", t.URITemplate)})
			}
		}
	}
	if ir.Capabilities.Resources != nil {
		for r, err := range s.cs.Resources(ctx, nil) {
			if err != nil {
				c.Problems = append(c.Problems, catalogLine("resources/list: "+err.Error()))
				break
			}
			if len(c.Resources) == MaxCatalog {
				c.MoreResources = true
				break
			}
			lr := ListedResource{URI: clean(r.URI), Name: clean(r.Name), Title: clean(r.Title),
				Description: clean(r.Description), MIMEType: clean(r.MIMEType), Size: r.Size}
			lr.Annotations, lr.Icons = listedMeta(r)
			l.Resources = append(l.Resources, lr)
			line := firstNonEmpty(r.Title, r.Name) + " — " + r.URI
			if r.MIMEType != "" {
				line += " · " + r.MIMEType
			}
			c.Resources = append(c.Resources, catalogLine(line))
		}
	}
	if ir.Capabilities.Prompts != nil {
		for p, err := range s.cs.Prompts(ctx, nil) {
			if err != nil {
				c.Problems = append(c.Problems, catalogLine("prompts/list: "+err.Error()))
				break
			}
			if len(c.Prompts) == MaxCatalog {
				c.MorePrompts = true
				break
			}
			lp := ListedPrompt{Name: clean(p.Name), Title: clean(p.Title), Description: clean(p.Description),
				Arguments: []ListedArgument{}, Capability: d.surfaceIDOf("prompt", p.Name)}
			for _, a := range p.Arguments {
				if a != nil {
					lp.Arguments = append(lp.Arguments, ListedArgument{Name: clean(a.Name), Description: clean(a.Description), Required: a.Required})
				}
			}
			l.Prompts = append(l.Prompts, lp)
			line := firstNonEmpty(p.Title, p.Name)
			if p.Description != "" {
				line += " — " + p.Description
			}
			var args []string
			for _, a := range p.Arguments {
				if a == nil {
					continue
				}
				n := a.Name
				if a.Required {
					n += "*"
				}
				args = append(args, n)
			}
			if len(args) > 0 {
				line += " (" + strings.Join(args, ", ") + ")"
			}
			c.Prompts = append(c.Prompts, catalogLine(line))
		}
	}
	return c
}

// catalogLine is s on one sanitized line of at most maxCatalogLine runes.
func catalogLine(s string) string {
	s = oneLine(render.SanitizeLine(s))
	if utf8.RuneCountInString(s) > maxCatalogLine {
		s = string([]rune(s)[:maxCatalogLine-1]) + "…"
	}
	return s
}
