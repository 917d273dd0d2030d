package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/render"
)

// Completes reports whether capability capID (a prompt's or a
// template's) takes completions, as far as known without I/O: the live
// session's server offers completion/complete, or, with no session, it
// did when last listed (kept with the cached list).
func (d *Driver) Completes(capID string) bool {
	if !strings.HasPrefix(capID, PromptPrefix) && !strings.HasPrefix(capID, TemplatePrefix) {
		return false
	}
	d.mu.Lock()
	s, c := d.sess, d.catalog
	d.mu.Unlock()
	if s != nil {
		return serverCaps(s).Completions != nil
	}
	return c != nil && c.Listed != nil && c.Listed.Completions
}

// Complete asks the server for the values of argument arg of capability
// capID (completion/complete, ref/prompt or ref/resource) given its
// value so far and the other arguments set: at most MaxCompletions
// values, each on one line, sanitized and bounded; more says the server
// has more. An error says why there are none.
func (d *Driver) Complete(ctx context.Context, capID, arg, value string, others map[string]string) (values []string, more bool, err error) {
	s, err := d.connect(ctx)
	if err != nil {
		return nil, false, err
	}
	if serverCaps(s).Completions == nil {
		return nil, false, fmt.Errorf("the server offers no completions")
	}
	var ref *sdk.CompleteReference
	switch {
	case strings.HasPrefix(capID, PromptPrefix), strings.HasPrefix(capID, TemplatePrefix):
		v, err := d.surfaceName(ctx, s, capID)
		if err != nil {
			return nil, false, err
		}
		ref = &sdk.CompleteReference{Type: "ref/prompt", Name: v}
		if strings.HasPrefix(capID, TemplatePrefix) {
			ref = &sdk.CompleteReference{Type: "ref/resource", URI: v}
		}
	default:
		return nil, false, fmt.Errorf("%s takes no completions", capID)
	}
	p := &sdk.CompleteParams{Ref: ref, Argument: sdk.CompleteParamsArgument{Name: arg, Value: value}}
	if len(others) > 0 {
		p.Context = &sdk.CompleteContext{Arguments: others}
	}
	res, err := s.cs.Complete(ctx, p)
	if err != nil {
		return nil, false, fmt.Errorf("completion/complete: %w", err)
	}
	for i, v := range res.Completion.Values {
		if i == MaxCompletions {
			return values, true, nil
		}
		v = oneLine(render.SanitizeLine(v))
		if r := []rune(v); len(r) > maxCompletionText {
			v = string(r[:maxCompletionText]) + "…"
		}
		values = append(values, v)
	}
	return values, res.Completion.HasMore || res.Completion.Total > len(values), nil
}
