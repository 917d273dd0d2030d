package signals

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// Grace is how long a command may take to stop once a signal cancelled
// its context before the process exits anyway.
const Grace = 5 * time.Second

// ExitStuck is the exit code of a process that did not stop within Grace
// (the host-verdict code: the command was cancelled, not finished).
const ExitStuck = 4

// Watch is the process's signal watch: Context is cancelled by the first
// SIGINT, SIGTERM or SIGHUP, after which a second signal takes its default
// action (ends the process) and, past grace, exit(ExitStuck) is called
// unless hold says the process is waiting on a child that has the signal
// too (a supervising parent), or Done was called.
type Watch struct {
	ctx    context.Context
	cancel context.CancelFunc
	sigs   chan os.Signal
	once   sync.Once
	done   chan struct{}
}

// Start begins watching. errOut gets the one line said before a forced
// exit; hold is asked at that moment (nil: never hold).
func Start(grace time.Duration, errOut io.Writer, hold func() bool, exit func(int)) *Watch {
	ctx, cancel := context.WithCancel(context.Background())
	w := &Watch{ctx: ctx, cancel: cancel, sigs: make(chan os.Signal, 1), done: make(chan struct{})}
	signal.Notify(w.sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		var s os.Signal
		select {
		case s = <-w.sigs:
		case <-w.done:
			return
		}
		cancel()
		signal.Stop(w.sigs) // a second signal ends the process at once
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-w.done:
		case <-t.C:
			if hold != nil && hold() {
				return
			}
			fmt.Fprintf(errOut, "modbay: still busy %s after %s; exiting without finishing\n", grace, signalName(s))
			exit(ExitStuck)
		}
	}()
	return w
}

// Context is cancelled by the first signal.
func (w *Watch) Context() context.Context { return w.ctx }

// Done says the command returned: no forced exit follows.
func (w *Watch) Done() {
	w.once.Do(func() {
		close(w.done)
		signal.Stop(w.sigs)
		w.cancel()
	})
}

func signalName(s os.Signal) string {
	if ss, ok := s.(syscall.Signal); ok {
		switch ss {
		case syscall.SIGINT:
			return "SIGINT"
		case syscall.SIGTERM:
			return "SIGTERM"
		case syscall.SIGHUP:
			return "SIGHUP"
		}
	}
	return s.String()
}
