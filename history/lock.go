package history

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
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

// Run locks are open-file-description locks (fcntl F_OFD_SETLK) on one
// byte each of one shared file, <dir>/locks/runs, at an offset drawn from
// the run id (runLockOffset): taking one opens that file and creates
// nothing, where a lock file per run made and removed an inode on every
// run's path. Each RunLock opens the file anew, so two RunLocks of one
// process conflict as two processes' do. The per-run files of earlier
// versions (<dir>/locks/<id>.lock, flock) are still honoured: LockRun
// and Held see a holder of one, and a run whose file is held is busy.

// runsLockName is the shared run-lock file in locksDir.
const runsLockName = "runs"

// RunLock is a held lock on one run: the process holding it runs the run
// or polls its job. Release it when done; the kernel releases it when the
// process dies, however it dies.
type RunLock struct{ f *os.File }

// runLockOffset is run id's byte in the shared lock file: 62 bits of the
// sha256 of the id (run ids are random, so two runs sharing a byte, which
// would make one wait for the other, do not happen in practice).
func runLockOffset(id string) int64 {
	sum := sha256.Sum256([]byte(id))
	return int64(binary.BigEndian.Uint64(sum[:8]) >> 2)
}

// ofdLock takes (typ F_WRLCK) or tests (F_GETLK with typ F_RDLCK) id's
// byte on f; for a test, true when another description holds it.
func ofdLock(f *os.File, cmd int, typ int16, id string) (bool, error) {
	lk := unix.Flock_t{Type: typ, Whence: 0, Start: runLockOffset(id), Len: 1}
	for {
		err := unix.FcntlFlock(f.Fd(), cmd, &lk)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		return err == nil && cmd == unix.F_OFD_GETLK && lk.Type != unix.F_UNLCK, err
	}
}

// LockRun takes run id's lock without waiting: wrapping ErrBusy when
// another process (or another RunLock of this one) holds it.
func (s *Store) LockRun(id string) (*RunLock, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(s.dir, locksDir, runsLockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("run lock: %w", err)
	}
	if _, err := ofdLock(f, unix.F_OFD_SETLK, unix.F_WRLCK, id); err != nil {
		f.Close()
		if errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EACCES) {
			return nil, fmt.Errorf("%w (run %s)", ErrBusy, id)
		}
		return nil, fmt.Errorf("run lock: %w", err)
	}
	if s.heldByFile(id) {
		f.Close()
		return nil, fmt.Errorf("%w (run %s)", ErrBusy, id)
	}
	return &RunLock{f: f}, nil
}

// Release lets the run go; releasing twice does nothing.
func (l *RunLock) Release() {
	if l != nil && l.f != nil {
		l.f.Close() // closing the description releases its locks
		l.f = nil
	}
}

// Held reports whether some process holds run id's lock now.
func (s *Store) Held(id string) bool {
	if f, err := os.Open(filepath.Join(s.dir, locksDir, runsLockName)); err == nil {
		held, _ := ofdLock(f, unix.F_OFD_GETLK, unix.F_RDLCK, id)
		f.Close()
		if held {
			return true
		}
	}
	return s.heldByFile(id)
}

// heldByFile reports whether an earlier version's per-run lock file of
// id is held (flock).
func (s *Store) heldByFile(id string) bool {
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
