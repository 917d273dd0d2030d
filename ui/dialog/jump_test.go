package dialog

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"modbay/ui/common"
)

func TestFuzzyScore(t *testing.T) {
	cases := []struct {
		q, s string
		ok   bool
	}{
		{"", "anything", true},
		{"nr", "notes.report", true},
		{"NOTES", "notes.report", true},
		{"rn", "notes.report", false},
		{"notes.reportx", "notes.report", false},
	}
	for _, c := range cases {
		if _, ok := FuzzyScore(c.q, c.s); ok != c.ok {
			t.Errorf("FuzzyScore(%q, %q) ok = %v, want %v", c.q, c.s, ok, c.ok)
		}
	}
	// Ranking: exact over prefix over word starts over scattered.
	score := func(q, s string) int { n, _ := FuzzyScore(q, s); return n }
	if !(score("rep", "rep") > score("rep", "report") && score("rep", "report") > score("rep", "notes.report") &&
		score("rep", "notes.report") > score("rep", "a-r-e-p-long-name")) {
		t.Errorf("ranking: exact %d, prefix %d, word start %d, scattered %d", score("rep", "rep"),
			score("rep", "report"), score("rep", "notes.report"), score("rep", "a-r-e-p-long-name"))
	}
}

func TestJumpRanksAndCompletes(t *testing.T) {
	j := NewJump(common.New(true), []JumpEntry{
		{ID: "notes", Title: "Workspace notes", Kind: "module"},
		{ID: "notes.report", Title: "Summarize notes", Kind: "capability of notes"},
		{ID: "fetch.url", Title: "Fetch a URL", Kind: "capability of fetch"},
	})
	if len(j.Matches()) != 3 {
		t.Fatalf("empty query lists %d, want every entry", len(j.Matches()))
	}
	for _, r := range "summ" {
		j.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	if m := j.Matches(); len(m) != 1 || m[0].ID != "notes.report" {
		t.Fatalf("a title matches: %v", m)
	}
	j.Update(tea.KeyPressMsg{Code: tea.KeyTab})
	if v := j.input.Value(); v != "notes.report" {
		t.Fatalf("tab completed to %q", v)
	}
	act, _ := j.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if a, ok := act.(ActionJump); !ok || a.Index != 1 {
		t.Fatalf("enter answered %#v, want ActionJump{1}", act)
	}
	if act, _ := j.Update(tea.KeyPressMsg{Code: tea.KeyEscape}); act != (ActionClose{}) {
		t.Fatalf("esc answered %#v", act)
	}
}
