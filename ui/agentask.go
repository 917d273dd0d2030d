package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"modbay/approval"
	"modbay/internal/words"
	"modbay/modproto"
	"modbay/runner"
	"modbay/ui/dialog"
)

// Agents' approvals (docs/gateway.md "Approvals in the cockpit"): a
// serve process of this home asks the cockpit about an agent's call; the
// question opens the approval dialog (its grace period against stray
// keys, a bell), waits behind a dialog already open, and is counted in
// every header until answered here, answered by another cockpit or
// withdrawn by its serve process.

// agentAskMsg is one event of the cockpit's approval socket.
type agentAskMsg struct{ ev approval.Event }

// agentAnsweredMsg says whether an answer reached its serve process.
type agentAnsweredMsg struct {
	id  string
	err error
	// orphan: its serve process had ended; the answer was stored for the
	// agent's retry.
	orphan bool
}

// waitAgentAsk reads the next event of the socket (nil when none is open).
func (m *Model) waitAgentAsk() tea.Cmd {
	l := m.opts.AgentApprovals
	if l == nil {
		return nil
	}
	return func() tea.Msg {
		ev, ok := <-l.Events()
		if !ok {
			return nil
		}
		return agentAskMsg{ev}
	}
}

// agentAsk takes one event: a question is queued (and shown when nothing
// else is), a withdrawal closes its dialog.
func (m *Model) agentAsk(msg agentAskMsg) tea.Cmd {
	cmds := []tea.Cmd{m.waitAgentAsk()}
	if q := msg.ev.Ask; q != nil {
		m.agentAsks = append(m.agentAsks, *q)
		cmds = append(cmds, tea.Raw(bell), m.showAgentAsk())
		return tea.Batch(cmds...)
	}
	if id := msg.ev.Orphaned; id != "" {
		// Still open: answered, it applies when the agent calls again.
		if m.agentOrphans == nil {
			m.agentOrphans = map[string]bool{}
		}
		m.agentOrphans[id] = true
		m.agentNote = "its serve ended; answer on retry"
		return tea.Batch(cmds...)
	}
	id := msg.ev.Withdrawn
	m.dropAgentAsk(id)
	delete(m.agentOrphans, id)
	for i, d := range m.dialogs {
		if ap, ok := d.(*dialog.Approval); ok && ap.Ask() == id {
			m.dialogs = append(m.dialogs[:i], m.dialogs[i+1:]...)
			why := msg.ev.Why
			if why == "" {
				why = approval.WhyWithdrawn
			}
			m.agentNote = id + " withdrawn: " + why
			break
		}
	}
	return tea.Batch(append(cmds, m.showAgentAsk())...)
}

// dropAgentAsk forgets question id.
func (m *Model) dropAgentAsk(id string) {
	delete(m.agentLater, id)
	for i, q := range m.agentAsks {
		if q.ID == id {
			m.agentAsks = append(m.agentAsks[:i], m.agentAsks[i+1:]...)
			return
		}
	}
}

// typingIdle is how long after their last key a person typing (a form's
// field, a filter, a prompt) still counts as typing: an agent's question
// waits until then rather than take the focus from their keys.
const typingIdle = 3 * time.Second

// agentAskRecheck asks whether a question held back while the person
// typed can open now.
type agentAskRecheck struct{}

// typingNow reports whether keys are text now and one came within
// typingIdle.
func (m *Model) typingNow() bool {
	return m.typing() && m.com.Now().Sub(m.lastKey) < typingIdle
}

// showAgentAsk opens the oldest waiting question when no dialog is open,
// no submitted input is being planned and the person is not typing; a
// question held back for typing is said in the header (and on the form)
// and looked at again once the typing pauses.
func (m *Model) showAgentAsk() tea.Cmd {
	// The oldest not put off (l in its dialog): those wait in A.
	i := slices.IndexFunc(m.agentAsks, func(q approval.Question) bool { return !m.agentLater[q.ID] })
	if i < 0 {
		m.unhold()
	}
	if i < 0 || len(m.dialogs) > 0 || m.flow.planning {
		return nil
	}
	if m.typingNow() {
		if !m.askHeld {
			m.askHeld = true
			if f := m.form(); f != nil && m.screen() == screenForm {
				f.SetNote(heldNote)
			}
		}
		if m.askRecheck {
			return nil
		}
		m.askRecheck = true
		wait := max(typingIdle-m.com.Now().Sub(m.lastKey), 100*time.Millisecond)
		return tea.Tick(wait, func(time.Time) tea.Msg { return agentAskRecheck{} })
	}
	m.unhold()
	q := m.agentAsks[i]
	m.dialogs = append(m.dialogs, dialog.NewAgentApproval(m.com, m.agentPlan(q), q.Client, q.ID))
	return graceEnds()
}

