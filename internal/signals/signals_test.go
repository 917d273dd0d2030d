package signals

import (
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

type recorder struct {
	mu   sync.Mutex
	out  strings.Builder
	code chan int
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.Write(p)
}

// TestStuckCommandExits: a SIGTERM cancels the context; work that does
// not stop is ended after the grace with ExitStuck and one line saying why
// (a markdown render glamour could not stop ignored two SIGTERMs and grew
// to 12 GB).
func TestStuckCommandExits(t *testing.T) {
	r := &recorder{code: make(chan int, 1)}
	w := Start(50*time.Millisecond, r, nil, func(c int) { r.code <- c })
	defer w.Done()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.Context().Done():
	case <-time.After(10 * time.Second):
		t.Fatal("SIGTERM did not cancel the context")
	}
	select {
	case c := <-r.code:
		if c != ExitStuck || !strings.Contains(r.out.String(), "still busy 50ms after SIGTERM") {
			t.Fatalf("exit %d, said %q", c, r.out.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit after the grace")
	}
}

// TestDoneOrHoldPreventsTheExit: a command that returned, or a parent
// waiting on its child, is not ended by the watch.
func TestDoneOrHoldPreventsTheExit(t *testing.T) {
	r := &recorder{code: make(chan int, 1)}
	w := Start(20*time.Millisecond, r, func() bool { return true }, func(c int) { r.code <- c })
	// Registered as well, so the test process survives the signal once
	// the watch has stopped listening.
	keep := Start(time.Hour, r, nil, func(int) {})
	defer keep.Done()
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	<-w.Context().Done()
	select {
	case c := <-r.code:
		t.Fatalf("held watch exited %d", c)
	case <-time.After(200 * time.Millisecond):
	}
	w.Done()
	w2 := Start(20*time.Millisecond, r, nil, func(c int) { r.code <- c })
	w2.Done()
	time.Sleep(100 * time.Millisecond)
	select {
	case c := <-r.code:
		t.Fatalf("a finished command exited %d", c)
	default:
	}
}
