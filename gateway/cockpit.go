package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/approval"
	"modbay/history"
	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
)

// Bounds of an approval asked in the cockpit (docs/gateway.md "Approvals
// in the cockpit").
const (
	// DefaultApprovalWait is how long a call waits for a person's answer
	// before it returns "approval pending": below the 60 s request
	// timeout common clients use (the TypeScript SDK's default).
	DefaultApprovalWait = 40 * time.Second
	// DefaultApprovalKeep is how long a question stays open after its
	// call returned pending, and how long an answer given then applies
	// to the same call (same tool and input) retried.
	DefaultApprovalKeep = 10 * time.Minute
	// approvalTick is how often a waiting call sends progress (a quarter
	// of a shorter wait).
	approvalTick = 5 * time.Second
	// maxAsks bounds the questions one serve process keeps open.
	maxAsks = 64
)

// ask is a question asked of the cockpits for one call (tool and input).
type ask struct {
	// st is the session whose call asked first.
	st      *session
	id      string
	p       *approval.Pending
	expires time.Time
	// stored and identity match an answer given through the store
	// (approval.TakeAnswer) to the same call asked by an ended process.
	stored, identity string
}

// askCockpit asks the home's running cockpits to approve plan, waiting
// up to ApprovalWait (sending progress); asked is false when no cockpit
// runs (or every one went without answering), and the caller asks by
// other means. A nil result with asked means approved, by the returned
// name.
func (s *Server) askCockpit(ctx context.Context, req *mcp.CallToolRequest, st *session, e *entry, plan *runner.Plan) (res *mcp.CallToolResult, by string, asked bool) {
	key := callKey(req)
	// An answer a cockpit gave after the serve process that asked ended
	// (this one or another of the home) applies to the same call once.
	if ans, ok := approval.TakeAnswer(s.pendingDir(), approval.CallKey(req.Params.Name, req.Params.Arguments), e.module.Key, time.Now()); ok {
		return s.answered(ans, st, e, plan, time.Now())
	}
	// A question whose cockpits all went away (a restart) is asked again
	// of the cockpits listening now, once per call.
	for try := 0; ; try++ {
		res, by, asked, gone := s.askCockpitOnce(ctx, req, st, e, plan, key)
		if !gone || try > 0 {
			return res, by, asked
		}
	}
}

// askCockpitOnce is one askCockpit: gone when the question it waited on
// was withdrawn because every cockpit went away.
func (s *Server) askCockpitOnce(ctx context.Context, req *mcp.CallToolRequest, st *session, e *entry, plan *runner.Plan, key string) (res *mcp.CallToolResult, by string, asked, gone bool) {
	now := time.Now()
	s.mu.Lock()
	a := s.asks[key]
	if a != nil && (now.After(a.expires) || a.withdrawn()) {
		delete(s.asks, key)
		a = nil
	}
	s.mu.Unlock()
	if a == nil {
		q := question(st, e, plan)
		p, err := approval.Ask(s.opts.Cockpits, q)
		if err != nil {
			return nil, "", false, false
		}
		a = &ask{st: st, id: q.ID, p: p, expires: now.Add(s.opts.ApprovalKeep),
			stored: approval.CallKey(req.Params.Name, req.Params.Arguments), identity: e.module.Key}
		// Stored, so the question outlives this process: a cockpit may
		// answer it after it ended, for a later serve process to honour.
		_ = approval.Store(s.pendingDir(), approval.Stored{Question: q, Key: approval.CallKey(req.Params.Name, req.Params.Arguments),
			Identity: e.module.Key, Expires: a.expires})
		s.mu.Lock()
		for k, o := range s.asks {
			if len(s.asks) < maxAsks {
				break
			}
			o.p.Withdraw()
			delete(s.asks, k)
		}
		s.asks[key] = a
		s.mu.Unlock()
		s.publishSessions()
		go func() {
			select {
			case <-p.Done():
				if p.Answer().Decision != "" {
					approval.Remove(s.pendingDir(), q.ID) // answered here: nothing to carry over
				}
			case <-time.After(s.opts.ApprovalKeep):
				p.Withdraw()
				approval.Remove(s.pendingDir(), q.ID)
			}
			s.publishSessions()
		}()
	}
	if !s.waitAnswer(ctx, req, a) {
		why := fmt.Sprintf("not run: approval pending (id %s): nobody answered in the cockpit within %s", a.id, s.opts.ApprovalWait)
		if ctx.Err() != nil {
			why = fmt.Sprintf("not run: the client went away while approval was pending (id %s)", a.id)
		}
		s.notRunSince(plan, st, why, now)
		return toolError(string(modproto.KindNotRun), CodeApprovalPending, fmt.Sprintf(
			"approval pending (id %s): approve it in the modbay cockpit, then call again with the same input; nothing ran. "+
				"An answer given within %s applies to this same call.", a.id, s.opts.ApprovalKeep)), "", true, false
	}
	s.mu.Lock()
	if s.asks[key] == a {
		delete(s.asks, key) // an answer applies once
	}
	s.mu.Unlock()
	ans := a.p.Answer()
	if ans.Decision == "" {
		return nil, "", false, true // withdrawn unanswered: every cockpit went away
	}
	res, by, asked = s.answered(ans, st, e, plan, now)
	return res, by, asked, false
}

