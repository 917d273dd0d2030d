package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"modbay/config"
	"modbay/internal/crash"
	"modbay/internal/words"
	"modbay/modproto"
	"modbay/runner"
)

// Names under the history directory.
const (
	runsDir   = "runs"
	locksDir  = "locks"
	indexName = "index.tsv"
	// maintName records the last maintenance (maintainDue).
	maintName = "maintained"
	lockName  = "lock"
	// tmpPrefix starts a record being written; such files are never read
	// as records, and ones older than staleTmpAge are removed.
	tmpPrefix = ".tmp-"
)

// Limits of the store.
const (
	// maxRecordBytes bounds a record read back: an envelope is at most
	// 1 MiB of output, plus the stdout and stderr tails and the input.
	maxRecordBytes = 8 << 20
	// staleTmpAge is how old a temporary file must be before a writer
	// removes it as the leftover of a killed write.
	staleTmpAge = time.Hour
)

// compactSlack is how many superseded index lines are tolerated before the
// index is rewritten (besides one per live run); a variable so tests reach
// it in few writes.
var compactSlack = 256

// ErrNotFound is returned (wrapped) by Get for a run the history does not
// hold.
var ErrNotFound = errors.New("no such run in the history")

// ErrBadID is returned (wrapped) for a run id that cannot name a record.
var ErrBadID = errors.New("not a run id")

// DamagedError is returned by Get for a record that exists but cannot be
// read: the history skips it and says so.
type DamagedError struct {
	RunID string
	Err   error
}

// Error implements error.
func (e *DamagedError) Error() string {
	return fmt.Sprintf("history record %s is damaged and was skipped: %v", e.RunID, e.Err)
}

// Unwrap returns the cause.
func (e *DamagedError) Unwrap() error { return e.Err }

// maxRunIDLen bounds a run id (a file name beside ".json").
const maxRunIDLen = 128

