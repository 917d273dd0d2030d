//go:build linux

package contain

import (
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// The write watch: the bytes and inodes a run adds to its writable paths
// (rw roots and run directory) are bounded without root or quotas. Every
// writePoll the filesystems holding them are asked how much they use
// (statfs: one syscall each); growth past a bound is confirmed by walking
// the writable paths, counting what changed since the run started (ctime,
// which a module cannot set back) and the unlinked files the run still
// holds (held.go), with the run stopped meanwhile (freeze.go), so another
// process writing to the same filesystem is not blamed (the credit it
// gets is re-counted while it stands, check). A confirmed excess kills
// the process tree.

const (
	// writePoll is how often a run's filesystems are asked their use; a
	// run may pass a bound by what it writes in that time.
	writePoll = 250 * time.Millisecond
	// maxWriteDepth bounds the directory levels one confirming walk
	// descends (each holds a descriptor open); deeper, the walk is
	// incomplete and the growth is taken as the run's.
	maxWriteDepth = 512
	// maxWriteWalk bounds the entries one confirming walk visits; past
	// it the filesystems' growth is taken as the run's.
	maxWriteWalk = 1_000_000
	// reverifyMin is the least time between walks that re-count growth
	// credited to other writers (check).
	reverifyMin = time.Second
	// sweepEvery is the most time between walks however statfs looks
	// (ten times the last walk when that is longer): another writer's
	// deletions within one poll can cancel the run's growth to nothing.
	sweepEvery = 5 * time.Second
	// ctimeSlack is how far a file's ctime (the kernel's coarse clock) may
	// lag the run's start.
	ctimeSlack = 50 * time.Millisecond
)

// writeWatch meters one run's writes (the package comment above).
type writeWatch struct {
	maxBytes, maxFiles int64
	paths              []string
	since              time.Time
	// pidfd is the module's (-1: none), so a kill never reaches a reused
	// pid; group also signals its process group (no PID namespace).
	pidfd int
	pid   int
	group bool

	// base is each filesystem's use at the start, by device.
	base map[uint64]fsUse
	// fsPath is one writable path on each filesystem.
	fsPath map[uint64]string

	mu sync.Mutex
	// slackBytes, slackFiles: growth credited to other writers (check),
	// below zero what they deleted; atWalk*: the raw growth when it was
	// last counted or taken back; prev*: at the last poll; fell*: the
	// falls between polls since the last walk.
	slackBytes, slackFiles   int64
	atWalkBytes, atWalkFiles int64
	prevBytes, prevFiles     int64
	fellBytes, fellFiles     int64
	walked                   time.Time // the last confirming walk
	credited                 bool      // a credit was ever given
	walkTook                 time.Duration
	err                      error
	final                    bool
	stopped                  bool

	exceeded chan struct{}
	stop     chan struct{}
	stopOnce sync.Once
}

type fsUse struct{ bytes, files int64 }

// newWriteWatch measures the filesystems of paths now, for the stopped
// module pid (group: no PID namespace); nil when no bound is set or no
// path can be measured.
func newWriteWatch(paths []string, maxBytes, maxFiles uint64, since time.Time, from *WriteStart, pid int, group bool) *writeWatch {
	if (maxBytes == 0 && maxFiles == 0) || len(paths) == 0 {
		return nil
	}
	w := &writeWatch{maxBytes: clampInt(maxBytes), maxFiles: clampInt(maxFiles), paths: outermost(paths), since: since.Add(-ctimeSlack),
		pidfd: -1, pid: pid, group: group, base: map[uint64]fsUse{}, fsPath: map[uint64]string{}, exceeded: make(chan struct{}), stop: make(chan struct{})}
	if from != nil {
		// Counted from the run's first process: its start, and the use
		// then of the filesystems it measured.
		w.since = from.since
		for dev, u := range from.base {
			w.base[dev], w.fsPath[dev] = u, from.fsPath[dev]
		}
	}
	for _, p := range w.paths {
		var st unix.Stat_t
		if unix.Stat(p, &st) != nil {
			continue
		}
		if _, ok := w.base[st.Dev]; ok {
			continue
		}
		u, err := statfsUse(p)
		if err != nil {
			continue
		}
		w.base[st.Dev], w.fsPath[st.Dev] = u, p
	}
	if len(w.base) == 0 {
		return nil
	}
	if fd, err := unix.PidfdOpen(pid, 0); err == nil {
		w.pidfd = fd
	}
	w.walked = time.Now() // the first sweep is sweepEvery from here
	return w
}

// killTree kills the module (all of its PID namespace) and, without one,
// its process group; never once the watch stopped (the pid may be reaped).
// Called with mu held; true when the module was signalled.
func (w *writeWatch) killTree() bool {
	if w.stopped || w.pidfd < 0 {
		return false
	}
	if unix.PidfdSendSignal(w.pidfd, unix.SIGKILL, nil, 0) != nil {
		return false
	}
	if w.group {
		// The leader, just killed, is not reaped yet: its group is its own.
		_ = unix.Kill(-w.pid, unix.SIGKILL)
	}
	return true
}

func clampInt(v uint64) int64 {
	if v > 1<<62 {
		return 1 << 62
	}
	return int64(v)
}

// outermost drops the paths inside another of paths.
func outermost(paths []string) []string {
	var out []string
	for _, p := range paths {
		inside := false
		for _, q := range paths {
			if p != q && strings.HasPrefix(p, strings.TrimSuffix(q, "/")+"/") {
				inside = true
				break
			}
		}
		if !inside && !contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// statfsUse is the bytes and inodes in use on path's filesystem.
func statfsUse(path string) (fsUse, error) {
	var s unix.Statfs_t
	if err := unix.Statfs(path, &s); err != nil {
		return fsUse{}, err
	}
	unit := s.Frsize
	if unit <= 0 {
		unit = s.Bsize
	}
	return fsUse{bytes: int64(s.Blocks-s.Bfree) * unit, files: int64(s.Files - s.Ffree)}, nil
}

// run polls every writePoll until the bound is passed (then kills) or
// the watch is stopped.
func (w *writeWatch) run() {
	t := time.NewTicker(writePoll)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			if w.check() != nil {
				return
			}
		}
	}
}

// check measures once; a confirmed excess is recorded, exceeded closed
// and the tree killed. It returns the excess, once found.
//
// Growth credited to another writer is never kept on trust: when the
// filesystems' use falls, what fell is taken back at once (the other
// writer may have deleted it), and while any credit stands a walk
// re-counts it every reverifyEvery, setting the credit afresh to what
// the run's own files leave of the growth; a walk that cannot count them
// takes the credit back whole. Others' deletions adding up to a quarter
// of a bound are counted too: the walk then sets a debit, so the growth
// seen from there is the run's own.
func (w *writeWatch) check() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	rb, rf := w.rawGrowth()
	w.fellBytes += max(0, w.prevBytes-rb)
	w.fellFiles += max(0, w.prevFiles-rf)
	w.prevBytes, w.prevFiles = rb, rf
	// A fall in use while credited may be the other writer deleting as
	// the run writes the same amount: re-counted at the next chance. So
	// are falls, credited or not, that add up to a quarter of a bound:
	// what others delete hides as much of the run's growth.
	fell := rb < w.atWalkBytes || rf < w.atWalkFiles
	hidden := (w.maxBytes > 0 && w.fellBytes > w.maxBytes/4) || (w.maxFiles > 0 && w.fellFiles > w.maxFiles/4)
	w.takeBack(rb, rf)
	since := time.Since(w.walked)
	reverify := (w.slackBytes > 0 || w.slackFiles > 0) && since >= w.reverifyEvery() ||
		(fell && w.credited || hidden) && since >= 10*w.walkTook ||
		since >= max(sweepEvery, 10*w.walkTook)
	if !w.over(rb-w.slackBytes, rf-w.slackFiles) && !reverify {
		return nil
	}
	// The run stands still while it is measured (freeze.go); gone, it
	// cannot move.
	whole := w.stopped || w.pid <= 0
	if !whole {
		f, all := freeze(w.pid, w.group)
		defer f.thaw()
		whole = all
		rb, rf = w.rawGrowth()
	}
	start := time.Now()
	wb, wf, complete := w.walk()
	w.walked, w.walkTook = time.Now(), time.Since(start)
	w.fellBytes, w.fellFiles = 0, 0
	// No PID namespace: a process that left the module's group and tree
	// may hold unlinked files no walk sees, so the growth is the run's.
	complete = complete && !w.group
	gb, gf := rb, rf
	if complete {
		if !w.over(wb, wf) {
			// The others' share now: what they wrote (a credit) or, below
			// zero, what they deleted (a debit, so growth is the run's own).
			ob, of := rb-wb, rf-wf
			if whole {
				w.slackBytes, w.slackFiles = ob, of
				w.credited = w.credited || ob > 0 || of > 0
			} else {
				// Not seen stopped whole: a credit only shrinks.
				w.slackBytes, w.slackFiles = min(w.slackBytes, ob), min(w.slackFiles, of)
			}
			w.atWalkBytes, w.atWalkFiles = rb, rf
			return nil
		}
		gb, gf = wb, wf
	} else {
		// Uncounted: a credit is taken back, a debit kept.
		w.slackBytes, w.slackFiles = min(w.slackBytes, 0), min(w.slackFiles, 0)
		gb, gf = rb-w.slackBytes, rf-w.slackFiles
		if !w.over(gb, gf) {
			return nil
		}
	}
	e := &WriteBoundError{Bound: "write_mb", Bytes: gb, Files: gf, Max: w.maxBytes, Attributed: complete}
	if w.maxBytes == 0 || gb <= w.maxBytes {
		e.Bound, e.Max = "write_files", w.maxFiles
	}
	// Killed before exceeded is closed: the supervisor's own kill on
	// exceeded may reap the module first, and a pidfd signal then fails.
	e.Killed = w.killTree()
	w.err = e
	close(w.exceeded)
	return e
}

