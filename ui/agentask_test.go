package ui

import (
	"strings"
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
