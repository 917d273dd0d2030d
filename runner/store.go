package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Per-run bounds on staging (docs/protocol.md §14); the store's quota
// (config.Artifacts) bounds all runs together.
const (
	// MaxRunArtifacts bounds the artifacts one run stages (files and
	// content blocks): a module's listing is untrusted, and each costs an
	// inode and a hash.
	MaxRunArtifacts = 1000
	// MaxRunStageBytes bounds the bytes one run stages, counted as
	// copied, each listing of the same file again: a file's size counts,
	// not its allocated blocks, so a sparse file costs its full size
	// (every byte is read and hashed), although its holes are not written
	// (stageBlock).
	MaxRunStageBytes = 4 << 30
	// stageBlock is the unit of the staged copy's holes: a block of zeros
	// is skipped, not written, so a sparse file stays sparse in the store
	// (and a file of zeros becomes one).
	stageBlock = 4 << 10
	// stageChunk is how much staging copies between checks of the run's
	// context.
	stageChunk = 1 << 20
	// tmpGrace spares a staging copy under way (<store>/tmp/stage-*).
	tmpGrace = 10 * time.Minute
	// pendingDir holds one journal per run that staged
	// (<store>/pending/<pid>-<n>): the paths it staged, one per line,
	// which garbage collection spares while the process lives, until its
	// record names them (Result.ReleaseStaged).
	pendingDir = "pending"
	// maxJournalBytes bounds a journal read back (MaxRunArtifacts paths
	// of the store's ~100 bytes fit many times over).
	maxJournalBytes = 1 << 20
)

// ErrStageBound is wrapped by a staging refused by a bound: the run's
// (MaxRunArtifacts, MaxRunStageBytes) or the store's quota; ErrStoreQuota
// by the quota's alone (the host's store is full, not the module at
// fault: host.store_quota).
var (
	ErrStageBound = errors.New("staging bound")
	ErrStoreQuota = errors.New("artifact store quota")
)

// quotaError is a staging the store's quota refuses.
type quotaError struct{ msg string }

func (e *quotaError) Error() string { return ErrStageBound.Error() + ": " + e.msg }

func (e *quotaError) Is(target error) bool { return target == ErrStageBound || target == ErrStoreQuota }

// freeSpaceHint says how to make room in the store.
const freeSpaceHint = "free space with modbay history rm RUN (or D in the cockpit's history), which collects the artifacts no kept run names, or raise it in config.yaml (-1 for none)"

// stageBudget is what one run may still stage, and the context that stops
// its staging (the run's deadline, ctrl+c).
type stageBudget struct {
	ctx   context.Context
	bytes int64
	files int64
	// used and usedFiles are the store's content when the run started
	// staging (measured once, on its first artifact); quota the limits.
	measured        bool
	used, usedFiles int64
	quotaBytes      int64
	quotaFiles      int64
	// journal names what the run staged, for garbage collection in
	// another process (CollectStore); opened on the first artifact.
	store   string
	journal *os.File
}

// newStageBudget is a run's staging budget under ctx; close it when the
// run returns.
func (h *Host) newStageBudget(ctx context.Context) *stageBudget {
	return &stageBudget{ctx: ctx, bytes: MaxRunStageBytes, files: MaxRunArtifacts,
		quotaBytes: h.cfg.Artifacts.Bytes(), quotaFiles: h.cfg.Artifacts.Files(), store: h.cfg.ArtifactsDir()}
}

// journalSeq tells apart the journals of one process.
var journalSeq atomic.Int64

// note writes staged, about to be renamed into the store, in the run's
// journal, so garbage collection spares it until the run has returned
// (and its record, made then, names it).
func (b *stageBudget) note(staged string) error {
	if b == nil {
		return nil
	}
	if b.journal == nil {
		dir := filepath.Join(b.store, pendingDir)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		name := fmt.Sprintf("%d-%d", os.Getpid(), journalSeq.Add(1))
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return err
		}
		b.journal = f
	}
	_, err := b.journal.WriteString(staged + "\n")
	return err
}

// close closes the run's journal and names it in res, whose record
// releases it (ReleaseStaged).
func (b *stageBudget) close(res *Result) {
	if b == nil || b.journal == nil {
		return
	}
	b.journal.Close()
	if res != nil {
		res.stagedJournal = b.journal.Name()
	} else {
		os.Remove(b.journal.Name())
	}
	b.journal = nil
}

// ReleaseStaged removes the journal of what the run staged, once its
// record names the files (the history's Finish): garbage collection no
// longer spares them for the run's sake. A result no one records keeps
// them spared while its process lives.
func (r *Result) ReleaseStaged() {
	if r != nil && r.stagedJournal != "" {
		os.Remove(r.stagedJournal)
		r.stagedJournal = ""
	}
}

// pendingStaged are the paths the journals of live processes name; a
// journal of a process gone is removed.
func pendingStaged(store string) map[string]bool {
	dir := filepath.Join(store, pendingDir)
	entries, _ := os.ReadDir(dir)
	out := map[string]bool{}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		pid, _, ok := strings.Cut(e.Name(), "-")
		n, err := strconv.Atoi(pid)
		if !ok || err != nil || n <= 0 || !e.Type().IsRegular() {
			continue
		}
		if !processAlive(n) {
			os.Remove(p)
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(io.LimitReader(f, maxJournalBytes))
		f.Close()
		for line := range strings.Lines(string(b)) {
			out[strings.TrimSuffix(line, "\n")] = true
		}
	}
	return out
}

