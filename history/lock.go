package history

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// ErrBusy is returned (wrapped) when another process holds a run's lock:
// it is running the run or polling its job, and a job has one poller.
var ErrBusy = errors.New("another modbay process is running or polling this run")

// lockWrite takes the history's write lock (an exclusive flock on
// <dir>/lock, waiting for it) and returns its release.
func (s *Store) lockWrite() (func(), error) {
	f, err := os.OpenFile(filepath.Join(s.dir, lockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("history lock: %w", err)
	}
	if err := flock(f, syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("history lock: %w", err)
	}
	return func() { f.Close() }, nil // closing the descriptor releases the flock
}

// RunLock is a held lock on one run: the process holding it runs the run
// or polls its job. Release it when done; the kernel releases it when the
// process dies, however it dies.
type RunLock struct{ f *os.File }

// LockRun takes run id's lock without waiting: wrapping ErrBusy when
// another process (or another RunLock of this one) holds it.
func (s *Store) LockRun(id string) (*RunLock, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	path := filepath.Join(s.dir, locksDir, id+".lock")
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("run lock: %w", err)
		}
		if err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, fmt.Errorf("%w (run %s)", ErrBusy, id)
			}
			return nil, fmt.Errorf("run lock: %w", err)
		}
		// The holder before us removes the file as it releases: a lock
		// on a file no longer at path guards nothing, so take the new one.
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return &RunLock{f: f}, nil
		}
		f.Close()
	}
}

// Release lets the run go; releasing twice does nothing.
func (l *RunLock) Release() {
	if l != nil && l.f != nil {
		os.Remove(l.f.Name()) // lock files come and go with their holder
		l.f.Close()
		l.f = nil
	}
}

// Held reports whether some process holds run id's lock now.
func (s *Store) Held(id string) bool {
	f, err := os.Open(filepath.Join(s.dir, locksDir, id+".lock"))
	if err != nil {
		return false
	}
	defer f.Close()
	if err := flock(f, syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	flock(f, syscall.LOCK_UN)
	return false
}

// flock applies how to f, retrying when a signal interrupts the wait.
func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