// CheckID returns an error wrapping ErrBadID when id cannot name a record.
// Request ids are "req_" and hex (modproto.NewRequestID); anything of
// letters, digits, '.', '_', '-' up to maxRunIDLen characters, not
// starting with '.', names a file safely.
func CheckID(id string) error {
	ok := id != "" && len(id) <= maxRunIDLen && id[0] != '.'
	for i := 0; ok && i < len(id); i++ {
		c := id[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
	}
	if !ok {
		return fmt.Errorf("%w: %q", ErrBadID, id)
	}
	return nil
}

// recordIDs lists the run ids of the records on disk, unsorted (a
// directory read without a stat or a sort per entry).
func (s *Store) recordIDs() (map[string]bool, []string, error) {
	d, err := os.Open(filepath.Join(s.dir, runsDir))
	if err != nil {
		return nil, nil, fmt.Errorf("history: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, nil, fmt.Errorf("history: %w", err)
	}
	ids := make(map[string]bool, len(names))
	var tmps []string
	for _, name := range names {
		switch {
		case strings.HasPrefix(name, tmpPrefix):
			tmps = append(tmps, name)
		case strings.HasSuffix(name, liveSuffix):
			tmps = append(tmps, name) // removed once no process runs it
		case strings.HasPrefix(name, "."), !strings.HasSuffix(name, ".json"):
		default:
			ids[strings.TrimSuffix(name, ".json")] = true
		}
	}
	return ids, tmps, nil
}

// Store is the run history of one home, <home>/history. It is safe for
// concurrent use by goroutines and by processes sharing the home.
type Store struct {
	dir    string
	limits config.History
	// artifacts is the artifact store the runs name (<home>/artifacts),
	// garbage-collected as runs go; "" for a history opened alone.
	artifacts string
	// repeat are the flags of the lines that repeat its runs
	// (runner.GlobalsOf the configuration it was opened with).
	repeat runner.Globals
	// jobs is the host's job state (jobstate.go): <home>/jobs, beside dir.
	jobs string
	// now is the clock (tests replace it).
	now func() time.Time
}

// Open returns the history under dir, creating it (0700) when missing;
// limits bound what it keeps (config history:).
func Open(dir string, limits config.History) (*Store, error) {
	for _, d := range []string{dir, filepath.Join(dir, runsDir), filepath.Join(dir, locksDir)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
	}
	return &Store{dir: dir, limits: limits, jobs: filepath.Join(filepath.Dir(filepath.Clean(dir)), "jobs"), now: time.Now}, nil
}

// OpenConfig opens the history of cfg's home with cfg's limits.
func OpenConfig(cfg *config.Config) (*Store, error) {
	s, err := Open(cfg.HistoryDir(), cfg.History)
	if err != nil {
		return nil, err
	}
	s.artifacts = cfg.ArtifactsDir()
	s.jobs = cfg.JobsDir()
	s.repeat = runner.GlobalsOf(cfg)
	return s, nil
}

// Repeat are the flags a line that acts on this history carries
// (runner.Globals.Line): its home's, when opened with OpenConfig.
func (s *Store) Repeat() runner.Globals { return s.repeat }

// Dir is the history's directory.
func (s *Store) Dir() string { return s.dir }

// RecordInputs reports whether inputs are recorded (config
// history.record_inputs).
func (s *Store) RecordInputs() bool { return s.limits.Inputs() }

func (s *Store) recordPath(id string) string { return filepath.Join(s.dir, runsDir, id+".json") }

// Put writes rec atomically and durably (record, directory and index line
// synced), adds its line to the index and prunes the oldest runs beyond
// the limits when due (maintainDue), all under the history's write lock.
func (s *Store) Put(rec *Record) error { return s.put(rec, writeDurable) }

// writeMode is how durable a record write is.
type writeMode int

const (
	// writeDurable syncs the record, its directory and the index line.
	writeDurable writeMode = iota
	// writeFinal renames the record into place unsynced and syncs it and
	// then its directory after the write returns (dirSyncs: one worker in
	// the background, a directory's fsync shared by the records renamed
	// before it, so the answer is not held up; Flush waits for them
	// before the process exits), and leaves the index line to the page
	// cache. A process killed after the write loses nothing (the kernel
	// holds the bytes); a power loss in the milliseconds before the
	// worker's fsyncs may forget the run or leave its record empty or
	// zero-filled, which reads as no record (read). Finish, the
	// last write of a run, whose
	// earlier index line (Begin's, an event's, Resume's) always says
	// running. The rule that makes this safe: the records are the truth
	// and the index a summary of them, so an index line that says running
	// for a run no process holds is checked against the record (summaries).
	// A power loss that drops Finish's line leaves that stale "running"
	// line or none, and either way the record is read. One fsync less on
	// every run's critical path (host overhead per invoke).
	writeFinal
	// writeRunning syncs nothing (putRunning).
	writeRunning
)

// putRunning writes the record of a run that has just begun: atomic for
// readers like Put (a temporary file renamed, so no process ever reads a
// part), but nothing is synced and nothing is pruned. A power loss may
// forget a run that was still running or leave its record empty, which
// is read as no record (read); Finish's write (writeFinal) makes it
// durable and prunes when due. It keeps all three fsyncs and the pruning
// scan off the start of every run (host overhead per invoke).
func (s *Store) putRunning(rec *Record) error { return s.put(rec, writeRunning) }

// putFinal is Finish's write (writeFinal).
func (s *Store) putFinal(rec *Record) error { return s.put(rec, writeFinal) }

// put writes rec in mode.
func (s *Store) put(rec *Record, mode writeMode) error {
	if err := CheckID(rec.RunID); err != nil {
		return err
	}
	rec.Version = RecordVersion
	b, err := modproto.EncodeJSON(rec)
	if err != nil {
		return fmt.Errorf("history: encode %s: %w", rec.RunID, err)
	}
	b = append(b, '\n')
	unlock, err := s.lockWrite()
	if err != nil {
		return err
	}
	defer unlock()
	if err := writeAtomicMode(s.recordPath(rec.RunID), b, mode); err != nil {
		return err
	}
	idx, err := s.appendIndexSync(rec.summary(int64(len(b))), mode == writeDurable)
	if err != nil {
		return err
	}
	if mode == writeRunning || !s.maintainDue(idx) {
		return nil
	}
	return s.maintain()
}

// Get reads the record of run id: wrapping ErrNotFound when there is none,
// a *DamagedError when it cannot be read. A running record no process
// holds is returned as StatusInterrupted.
func (s *Store) Get(id string) (*Record, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	rec, err := s.read(id)
	if err != nil {
		return nil, err
	}
	if rec.Status == StatusRunning && !s.Held(id) {
		rec.Status = StatusInterrupted
	}
	return rec, nil
}

// read reads and decodes one record.
func (s *Store) read(id string) (*Record, error) {
	f, err := os.Open(s.recordPath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, &DamagedError{RunID: id, Err: err}
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRecordBytes+1))
	if err != nil {
		return nil, &DamagedError{RunID: id, Err: err}
	}
	if len(b) > maxRecordBytes {
		return nil, &DamagedError{RunID: id, Err: fmt.Errorf("larger than %d bytes", maxRecordBytes)}
	}
	if len(bytes.Trim(b, "\x00")) == 0 {
		// A record a power loss cut before its bytes reached the disk
		// (putRunning, writeFinal: empty, or its size kept and its
		// blocks zero): the run is forgotten, not damaged.
		return nil, fmt.Errorf("%w: %s (empty)", ErrNotFound, id)
	}
	var rec Record
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, &DamagedError{RunID: id, Err: err}
	}
	if rec.RunID != id {
		return nil, &DamagedError{RunID: id, Err: fmt.Errorf("the record names run %q", rec.RunID)}
	}
	return &rec, nil
}