// reverifyEvery is how often a standing credit is re-counted: at least
// reverifyMin, and ten times the last walk, so the run is stopped for at
// most a tenth of its time. Called with mu held.
func (w *writeWatch) reverifyEvery() time.Duration {
	return max(reverifyMin, 10*w.walkTook)
}

// takeBack lowers the credit by what the filesystems' use fell since the
// last walk (raw growth rb, rf now): at once, before the re-count that
// says whether the run wrote meanwhile. Called with mu held.
func (w *writeWatch) takeBack(rb, rf int64) {
	if d := w.atWalkBytes - rb; d > 0 && w.slackBytes > 0 {
		w.slackBytes = max(0, w.slackBytes-d)
		w.atWalkBytes = rb
	}
	if d := w.atWalkFiles - rf; d > 0 && w.slackFiles > 0 {
		w.slackFiles = max(0, w.slackFiles-d)
		w.atWalkFiles = rf
	}
}

// rawGrowth is what the watched filesystems gained since the start, all
// writers together. Called with mu held.
func (w *writeWatch) rawGrowth() (bytes, files int64) {
	for dev, b := range w.base {
		u, err := statfsUse(w.fsPath[dev])
		if err != nil {
			continue
		}
		bytes += u.bytes - b.bytes
		files += u.files - b.files
	}
	return bytes, files
}

