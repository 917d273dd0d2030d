package mcp

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"modbay/render"
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
}

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
func listCatalog(ctx context.Context, s *session) *Catalog {
	c := &Catalog{}
	ir := s.cs.InitializeResult()
	if ir == nil || ir.Capabilities == nil {
		return c
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