// Update reads run id, applies change and writes it back, under the write
// lock so a concurrent writer's change is not lost. The write lock is not
// the run's lock: the process that runs a job still owns its outcome.
func (s *Store) Update(id string, change func(*Record) error) (*Record, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	unlock, err := s.lockWrite()
	if err != nil {
		return nil, err
	}
	defer unlock()
	rec, err := s.read(id)
	if err != nil {
		return nil, err
	}
	if err := change(rec); err != nil {
		return nil, err
	}
	b, err := modproto.EncodeJSON(rec)
	if err != nil {
		return nil, err
	}
	b = append(b, '\n')
	if err := writeAtomic(s.recordPath(id), b); err != nil {
		return nil, err
	}
	return rec, s.appendIndex(rec.summary(int64(len(b))))
}

// Pin marks run id pinned (never pruned) or not.
func (s *Store) Pin(id string, pinned bool) error {
	_, err := s.Update(id, func(r *Record) error { r.Pinned = pinned; return nil })
	return err
}

// List returns every run's summary, newest first, and a warning for each
// index line or record that could not be read (skipped). Runs the index
// does not know (a writer killed between its record and its index line)
// are read from their records.
func (s *Store) List() ([]Summary, []string, error) {
	onDisk, _, err := s.recordIDs()
	if err != nil {
		return nil, nil, err
	}
	byID, _, warns := s.readIndex()
	out, bad, _ := s.summaries(onDisk, byID)
	for _, err := range bad {
		warns = append(warns, err.Error())
	}
	for i := range out {
		if out[i].Status == StatusRunning && !s.Held(out[i].RunID) {
			out[i].Status = StatusInterrupted
		}
	}
	SortNewestFirst(out)
	return out, warns, nil
}

