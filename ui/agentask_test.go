package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"testing"
	"time"

	"modbay/approval"
	"modbay/history"
	"modbay/ui/dialog"
	"modbay/ui/internal/uitest"
)

func TestAgentQuestionInHeaderAndActivity(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	withModules(t, m)
	m.agentAsks = []approval.Question{{ID: "apr_1", Client: "claude\x1b[31m-code", Tool: "fetch_url", Module: "fetch", Capability: "fetch.url",
		Input: []byte(`{"url":"http://x"}`), Reasons: []string{"reaches the network"}, Asked: uitest.Epoch}}
	if h := m.header(); !strings.Contains(h, "1 agent call to approve") {
		t.Errorf("header %q", h)
	}
	press(m, "A")
	if m.screen() != screenActivity {
		t.Fatalf("A opened %s", m.screen())
	}
	view := m.top().View()
	if !strings.Contains(view, "needs approval") || !strings.Contains(view, "from agent claude") || !strings.Contains(view, "fetch.url") {
		t.Fatalf("activity view:\n%s", view)
	}
	press(m, "enter")
	if len(m.dialogs) != 1 {
		t.Fatalf("enter opened %d dialogs", len(m.dialogs))
	}
	ap, ok := m.dialogs[0].(*dialog.Approval)
	if !ok || ap.Ask() != "apr_1" {
		t.Fatalf("dialog %T", m.dialogs[0])
	}
	if v := ap.View(100, 30); !strings.Contains(v, "-code (through modbay mcp serve)") || strings.Contains(v, "\x1b[31m-code") {
		t.Errorf("the agent's name is not sanitized:\n%s", v)
	}
}

func TestActivityListsAnAgentsRunningCall(t *testing.T) {
	now := uitest.Epoch
	a := &historyActivity{m: &Model{modules: &moduleList{}}, sums: []history.Summary{
		{RunID: "req_agent", Module: "fetch", Capability: "fetch.url", Source: history.SourceMCPServe, Status: history.StatusRunning, Started: now.Add(-time.Minute)},
		{RunID: "req_old", Module: "fetch", Capability: "fetch.url", Source: history.SourceMCPServe, Status: history.StatusRunning, Started: now.Add(-time.Hour)},
		{RunID: "req_person", Module: "fetch", Capability: "fetch.url", Source: history.SourceInvoke, Status: history.StatusRunning, Started: now.Add(-time.Minute)},
	}}
	got := a.activity(now)
	if len(got) != 1 || got[0].RunID != "req_agent" || got[0].Phase != phaseRunning || !strings.Contains(got[0].Source, "mcp serve") {
		t.Errorf("activity %+v", got)
	}
}