func (w *writeWatch) over(b, f int64) bool {
	return (w.maxBytes > 0 && b > w.maxBytes) || (w.maxFiles > 0 && f > w.maxFiles)
}

// walk counts the allocated bytes (blocks, so a sparse file costs what it
// holds) and the entries changed since the run started under the
// writable paths, each inode once, following no symlink. It walks by
// directory descriptors (openat, getdents, fstatat), so no path grows
// past PATH_MAX however deep the tree; complete is false past
// maxWriteWalk entries or maxWriteDepth levels, or when any entry could
// not be read (gone is fine: it holds nothing).
func (w *writeWatch) walk() (bytes, files int64, complete bool) {
	type inode struct{ dev, ino uint64 }
	seen := map[inode]bool{}
	visited := 0
	complete = true
	count := func(st *unix.Stat_t) {
		if time.Unix(st.Ctim.Unix()).Before(w.since) {
			return
		}
		k := inode{st.Dev, st.Ino}
		if seen[k] {
			return
		}
		seen[k] = true
		files++
		bytes += st.Blocks * 512
	}
	// dir counts the entries of the open directory fd (closing it).
	var dir func(fd, depth int) bool
	dir = func(fd, depth int) bool {
		f := os.NewFile(uintptr(fd), "dir")
		defer f.Close()
		for {
			names, err := f.Readdirnames(256)
			for _, name := range names {
				if visited++; visited > maxWriteWalk {
					return false
				}
				var st unix.Stat_t
				if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
					if errors.Is(err, unix.ENOENT) {
						continue
					}
					return false
				}
				count(&st)
				if st.Mode&unix.S_IFMT != unix.S_IFDIR {
					continue
				}
				if depth+1 > maxWriteDepth {
					return false
				}
				sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
				if err != nil {
					if errors.Is(err, unix.ENOENT) {
						continue
					}
					return false
				}
				if !dir(sub, depth+1) {
					return false
				}
			}
			if err == io.EOF || (err == nil && len(names) == 0) {
				return true
			}
			if err != nil {
				return false
			}
		}
	}
	// The run's own unlinked files, still open or mapped (held.go); once
	// the module exited there is no process to ask (its pid may be reused).
	if !w.stopped && w.pid > 0 {
		devs := map[uint64]bool{}
		for dev := range w.base {
			devs[dev] = true
		}
		pids, ok := runProcs(w.pid, w.group)
		if !ok || !held(pids, devs, count) {
			complete = false
		}
	}
	for _, root := range w.paths {
		fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) {
			continue
		}
		if errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
			var st unix.Stat_t
			if err := unix.Lstat(root, &st); err != nil {
				return bytes, files, false
			}
			count(&st)
			continue
		}
		if err != nil {
			return bytes, files, false
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			return bytes, files, false
		}
		count(&st)
		if visited++; !dir(fd, 0) {
			return bytes, files, false
		}
	}
	return bytes, files, complete
}