// processAlive says whether process pid exists (a reused pid keeps a
// journal longer, never shorter).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// take reserves one artifact of size bytes, or says which bound refuses
// it (wrapping ErrStageBound); store is the artifact store's directory.
func (b *stageBudget) take(store string, size int64) error {
	if b == nil {
		return nil
	}
	if b.files <= 0 {
		return fmt.Errorf("%w: the run stages more than MaxRunArtifacts (%d) artifacts", ErrStageBound, MaxRunArtifacts)
	}
	if size > b.bytes {
		return fmt.Errorf("%w: %d bytes would pass the run's MaxRunStageBytes (%d, %d left)", ErrStageBound, size, int64(MaxRunStageBytes), b.bytes)
	}
	if !b.measured {
		b.used, b.usedFiles, _ = StoreUsage(store)
		b.measured = true
	}
	if b.quotaBytes > 0 && size > b.quotaBytes {
		return &quotaError{fmt.Sprintf("this artifact's %d bytes are more than the artifact store's whole quota artifacts.max_bytes (%d): raise it in config.yaml (-1 for none)",
			size, b.quotaBytes)}
	}
	if b.quotaBytes > 0 && b.used+size > b.quotaBytes {
		return &quotaError{fmt.Sprintf("the artifact store's quota artifacts.max_bytes (%d) would be passed: %d bytes staged + this artifact's %d = %d (%s)",
			b.quotaBytes, b.used, size, b.used+size, freeSpaceHint)}
	}
	if b.quotaFiles > 0 && b.usedFiles+1 > b.quotaFiles {
		return &quotaError{fmt.Sprintf("the artifact store's quota artifacts.max_files (%d) would be passed: %d files staged + this one = %d (%s)",
			b.quotaFiles, b.usedFiles, b.usedFiles+1, freeSpaceHint)}
	}
	b.files--
	b.bytes -= size
	b.used += size
	b.usedFiles++
	return nil
}

// context is the budget's context (background without one).
func (b *stageBudget) context() context.Context {
	if b == nil || b.ctx == nil {
		return context.Background()
	}
	return b.ctx
}

// ctxReader reads r, failing with ctx's error once ctx ends, checked
// every stageChunk bytes.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
	n   int64
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if c.n >= stageChunk {
		c.n = 0
		if err := c.ctx.Err(); err != nil {
			return 0, fmt.Errorf("staging stopped: %w", context.Cause(c.ctx))
		}
	}
	if len(p) > stageChunk {
		p = p[:stageChunk]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// sparseWriter writes a staged copy leaving its blocks of zeros
// (stageBlock) as holes: it seeks past them, and finish sets the file's
// size, so a trailing hole is kept. The bytes hashed are the logical ones
// (the digest is over what was read, zeros included).
type sparseWriter struct {
	f   *os.File
	off int64
}

// zeroBlock is stageBlock zeros, to compare with.
var zeroBlock = make([]byte, stageBlock)

func (w *sparseWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		// The longest run of blocks that are all zeros or none is: a hole
		// is skipped, data written in one call.
		k := min(len(p), stageBlock)
		zero := bytes.Equal(p[:k], zeroBlock[:k])
		for k < len(p) {
			e := min(len(p), k+stageBlock)
			if bytes.Equal(p[k:e], zeroBlock[:e-k]) != zero {
				break
			}
			k = e
		}
		if !zero {
			if _, err := w.f.WriteAt(p[:k], w.off); err != nil {
				return n - len(p), err
			}
		}
		w.off += int64(k)
		p = p[k:]
	}
	return n, nil
}

// finish sets the copy's size to the bytes written, holes included.
func (w *sparseWriter) finish() error { return w.f.Truncate(w.off) }

// StoreUsage returns the bytes and files staged in the artifact store at
// dir (<home>/artifacts/sha256/…; the type records beside them are not
// counted).
func StoreUsage(dir string) (bytes, files int64, err error) {
	err = filepath.WalkDir(filepath.Join(dir, "sha256"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.Type().IsRegular() && stagedNameRe().MatchString(d.Name()) {
			if fi, err := d.Info(); err == nil {
				bytes += fi.Size()
				files++
			}
		}
		return nil
	})
	return bytes, files, err
}

// Collected is what a garbage collection of the artifact store freed.
type Collected struct {
	Files int64
	Bytes int64
}

// CollectStore removes from the artifact store at dir every staged file
// that keep does not name (keep holds absolute staged paths), that no
// run not yet recorded names (its journal, in a process alive), with its
// type records; temporary files older than tmpGrace go too. It is the store's garbage collection: the
// history calls it with the paths its kept runs name.
func CollectStore(dir string, keep map[string]bool, now time.Time) (Collected, error) {
	var c Collected
	pending := pendingStaged(dir)
	root := filepath.Join(dir, "sha256")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			if p != root && filepath.Dir(p) != root {
				return fs.SkipDir // the store is two levels deep
			}
			return nil
		}
		name := d.Name()
		if !stagedNameRe().MatchString(name) || keep[p] || pending[p] {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		if os.Remove(p) == nil {
			c.Files++
			c.Bytes += fi.Size()
		}
		types, _ := filepath.Glob(globEscape(p) + ".*" + stagedTypeSuffix)
		for _, t := range types {
			os.Remove(t)
		}
		return nil
	})
	tmps, _ := os.ReadDir(filepath.Join(dir, "tmp"))
	for _, t := range tmps {
		if fi, err := t.Info(); err == nil && strings.HasPrefix(t.Name(), "stage-") && now.Sub(fi.ModTime()) > tmpGrace {
			os.Remove(filepath.Join(dir, "tmp", t.Name()))
		}
	}
	return c, err
}