// summaries resolves the summary of each run on disk: its index line,
// unless there is none or it says running while no process holds the run
// (a run interrupted, or one whose final line a power loss dropped:
// writeFinal), in which case the record itself is read. Records that
// cannot be read are returned as errors, not summaries; stale counts the
// runs whose index line was missing or disagreed with the record.
func (s *Store) summaries(onDisk map[string]bool, byID map[string]Summary) (out []Summary, bad []error, stale int) {
	out = make([]Summary, 0, len(onDisk))
	for id := range onDisk {
		sum, ok := byID[id]
		if !ok || sum.Status == StatusRunning && !s.Held(id) {
			rec, err := s.read(id)
			if err != nil {
				if !errors.Is(err, ErrNotFound) {
					bad = append(bad, err)
				}
				continue
			}
			fi, _ := os.Stat(s.recordPath(id))
			var n int64
			if fi != nil {
				n = fi.Size()
			}
			if !ok || rec.Status != sum.Status {
				stale++
			}
			sum = rec.summary(n)
		}
		out = append(out, sum)
	}
	return out, bad, stale
}

// SortNewestFirst orders summaries by start time, newest first (ties by
// run id, so the order is stable).
func SortNewestFirst(sums []Summary) {
	slices.SortFunc(sums, func(a, b Summary) int {
		if c := b.Started.Compare(a.Started); c != 0 {
			return c
		}
		return strings.Compare(a.RunID, b.RunID)
	})
}

// readIndex reads the index (index.go): the last line of each id wins; lines is how
// many lines it holds. A damaged line (a write killed half-way) is
// skipped with a warning; a last line without its newline is a write in
// progress (or killed) and is skipped silently.
func (s *Store) readIndex() (byID map[string]Summary, lines int, warns []string) {
	byID = map[string]Summary{}
	b, err := os.ReadFile(filepath.Join(s.dir, indexName))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			warns = append(warns, fmt.Sprintf("history index unreadable (%v); reading the records", err))
		}
		return byID, 0, warns
	}
	damaged := 0
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		line := b[:i]
		b = b[i+1:]
		if len(line) == 0 {
			continue
		}
		lines++
		sum, err := decodeLine(string(line))
		if err != nil {
			damaged++
			continue
		}
		byID[sum.RunID] = sum
	}
	if damaged > 0 {
		warns = append(warns, fmt.Sprintf("%d damaged history index %s skipped", damaged, words.Plural(damaged, "line", "lines")))
	}
	return byID, lines, warns
}

// appendIndex adds a summary line to the index, synced (the write lock
// held).
func (s *Store) appendIndex(sum Summary) error {
	_, err := s.appendIndexSync(sum, true)
	return err
}

// indexState is where the index stands after a write: its inode and size
// in bytes (maintainDue reads what was appended since the last
// maintenance from there).
type indexState struct {
	ino  uint64
	size int64
}

// appendIndexSync adds a summary line to the index (the write lock held)
// and returns the index's state after it; sync false leaves the line to
// the page cache (writeRunning, writeFinal). A torn last line left by a
// killed write is ended first, so the new line stands on its own.
func (s *Store) appendIndexSync(sum Summary, sync bool) (indexState, error) {
	line := encodeLine(sum)
	f, err := os.OpenFile(filepath.Join(s.dir, indexName), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return indexState{}, fmt.Errorf("history index: %w", err)
	}
	defer f.Close()
	var st indexState
	if fi, err := f.Stat(); err == nil {
		st.size = fi.Size()
		if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
			st.ino = sys.Ino
		}
		if st.size > 0 {
			last := make([]byte, 1)
			if _, err := f.ReadAt(last, st.size-1); err == nil && last[0] != '\n' {
				line = append([]byte{'\n'}, line...)
			}
		}
	}
	line = append(line, '\n')
	if _, err := f.Write(line); err != nil {
		return indexState{}, fmt.Errorf("history index: %w", err)
	}
	st.size += int64(len(line))
	if !sync {
		return st, nil
	}
	return st, f.Sync()
}

// maintenance is what the last maintain left, kept in maintName so the
// next writes can tell cheaply whether pruning or compaction is due: the
// index's inode and size then, the runs on disk and their bytes after
// pruning, and the index's lines after compaction.
type maintenance struct {
	index       indexState
	runs, lines int
	bytes       int64
}

