package history

import (
	"modbay/runner"
)

// CommandLine is the `modbay invoke` line that repeats a recorded run ("copy as command"):
// runner.InvokeLine, the line invoke
// --trace prints, with the input as recorded, whose secret values were
// masked when it was written (RedactedInput, the one redaction rule), and
// an --artifact ROOT=RUN:ARTIFACT_ID for each artifact handed to the run.
// ok is false when the input was not recorded (history.record_inputs is
// false): there is then no line that repeats the run.
func (r *Record) CommandLine() (line string, ok bool) {
	if !r.InputRecorded {
		return "", false
	}
	ref := r.ModuleRef
	if ref == "" {
		ref = r.Module
	}
	line = runner.InvokeLine(ref, r.Capability, r.Input)
	for _, h := range r.Handoff {
		line += " --artifact " + runner.ShellQuote(h.Root+"="+h.Origin)
	}
	return line, true
}
