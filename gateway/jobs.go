package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/history"
	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
)

// The job tools (docs/gateway.md "Long-running capabilities").
const (
	ToolJobStatus = "modbay_job_status"
	ToolJobWait   = "modbay_job_wait"
	ToolJobCancel = "modbay_job_cancel"
)

// jobInput is the input schema of every job tool.
var jobInput = map[string]any{"type": "object", "required": []any{"run_id"}, "additionalProperties": false,
	"properties": map[string]any{"run_id": map[string]any{"type": "string", "description": "The run_id a long-running call returned with its job handle."}}}

// addJobTools serves the job tools, which follow the jobs this session's
// calls started.
func (s *Server) addJobTools() {
	f, t := false, true
	s.srv.AddTool(&mcp.Tool{Name: ToolJobStatus, Title: "modbay job status", InputSchema: jobInput,
		Description: "The last recorded state of a job a long-running modbay tool started (no poll).",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f, DestructiveHint: &f}}, s.jobTool(s.jobStatus))
	s.srv.AddTool(&mcp.Tool{Name: ToolJobWait, Title: "modbay job wait", InputSchema: jobInput,
		Description: "Follow a job a long-running modbay tool started, with progress, until it ends (its result) or the follow bound passes (its handle again).",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f, DestructiveHint: &f}}, s.jobTool(s.jobWait))
	s.srv.AddTool(&mcp.Tool{Name: ToolJobCancel, Title: "modbay job cancel", InputSchema: jobInput,
		Description: "Cancel a job a long-running modbay tool started, through its module's cancel capability (docs/protocol.md §16).",
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: &f, DestructiveHint: &t}}, s.jobTool(s.jobCancel))
}

