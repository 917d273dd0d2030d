package crash

import (
	"bytes"
	"strings"
	"testing"
)

// TestGoCrashReleasesTheTerminalFirst: a panic on a guarded goroutine
// gives the terminal back, then tells the panic (escape bytes dropped)
// and exits 70 — unguarded, it would kill the process with the terminal
// still in the alternate screen.
func TestGoCrashReleasesTheTerminalFirst(t *testing.T) {
	var out bytes.Buffer
	var order []string
	stderr = &out
	code := make(chan int, 1)
	exit = func(c int) { order = append(order, "exit"); code <- c }
	OnCrash(func() { order = append(order, "release") })
	t.Cleanup(func() { OnCrash(nil) })
	Go(func() { panic("boom \x1b]52;c;ZXZpbA==\x07") })
	if c := <-code; c != ExitCode {
		t.Fatalf("exit %d", c)
	}
	if strings.Join(order, ",") != "release,exit" {
		t.Fatalf("order %v", order)
	}
	if s := out.String(); !strings.HasPrefix(s, "modbay: internal error: boom ]52;c;ZXZpbA==\n") || strings.ContainsRune(s, 0x1b) {
		t.Fatalf("told %q", s)
	}
}
