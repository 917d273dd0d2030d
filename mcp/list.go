package mcp

import (
	"context"
	"fmt"
)

// List connects when needed and lists the server's resources (every
// page, at most MaxResources), resource templates (at most MaxTemplates)
// and prompts (at most MaxPrompts) as records, for `modbay mcp resources`
// and `mcp prompts`; truncated names each list cut at its bound. A list
// the server fails to answer is an error.
func (d *Driver) List(ctx context.Context) (l *Listing, truncated []string, err error) {
	s, err := d.connect(ctx)
	if err != nil {
		return nil, nil, err
	}
	d.surf.mu.Lock()
	listed := d.surf.prompts != nil
	d.surf.mu.Unlock()
	if !listed {
		// The capability ids come from a listing as a describe makes it.
		if _, _, err := d.list(ctx, s); err != nil {
			return nil, nil, err
		}
	}
	l = &Listing{Resources: []ListedResource{}, Templates: []ListedTemplate{}, Prompts: []ListedPrompt{}}
	caps := serverCaps(s)
	l.Completions = caps.Completions != nil
	if rc := caps.Resources; rc != nil {
		l.Subscribe = rc.Subscribe
		for r, err := range s.cs.Resources(ctx, nil) {
			if err != nil {
				return nil, nil, fmt.Errorf("resources/list: %w", err)
			}
			if len(l.Resources) == MaxResources {
				truncated = append(truncated, fmt.Sprintf("resources (the first %d)", MaxResources))
				break
			}
			if r != nil {
				l.Resources = append(l.Resources, ListedResource{URI: clean(r.URI), Name: clean(r.Name), Title: clean(r.Title),
					Description: clean(r.Description), MIMEType: clean(r.MIMEType), Size: r.Size})
			}
		}
		for t, err := range s.cs.ResourceTemplates(ctx, nil) {
			if err != nil {
				return nil, nil, fmt.Errorf("resources/templates/list: %w", err)
			}
			if len(l.Templates) == MaxTemplates {
				truncated = append(truncated, fmt.Sprintf("resource templates (the first %d)", MaxTemplates))
				break
			}
			if t != nil {
				l.Templates = append(l.Templates, ListedTemplate{URITemplate: clean(t.URITemplate), Name: clean(t.Name), Title: clean(t.Title),
					Description: clean(t.Description), MIMEType: clean(t.MIMEType), Capability: d.surfaceIDOf("template", t.URITemplate)})
			}
		}
	}
	if caps.Prompts != nil {
		for p, err := range s.cs.Prompts(ctx, nil) {
			if err != nil {
				return nil, nil, fmt.Errorf("prompts/list: %w", err)
			}
			if len(l.Prompts) == MaxPrompts {
				truncated = append(truncated, fmt.Sprintf("prompts (the first %d)", MaxPrompts))
				break
			}
			if p == nil {
				continue
			}
			lp := ListedPrompt{Name: clean(p.Name), Title: clean(p.Title), Description: clean(p.Description),
				Arguments: []ListedArgument{}, Capability: d.surfaceIDOf("prompt", p.Name)}
			for _, a := range p.Arguments {
				if a != nil {
					lp.Arguments = append(lp.Arguments, ListedArgument{Name: clean(a.Name), Description: clean(a.Description), Required: a.Required})
				}
			}
			l.Prompts = append(l.Prompts, lp)
		}
	}
	return l, truncated, nil
}