// agentPlan is the plan the dialog shows for q: the module and capability
// facts the question carries (never this cockpit's copy, which may predate
// the module; only its schemas are kept, to mask more), with the
// question's input, roots, grants and deadline.
func (m *Model) agentPlan(q approval.Question) *runner.Plan {
	p := &runner.Plan{Module: &runner.Module{ID: q.Module}, Capability: modproto.Capability{ID: q.Capability}, Approval: q.Reasons}
	for _, mod := range m.modules.modules {
		if mod.ID != q.Module || mod.Descriptor == nil {
			continue
		}
		// The cockpit's copy only adds its schemas (to mask more of the
		// input, never less); the facts shown are the question's.
		for _, c := range mod.Descriptor.Capabilities {
			if c.ID == q.Capability {
				p.Capability = c
			}
		}
	}
	p.Module = &runner.Module{ID: q.Module, Descriptor: &modproto.Descriptor{Module: q.Module, Name: q.ModuleName}}
	p.Capability.ID, p.Capability.Title, p.Capability.LongRunning = q.Capability, q.Title, q.LongRunning
	p.Capability.Effects = modproto.Effects{}
	if e := q.Effects; e != nil {
		p.Capability.Effects = modproto.Effects{Local: e.Local, Network: e.Network, ExternalWrites: e.ExternalWrites, Provider: e.Provider, CostKnown: e.CostKnown}
	}
	p.Request.Input = q.Input
	p.Request.DeadlineMS = int(q.DeadlineMS)
	p.Request.Grants = modproto.Grants{Network: q.Network, Credentials: q.Credentials, PaidProviders: q.PaidProviders}
	p.Request.Roots = map[string]modproto.Root{}
	for _, r := range q.Roots {
		p.Request.Roots[r.Name] = modproto.Root{Mode: r.Mode, Path: r.Path}
	}
	return p
}

// answerAgent sends the person's decision on question id, off Update.
func (m *Model) answerAgent(id string, d approval.Decision) tea.Cmd {
	m.dropAgentAsk(id)
	orphan := m.agentOrphans[id]
	delete(m.agentOrphans, id)
	l := m.opts.AgentApprovals
	answer := func() tea.Msg { return agentAnsweredMsg{id: id, err: l.Answer(id, d), orphan: orphan} }
	return tea.Batch(answer, m.showAgentAsk())
}

// agentAnswered notes an answer that could not reach its serve process.
func (m *Model) agentAnswered(msg agentAnsweredMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		m.agentNote = msg.err.Error()
	case msg.orphan:
		m.agentNote = msg.id + " answered: applies on the agent's retry"
	}
	return nil
}

// unhold ends a question's holding back, and the form's note of it.
func (m *Model) unhold() {
	if !m.askHeld {
		return
	}
	m.askHeld = false
	if f := m.form(); f != nil && f.Note() == heldNote {
		f.SetNote("")
	}
}

// heldNote is what the form says while an agent's question waits for
// the person to pause typing.
const heldNote = "An agent asks for approval: the question opens when you pause typing or leave the form (A on a list shows it)."

// agentBadge is the header's count of agents' questions waiting, and
// while one is held back for typing, when it opens.
func (m *Model) agentBadge() string {
	n := len(m.agentAsks)
	if n == 0 {
		return ""
	}
	b := m.com.Styles.Muted.Render(" · ") + m.com.Styles.Warning.Render(fmt.Sprintf("%d agent %s to approve", n, words.Plural(n, "call", "calls")))
	if m.askHeld {
		b += m.com.Styles.Muted.Render(" (opens when you pause typing)")
	}
	return b
}

// agentNoteView is agentNote in the header, until the next key.
func (m *Model) agentNoteView() string {
	if m.agentNote == "" {
		return ""
	}
	return m.com.Styles.Muted.Render(" · " + m.agentNote)
}

// agentActivity is the agents' questions waiting, for the activity view:
// first among the pending approvals; enter opens the question's dialog.
type agentActivity struct{ m *Model }

func (a agentActivity) activity(time.Time) []activityEntry {
	var out []activityEntry
	for _, q := range a.m.agentAsks {
		client := q.Client
		if client == "" {
			client = "an agent"
		}
		out = append(out, activityEntry{Source: "agent " + client + " (modbay mcp serve)", RunID: q.ID, Module: q.Module,
			Capability: q.Capability, Phase: phasePending, Status: "needs approval", Started: q.Asked, Detail: strings.Join(q.Reasons, "; ")})
	}
	return out
}

// isAgentAsk reports whether id is a waiting agent's question.
func (m *Model) isAgentAsk(id string) bool {
	return slices.ContainsFunc(m.agentAsks, func(q approval.Question) bool { return q.ID == id })
}

// openAgentAsk opens question id's dialog over whatever dialog is open
// (it is not already the top one).
func (m *Model) openAgentAsk(id string) tea.Cmd {
	if n := len(m.dialogs); n > 0 {
		if ap, ok := m.dialogs[n-1].(*dialog.Approval); ok && ap.Ask() == id {
			return nil
		}
	}
	for _, q := range m.agentAsks {
		if q.ID == id {
			m.dialogs = append(m.dialogs, dialog.NewAgentApproval(m.com, m.agentPlan(q), q.Client, q.ID))
			return graceEnds()
		}
	}
	return nil
}