// maintainDue reports whether a write that left the index at idx must
// run maintain. The rule (no scan of the whole history on every
// run): maintain runs when there is no usable record of the last one
// (maintName missing, damaged, or naming another index file or a larger
// one), when the runs and bytes it counted plus every run and byte the
// index lines appended since name could exceed the limits by more than
// pruneSlack, or when those lines could make the index due for
// compaction. Otherwise only the lines appended since are read. A record
// written without its index line (a writer killed between the two) is
// counted at the next full maintain; stale temporary files are removed
// then too.
func (s *Store) maintainDue(idx indexState) bool {
	m, ok := s.readMaintenance()
	if !ok || m.index.ino != idx.ino || m.index.size > idx.size || idx.size-m.index.size > maxTailBytes {
		return true
	}
	f, err := os.Open(filepath.Join(s.dir, indexName))
	if err != nil {
		return true
	}
	defer f.Close()
	tail := make([]byte, idx.size-m.index.size)
	if _, err := f.ReadAt(tail, m.index.size); err != nil {
		return true
	}
	runs, bytesTotal, lines := m.runs, m.bytes, m.lines
	seen := map[string]bool{}
	for _, line := range strings.Split(string(tail), "\n") {
		if line == "" {
			continue
		}
		lines++
		sum, err := decodeLine(line)
		if err != nil {
			return true
		}
		if !seen[sum.RunID] {
			seen[sum.RunID] = true
			runs++
		}
		bytesTotal += sum.Bytes
	}
	maxRuns, maxBytes := s.limits.Runs(), s.limits.Bytes()
	return maxRuns > 0 && int64(runs) > int64(maxRuns)+pruneSlack(int64(maxRuns)) ||
		maxBytes > 0 && bytesTotal > maxBytes+pruneSlack(maxBytes) ||
		lines > 2*m.runs+compactSlack
}

// maxTailBytes bounds the index read by maintainDue; more appended since
// the last maintenance runs maintain instead.
const maxTailBytes = 1 << 20

// pruneSlack is how far beyond a limit (max_runs, max_bytes) the history
// may grow before it is pruned back to the limit: 1/32 of it (31 runs of
// the default thousand), so pruning scans the history once in many runs
// rather than on every one; nothing for limits under 32.
func pruneSlack(limit int64) int64 { return limit / 32 }

// readMaintenance reads maintName; ok false when it is missing or does
// not parse.
func (s *Store) readMaintenance() (m maintenance, ok bool) {
	b, err := os.ReadFile(filepath.Join(s.dir, maintName))
	if err != nil {
		return m, false
	}
	_, err = fmt.Sscanf(string(b), "%d %d %d %d %d\n", &m.index.ino, &m.index.size, &m.runs, &m.bytes, &m.lines)
	return m, err == nil && m.index.size >= 0 && m.runs >= 0 && m.lines >= 0
}

// writeMaintenance records m (the write lock held). It is written in
// place without a sync: a lost or torn file only makes the next write run
// maintain.
func (s *Store) writeMaintenance(m maintenance) {
	line := fmt.Sprintf("%d %d %d %d %d\n", m.index.ino, m.index.size, m.runs, m.bytes, m.lines)
	os.WriteFile(filepath.Join(s.dir, maintName), []byte(line), 0o600)
}

// statIndex is the index's current state.
func (s *Store) statIndex() (indexState, bool) {
	fi, err := os.Stat(filepath.Join(s.dir, indexName))
	if err != nil {
		return indexState{}, false
	}
	sys, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return indexState{}, false
	}
	return indexState{ino: sys.Ino, size: fi.Size()}, true
}

