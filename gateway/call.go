package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/history"
	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
)

// CodeBusy is the error code of a call refused because the serve process
// already runs its bound of calls (docs/gateway.md "Load and faults"); its
// kind is not_run (docs/protocol.md §15).
const CodeBusy = "busy"

// approvalInput is the id of the approval question in a multi-round-trip
// tool call (docs/gateway.md "Approvals").
const approvalInput = "modbay_approval"

// maxPending bounds the approval questions a session may leave
// unanswered (a client that never retries the call).
const maxPending = 256

// Approval answers of the elicitation form.
const (
	answerOnce    = "allow once"
	answerSession = "allow for this session"
	answerDeny    = "deny"
)

// handler is the tool handler of the tool served under name.
func (s *Server) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		e := s.lookup(name)
		if e == nil {
			s.refused(req.Session, nil, name, nil, "unknown tool: it is no longer served", false)
			return nil, fmt.Errorf("unknown tool %q: it is no longer served (tools/list again)", name)
		}
		select {
		case s.sem <- struct{}{}:
		default:
			why := fmt.Sprintf("busy: this modbay serve process already runs %d calls (mcp_serve.max_concurrent)", cap(s.sem))
			s.refused(req.Session, e, name, req.Params.Arguments, why, false)
			return toolError(string(modproto.KindNotRun), CodeBusy, why+"; nothing ran, try again when one ends"), nil
		}
		defer func() { <-s.sem }()
		return s.inFlight(ctx, func(ctx context.Context) *mcp.CallToolResult { return s.call(ctx, req, e) }), nil
	}
}

// inFlight runs do as a call in flight: counted (Shutdown waits for it)
// and stopped when the server shuts down; refused once it is.
func (s *Server) inFlight(ctx context.Context, do func(context.Context) *mcp.CallToolResult) *mcp.CallToolResult {
	s.mu.Lock()
	if s.base.Err() != nil {
		s.mu.Unlock()
		return toolError(string(modproto.KindNotRun), "", "modbay is shutting down; nothing ran")
	}
	s.runs.Add(1)
	s.mu.Unlock()
	defer s.runs.Done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.base, cancel)
	defer stop()
	return do(ctx)
}

// call runs one tool call as `modbay invoke` does: validate and plan,
// ask for approval, record, run contained, check the envelope and the
// artifacts, and turn the outcome into MCP content.
func (s *Server) call(ctx context.Context, req *mcp.CallToolRequest, e *entry) *mcp.CallToolResult {
	st := s.sessionOf(req.Session)
	if ci := req.ClientInfo(); ci != nil && ci.Name != "" {
		st.client = clientName(ci.Name)
	}
	st.mu.Lock()
	st.calls++
	st.running++
	st.mu.Unlock()
	s.sessionsChanged()
	defer func() {
		st.mu.Lock()
		st.running--
		st.mu.Unlock()
		s.sessionsChanged()
	}()
	args := json.RawMessage(req.Params.Arguments)
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	given := args
	args, handoff, err := s.handoff(st, e, args)
	if err != nil {
		s.refused(req.Session, e, e.tool.Name, given, err.Error(), true)
		return toolError(string(modproto.KindValidation), "", err.Error())
	}
	host := s.host()
	plan, err := host.PlanWith(e.module, e.cap.ID, args, runner.PlanOptions{Handoff: handoff})
	if err != nil {
		res := planError(err)
		s.refused(req.Session, e, e.tool.Name, given, refusalWhy(err), true)
		return res
	}
	defer plan.Discard()
	begin := history.BeginOptions{Source: history.SourceMCPServe, Client: st.client, Live: true}
	if why := s.overCeiling(st, e); why != "" {
		plan.Approval = append(plan.Approval, why)
	}
	if plan.NeedsApproval() && !st.approvals.Covers(plan) {
		res, by := s.approve(ctx, req, st, e, plan)
		if res != nil {
			return res
		}
		begin.ApprovedBy = by
	}
	begin.Approved = true
	f := newFollower(req, s.opts.Follow)
	f.ctx, f.logger = ctx, e.module.ID
	runCtx, detach := context.WithCancel(ctx)
	defer detach()
	f.detach = detach
	defer context.AfterFunc(s.eof, f.endFollowing)()
	ro := runner.RunOptions{Approved: true, Events: f.event, Elicit: s.elicitor(req, st)}
	res, err := history.Invoke(runCtx, s.opts.History, host, plan, begin, ro, nil)
	st.spend(e, res)
	if err != nil {
		return toolError(string(modproto.KindOf("host.not_started")), "host.not_started", "not run: "+err.Error())
	}
	return s.result(st, res, f.detached())
}

