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

// TestVerboseProgressAndLogs: invoke -v prints an MCP server's progress
// and log messages as they arrive, on lines of their own, sanitized.
func TestVerboseProgressAndLogs(t *testing.T) {
	var errb bytes.Buffer
	o := &InvokeOptions{Verbose: true, IO: &ioStreams{ErrOut: &errb}}
	ev := o.events()
	pct := 50.0
	ev(runner.Event{Stderr: []byte("partial")})
	ev(runner.Event{Progress: &runner.Progress{Percent: &pct, Message: "step 2"}})
	ev(runner.Event{Progress: &runner.Progress{}})
	ev(runner.Event{Log: &runner.LogLine{Level: "error", Text: "disk \x1b[2Jfull"}})
	want := "│ partial\nprogress 50% step 2\nprogress\nlog error: disk ␛[2Jfull\n"
	if got := errb.String(); got != want {
		t.Fatalf("streamed\n%q\nwant\n%q", got, want)
	}
}