// jobTool checks the run_id names a job of this session and the history
// is open, then calls do.
func (s *Server) jobTool(do func(context.Context, *mcp.CallToolRequest, *session, *history.Record) *mcp.CallToolResult) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			RunID string `json:"run_id"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.RunID == "" {
			return toolError(string(modproto.KindValidation), modproto.CodeInvalidRequest, "run_id: a string is required"), nil
		}
		st := s.sessionOf(req.Session)
		st.mu.Lock()
		mine := st.jobs[in.RunID]
		st.mu.Unlock()
		if !mine || s.opts.History == nil {
			why := fmt.Sprintf("run %s is not a job this session started", render.SanitizeLine(in.RunID))
			if s.opts.History != nil {
				// Another session's (an earlier serve process's): say how a
				// person follows it.
				if rec, err := s.opts.History.Get(in.RunID); err == nil && rec.Job != nil {
					why += fmt.Sprintf(" (a session follows only its own jobs; a person follows this one with %s)", rec.Repeat.Line("jobs", "wait", rec.RunID))
				}
			}
			return toolError(string(modproto.KindNotFound), "unknown_job", why), nil
		}
		rec, err := s.opts.History.Get(in.RunID)
		if err != nil {
			return toolError(string(modproto.KindNotFound), "unknown_job", render.SanitizeLine(err.Error())), nil
		}
		return s.inFlight(ctx, func(ctx context.Context) *mcp.CallToolResult { return do(ctx, req, st, rec) }), nil
	}
}

// jobState is a record's job as structured content.
func jobState(rec *history.Record) *mcp.CallToolResult {
	j := rec.Job
	sc := map[string]any{"run_id": rec.RunID, "job_id": j.ID, "state": j.State, "status": string(rec.Status), "polls": j.Polls}
	if j.Percent != nil {
		sc["percent"] = *j.Percent
	}
	text := fmt.Sprintf("job %s of %s %s: %s (run %s, %s)", render.SanitizeLine(j.ID), render.SanitizeLine(rec.Module),
		render.SanitizeLine(rec.Capability), render.SanitizeLine(j.State), rec.RunID, rec.Status)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: sc, Meta: mcp.Meta{MetaRun: rec.RunID}}
}

func (s *Server) jobStatus(_ context.Context, _ *mcp.CallToolRequest, _ *session, rec *history.Record) *mcp.CallToolResult {
	if rec.Job == nil {
		return toolError(string(modproto.KindNotFound), "unknown_job", "run "+rec.RunID+" has no job")
	}
	return jobState(rec)
}

// jobWait takes over polling the job (history.Resume: one poller per job
// across processes) and follows it as a call does.
func (s *Server) jobWait(ctx context.Context, req *mcp.CallToolRequest, st *session, rec *history.Record) *mcp.CallToolResult {
	if !rec.Resumable() {
		if rec.Job == nil {
			return toolError(string(modproto.KindNotFound), "unknown_job", "run "+rec.RunID+" has no job")
		}
		return jobState(rec)
	}
	run, err := s.opts.History.Resume(rec.RunID)
	if errors.Is(err, history.ErrBusy) {
		r := jobState(rec)
		r.Content = append(r.Content, &mcp.TextContent{Text: "another modbay process follows this job now; ask again later"})
		return r
	}
	if err != nil {
		return toolError(string(modproto.KindConflict), "", render.SanitizeLine(err.Error()))
	}
	m, err := s.host().Load(ctx, rec.Module)
	if err != nil && rec.ModuleExe != "" {
		m, err = s.host().Load(ctx, rec.ModuleExe)
	}
	if err != nil {
		_, _ = run.Finish(nil, err)
		return toolError(string(modproto.KindNotFound), "", render.SanitizeLine(err.Error()))
	}
	f := newFollower(req, s.opts.Follow)
	runCtx, detach := context.WithCancel(ctx)
	defer detach()
	f.detach = detach
	defer context.AfterFunc(s.eof, f.endFollowing)()
	job, err := run.JobStatus()
	if err != nil {
		_, _ = run.Finish(nil, err)
		return toolError(string(modproto.KindSystem), "", render.SanitizeLine(err.Error()))
	}
	res, err := s.host().ResumeJob(runCtx, m, rec.Capability, rec.RunID, job, runner.RunOptions{Events: run.Events(f.event)})
	_, _ = run.Finish(res, err)
	if err != nil {
		return toolError(string(modproto.KindSystem), "", render.SanitizeLine(err.Error()))
	}
	return s.result(st, res, f.detached())
}

// jobCancel cancels the job through its capability's cancel_capability
// (docs/protocol.md §12, §16), recording the outcome; without one, only
// following can stop and the job goes on.
func (s *Server) jobCancel(ctx context.Context, req *mcp.CallToolRequest, st *session, rec *history.Record) *mcp.CallToolResult {
	if !rec.Resumable() {
		return toolError(string(modproto.KindConflict), "", fmt.Sprintf("run %s is not a job in flight (status %s)", rec.RunID, rec.Status))
	}
	m, err := s.host().Load(ctx, rec.Module)
	if err != nil {
		return toolError(string(modproto.KindNotFound), "", render.SanitizeLine(err.Error()))
	}
	plan, err := s.opts.History.PlanCancel(s.host(), m, rec)
	if errors.Is(err, history.ErrNoCancel) {
		return toolError(string(modproto.KindOf(CodeNoCancelCapability)), CodeNoCancelCapability, fmt.Sprintf("%s %s declares no cancel_capability: modbay cannot cancel job %s; it goes on in the module",
			render.SanitizeLine(rec.Module), render.SanitizeLine(rec.Capability), render.SanitizeLine(rec.Job.ID)))
	}
	if err != nil {
		return planError(err)
	}
	if plan.NeedsApproval() && !st.approvals.Covers(plan) {
		e := &entry{module: m, cap: plan.Capability}
		return approvalRequired(e, plan, s.opts.ApproveByElicitation)
	}
	res, err := s.host().Run(ctx, plan, true, nil)
	if err != nil {
		return toolError(string(modproto.KindNotRun), "", render.SanitizeLine(err.Error()))
	}
	_, _, _ = s.opts.History.FinishCancel(rec.RunID, plan, res)
	return s.result(st, res, false)
}