// planError is the tool error of a call that could not be planned: an
// invalid input names each field, anything else says why.
func planError(err error) *mcp.CallToolResult {
	var ie *runner.InputError
	if errors.As(err, &ie) {
		var b strings.Builder
		fmt.Fprintf(&b, "input is invalid against request schema %s; nothing ran:", render.SanitizeLine(ie.Schema))
		for _, v := range ie.Violations {
			p := v.Path
			if p == "" {
				p = "(root)"
			}
			fmt.Fprintf(&b, "\n  %s: %s", render.SanitizeLine(p), render.SanitizeLine(v.Detail))
		}
		return toolError(string(modproto.KindValidation), modproto.CodeInvalidRequest, b.String())
	}
	if errors.Is(err, runner.ErrNotFound) {
		return toolError(string(modproto.KindNotFound), "", render.SanitizeLine(err.Error())+"; nothing ran")
	}
	return toolError(string(modproto.KindNotRun), "", render.SanitizeLine(err.Error())+"; nothing ran")
}

// refusalWhy is a plan error in one line for the record: an invalid
// input names its fields (at most maxRefusalFields of them).
func refusalWhy(err error) string {
	var ie *runner.InputError
	if !errors.As(err, &ie) {
		return render.SanitizeLine(err.Error())
	}
	var b strings.Builder
	b.WriteString("invalid input:")
	for i, v := range ie.Violations {
		if i == maxRefusalFields {
			fmt.Fprintf(&b, " (%d more)", len(ie.Violations)-i)
			break
		}
		p := v.Path
		if p == "" {
			p = "(root)"
		}
		fmt.Fprintf(&b, " %s: %s;", render.SanitizeLine(p), render.SanitizeLine(v.Detail))
	}
	return strings.TrimSuffix(b.String(), ";")
}

// maxRefusalFields bounds the fields a refused input's record names.
const maxRefusalFields = 8

// approve asks for approval of plan (docs/gateway.md "Approvals"): in a
// running cockpit of the home first, then by an elicitation form when the config opts in and the client can answer
// one, else a tool error addressed to the person, recorded as not run.
// A nil result means approved, by the returned "<client>'s elicitation".
func (s *Server) approve(ctx context.Context, req *mcp.CallToolRequest, st *session, e *entry, plan *runner.Plan) (*mcp.CallToolResult, string) {
	if s.opts.Cockpits != "" {
		if res, by, asked := s.askCockpit(ctx, req, st, e, plan); asked {
			return res, by
		}
	}
	caps := req.ClientCapabilities()
	canElicit := caps != nil && caps.Elicitation != nil
	if !s.opts.ApproveByElicitation || !canElicit {
		s.notRun(plan, st, "not run: approval required")
		return approvalRequired(e, plan, s.opts.ApproveByElicitation), ""
	}
	by := st.client + "'s elicitation"
	answer, asked := s.answer(req, st)
	if !asked {
		state := newState()
		st.mu.Lock()
		if len(st.pending) >= maxPending {
			clear(st.pending) // questions never answered: the oldest go with the rest
		}
		st.pending[state] = callKey(req)
		st.mu.Unlock()
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{approvalInput: approvalForm(e, plan)}, RequestState: state}, ""
	}
	switch answer {
	case answerOnce:
		return nil, by
	case answerSession:
		st.approvals.Allow(plan)
		return nil, by + " (for this session)"
	}
	s.notRun(plan, st, "not run: denied through "+by)
	return toolError(string(modproto.KindOf(CodeDenied)), CodeDenied, fmt.Sprintf("%s %s was denied through %s; nothing ran",
		render.SanitizeLine(e.module.ID), render.SanitizeLine(e.cap.ID), by)), ""
}

// answer is the approval answer a retried call carries, and whether it
// carries one for this very call (same tool, same arguments).
func (s *Server) answer(req *mcp.CallToolRequest, st *session) (string, bool) {
	state := req.Params.RequestState
	if state == "" {
		return "", false
	}
	st.mu.Lock()
	key, ok := st.pending[state]
	delete(st.pending, state)
	st.mu.Unlock()
	if !ok || key != callKey(req) {
		return "", false
	}
	r, ok := req.Params.InputResponses[approvalInput].(*mcp.ElicitResult)
	if !ok || r.Action != "accept" {
		return answerDeny, true // decline and cancel deny
	}
	d, _ := r.Content["decision"].(string)
	if d != answerOnce && d != answerSession {
		return answerDeny, true
	}
	return d, true
}

