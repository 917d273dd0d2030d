package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
)

// Bounds of what a result carries inline (docs/gateway.md "Results").
const (
	// MaxInlineText bounds a text artifact, and the result's JSON text
	// block, put in the result as text content; a larger one is a link.
	MaxInlineText = 64 << 10
	// MaxInlineImage bounds an image artifact sent as image content.
	MaxInlineImage = 1 << 20
	// MaxResourceBytes bounds what resources/read returns of an artifact
	// (an MCP frame is at most 16 MiB, and base64 grows a blob by 4/3).
	MaxResourceBytes = 8 << 20
	// uriPrefix starts every artifact URI: modbay://runs/<run>/<artifact>.
	uriPrefix = "modbay://runs/"
)

// artifactURI names artifact id of run.
func artifactURI(run, id string) string { return uriPrefix + run + "/" + id }

// result turns a run's outcome into the tool result: failures as isError
// with their kind, a job left running as its handle, success as the
// envelope's result (structuredContent, and a JSON text block) and the
// artifacts.
func (s *Server) result(st *session, res *runner.Result, detached bool) *mcp.CallToolResult {
	meta := mcp.Meta{MetaRun: res.RequestID}
	if res.Job != nil {
		st.mu.Lock()
		st.jobs[res.RequestID] = true
		st.mu.Unlock()
		if !runner.IsTerminalJobState(res.Job.State) && res.Code() == modproto.CodeCancelled {
			return jobHandle(res, detached)
		}
	}
	if h := res.Host; h != nil {
		var b strings.Builder
		b.WriteString(render.SanitizeLine(h.Detail))
		for _, v := range h.Violations {
			fmt.Fprintf(&b, "\n  %s", render.SanitizeLine(v.Error()))
		}
		r := toolError(string(modproto.KindOf(h.Code)), h.Code, b.String())
		r.Meta[MetaRun] = res.RequestID
		return r
	}
	env := res.Envelope
	if env == nil {
		return toolError(string(modproto.KindSystem), "", "the run returned no envelope")
	}
	if !env.OK && env.Error != nil {
		msg := render.SanitizeLine(env.Error.Message)
		if len(env.Error.Details) > 0 {
			if b, err := json.Marshal(env.Error.Details); err == nil && len(b) <= MaxInlineText {
				msg += "\ndetails: " + render.Sanitize(string(b))
			}
		}
		r := toolError(string(modproto.KindOf(env.Error.Code)), env.Error.Code, msg)
		r.Meta[MetaRun] = res.RequestID
		return r
	}
	out := &mcp.CallToolResult{Meta: meta}
	if len(env.Result) > 0 && string(env.Result) != "null" {
		var v any
		if json.Unmarshal(env.Result, &v) == nil {
			if _, isObj := v.(map[string]any); isObj {
				out.StructuredContent = v
			} else {
				out.StructuredContent = map[string]any{"result": v}
			}
			out.Content = append(out.Content, &mcp.TextContent{Text: boundedText(render.Sanitize(string(env.Result)))})
		}
	}
	var notes []string
	for _, w := range env.Warnings {
		notes = append(notes, "warning: "+render.SanitizeLine(w))
	}
	for _, v := range res.EffectWarnings {
		notes = append(notes, "effects: "+render.SanitizeLine(v.Error()))
	}
	if len(notes) > 0 {
		out.Content = append(out.Content, &mcp.TextContent{Text: strings.Join(notes, "\n")})
	}
	for _, a := range res.Artifacts {
		uri := artifactURI(res.RequestID, a.ID)
		st.mu.Lock()
		st.artifacts[uri] = a
		st.mu.Unlock()
		out.Content = append(out.Content, artifactContent(uri, a)...)
	}
	if out.Content == nil {
		out.Content = []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("ok: %s %s returned no result", render.SanitizeLine(res.Module), render.SanitizeLine(res.Capability))}}
	}
	return out
}

// jobHandle is the result of a call that stopped following its job: the
// handle, and how to follow it (the modbay_job_* tools).
func jobHandle(res *runner.Result, bound bool) *mcp.CallToolResult {
	j := res.Job
	why := "the client cancelled the call"
	if bound {
		why = "the call followed it as long as it may"
	}
	sc := map[string]any{"run_id": res.RequestID, "job_id": j.ID, "state": j.State, "following": false}
	if j.Percent != nil {
		sc["percent"] = *j.Percent
	}
	text := fmt.Sprintf("job %s is %s and goes on (%s). Follow it: modbay_job_wait {\"run_id\": %q}; modbay_job_status and modbay_job_cancel take the same.",
		render.SanitizeLine(j.ID), render.SanitizeLine(j.State), why, res.RequestID)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: sc, Meta: mcp.Meta{MetaRun: res.RequestID}}
}

