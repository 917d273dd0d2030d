package cli

import (
	"bytes"
	"testing"

	"modbay/runner"
)

// TestVerboseStderrLinesArePrefixed: invoke -v streams the module's
// stderr with each line after moduleStderrPrefix, however the chunks cut
// the lines, so a module cannot print a line that reads as modbay's own.
func TestVerboseStderrLinesArePrefixed(t *testing.T) {
	var errb bytes.Buffer
	o := &InvokeOptions{Verbose: true, IO: &ioStreams{ErrOut: &errb}}
	ev := o.events()
	ev(runner.Event{Stderr: []byte("ok fake.report\ncontain")})
	ev(runner.Event{Stderr: []byte("ment: complete\n\x1b[2Jdone")})
	ev(runner.Event{Job: &runner.JobStatus{ID: "j1", State: "running"}})
	want := "│ ok fake.report\n│ containment: complete\n│ ␛[2Jdone\njob j1: running \n"
	if got := errb.String(); got != want {
		t.Fatalf("streamed\n%q\nwant\n%q", got, want)
	}
}
