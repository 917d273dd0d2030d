package runner

import (
	"os"
	"path/filepath"
	"sync"
)

// Per-run directories off the run's path: creating an inode costs this
// machine kind's ext4 (mounted without a journal) a scan of the inodes
// deleted in the last minutes, so the three directories of a run (the run
// directory, tmp, work) are made ahead, one spare at a time, by a host
// that has already run a module (or was told one will run:
// PrepareRunDir), and a finished run's directory is removed in the
// background. Only the request file is written on the run's path. A spare
// is fresh and empty, 0700, and granted to no run until one takes it
// (docs/protocol.md §3: a run's directory is its own). FlushRunDirs waits
// for the removals and removes the spare; a host killed before that
// leaves them to the next host's sweep (sweepAbandonedRuns), since their
// names record it.

// runDirs is the host process's pool.
var runDirs runDirPool

type runDirPool struct {
	mu     sync.Mutex
	spare  string // made and unused; "" when none
	making bool
	used   bool // a run took a directory: refill after each take
	wg     sync.WaitGroup
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

// take returns a fresh run directory (the spare, else one made now) and,
// from the second take on, starts making the next spare (a one-shot
// command's single run leaves none to remove).
func (p *runDirPool) take() (string, error) {
	p.mu.Lock()
	dir, again := p.spare, p.used
	p.spare, p.used = "", true
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

// refill makes a spare in the background unless one is there or being
// made.
func (p *runDirPool) refill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.spare != "" || p.making {
		return
	}
	p.making = true
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		dir, err := makeRunDir()
		p.mu.Lock()
		defer p.mu.Unlock()
		p.making = false
		if err == nil {
			p.spare = dir
		}
	}()
}

// release removes a finished run's directory in the background.
func (p *runDirPool) release(dir string) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		RemoveTree(dir)
	}()
}

// PrepareRunDir starts making the first run's directory in the background
// (a one-shot command about to run a module calls it while it plans).
func PrepareRunDir() { runDirs.refill() }

// FlushRunDirs waits for the removal of finished runs' directories and
// removes the spare: a host calls it before it exits.
func FlushRunDirs() {
	runDirs.wg.Wait()
	runDirs.mu.Lock()
	dir := runDirs.spare
	runDirs.spare = ""
	runDirs.mu.Unlock()
	if dir != "" {
		RemoveTree(dir)
	}
}
