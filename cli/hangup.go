package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// errHangup is the cause of a run's context when the person's end went
// away: SIGHUP, or an output stream that hung up.
var errHangup = errors.New("the connection closed")

// hangupError says which way the hangup was seen.
type hangupError struct {
	// How is "SIGHUP" or the stream that reported POLLHUP/POLLERR
	// ("stdout", "stderr").
	How string
}

func (e *hangupError) Error() string { return fmt.Sprintf("%v (%s)", errHangup, e.How) }
func (e *hangupError) Unwrap() error { return errHangup }

// hangupWatch watches for the end of the connection a command's output
// goes to, while a run is in flight. A command run without a terminal (ssh
// host modbay invoke …, a pipe) writes nothing while its module runs, so
// when the connection drops no write ever fails with EPIPE and no SIGHUP
// may come: the module would run on until its deadline. poll(2) reports
// POLLERR on a pipe whose reader closed and POLLHUP on a socket or terminal
// that hung up, even with no events asked for, so watching the output
// descriptors sees the drop at once.
type hangupWatch struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	sig    chan os.Signal
	wakeR  int // read end of the self-pipe that ends the poll
	wakeW  int
	wg     sync.WaitGroup
	// gone records which watched streams hung up.
	mu   sync.Mutex
	gone map[string]bool
}

// watchHangup returns a watch whose Context is parent, cancelled (cause
// *hangupError) on SIGHUP or when one of streams (by name: "stdout" →
// its value) that is an *os.File reports POLLHUP or POLLERR. Streams that
// are not files (a buffer in tests) are not watched; a regular file or
// /dev/null never reports either. Stop must be called when the run ends.
func watchHangup(parent context.Context, streams map[string]any) (*hangupWatch, error) {
	ctx, cancel := context.WithCancelCause(parent)
	w := &hangupWatch{ctx: ctx, cancel: cancel, sig: make(chan os.Signal, 1), gone: map[string]bool{}}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		cancel(nil)
		return nil, fmt.Errorf("hangup watch: %w", err)
	}
	w.wakeR, w.wakeW = p[0], p[1]
	var names []string
	fds := []unix.PollFd{{Fd: int32(w.wakeR), Events: unix.POLLIN}}
	for name, s := range streams {
		if fd, ok := fileFD(s); ok {
			names = append(names, name)
			fds = append(fds, unix.PollFd{Fd: int32(fd)}) // no events: POLLHUP and POLLERR are always reported
		}
	}
	signal.Notify(w.sig, syscall.SIGHUP)
	w.wg.Add(2)
	go func() {
		defer w.wg.Done()
		select {
		case <-w.sig:
			cancel(&hangupError{How: "SIGHUP"})
		case <-ctx.Done():
		}
	}()
	go func() {
		defer w.wg.Done()
		w.poll(fds, names)
	}()
	return w, nil
}

// poll waits until a watched descriptor hangs up (cancelling the context)
// or the self-pipe is written by Stop.
func (w *hangupWatch) poll(fds []unix.PollFd, names []string) {
	for {
		_, err := unix.Poll(fds, -1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || fds[0].Revents != 0 {
			return
		}
		for i := 1; i < len(fds); i++ {
			switch re := fds[i].Revents; {
			case re&unix.POLLNVAL != 0:
				fds[i].Fd = -1 // a closed descriptor (2>&-): poll ignores negative ones
			case re&(unix.POLLHUP|unix.POLLERR) != 0:
				w.mu.Lock()
				w.gone[names[i-1]] = true
				w.mu.Unlock()
				w.cancel(&hangupError{How: names[i-1]})
				return
			}
		}
	}
}

// Context is the run's context: cancelled on hangup.
func (w *hangupWatch) Context() context.Context { return w.ctx }

// HungUp returns the hangup that cancelled the context, or nil.
func (w *hangupWatch) HungUp() *hangupError {
	var he *hangupError
	if errors.As(context.Cause(w.ctx), &he) {
		return he
	}
	return nil
}

// Gone reports whether stream (by name) hung up: nothing more can be
// written to it.
func (w *hangupWatch) Gone(stream string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.gone[stream]
}

// Stop ends the watch and waits for its goroutines.
func (w *hangupWatch) Stop() {
	signal.Stop(w.sig)
	unix.Write(w.wakeW, []byte{0})
	w.cancel(nil)
	w.wg.Wait()
	unix.Close(w.wakeR)
	unix.Close(w.wakeW)
}

// fileFD returns the descriptor of s when it is an *os.File, without
// switching it to blocking mode as (*os.File).Fd would.
func fileFD(s any) (int, bool) {
	f, ok := s.(*os.File)
	if !ok || f == nil {
		return 0, false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, false
	}
	fd := -1
	if rc.Control(func(u uintptr) { fd = int(u) }) != nil || fd < 0 {
		return 0, false
	}
	return fd, true
}
