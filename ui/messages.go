package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"modbay/runner"
	"modbay/ui/dialog"
	"modbay/ui/inputs"
)

// Messages from background work. Each carries the generation or request id
// of the work that produced it.
type (
	// modulesMsg is a finished discovery of generation gen: every
	// module, id claims applied (the authoritative list).
	modulesMsg struct {
		gen     int
		modules []*runner.Module
	}
	// discoverStartMsg says discovery gen will describe total modules.
	discoverStartMsg struct {
		gen, total int
	}
	// moduleFoundMsg is modules of discovery gen whose describes
	// finished, gathered for about a frame (before id claims: modulesMsg
	// has the last word).
	moduleFoundMsg struct {
		gen     int
		modules []*runner.Module
	}
	// planMsg is a finished Plan for form submission seq.
	planMsg struct {
		seq  int
		plan *runner.Plan
		err  error
	}
	// runEventMsg is a live event of the run with request id id.
	runEventMsg struct {
		id string
		ev runner.Event
	}
	// runDoneMsg is the end of the run with request id id.
	runDoneMsg struct {
		id     string
		result *runner.Result
		err    error
		// exchange is the run's raw exchange, nil when the backend does
		// not record one.
		exchange *exchangeArg
	}
	// runTickMsg redraws the elapsed time of run id.
	runTickMsg struct{ id string }
	// savedInputsMsg is what the input store remembers for a capability.
	savedInputsMsg struct {
		module, capability string
		saved              inputs.Saved
		err                error
	}
	// inputSavedMsg reports a preset saved (name) or the last input
	// remembered (name "") for module's capability.
	inputSavedMsg struct {
		module, capability string
		name               string
		// withheld counts the secret values not written (schema.Redact).
		withheld int
		err      error
	}
)

// graceEndMsg arrives when an approval dialog's grace period is over: the
// frame drawn for it drops the dialog's "(wait…)".
type graceEndMsg struct{}

// graceEnds schedules the redraw at the end of an approval dialog's grace
// period (dialog.GracePeriod, from now: the dialog opened now).
func graceEnds() tea.Cmd {
	return tea.Tick(dialog.GracePeriod, func(time.Time) tea.Msg { return graceEndMsg{} })
}
