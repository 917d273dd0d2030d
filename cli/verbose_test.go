package cli

import (
	"bytes"
	"strings"
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
	want := "│ ok fake.report\n│ containment: complete\n│ ␛[2Jdone\njob j1: running\n"
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

// TestVerboseJobLineHasItsDetail: -v says a job's percent and detail, or
// its poll count, and no trailing space.
func TestVerboseJobLineHasItsDetail(t *testing.T) {
	var errb bytes.Buffer
	o := &InvokeOptions{Verbose: true, IO: &ioStreams{ErrOut: &errb}}
	ev := o.events()
	pct := 40.0
	ev(runner.Event{Job: &runner.JobStatus{ID: "j1", State: "running", Percent: &pct, Detail: "frame 4 of 10", Polls: 3}})
	ev(runner.Event{Job: &runner.JobStatus{ID: "j1", State: "running", Polls: 4}})
	if got, want := errb.String(), "job j1: running 40% frame 4 of 10\njob j1: running (poll 4)\n"; got != want {
		t.Fatalf("streamed\n%q\nwant\n%q", got, want)
	}
}

// TestProgressLineOverwritesItself: without -v on a terminal, the job's
// state is one line rewritten in place (carriage return, erase line),
// bounded so it never wraps, sanitized, and cleared at the end; stderr
// gets nothing else.
func TestProgressLineOverwritesItself(t *testing.T) {
	var errb bytes.Buffer
	o := &InvokeOptions{IO: &ioStreams{ErrOut: &errb}}
	ev, end := o.progress()
	pct := 40.0
	ev(runner.Event{Stderr: []byte("module noise\n")})
	ev(runner.Event{Job: &runner.JobStatus{ID: "j1", State: "running", Percent: &pct, Detail: "frame \x1b[2J4"}})
	ev(runner.Event{Job: &runner.JobStatus{ID: "j1", State: "running", Detail: strings.Repeat("x", 200)}})
	end()
	got := errb.String()
	parts := strings.Split(got, "\r\x1b[K")
	if len(parts) != 4 || parts[0] != "" || parts[1] != "job j1: running 40% frame ␛[2J4" || parts[3] != "" {
		t.Fatalf("wrote %q", got)
	}
	if w := len(parts[2]); w > progressWidth || !strings.HasSuffix(parts[2], "...") {
		t.Fatalf("long line %d bytes: %q", w, parts[2])
	}
	if strings.Contains(got, "noise") || strings.Contains(got, "\n") {
		t.Fatalf("more than the progress line: %q", got)
	}
}