// maintain prunes runs beyond the limits, compacts the index when it has
// grown well past the runs it lists or disagrees with a record, removes stale temporary files (the
// write lock held), and records what it left (maintainDue).
func (s *Store) maintain() error {
	onDisk, tmps, err := s.recordIDs()
	if err != nil {
		return err
	}
	for _, name := range tmps {
		p := filepath.Join(s.dir, runsDir, name)
		if id, ok := isLive(name); ok {
			if !s.Held(id) {
				os.Remove(p) // its process died before Finish removed it
			}
			continue
		}
		if fi, err := os.Stat(p); err == nil && s.now().Sub(fi.ModTime()) > staleTmpAge {
			os.Remove(p)
		}
	}
	byID, lines, _ := s.readIndex()
	live, _, stale := s.summaries(onDisk, byID) // damaged records: neither pruned nor listed
	before := len(live)
	live = s.prune(live)
	if len(live) < before {
		s.CollectArtifacts() // best effort: the next pruning tries again
	}
	if len(live) < before || stale > 0 || lines > 2*len(live)+compactSlack {
		if err := s.compact(live); err != nil {
			return err
		}
		lines = len(live)
	}
	m := maintenance{runs: len(live), lines: lines}
	for _, l := range live {
		m.bytes += l.Bytes
	}
	if st, ok := s.statIndex(); ok {
		m.index = st
		s.writeMaintenance(m)
	}
	return nil
}

// prune removes the oldest runs beyond max_runs and max_bytes; pinned runs
// and runs not finished (running, detached jobs) are never pruned. It
// returns the runs kept.
func (s *Store) prune(live []Summary) []Summary {
	maxRuns, maxBytes := s.limits.Runs(), s.limits.Bytes()
	var total int64
	for _, l := range live {
		total += l.Bytes
	}
	count := len(live)
	if (maxRuns == 0 || count <= maxRuns) && (maxBytes == 0 || total <= maxBytes) {
		return live
	}
	SortNewestFirst(live)
	kept := live[:0:0]
	for i := len(live) - 1; i >= 0; i-- {
		l := live[i]
		over := (maxRuns != 0 && count > maxRuns) || (maxBytes != 0 && total > maxBytes)
		if over && !l.Pinned && l.Status != StatusRunning && l.Status != StatusDetached && os.Remove(s.recordPath(l.RunID)) == nil {
			s.removeJobState(l.RunID)
			count--
			total -= l.Bytes
			continue
		}
		kept = append(kept, l)
	}
	return kept
}

// compact rewrites the index with one line per run kept (the write lock
// held), atomically.
func (s *Store) compact(live []Summary) error {
	live = slices.Clone(live)
	slices.SortFunc(live, func(a, b Summary) int { return strings.Compare(a.RunID, b.RunID) })
	var buf bytes.Buffer
	for _, sum := range live {
		buf.Write(encodeLine(sum))
		buf.WriteByte('\n')
	}
	return writeAtomic(filepath.Join(s.dir, indexName), buf.Bytes())
}

// testHookMidWrite, when set (tests only), runs after half of a record's
// bytes reached its temporary file and before the rest: the test that
// kills a process inside a write pauses it here.
var testHookMidWrite func(path string)

