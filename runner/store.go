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
	"strings"
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
	// gcGrace spares a staged file this young from garbage collection: a
	// run in flight may have staged it before its record names it.
	gcGrace = 10 * time.Minute
)

// ErrStageBound is wrapped by a staging refused by a bound: the run's
// (MaxRunArtifacts, MaxRunStageBytes) or the store's quota.
var ErrStageBound = errors.New("staging bound")

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
}

// newStageBudget is a run's staging budget under ctx.
func (h *Host) newStageBudget(ctx context.Context) *stageBudget {
	return &stageBudget{ctx: ctx, bytes: MaxRunStageBytes, files: MaxRunArtifacts,
		quotaBytes: h.cfg.Artifacts.Bytes(), quotaFiles: h.cfg.Artifacts.Files()}
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
	if b.quotaBytes > 0 && b.used+size > b.quotaBytes {
		return fmt.Errorf("%w: the artifact store's quota artifacts.max_bytes (%d) would be passed: %d bytes staged + this artifact's %d = %d (prune the history to free space)",
			ErrStageBound, b.quotaBytes, b.used, size, b.used+size)
	}
	if b.quotaFiles > 0 && b.usedFiles+1 > b.quotaFiles {
		return fmt.Errorf("%w: the artifact store's quota artifacts.max_files (%d) would be passed: %d files staged + this one = %d (prune the history to free space)",
			ErrStageBound, b.quotaFiles, b.usedFiles, b.usedFiles+1)
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
// that keep does not name (keep holds absolute staged paths) and that was
// staged more than gcGrace before now, with its type records; stale
// temporary files go too. It is the store's garbage collection: the
// history calls it with the paths its kept runs name.
func CollectStore(dir string, keep map[string]bool, now time.Time) (Collected, error) {
	var c Collected
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
		if !stagedNameRe().MatchString(name) || keep[p] {
			return nil
		}
		fi, err := d.Info()
		if err != nil || now.Sub(fi.ModTime()) < gcGrace {
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
		if fi, err := t.Info(); err == nil && strings.HasPrefix(t.Name(), "stage-") && now.Sub(fi.ModTime()) > gcGrace {
			os.Remove(filepath.Join(dir, "tmp", t.Name()))
		}
	}
	return c, err
}