// callKey identifies a call for its approval's retry: tool and arguments.
func callKey(req *mcp.CallToolRequest) string {
	return req.Params.Name + "\x00" + string(req.Params.Arguments)
}

// newState is a fresh, unguessable request state.
func newState() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// notRun records a call that did not run, with why.
func (s *Server) notRun(plan *runner.Plan, st *session, why string) {
	s.notRunSince(plan, st, why, time.Time{})
}

// notRunSince is notRun for a call that waited from since (an approval
// asked of the cockpit): the record's time is the wait. Zero since: now.
func (s *Server) notRunSince(plan *runner.Plan, st *session, why string, since time.Time) {
	st.mu.Lock()
	st.notRun++
	st.mu.Unlock()
	s.sessionsChanged()
	if s.opts.History == nil {
		return
	}
	if r, err := s.opts.History.Begin(plan, history.BeginOptions{Source: history.SourceMCPServe, Client: st.client}); err == nil {
		if since.IsZero() {
			_, _ = r.Finish(nil, errors.New(why))
			return
		}
		_, _ = r.Finish(&runner.Result{RequestID: plan.Request.RequestID, Started: since,
			Host: &runner.HostError{Code: "host.not_started", Detail: why}}, nil)
	}
}

// facts are what the cockpit's approval dialog shows of plan: module,
// capability, why approval is needed, and what would be granted.
func facts(e *entry, plan *runner.Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s needs approval:", render.SanitizeLine(e.module.ID), render.SanitizeLine(e.cap.ID))
	for _, r := range plan.Approval {
		fmt.Fprintf(&b, "\n  - %s", render.SanitizeLine(r))
	}
	g := plan.Request.Grants
	if len(g.Network) > 0 {
		fmt.Fprintf(&b, "\nnetwork: %s", render.SanitizeLine(strings.Join(g.Network, ", ")))
	}
	if len(g.Credentials) > 0 {
		fmt.Fprintf(&b, "\ncredentials: %s", render.SanitizeLine(strings.Join(g.Credentials, ", ")))
	}
	if len(g.PaidProviders) > 0 {
		fmt.Fprintf(&b, "\npaid providers: %s", render.SanitizeLine(strings.Join(g.PaidProviders, ", ")))
	}
	var roots []string
	for name, r := range plan.Request.Roots {
		roots = append(roots, fmt.Sprintf("%s (%s) %s", name, r.Mode, r.Path))
	}
	slices.Sort(roots)
	if len(roots) > 0 {
		fmt.Fprintf(&b, "\nroots: %s", render.SanitizeLine(strings.Join(roots, "; ")))
	}
	fmt.Fprintf(&b, "\ndeadline: %s", time.Duration(plan.Request.DeadlineMS)*time.Millisecond)
	return b.String()
}

// approvalForm is the elicitation that asks for approval of plan.
func approvalForm(e *entry, plan *runner.Plan) *mcp.ElicitParams {
	return &mcp.ElicitParams{Mode: "form", Message: facts(e, plan),
		RequestedSchema: map[string]any{"type": "object", "required": []any{"decision"}, "properties": map[string]any{
			"decision": map[string]any{"type": "string", "title": "Allow this call?",
				"enum": []any{answerOnce, answerSession, answerDeny}},
		}}}
}

// approvalRequired is the tool error of a call that needs an approval
// nobody can give here: addressed to the person, saying how to grant it.
func approvalRequired(e *entry, plan *runner.Plan, optedIn bool) *mcp.CallToolResult {
	// A module loaded by path is pre-approved by its executable, never by
	// the id it declares (docs/protocol.md §11).
	who := "module: " + render.SanitizeLine(e.module.ID)
	if m := e.module; (m.Origin == runner.OriginConfig || m.Origin == runner.OriginFlag) && m.Exe != "" {
		who = "path: " + strconv.Quote(render.SanitizeLine(m.Exe))
	}
	how := "A person can grant it in modbay's config.yaml: policy.pre_approved: [{" + who +
		", capability: " + render.SanitizeLine(e.cap.ID) + "}], or by running it in the modbay cockpit"
	if !optedIn {
		how += "; or let this client ask by elicitation (mcp_serve.approve_by_elicitation: true)"
	} else {
		how += "; this client does not support elicitation, so it cannot be asked here"
	}
	msg := "Approval required — for the person using this agent, not the agent: nothing ran.\n" + facts(e, plan) + "\n" + how + "."
	return toolError(string(modproto.KindAuthz), "approval_required", msg)
}