// writeAtomic writes b to path through a temporary file in the same
// directory: write, fsync, rename, fsync of the directory. A reader sees
// the old file or the new one, never a part; a process killed before the
// rename leaves only a temporary file, which no reader takes for a
// record. The file is private (0600).
func writeAtomic(path string, b []byte) error {
	if err := writeAtomicFile(path, b, true); err != nil {
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

// writeAtomicMode is writeAtomic in a record's writeMode: writeRunning
// syncs nothing, writeFinal leaves the directory's fsync to dirSyncs.
func writeAtomicMode(path string, b []byte, mode writeMode) error {
	switch mode {
	case writeRunning:
		return writeAtomicFile(path, b, false)
	case writeFinal:
		f, err := writeAtomicKeep(path, b)
		if err != nil {
			return err
		}
		dirSyncs.schedule(f, filepath.Dir(path))
		return nil
	}
	return writeAtomic(path, b)
}

// dirSyncs runs the fsyncs writeFinal leaves behind.
var dirSyncs dirSyncer

// dirSyncer fsyncs renamed records and then their directories in the
// background, on one worker goroutine started when work arrives: each
// batch syncs every file queued so far, then each of their directories
// once (one directory fsync covers every rename made before it).
type dirSyncer struct {
	mu      sync.Mutex
	files   []*os.File
	dirs    map[string]bool
	running bool
	wg      sync.WaitGroup
}

// schedule queues f (open, already renamed into dir; closed once synced)
// and dir.
func (d *dirSyncer) schedule(f *os.File, dir string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.wg.Add(1)
	d.files = append(d.files, f)
	if d.dirs == nil {
		d.dirs = map[string]bool{}
	}
	d.dirs[dir] = true
	if !d.running {
		d.running = true
		crash.Go(d.work)
	}
}

// work syncs batches until none is queued.
func (d *dirSyncer) work() {
	for {
		d.mu.Lock()
		files, dirs := d.files, d.dirs
		d.files, d.dirs = nil, nil
		if len(files) == 0 {
			d.running = false
			d.mu.Unlock()
			return
		}
		d.mu.Unlock()
		for _, f := range files {
			fsync(f)
			f.Close()
		}
		for dir := range dirs {
			syncDir(dir)
		}
		d.wg.Add(-len(files))
	}
}

// fsync is f.Sync (tests wrap it to see when a record is synced).
var fsync = (*os.File).Sync

// Flush waits for the fsyncs of finished runs' records (writeFinal)
// still in flight: a process calls it before it exits, so a run it
// answered is durable once it is gone.
func Flush() { dirSyncs.wg.Wait() }

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// writeAtomicFile writes b to path through a temporary file renamed over
// it; syncFile fsyncs the temporary file before the rename (a power loss
// then leaves the old file or the whole new one; without it, possibly an
// empty one). The directory is not synced.
func writeAtomicFile(path string, b []byte, syncFile bool) error {
	f, err := writeAtomicOpen(path, b, syncFile)
	if err != nil {
		return err
	}
	return f.Close()
}

// writeAtomicKeep is writeAtomicFile without the fsync, returning the
// renamed file still open for the caller to sync and close.
func writeAtomicKeep(path string, b []byte) (*os.File, error) {
	return writeAtomicOpen(path, b, false)
}

// writeAtomicOpen writes b through a temporary file renamed over path and
// returns that file, open.
func writeAtomicOpen(path string, b []byte, syncFile bool) (*os.File, error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, tmpPrefix+"*") // mode 0600
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	first := b
	if testHookMidWrite != nil {
		first = b[:len(b)/2]
	}
	if _, err := f.Write(first); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	if testHookMidWrite != nil {
		f.Sync()
		testHookMidWrite(path)
		if _, err := f.Write(b[len(first):]); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
	}
	if syncFile {
		if err := fsync(f); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	ok = true
	return f, nil
}

// CollectArtifacts removes from the artifact store every staged file that
// no run kept in the history names (docs/protocol.md §14): history
// pruning calls it, and so should anything that deletes runs. Files a
// run not yet recorded staged are spared (its journal,
// runner.CollectStore). It does nothing for a history opened without its
// home (Open).
func (s *Store) CollectArtifacts() (runner.Collected, error) {
	onDisk, _, err := s.recordIDs()
	if err != nil {
		return runner.Collected{}, err
	}
	ids := make([]string, 0, len(onDisk))
	for id := range onDisk {
		ids = append(ids, id)
	}
	return s.collect(ids)
}

// collect is CollectArtifacts over the runs ids. A record that cannot be
// read stops the collection: its artifacts might be among those removed.
func (s *Store) collect(ids []string) (runner.Collected, error) {
	if s.artifacts == "" {
		return runner.Collected{}, nil
	}
	keep := map[string]bool{}
	for _, id := range ids {
		rec, err := s.read(id)
		if err != nil {
			return runner.Collected{}, fmt.Errorf("history: collect artifacts: %w", err)
		}
		for _, a := range rec.Artifacts {
			keep[a.Staged] = true
		}
	}
	return runner.CollectStore(s.artifacts, keep, s.now())
}