// artifactContent is how artifact a (named uri) appears in a result: a
// small text artifact as text, a small image as an image, and always a
// link resources/read resolves for this session.
func artifactContent(uri string, a runner.VerifiedArtifact) []mcp.Content {
	title := a.Title
	if title == "" {
		title = a.Path
	}
	link := &mcp.ResourceLink{URI: uri, Name: render.SanitizeLine(a.ID), Title: render.SanitizeLine(title), MIMEType: render.SanitizeLine(a.MediaType), Size: &a.Size}
	switch {
	case isText(a.MediaType) && a.Size <= MaxInlineText:
		if b, err := readBounded(a.Staged, MaxInlineText); err == nil {
			head := fmt.Sprintf("artifact %s (%s, %s):\n", uri, render.SanitizeLine(a.MediaType), render.HumanBytes(a.Size))
			return []mcp.Content{&mcp.TextContent{Text: head + render.Sanitize(string(b))}, link}
		}
	case isImage(a.MediaType) && a.Size <= MaxInlineImage:
		if b, err := readBounded(a.Staged, MaxInlineImage); err == nil {
			return []mcp.Content{&mcp.ImageContent{Data: b, MIMEType: a.MediaType}, link}
		}
	}
	return []mcp.Content{link}
}

// isText reports whether a media type is text an agent can read inline.
func isText(mt string) bool {
	mt, _, _ = strings.Cut(mt, ";")
	mt = strings.TrimSpace(strings.ToLower(mt))
	return strings.HasPrefix(mt, "text/") || mt == "application/json" || strings.HasSuffix(mt, "+json") ||
		mt == "application/yaml" || mt == "application/x-yaml" || mt == "application/xml" || strings.HasSuffix(mt, "+xml")
}

// isImage reports whether a media type is an image clients show.
func isImage(mt string) bool {
	return slices.Contains([]string{"image/png", "image/jpeg", "image/gif", "image/webp"}, strings.ToLower(mt))
}

// boundedText cuts s to MaxInlineText bytes, saying so.
func boundedText(s string) string {
	if len(s) <= MaxInlineText {
		return s
	}
	return strings.ToValidUTF8(s[:MaxInlineText], "") + "\n… (cut at 64 KiB; structuredContent holds the whole result)"
}

// readBounded reads at most limit bytes of the staged file at p; a
// larger file is an error.
func readBounded(p string, limit int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("larger than %d bytes", limit)
	}
	return b, nil
}

