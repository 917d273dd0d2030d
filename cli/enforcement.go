package cli

import (
	"fmt"
	"io"
	"strings"

	"modbay/contain"
	"modbay/modproto"
	"modbay/runner"
)

// notContainedHint follows every sandbox: require refusal: where to see
// why, and the other choice.
const notContainedHint = "`modbay doctor` shows what this machine lacks and why; with sandbox: auto the module runs and its result says what was not enforced."

// enforcementOut is the --json shape of a contain.Enforcement: its layers
// as applied, whether it was complete, and the gaps (always an array, [] when
// complete).
type enforcementOut struct {
	contain.Enforcement
	// Complete is contain.Enforcement.Complete: every layer enforced.
	Complete bool `json:"complete"`
	// Gaps shadows the embedded field so it is never omitted.
	Gaps []string `json:"gaps"`
}

// enforcementJSON is e for --json.
func enforcementJSON(e contain.Enforcement) enforcementOut {
	gaps := e.Gaps
	if gaps == nil {
		gaps = []string{}
	}
	return enforcementOut{Enforcement: e, Complete: e.Complete(), Gaps: gaps}
}

// recorded reports whether e was recorded at all: false when no process
// was started (a run that failed before its spawn).
func recorded(e contain.Enforcement) bool { return e.Processes != "" }

// enforcementSummary is e in one line: "containment: complete (pid
// namespace, landlock ABI 7, network namespace + no sockets (seccomp))",
// "containment: 2 gaps: network: …; signals: …", or "containment: none
// (sandbox: off)". "" when nothing was recorded.
func enforcementSummary(e contain.Enforcement) string {
	switch {
	case !recorded(e):
		return ""
	case !e.Contained:
		why := "not contained"
		if len(e.Gaps) > 0 {
			why = strings.TrimPrefix(e.Gaps[0], "containment: ")
		}
		return "containment: none (" + clean(why) + "): the module ran as a plain process in its own process group"
	case e.Complete():
		return fmt.Sprintf("containment: complete (%s, %s, network %s)", clean(e.Processes), clean(e.Filesystem), clean(e.Network))
	}
	return fmt.Sprintf("containment: %s: %s", count(len(e.Gaps), "gap", "gaps"), clean(strings.Join(e.Gaps, "; ")))
}

// writeEnforcement writes e's summary line, or with layers the heading
// "containment:" and one indented line per layer (contain.Enforcement's
// String), then each gap marked "!". Nothing when nothing was recorded.
func writeEnforcement(w io.Writer, e contain.Enforcement, layers bool) {
	if !recorded(e) {
		return
	}
	if !layers {
		fmt.Fprintln(w, enforcementSummary(e))
		return
	}
	state := "complete"
	if !e.Complete() {
		state = count(len(e.Gaps), "gap", "gaps")
	}
	fmt.Fprintf(w, "containment (%s):\n", state)
	for l := range strings.SplitSeq(e.String(), "\n") {
		fmt.Fprintf(w, "  %s\n", clean(l))
	}
	for _, g := range e.Gaps {
		fmt.Fprintf(w, "  ! %s\n", clean(g))
	}
}

// notContainedError is sandbox: require's refusal of a module that cannot
// be fully contained on this machine (contain.ErrNotContained), with the
// layers that could not be enforced, each "layer: why".
type notContainedError struct {
	Module string
	Gaps   []string
}

// Error implements error.
func (e *notContainedError) Error() string {
	return fmt.Sprintf("sandbox: require: %s cannot be fully contained on this machine", e.Module)
}

// Unwrap returns contain.ErrNotContained.
func (e *notContainedError) Unwrap() error { return contain.ErrNotContained }

// describeRefusedPrefix begins the broken reason of a module whose
// describe sandbox: require refused (runner's describe: "describe: cannot
// start: " and contain.Start's error). The whole prefix is the host's
// own text, so a module cannot forge it.
var describeRefusedPrefix = "describe: cannot start: " + contain.ErrNotContained.Error() + ": "

// describeNotContained is a notContainedError when m is broken because
// sandbox: require refused to start its describe (so it cannot be planned
// either); nil otherwise.
func describeNotContained(m *runner.Module) error {
	if m.Status != runner.StatusBroken {
		return nil
	}
	rest, ok := strings.CutPrefix(m.Reason, describeRefusedPrefix)
	if !ok {
		return nil
	}
	return &notContainedError{Module: cleanID(m.ID), Gaps: splitGaps(rest)}
}

// runNotContained is a notContainedError when res is sandbox: require's
// refusal of the invoke itself (a cached describe let it be planned; the
// process was stopped at its first instruction); nil otherwise.
func runNotContained(res *runner.Result) error {
	h := res.Host
	if h == nil || h.Code != modproto.CodeHostSpawnFailed || !strings.Contains(h.Detail, contain.ErrNotContained.Error()) {
		return nil
	}
	gaps := res.Enforcement.Gaps
	if len(gaps) == 0 {
		_, rest, _ := strings.Cut(h.Detail, contain.ErrNotContained.Error()+": ")
		gaps = splitGaps(rest)
	}
	return &notContainedError{Module: cleanID(res.Module), Gaps: gaps}
}

// gapLayers are the names a gap begins with (contain's layers and the
// whole "containment").
var gapLayers = []string{"containment", "processes", "filesystem", "network", "capabilities", "terminal",
	"signals", "unix sockets", "descriptors", "metadata", "limits"}

// splitGaps splits contain.Start's "; "-joined gaps back into one per
// layer: a reason may itself hold "; " ("not enforced (no network
// namespace; no seccomp)"), so a piece starts a new gap only when it
// begins with a layer's name.
func splitGaps(s string) []string {
	var gaps []string
	for piece := range strings.SplitSeq(s, "; ") {
		starts := false
		for _, l := range gapLayers {
			if strings.HasPrefix(piece, l+": ") {
				starts = true
				break
			}
		}
		if starts || len(gaps) == 0 {
			gaps = append(gaps, piece)
		} else {
			gaps[len(gaps)-1] += "; " + piece
		}
	}
	return gaps
}
