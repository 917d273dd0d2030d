package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/url"
	"path/filepath"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/config"
	"modbay/runner"
)

// Bounds of a sampling request shown to the person.
const (
	// maxSamplingMessages bounds the messages of one request kept; the
	// oldest past it are dropped (the newest is what a reply answers).
	maxSamplingMessages = 50
	// maxSamplingText bounds one message's (and the system prompt's)
	// text, in runes.
	maxSamplingText = 4000
	// maxModelHints bounds the model hints kept of one request.
	maxModelHints = 8
)

// samplingModel is the model name a sampling reply carries: a person
// wrote it, no model was called.
const samplingModel = "modbay: written by a person"

// samplingRefused is the JSON-RPC error a sampling request is refused
// with: code -1, as MCP's example of a user who rejected it, the message
// saying who refused (declined, dismissed, no terminal, no call).
func samplingRefused(why string) error {
	return &jsonrpc.Error{Code: -1, Message: why}
}

// Why a sampling request was refused.
const (
	samplingDeclined  = "the person declined the sampling request"
	samplingDismissed = "the person dismissed the sampling request without answering"
	samplingNoOne     = "no one to answer the sampling request: no terminal (modbay invoke --sampling-input answers it)"
)

// clientRoots are the server's configured roots as MCP roots: a stdio
// server's advertised roots and cwd as file URIs, sorted by path, named
// by their folder and mode ("data (ro)"); never its needs, which are for
// starting only (config.MCPServer.AdvertisedRoots); none for a remote
// server, which cannot reach this machine's files.
func (d *Driver) clientRoots() []*sdk.Root {
	roots := map[string]string{}
	if e := d.entry(); e.Transport() == "stdio" {
		roots = e.AdvertisedRoots()
		if e.Cwd != "" && e.Roots[e.Cwd] == "" {
			roots[e.Cwd] = config.RootRW
		}
	}
	var out []*sdk.Root
	for _, p := range slices.Sorted(maps.Keys(roots)) {
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(p)}
		out = append(out, &sdk.Root{URI: u.String(), Name: filepath.Base(p) + " (" + roots[p] + ")"})
	}
	return out
}

// sample answers a sampling/createMessage through the newest call in
// flight's Call.Elicit with the request (runner.SamplingRequest, bounded)
// and SamplingReplySchema: the person writes the reply, which goes back
// as the assistant's text with samplingModel; no model is ever called.
// Declined, dismissed or with no call in flight, it answers an error.
func (d *Driver) sample(ctx context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
	f := d.latest()
	if f == nil || req.Params == nil {
		return nil, samplingRefused("no call in flight to ask a person for the reply")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(f.ctx, cancel)
	defer stop()
	p := req.Params
	sr := &runner.SamplingRequest{SystemPrompt: cutRunes(p.SystemPrompt, maxSamplingText), MaxTokens: p.MaxTokens}
	msgs := p.Messages
	if len(msgs) > maxSamplingMessages {
		msgs = msgs[len(msgs)-maxSamplingMessages:]
	}
	for _, m := range msgs {
		if m == nil {
			continue
		}
		sr.Messages = append(sr.Messages, runner.SamplingMessage{Role: cutRunes(string(m.Role), 32), Text: cutRunes(contentText(m.Content), maxSamplingText)})
	}
	if mp := p.ModelPreferences; mp != nil {
		for _, h := range mp.Hints {
			if h != nil && len(sr.ModelHints) < maxModelHints {
				sr.ModelHints = append(sr.ModelHints, cutRunes(h.Name, 100))
			}
		}
		if mp.CostPriority != 0 || mp.SpeedPriority != 0 || mp.IntelligencePriority != 0 {
			sr.Priorities = map[string]float64{"cost": mp.CostPriority, "speed": mp.SpeedPriority, "intelligence": mp.IntelligencePriority}
		}
	}
	ans, err := f.call.Elicit(ctx, runner.Elicitation{Message: "The server asks for a model's reply; write it yourself (no model is called).",
		Schema: runner.SamplingReplySchema, Sampling: sr})
	switch {
	case errors.Is(err, runner.ErrNoOneToAsk):
		return nil, samplingRefused(samplingNoOne)
	case ans.Action == runner.ElicitDecline:
		return nil, samplingRefused(samplingDeclined)
	case err != nil || ans.Action != runner.ElicitAccept:
		return nil, samplingRefused(samplingDismissed)
	}
	var reply struct {
		Reply string `json:"reply"`
	}
	if json.Unmarshal(ans.Content, &reply) != nil {
		return nil, samplingRefused(samplingDismissed)
	}
	return &sdk.CreateMessageResult{Role: "assistant", Content: &sdk.TextContent{Text: reply.Reply}, Model: samplingModel, StopReason: "endTurn"}, nil
}

// contentText is a sampling message's content as text: a text block's
// text, any other block a note of its type.
func contentText(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return "[an image, " + c.MIMEType + "]"
	case *sdk.AudioContent:
		return "[audio, " + c.MIMEType + "]"
	case nil:
		return ""
	}
	return "[a content block modbay does not show]"
}

// cutRunes is s cut to n runes, "…" marking a cut.
func cutRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// elicitURL answers a URL elicitation through the newest call in
// flight's Call.Elicit: the person sees the URL and opens it on a key
// press, then accepts or declines. A URL that is not http(s) is declined
// unasked.
func (d *Driver) elicitURL(ctx context.Context, f *inflight, p *sdk.ElicitParams) (*sdk.ElicitResult, error) {
	u, err := url.Parse(p.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return &sdk.ElicitResult{Action: string(runner.ElicitDecline)}, nil
	}
	ans, err := f.call.Elicit(ctx, runner.Elicitation{Message: p.Message, URL: p.URL})
	act := ans.Action
	if err != nil && !errors.Is(err, runner.ErrNoOneToAsk) || act == "" {
		act = runner.ElicitCancel
	}
	return &sdk.ElicitResult{Action: string(act)}, nil
}

// maxRequiredURLs bounds the URL elicitations one -32042 error may ask.
const maxRequiredURLs = 4

// urlsFirst handles a call's URLElicitationRequired error (-32042): each
// URL elicitation it carries (at most maxRequiredURLs) is put to the
// person as elicitURL does; true when they accepted every one, and the
// call is then tried once more.
func (d *Driver) urlsFirst(ctx context.Context, f *inflight, err error) bool {
	var re *jsonrpc.Error
	if !errors.As(err, &re) || re.Code != sdk.CodeURLElicitationRequired || len(re.Data) == 0 {
		return false
	}
	var data struct {
		Elicitations []*sdk.ElicitParams `json:"elicitations"`
	}
	if json.Unmarshal(re.Data, &data) != nil || len(data.Elicitations) == 0 || len(data.Elicitations) > maxRequiredURLs {
		return false
	}
	for _, p := range data.Elicitations {
		if p == nil || p.Mode != "url" {
			return false
		}
		res, _ := d.elicitURL(ctx, f, p)
		if res.Action != string(runner.ElicitAccept) {
			return false
		}
	}
	return ctx.Err() == nil
}