// An agent's question that comes while the person types in a form does
// not take the focus: a bell, the badge says it waits, the form says how
// it opens; it opens once the typing pauses (with the dialog's grace
// period), or at once when the person leaves the form.
func TestAgentQuestionWaitsWhileTyping(t *testing.T) {
	ask := func(id string) agentAskMsg {
		return agentAskMsg{ev: approval.Event{Ask: &approval.Question{ID: id, Client: "claude-code", Tool: "fetch_url", Module: "fetch",
			Capability: "fetch.url", Input: []byte(`{"url":"http://x"}`), Reasons: []string{"reaches the network"}, Asked: uitest.Epoch}}}
	}
	m, clock := newTest(t, nil, 100, 30)
	openForm(t, m, 0)
	if !m.typing() {
		t.Fatal("the form's field does not take text")
	}
	typeText(m, "Ad")
	if _, cmd := m.Update(ask("apr_1")); cmd == nil {
		t.Fatal("no bell, no look again")
	}
	if len(m.dialogs) != 0 {
		t.Fatal("the question took the focus from a person typing")
	}
	if h := m.header(); !strings.Contains(h, "1 agent call to approve") || !strings.Contains(h, "opens when you pause typing") {
		t.Errorf("header %q", h)
	}
	if f := m.form(); f == nil || f.Note() != heldNote {
		t.Errorf("the form does not say the question waits: %q", f.Note())
	}
	// Typing on: the look again finds the person still typing.
	clock.Advance(2 * time.Second)
	typeText(m, "a")
	clock.Advance(2 * time.Second)
	if _, cmd := m.Update(agentAskRecheck{}); len(m.dialogs) != 0 || cmd == nil {
		t.Fatalf("opened while typing (%d dialogs), or no look again", len(m.dialogs))
	}
	// A pause: it opens over the form, the grace period against the next
	// key included.
	clock.Advance(typingIdle)
	m.Update(agentAskRecheck{})
	if len(m.dialogs) != 1 {
		t.Fatal("the question did not open once the typing paused")
	}
	if f := m.form(); f.Note() == heldNote {
		t.Error("the form still says the question waits")
	}
	if strings.Contains(m.header(), "opens when you pause") {
		t.Error("the badge still says it waits")
	}
	press(m, "a")
	if len(m.dialogs) != 1 {
		t.Error("a key in the grace period answered the question")
	}

	// Leaving the form opens a held question at once.
	m2, _ := newTest(t, nil, 100, 30)
	openForm(t, m2, 0)
	typeText(m2, "x")
	m2.Update(ask("apr_2"))
	if len(m2.dialogs) != 0 {
		t.Fatal("the question took the focus from a person typing")
	}
	press(m2, "esc")
	for m2.screen() == screenForm && len(m2.dialogs) == 0 {
		press(m2, "esc") // a draft kept first, then the form left
	}
	if len(m2.dialogs) != 1 {
		t.Fatalf("leaving the form did not open the question (screen %s)", m2.screen())
	}
	if ap, ok := m2.dialogs[0].(*dialog.Approval); !ok || ap.Ask() != "apr_2" {
		t.Errorf("leaving the form opened %T", m2.dialogs[0])
	}

	// On a list (no typing) it opens at once, as before.
	m3, _ := newTest(t, nil, 100, 30)
	withModules(t, m3)
	press(m3, "down")
	m3.Update(ask("apr_3"))
	if len(m3.dialogs) != 1 {
		t.Error("on a list the question did not open at once")
	}
}

// TestAgentQuestionShowsTheQuestionsFacts: a question about a module the
// cockpit has not discovered (installed after it started) shows the facts
// the serve process sent, sanitized, never "unknown" or "(none declared)"
// from a missing or stale copy; the cockpit's own copy never overrides them.
func TestAgentQuestionShowsTheQuestionsFacts(t *testing.T) {
	m, _ := newTest(t, nil, 120, 40)
	withModules(t, m)
	for _, q := range []approval.Question{
		{ID: "apr_1", Client: "agent", Tool: "farm_render", Module: "farm", Capability: "farm.render", ModuleName: "Render Farm",
			Title: "Render \x1b[31mframes", Effects: &approval.Effects{Local: true, Provider: "local", CostKnown: true},
			Input: []byte(`{"frames":40}`), Reasons: []string{"declares provider local"}, Asked: uitest.Epoch},
		{ID: "apr_2", Client: "agent", Tool: "fetch_url", Module: "fetch", Capability: "fetch.url", Title: "Fetch now",
			Effects: &approval.Effects{Local: true, Provider: "local", CostKnown: true},
			Input:   []byte(`{"url":"http://x"}`), Reasons: []string{"declares provider local"}, Asked: uitest.Epoch},
	} {
		v := ansi.Strip(dialog.NewAgentApproval(m.com, m.agentPlan(q), q.Client, q.ID).View(120, 40))
		for _, want := range []string{"Provider     local", "Est. cost    known", "local"} {
			if !strings.Contains(v, want) {
				t.Errorf("%s: no %q in the dialog:\n%s", q.ID, want, v)
			}
		}
		if strings.Contains(v, "none declared") || strings.Contains(v, "Est. cost    unknown") || strings.Contains(v, "\x1b[31m") {
			t.Errorf("%s: the dialog shows a fact the question did not say:\n%s", q.ID, v)
		}
		if q.ID == "apr_1" && !strings.Contains(v, "frames (farm.render)") {
			t.Errorf("the capability's title is not the question's:\n%s", v)
		}
		if q.ID == "apr_2" && !strings.Contains(v, "Fetch now (fetch.url)") {
			t.Errorf("the capability's title is the cockpit's copy:\n%s", v)
		}
	}
}

