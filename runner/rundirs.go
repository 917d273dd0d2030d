package runner

import (
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"modbay/internal/crash"
)

// Per-run directories off the run's path: creating an inode costs this
// machine kind's ext4 (mounted without a journal) a scan of the inodes
// deleted in the last minutes, which discovery's own deletions lengthen,
// so a run directory (with its tmp and work) is made once and used again
// by later runs, one run at a time, instead of being made and removed by
// every run. Only the request file is made and removed per run.
//
// A finished run's directory is emptied in the background and taken back
// only when what is left is exactly as made: the directory holding only
// tmp and work, all three real directories (no symlink) owned by this
// user, with no extended attribute (no ACL a module set), each then set
// back to mode 0700; anything else, or anything that cannot be emptied,
// and the directory is removed. The next run gets it empty, fresh to it
// and granted to no other run at the same time (docs/protocol.md §3: a
// run's directory is its own). A host that has run a module also keeps
// one spare made ahead, and a one-shot command prepares its first while
// it plans (PrepareRunDir). FlushRunDirs removes them all before the host
// exits; a host killed before that leaves them to the next host's sweep
// (sweepAbandonedRuns), since their names record it.

// runDirs is the host process's pool.
var runDirs runDirPool

// maxFreeRunDirs bounds the directories kept for reuse: the describes of
// one discovery run at most this many at once (docs/protocol.md §2).
const maxFreeRunDirs = 32

type runDirPool struct {
	mu     sync.Mutex
	free   []string // emptied, checked, ready
	making bool
	used   bool // a run took a directory: keep one ready after each take
	// busy counts background makes and releases; idle is signalled when it
	// falls to 0. Not a WaitGroup: runs may start while a host flushes
	// (tests share one process), and a WaitGroup's Add may not race Wait.
	busy int
	idle *sync.Cond
}

// wait waits until no background task is left.
func (p *runDirPool) wait() {
	p.mu.Lock()
	p.waitLocked()
	p.mu.Unlock()
}

// waitLocked is wait with p.mu held (Cond.Wait releases it meanwhile).
func (p *runDirPool) waitLocked() {
	if p.idle == nil {
		p.idle = sync.NewCond(&p.mu)
	}
	for p.busy > 0 {
		p.idle.Wait()
	}
}

// begin counts one background task; p.mu is held.
func (p *runDirPool) begin() { p.busy++ }

// end uncounts one background task.
func (p *runDirPool) end() {
	p.mu.Lock()
	p.busy--
	if p.busy == 0 && p.idle != nil {
		p.idle.Broadcast()
	}
	p.mu.Unlock()
}

// makeRunDir is newRunDir with its tmp and work directories.
func makeRunDir() (string, error) {
	dir, err := newRunDir()
	if err != nil {
		return "", err
	}
	for _, d := range []string{"tmp", "work"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			RemoveTree(dir)
			return "", err
		}
	}
	return dir, nil
}

// take returns a run directory ready for a run (a free one, else one made
// now) and, from the second take on, makes sure one is ready for the next
// (a one-shot command's single run leaves none to remove).
func (p *runDirPool) take() (string, error) {
	p.mu.Lock()
	dir, again := "", p.used
	if n := len(p.free); n > 0 {
		dir, p.free = p.free[n-1], p.free[:n-1]
	}
	p.used = true
	p.mu.Unlock()
	if dir == "" {
		var err error
		if dir, err = makeRunDir(); err != nil {
			return "", err
		}
	}
	if again {
		p.refill()
	}
	return dir, nil
}

// refill makes one directory ready in the background unless one is ready
// or being made.
func (p *runDirPool) refill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) > 0 || p.making {
		return
	}
	p.making = true
	p.begin()
	crash.Go(func() {
		defer p.end()
		dir, err := makeRunDir()
		p.mu.Lock()
		p.making = false
		if err == nil && len(p.free) < maxFreeRunDirs {
			p.free, dir = append(p.free, dir), ""
		}
		p.mu.Unlock()
		if dir != "" {
			RemoveTree(dir)
		}
	})
}

// release takes a finished run's directory back, in the background: its
// process tree is gone. With reuse it is emptied and kept when reusable;
// otherwise removed.
func (p *runDirPool) release(dir string, reuse bool) {
	p.mu.Lock()
	p.begin()
	p.mu.Unlock()
	crash.Go(func() {
		defer p.end()
		if reuse && reusable(dir) {
			p.mu.Lock()
			if len(p.free) < maxFreeRunDirs {
				p.free, dir = append(p.free, dir), ""
			}
			p.mu.Unlock()
		}
		if dir != "" {
			RemoveTree(dir)
		}
	})
}

// reusable empties a finished run's directory and reports whether it is
// now exactly as makeRunDir left it (the rule above), modes set back. A
// request file that is a plain file of ours with one link and no
// attribute is kept, emptied (the next run writes into it: one inode
// less per run); any other is removed.
func reusable(dir string) bool {
	req := filepath.Join(dir, "request.json")
	if !emptiedRequest(req) {
		_ = os.Remove(req)
	}
	names, ok := dirNames(dir)
	want := map[string]bool{"tmp": true, "work": true, "request.json": true}
	for _, n := range names {
		if !want[n] {
			return false
		}
		delete(want, n)
	}
	if !ok || want["tmp"] || want["work"] {
		return false
	}
	for _, d := range []string{filepath.Join(dir, "tmp"), filepath.Join(dir, "work")} {
		if !plainOwnDir(d) {
			return false
		}
		sub, ok := dirNames(d)
		if !ok {
			return false
		}
		for _, n := range sub {
			RemoveTree(filepath.Join(d, n))
		}
		if left, ok := dirNames(d); !ok || len(left) > 0 {
			return false
		}
	}
	for _, d := range []string{dir, filepath.Join(dir, "tmp"), filepath.Join(dir, "work")} {
		if !plainOwnDir(d) || os.Chmod(d, 0o700) != nil {
			return false
		}
	}
	return true
}

// emptiedRequest truncates the request file at p to nothing when it is a
// regular file (not a symlink) of this user with one link, mode 0600 and
// no extended attribute; false otherwise (or when it is missing).
func emptiedRequest(p string) bool {
	fd, err := unix.Open(p, unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink != 1 ||
		int(st.Uid) != os.Geteuid() || st.Mode&0o7777 != 0o600 {
		return false
	}
	if n, err := unix.Flistxattr(fd, nil); err != nil || n != 0 {
		return false
	}
	return unix.Ftruncate(fd, 0) == nil
}

// plainOwnDir reports whether p is a directory (not a symlink) owned by
// this user, with no extended attribute (no ACL, no user attribute).
func plainOwnDir(p string) bool {
	fi, err := os.Lstat(p)
	if err != nil || !fi.IsDir() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Geteuid() {
		return false
	}
	n, err := unix.Llistxattr(p, nil)
	return err == nil && n == 0
}

// dirNames lists the names in directory p (without following a symlink
// at p).
func dirNames(p string) ([]string, bool) {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil && err != io.EOF {
		return nil, false
	}
	return names, true
}

// PrepareRunDir starts making the first run's directory in the background
// (a one-shot command about to run a module calls it while it plans).
func PrepareRunDir() { runDirs.refill() }

// FlushRunDirs waits for finished runs' directories to be taken back and
// removes every directory kept: a host calls it before it exits.
func FlushRunDirs() {
	runDirs.mu.Lock()
	runDirs.waitLocked()
	free := runDirs.free
	runDirs.free = nil
	runDirs.mu.Unlock()
	for _, dir := range free {
		RemoveTree(dir)
	}
}