// readResource serves resources/read of an artifact URI: only one this
// session's calls returned.
func (s *Server) readResource(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	st := s.sessionOf(req.Session)
	st.mu.Lock()
	a, ok := st.artifacts[uri]
	st.mu.Unlock()
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	b, err := readBounded(a.Staged, MaxResourceBytes)
	if err != nil {
		return nil, fmt.Errorf("artifact %s: %v (resources/read returns at most %s)", uri, err, render.HumanBytes(MaxResourceBytes))
	}
	c := &mcp.ResourceContents{URI: uri, MIMEType: a.MediaType}
	if isText(a.MediaType) {
		c.Text = string(b)
	} else {
		c.Blob = b
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
}

// handoff replaces each string of args that is an artifact URI this
// session's calls returned with the file's path in the read root it is
// handed through (docs/protocol.md §4, as `invoke --artifact` does): the
// first read root of the capability's module that can receive a file
// (runner.HandoffRoots).
func (s *Server) handoff(st *session, e *entry, args json.RawMessage) (json.RawMessage, []runner.HandoffFile, error) {
	if !strings.Contains(string(args), uriPrefix) {
		return args, nil, nil
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return args, nil, nil // the schema judges it
	}
	root := ""
	if roots := runner.HandoffRoots(e.module.Descriptor); len(roots) > 0 {
		root = roots[0]
	}
	var files []runner.HandoffFile
	var failed error
	var walk func(any) any
	walk = func(x any) any {
		switch t := x.(type) {
		case string:
			if !strings.HasPrefix(t, uriPrefix) {
				return t
			}
			st.mu.Lock()
			a, ok := st.artifacts[t]
			st.mu.Unlock()
			if !ok {
				failed = fmt.Errorf("%s is not an artifact of this session's calls", render.SanitizeLine(t))
				return t
			}
			if root == "" {
				failed = fmt.Errorf("%s %s declares no read root other than workspace to receive %s", e.module.ID, e.cap.ID, t)
				return t
			}
			name := runner.HandoffName(a.Path)
			run, id, _ := strings.Cut(strings.TrimPrefix(t, uriPrefix), "/")
			files = append(files, runner.HandoffFile{Root: root, Source: a.Staged, Name: name, Digest: a.Digest, Origin: run + ":" + id})
			return name
		case map[string]any:
			for k, e := range t {
				t[k] = walk(e)
			}
		case []any:
			for i, e := range t {
				t[i] = walk(e)
			}
		}
		return x
	}
	v = walk(v)
	if failed != nil {
		return nil, nil, failed
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, nil, err
	}
	return b, files, nil
}

// follower turns a run's events into notifications/progress for the
// call's progress token, and stops following a job (detach) once it has
// been followed for bound.
type follower struct {
	ctx   context.Context
	ss    *mcp.ServerSession
	token any
	bound time.Duration

	mu      sync.Mutex
	timer   *time.Timer
	started bool
	due     bool
	fired   bool
	// eof is set when standard input closed: a job is no longer followed.
	eof bool
	// firstPolls and lastPolls are the job's poll counts when following
	// began and at the last event.
	firstPolls, lastPolls int
	progress              float64
	detach                func()
	// logger names the proxied server whose log messages are forwarded.
	logger string
}

func newFollower(req *mcp.CallToolRequest, bound time.Duration) *follower {
	return &follower{ss: req.Session, token: req.Params.GetProgressToken(), bound: bound}
}

// event handles one live event of the run. Following stops once the
// bound has passed and at least one poll has answered since following
// began, so every wait moves the job's state on.
func (f *follower) event(ev runner.Event) {
	if j := ev.Job; j != nil {
		f.mu.Lock()
		if !f.started {
			f.started, f.firstPolls = true, j.Polls
			if !runner.IsTerminalJobState(j.State) {
				f.timer = time.AfterFunc(f.bound, func() {
					f.mu.Lock()
					f.due = true
					polled := f.lastPolls > f.firstPolls
					f.mu.Unlock()
					if polled {
						f.stop()
					}
				})
			}
		}
		f.lastPolls = j.Polls
		stopNow := (f.due && j.Polls > f.firstPolls || f.eof) && !runner.IsTerminalJobState(j.State)
		f.mu.Unlock()
		msg := "job " + render.SanitizeLine(j.ID) + ": " + render.SanitizeLine(j.State)
		if j.Detail != "" {
			msg += " " + render.SanitizeLine(j.Detail)
		}
		f.notify(j.Percent, msg)
		if stopNow {
			f.stop()
		}
	}
	if p := ev.Progress; p != nil {
		f.notify(p.Percent, render.SanitizeLine(p.Message))
	}
	if l := ev.Log; l != nil {
		f.log(l)
	}
}

// maxForwardedLog bounds a forwarded log message's text, in bytes.
const maxForwardedLog = 4 << 10

// log forwards a proxied server's log message (notifications/message)
// to the client as the gateway's own, logger the server's id, text
// sanitized and bounded; the SDK sends it only at or above the level the
// client set (none set: nothing is sent).
func (f *follower) log(l *runner.LogLine) {
	if f.ss == nil || f.ctx == nil {
		return
	}
	level := mcp.LoggingLevel(l.Level)
	if !slices.Contains(logLevels, level) {
		level = "info"
	}
	text := render.SanitizeLine(l.Text)
	if len(text) > maxForwardedLog {
		text = strings.ToValidUTF8(text[:maxForwardedLog], "") + "…"
	}
	ctx, cancel := context.WithTimeout(f.ctx, time.Second)
	defer cancel()
	_ = f.ss.Log(ctx, &mcp.LoggingMessageParams{Level: level, Logger: render.SanitizeLine(f.logger), Data: text})
}

// logLevels are MCP's log levels (RFC 5424's), least severe first.
var logLevels = []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// stop stops following: the run ends detached, the job goes on.
// endFollowing stops following a job, at once or at its first event, as
// the client stopped sending (a plain run goes on to its answer).
func (f *follower) endFollowing() {
	f.mu.Lock()
	f.eof = true
	now := f.started
	f.mu.Unlock()
	if now {
		f.stop()
	}
}

func (f *follower) stop() {
	f.mu.Lock()
	f.fired = true
	d := f.detach
	f.mu.Unlock()
	if d != nil {
		d()
	}
}

// notify sends one progress notification, its progress never going back.
func (f *follower) notify(percent *float64, msg string) {
	if f.token == nil || f.ss == nil {
		return
	}
	f.mu.Lock()
	p := f.progress
	if percent != nil && *percent > p {
		p = *percent
	}
	f.progress = p
	f.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = f.ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: f.token, Progress: p, Total: 100, Message: msg})
}

// detached reports whether the follow bound stopped the following.
func (f *follower) detached() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.timer != nil {
		f.timer.Stop()
	}
	return f.fired
}