// elicitor forwards a module's question (an MCP server's elicitation:
// a form, or a URL) to the client when it supports elicitation (URL
// elicitation for a URL), and a sampling request when it supports
// sampling, if it speaks a protocol version that allows a
// server-initiated request; otherwise the question is declined
// (docs/gateway.md "Proxied MCP servers").
func (s *Server) elicitor(req *mcp.CallToolRequest, st *session) runner.Elicitor {
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil && caps.Sampling == nil || req.ProtocolVersion() >= "2026-07-28" {
		return nil
	}
	return func(ctx context.Context, q runner.Elicitation) (runner.ElicitAnswer, error) {
		switch {
		case q.Sampling != nil:
			return forwardSampling(ctx, req, q.Sampling)
		case caps.Elicitation == nil:
			return runner.ElicitAnswer{Action: runner.ElicitDecline}, nil
		case q.URL != "":
			if caps.Elicitation.URL == nil {
				return runner.ElicitAnswer{Action: runner.ElicitDecline}, nil
			}
			r, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "url", Message: render.Sanitize(q.Message), URL: q.URL, ElicitationID: q.RequestID})
			if err != nil {
				return runner.ElicitAnswer{}, err
			}
			return runner.ElicitAnswer{Action: runner.ElicitAction(r.Action)}, nil
		}
		var schema any
		if len(q.Schema) > 0 {
			_ = json.Unmarshal(q.Schema, &schema)
		}
		r, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: render.Sanitize(q.Message), RequestedSchema: schema})
		if err != nil {
			return runner.ElicitAnswer{}, err
		}
		a := runner.ElicitAnswer{Action: runner.ElicitAction(r.Action)}
		if r.Action == "accept" {
			a.Content, _ = json.Marshal(r.Content)
		}
		return a, nil
	}
}

// forwardSampling passes a proxied server's sampling request to the
// client when it offers sampling (its answer, text only, as the reply),
// and declines otherwise: the gateway calls no model either.
func forwardSampling(ctx context.Context, req *mcp.CallToolRequest, sr *runner.SamplingRequest) (runner.ElicitAnswer, error) {
	if caps := req.ClientCapabilities(); caps == nil || caps.Sampling == nil {
		return runner.ElicitAnswer{Action: runner.ElicitDecline}, nil
	}
	p := &mcp.CreateMessageParams{MaxTokens: sr.MaxTokens, SystemPrompt: sr.SystemPrompt, Messages: []*mcp.SamplingMessage{}}
	for _, m := range sr.Messages {
		p.Messages = append(p.Messages, &mcp.SamplingMessage{Role: mcp.Role(m.Role), Content: &mcp.TextContent{Text: m.Text}})
	}
	if len(sr.ModelHints) > 0 || len(sr.Priorities) > 0 {
		p.ModelPreferences = &mcp.ModelPreferences{CostPriority: sr.Priorities["cost"], SpeedPriority: sr.Priorities["speed"], IntelligencePriority: sr.Priorities["intelligence"]}
		for _, h := range sr.ModelHints {
			p.ModelPreferences.Hints = append(p.ModelPreferences.Hints, &mcp.ModelHint{Name: h})
		}
	}
	r, err := req.Session.CreateMessage(ctx, p)
	if err != nil {
		return runner.ElicitAnswer{Action: runner.ElicitDecline}, nil
	}
	text, ok := r.Content.(*mcp.TextContent)
	if !ok {
		return runner.ElicitAnswer{Action: runner.ElicitDecline}, nil
	}
	b, err := json.Marshal(map[string]string{"reply": text.Text})
	if err != nil {
		return runner.ElicitAnswer{}, err
	}
	return runner.ElicitAnswer{Action: runner.ElicitAccept, Content: b}, nil
}

// toolError is an isError result carrying the failure kind (docs/protocol.md
// §15) and the code in _meta and its text. It has no structuredContent:
// clients check that against the tool's outputSchema even on errors.
func toolError(kind, code, msg string) *mcp.CallToolResult {
	text := "error (" + kind + "): " + msg
	if code != "" {
		text = "error " + code + " (" + kind + "): " + msg
	}
	meta := mcp.Meta{MetaKind: kind}
	if code != "" {
		meta[MetaCode] = code
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}, Meta: meta}
}

func jsonOf(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

func validUTF8(s string) bool { return utf8.ValidString(s) }
