package ui

import (
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"modbay/history"
	"modbay/ui/internal/uitest"
)

// summaries10k is a history of 10 000 runs over four modules, newest first.
func summaries10k() []history.Summary {
	mods := []string{"notes", "fetch", "render-farm", "transcode"}
	sums := make([]history.Summary, 10000)
	for i := range sums {
		st := history.StatusOK
		if i%7 == 0 {
			st = history.StatusError
		}
		mod := mods[i%len(mods)]
		sums[i] = history.Summary{RunID: fmt.Sprintf("req_%032x", i), Module: mod, Capability: mod + ".run", Status: st,
			Started: uitest.Epoch.Add(-time.Duration(i) * time.Minute), DurationMS: int64(i % 5000), Input: `{"pattern":"*.md","n":` + fmt.Sprint(i) + `}`}
	}
	return sums
}

// BenchmarkHistoryOpen10000 is the history screen over 10 000 runs once
// listed (history.BenchmarkList10000 measures the listing): showing them
// and drawing the first frame (open and filter under 100 ms).
func BenchmarkHistoryOpen10000(b *testing.B) {
	sums := summaries10k()
	m, _ := newTest(&testing.T{}, nil, 120, 40)
	for b.Loop() {
		m.stack = m.stack[:1]
		m.open(screenHistory, nil)
		m.Update(historyListedMsg{sums: sums})
		_ = m.View()
	}
}

// BenchmarkHistoryFilter10000 is one keystroke of the filter over 10 000
// runs and the frame after it: the query alternates between
// "module:fetch" and "module:fetc", so every press refilters them all.
func BenchmarkHistoryFilter10000(b *testing.B) {
	sums := summaries10k()
	m, _ := newTest(&testing.T{}, nil, 120, 40)
	m.open(screenHistory, nil)
	m.Update(historyListedMsg{sums: sums})
	m.Update(uitest.Key("/"))
	for _, msg := range uitest.Type("module:fetc") {
		m.Update(msg)
	}
	h := uitest.Type("h")[0]
	back := tea.KeyPressMsg{Code: tea.KeyBackspace}
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			m.Update(h)
		} else {
			m.Update(back)
		}
		i++
		_ = m.View()
	}
}
