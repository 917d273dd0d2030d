package ui

import (
	"testing"

	"modbay/history"
)

func TestHistoryFilterBySource(t *testing.T) {
	agent := &historyItem{sum: &history.Summary{RunID: "req_1", Module: "notes", Source: history.SourceMCPServe}}
	person := &historyItem{sum: &history.Summary{RunID: "req_2", Module: "notes", Source: history.SourceCockpit}}
	for q, want := range map[string][2]bool{"source:mcp-serve": {true, false}, "source:mcp": {true, false},
		"source:cockpit notes": {false, true}, "source:serve": {false, false}} {
		if got := [2]bool{agent.MatchFilter(q), person.MatchFilter(q)}; got != want {
			t.Errorf("%q: agent %v person %v, want %v", q, got[0], got[1], want)
		}
	}
}
