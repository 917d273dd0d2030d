package ui

import (
	"fmt"

	"modbay/internal/words"
)

// backgroundJobs counts the runs in flight that no screen on the stack
// shows: jobs left polling in the background (esc) or resumed at start.
func (m *Model) backgroundJobs() int {
	n := 0
	for id, r := range m.runs {
		if !r.done && !m.showsRun(id) {
			n++
		}
	}
	return n
}

// jobsBadge is the header's count of background jobs ("" when none).
func (m *Model) jobsBadge() string {
	n := m.backgroundJobs()
	if n == 0 {
		return ""
	}
	what := words.Plural(n, "job", "jobs")
	for id, r := range m.runs {
		if !r.done && r.job == nil && !r.plan.Capability.LongRunning && !m.showsRun(id) {
			what = words.Plural(n, "run", "runs") // a plain run is no job
			break
		}
	}
	return m.com.Styles.Muted.Render(" · ") + m.com.Styles.Warning.Render(fmt.Sprintf("%d %s in background", n, what))
}
