// Command modbay is a terminal cockpit for xibodev.module/v1 modules: run it
// without arguments to open the cockpit, or use its commands (list,
// describe, validate, invoke, render) from scripts and CI.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"modbay/cli"
	"modbay/internal/supervise"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := cli.Execute(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	// The code is said to a supervising parent first (the cockpit's).
	supervise.Exit(code)
}
