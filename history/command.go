package history

import (
	"modbay/runner"
)

// CommandLine is the `modbay invoke` line that repeats a recorded run ("copy as command"):
// runner.InvokeLine with the run's Repeat flags, the line invoke
// --trace prints, with the input as recorded, whose secret values were
// masked when it was written (RedactedInput, the one redaction rule), and
// an --artifact ROOT=RUN:ARTIFACT_ID for each artifact handed to the run.
// ok is false when the input was not recorded (history.record_inputs is
// false): there is then no line that repeats the run.
func (r *Record) CommandLine() (line string, ok bool) {
	if !r.InputRecorded {
		return "", false
	}
	line = runner.InvokeLine(r.Repeat, r.Ref(), r.Capability, r.Input)
	for _, h := range r.Handoff {
		line += " --artifact " + runner.ShellQuote(h.Root+"="+h.Origin)
	}
	return line, true
}

// Ref is how a line that repeats the run names its module: ModuleRef, or
// the module's id in records written before it.
func (r *Record) Ref() string {
	if r.ModuleRef != "" {
		return r.ModuleRef
	}
	return r.Module
}

// NeedsYes reports whether the run needed approval, so that its
// CommandLine, run as printed, stops at the approval
// (runner.RepeatNeedsYes): approval was asked, not granted by policy.
func (r *Record) NeedsYes() bool { return len(r.Approval) > 0 }
