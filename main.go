// Command modbay is a terminal cockpit for xibodev.module/v1 modules: run it
// without arguments to open the cockpit, or use its commands (list,
// describe, validate, invoke, render) from scripts and CI.
package main

import (
	"os"

	"modbay/cli"
	"modbay/internal/signals"
	"modbay/internal/supervise"
)

func main() {
	// A signal cancels the command; one still busy signals.Grace later
	// exits anyway (a supervising parent waits for its child instead).
	w := signals.Start(signals.Grace, os.Stderr, supervise.Parenting, os.Exit)
	code := cli.Execute(w.Context(), os.Args[1:], os.Stdout, os.Stderr)
	w.Done()
	// The code is said to a supervising parent first (the cockpit's).
	supervise.Exit(code)
}