// answered acts on a cockpit's answer ans to plan's question, asked at
// asked (a denial's record starts then).
func (s *Server) answered(ans approval.Answer, st *session, e *entry, plan *runner.Plan, askedAt time.Time) (res *mcp.CallToolResult, by string, asked bool) {
	by = ans.By
	if by == "" {
		by = "the cockpit"
	}
	switch ans.Decision {
	case approval.Once:
		return nil, by, true
	case approval.Session:
		st.approvals.Allow(plan)
		return nil, by + " (for this session)", true
	case approval.Deny:
		s.notRunSince(plan, st, "not run: denied in "+by, askedAt)
		return toolError(string(modproto.KindOf(CodeDenied)), CodeDenied, fmt.Sprintf("%s %s was denied by the person in %s; nothing ran",
			render.SanitizeLine(e.module.ID), render.SanitizeLine(e.cap.ID), by)), "", true
	}
	return nil, "", false
}

// pendingDir is where this home's questions are stored
// (<home>/serve/pending, beside the cockpits' sockets).
func (s *Server) pendingDir() string {
	return filepath.Join(filepath.Dir(s.opts.Cockpits), approval.PendingDir)
}

// withdrawn reports whether a's question ended without an answer.
func (a *ask) withdrawn() bool {
	select {
	case <-a.p.Done():
		return a.p.Answer().Decision == ""
	default:
		return false
	}
}

// CodeApprovalPending is the error code of a call that waited for an
// approval in the cockpit and got none yet (kind not_run).
const CodeApprovalPending = "approval_pending"

// CodeDenied is the error code of a call a person denied (kind authz);
// CodeNoCancelCapability of a job cancel its capability cannot do
// (kind not_run). docs/protocol.md §15 lists both.
const (
	CodeDenied             = "denied"
	CodeNoCancelCapability = "no_cancel_capability"
)

// waitAnswer waits up to ApprovalWait for a's answer, sending progress
// when the client gave a token; false when the wait ended first.
func (s *Server) waitAnswer(ctx context.Context, req *mcp.CallToolRequest, a *ask) bool {
	bound := time.NewTimer(s.opts.ApprovalWait)
	defer bound.Stop()
	tick := time.NewTicker(min(approvalTick, max(s.opts.ApprovalWait/4, 10*time.Millisecond)))
	defer tick.Stop()
	token := req.Params.GetProgressToken()
	n := 0.0
	for {
		select {
		case <-a.p.Done():
			return true
		case <-ctx.Done():
			return false
		case <-bound.C:
			return false
		case <-tick.C:
			// The same call asked by a serve process that ended may have
			// been answered meanwhile, through the store.
			if ans, ok := approval.TakeAnswer(s.pendingDir(), a.stored, a.identity, time.Now()); ok && a.p.Settle(ans) {
				return true
			}
			if token != nil {
				n++
				pctx, cancel := context.WithTimeout(ctx, time.Second)
				_ = req.Session.NotifyProgress(pctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: n,
					Message: "waiting for a person's approval in the modbay cockpit (id " + a.id + ")"})
				cancel()
			}
		}
	}
}

// question is what the cockpit is asked about plan: the facts its
// approval dialog shows, the input with its secrets masked.
func question(st *session, e *entry, plan *runner.Plan) approval.Question {
	var b [6]byte
	_, _ = rand.Read(b[:])
	in, _ := history.RedactedInput(plan)
	g := plan.Request.Grants
	q := approval.Question{ID: "apr_" + hex.EncodeToString(b[:]), Client: st.client, Tool: e.tool.Name,
		Module: e.module.ID, Capability: e.cap.ID, Input: in, Reasons: plan.Approval,
		Network: g.Network, Credentials: g.Credentials, PaidProviders: g.PaidProviders,
		DeadlineMS: int64(plan.Request.DeadlineMS), Asked: time.Now(), PID: os.Getpid()}
	// The facts the dialog shows are the plan's, sanitized here too: the
	// cockpit may not know the module yet, or know an older descriptor.
	c := plan.Capability
	q.Title, q.LongRunning = clip(c.Title), c.LongRunning
	if plan.Module != nil && plan.Module.Descriptor != nil {
		q.ModuleName = clip(plan.Module.Descriptor.Name)
	}
	q.Effects = &approval.Effects{Local: c.Effects.Local, Network: c.Effects.Network, ExternalWrites: c.Effects.ExternalWrites,
		Provider: clip(c.Effects.Provider), CostKnown: c.Effects.CostKnown}
	for name, r := range plan.Request.Roots {
		q.Roots = append(q.Roots, approval.Root{Name: name, Mode: string(r.Mode), Path: r.Path})
	}
	slices.SortFunc(q.Roots, func(a, b approval.Root) int {
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	return q
}

// maxFact bounds each descriptor fact a question carries, in bytes.
const maxFact = 256

// clip is s sanitized to one line of at most maxFact bytes.
func clip(s string) string {
	s = render.SanitizeLine(s)
	if len(s) > maxFact {
		s = strings.ToValidUTF8(s[:maxFact], "")
	}
	return s
}