// finish stops the poll and, once, checks again (what a run wrote just
// before it exited): the excess or nil.
func (w *writeWatch) finish() error {
	w.stopPolling()
	w.mu.Lock()
	done := w.final
	w.final = true
	w.mu.Unlock()
	if !done {
		_ = w.check()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// stopPolling ends the poll and the right to kill (the module exited).
func (w *writeWatch) stopPolling() {
	w.stopOnce.Do(func() {
		close(w.stop)
		w.mu.Lock()
		w.stopped = true
		if w.pidfd >= 0 {
			unix.Close(w.pidfd)
			w.pidfd = -1
		}
		w.mu.Unlock()
	})
}

// WriteStart is when a run's writes began to be counted and the watched
// filesystems' use then (opaque; Process.WriteStart).
type WriteStart struct {
	since  time.Time
	base   map[uint64]fsUse
	fsPath map[uint64]string
}

// start is what a later process of the same run counts from.
func (w *writeWatch) start() *WriteStart {
	ws := &WriteStart{since: w.since, base: make(map[uint64]fsUse, len(w.base)), fsPath: make(map[uint64]string, len(w.fsPath))}
	for dev, u := range w.base {
		ws.base[dev], ws.fsPath[dev] = u, w.fsPath[dev]
	}
	return ws
}