// TestAgentQuestionLater: l (or esc) on an agent's question closes the
// dialog without an answer; the question waits in A, does not open again
// by itself, and enter there opens it; d still denies. The help bar says
// so.
func TestAgentQuestionLater(t *testing.T) {
	ask := func(id string) agentAskMsg {
		return agentAskMsg{ev: approval.Event{Ask: &approval.Question{ID: id, Client: "claude-code", Tool: "fetch_url", Module: "fetch",
			Capability: "fetch.url", Input: []byte(`{"url":"http://x"}`), Reasons: []string{"reaches the network"}, Asked: uitest.Epoch}}}
	}
	for _, k := range []string{"l", "esc"} {
		m, clock := newTest(t, nil, 100, 30)
		m.Update(ask("apr_1"))
		if len(m.dialogs) != 1 {
			t.Fatalf("%s: the question did not open", k)
		}
		if keys := strings.Join(helpKeys(m), " "); !strings.Contains(keys, "l/esc") || strings.Contains(keys, "d/esc") {
			t.Errorf("%s: help keys %s", k, keys)
		}
		press(m, k) // within the grace period: putting off answers nothing
		if len(m.dialogs) != 0 || !m.isAgentAsk("apr_1") {
			t.Fatalf("%s: dialogs %d, question still waiting %v", k, len(m.dialogs), m.isAgentAsk("apr_1"))
		}
		m.Update(agentAskRecheck{})
		if len(m.dialogs) != 0 {
			t.Fatalf("%s: the question put off opened again by itself", k)
		}
		if h := m.header(); !strings.Contains(h, "1 agent call to approve") || !strings.Contains(h, "waits in A") {
			t.Errorf("%s: header %q", k, h)
		}
		press(m, "A")
		if v := m.top().View(); !strings.Contains(v, "needs approval") || !strings.Contains(v, "fetch.url") {
			t.Fatalf("%s: A does not list the question:\n%s", k, v)
		}
		press(m, "enter")
		if len(m.dialogs) != 1 {
			t.Fatalf("%s: enter in A opened %d dialogs", k, len(m.dialogs))
		}
		if ap, ok := m.dialogs[0].(*dialog.Approval); !ok || ap.Ask() != "apr_1" {
			t.Fatalf("%s: dialog %T", k, m.dialogs[0])
		}
		clock.Advance(dialog.GracePeriod)
		if _, cmd := m.Update(uitest.Key("d")); cmd == nil || len(m.dialogs) != 0 || m.isAgentAsk("apr_1") {
			t.Errorf("%s: d did not deny: dialogs %d waiting %v", k, len(m.dialogs), m.isAgentAsk("apr_1"))
		}
	}
}

// A question whose serve process ended stays open (its answer applies to
// the agent's retry), and the header says so; one withdrawn says why.
// Both fit an 80-column header whole.
func TestAgentQuestionOrphanedAndWithdrawn(t *testing.T) {
	m, _ := newTest(t, nil, 80, 24)
	withModules(t, m)
	q := approval.Question{ID: "apr_0123456789ab", Client: "inspector", Tool: "fetch_url", Module: "fetch", Capability: "fetch.url",
		Input: []byte(`{"url":"http://x"}`), Reasons: []string{"reaches the network"}, Asked: uitest.Epoch}
	m.agentAsk(agentAskMsg{approval.Event{Ask: &q}})
	if len(m.dialogs) != 1 {
		t.Fatalf("%d dialogs", len(m.dialogs))
	}
	m.agentAsk(agentAskMsg{approval.Event{Orphaned: q.ID}})
	want := "its serve ended; answer on retry"
	if h := m.header(); len(m.dialogs) != 1 || len(m.agentAsks) != 1 || !strings.Contains(h, want) {
		t.Errorf("orphaned: %d dialogs, header %q", len(m.dialogs), h)
	}
	m.agentAsk(agentAskMsg{approval.Event{Withdrawn: q.ID, Why: approval.WhyProcessEnded}})
	want = "apr_0123456789ab withdrawn: its serve process ended"
	if h := m.header(); len(m.dialogs) != 0 || !strings.Contains(h, want) || strings.Contains(h, "elsewhere") {
		t.Errorf("withdrawn: %d dialogs, header %q", len(m.dialogs), h)
	}
}
