package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"modbay/modproto"
	"modbay/schema"
)

// artifactFailure is one artifact that failed docs/protocol.md §8; confinement
// failures make the run path_outside_root, the others a protocol violation.
type artifactFailure struct {
	confinement bool
	// quota: refused by the store's quota alone (ErrStoreQuota).
	quota bool
	// index is the artifact's place in execution.artifacts.
	index int
	v     modproto.ValidationError
}

// verifyArtifacts checks and stages every artifact (docs/protocol.md §8), each
// resolved beneath its root's handle in dirs (opened when the run was
// planned), never by path again; started is when the module started (for
// the hard-link rule, checkLinks). It returns the verified artifacts and
// the failures of the others: one bad artifact does not hide the good
// ones; failure paths number arts from offset in execution.artifacts.
// Staging draws on b, the run's budget (nil for none): its bounds and its
// context (docs/protocol.md §14). echoes are the run's secrets: an
// artifact naming one is refused (secretIn), a title holding one masked.
func (h *Host) verifyArtifacts(b *stageBudget, echoes []schema.Echo, roots map[string]modproto.Root, dirs rootDirs, started time.Time, arts []modproto.Artifact, offset int) ([]VerifiedArtifact, []artifactFailure) {
	out := []VerifiedArtifact{}
	var fails []artifactFailure
	for i, a := range arts {
		va, f := h.verifyArtifact(b, echoes, roots, dirs, started, a)
		if f != nil {
			f.index = offset + i
			f.v.Path = fmt.Sprintf("execution.artifacts[%d]", offset+i)
			fails = append(fails, *f)
			continue
		}
		out = append(out, va)
	}
	return out, fails
}

// verifyArtifact confines, opens, measures, hashes and stages one artifact.
func (h *Host) verifyArtifact(b *stageBudget, echoes []schema.Echo, roots map[string]modproto.Root, dirs rootDirs, started time.Time, a modproto.Artifact) (VerifiedArtifact, *artifactFailure) {
	confined := func(f string, args ...any) *artifactFailure {
		return &artifactFailure{confinement: true, v: modproto.ValidationError{Detail: fmt.Sprintf(f, args...)}}
	}
	violation := func(f string, args ...any) *artifactFailure {
		return &artifactFailure{v: modproto.ValidationError{Detail: fmt.Sprintf(f, args...)}}
	}
	// Before anything else: every message below names the id and path.
	if why := secretIn(a, echoes); why != "" {
		return VerifiedArtifact{}, violation("%s", why)
	}
	maskArtifact(&a, echoes)
	root, ok := roots[a.Root]
	dir := dirs[a.Root]
	if !ok || dir == nil {
		return VerifiedArtifact{}, confined("artifact %q: root %q was not supplied to this run", a.ID, a.Root)
	}
	if root.Mode != modproto.RootReadWrite {
		return VerifiedArtifact{}, confined("artifact %q: root %q is read-only; artifacts must be under a rw root", a.ID, a.Root)
	}
	if !modproto.IsRelativePath(a.Path) {
		return VerifiedArtifact{}, confined("artifact %q: path %q is not relative to root %q", a.ID, a.Path, a.Root)
	}
	full := filepath.Join(root.Path, a.Path)
	if !within(root.Path, full) {
		return VerifiedArtifact{}, confined("artifact %q: path %q escapes root %q", a.ID, a.Path, a.Root)
	}
	rel, _ := filepath.Rel(root.Path, full)
	f, err := openBeneath(dir, rel)
	switch {
	case errors.Is(err, unix.ELOOP):
		// RESOLVE_NO_SYMLINKS refuses a symlink wherever it points: say
		// what was found, not where it might have led.
		return VerifiedArtifact{}, confined("artifact %q: path %q in root %q goes through a symlink, which is never followed (an artifact must be a regular file reached without symlinks)", a.ID, a.Path, a.Root)
	case errors.Is(err, unix.EXDEV):
		return VerifiedArtifact{}, confined("artifact %q: path %q resolves outside root %q", a.ID, a.Path, a.Root)
	case errors.Is(err, unix.ENOENT):
		return VerifiedArtifact{}, violation("artifact %q: file %s does not exist in root %q", a.ID, a.Path, a.Root)
	case err != nil:
		return VerifiedArtifact{}, violation("artifact %q: %s: %v", a.ID, a.Path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return VerifiedArtifact{}, violation("artifact %q: %v", a.ID, err)
	}
	if !fi.Mode().IsRegular() {
		return VerifiedArtifact{}, violation("artifact %q: %s is not a regular file (%s)", a.ID, a.Path, fileKind(fi.Mode()))
	}
	if err := checkLinks(f, started); err != nil {
		return VerifiedArtifact{}, confined("artifact %q: %s %v", a.ID, a.Path, err)
	}
	if a.Bytes > 0 && fi.Size() != a.Bytes {
		return VerifiedArtifact{}, violation("artifact %q: bytes is %d but the file has %d", a.ID, a.Bytes, fi.Size())
	}
	if err := b.take(h.cfg.ArtifactsDir(), fi.Size()); err != nil {
		f := violation("artifact %q: %v", a.ID, err)
		f.quota = errors.Is(err, ErrStoreQuota)
		return VerifiedArtifact{}, f
	}
	// Never more than the size just measured is copied: a file that grows
	// while it is staged fails its bytes check instead of filling the disk.
	staged, n, err := h.stage(b, io.LimitReader(f, fi.Size()+1), a.Digest)
	if err != nil {
		var dm *digestMismatch
		if errors.As(err, &dm) {
			return VerifiedArtifact{}, violation("artifact %q: digest is %s but the file hashes to %s", a.ID, a.Digest, dm.got)
		}
		return VerifiedArtifact{}, violation("artifact %q: staging failed: %v", a.ID, err)
	}
	if a.Bytes > 0 && n != a.Bytes {
		return VerifiedArtifact{}, violation("artifact %q: bytes is %d but %d were read", a.ID, a.Bytes, n)
	}
	// The type it was staged under, beside the bytes, so `modbay render`
	// of the staged file shows it as this run did (best effort).
	_ = recordStagedType(staged, a, time.Now())
	return VerifiedArtifact{
		Artifact:     a,
		Source:       full,
		Staged:       staged,
		Size:         n,
		Presentation: modproto.ResolvePresentation(a.Presentation, a.MediaType),
	}, nil
}

// openFlags open a file for hashing without following a final symlink and
// without blocking on a FIFO or device (docs/protocol.md §8: never open one).
const openFlags = unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC

// openBeneath opens rel beneath the directory handle dir with
// openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), so no symlink, "..",
// or path swapped after the run leads outside the directory opened when
// the run was planned (ELOOP for a symlink, EXDEV for an escape); kernels
// without openat2 walk rel one component at a time with O_NOFOLLOW.
func openBeneath(dir *os.File, rel string) (*os.File, error) {
	name := filepath.Join(dir.Name(), rel)
	fd, err := unix.Openat2(int(dir.Fd()), rel, &unix.OpenHow{
		Flags:   uint64(openFlags),
		Resolve: beneathDirFlags,
	})
	if errors.Is(err, unix.ENOSYS) {
		return openWalk(dir, rel)
	}
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}

// openWalk is openBeneath without openat2: each directory component with
// O_NOFOLLOW|O_DIRECTORY, the last with openFlags.
func openWalk(dir *os.File, rel string) (*os.File, error) {
	parts := strings.Split(filepath.Clean(rel), "/")
	fd, err := unix.Dup(int(dir.Fd()))
	if err != nil {
		return nil, err
	}
	for i, comp := range parts {
		if comp == ".." {
			unix.Close(fd)
			return nil, unix.EXDEV
		}
		flags := unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
		if i == len(parts)-1 {
			flags = openFlags
		}
		next, err := unix.Openat(fd, comp, flags, 0)
		unix.Close(fd)
		if err != nil {
			return nil, err
		}
		fd = next
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir.Name(), rel)), nil
}

// openRegular opens path without following a final symlink or blocking,
// and refuses anything but a regular file.
func openRegular(path string) (*os.File, error) {
	fd, err := unix.Open(path, openFlags, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), path)
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("not a regular file (%s)", fileKind(fi.Mode()))
	}
	return f, nil
}

func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeDevice != 0, m&os.ModeCharDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	case m&os.ModeSymlink != 0:
		return "a symlink"
	}
	return m.Type().String()
}

// digestMismatch is a staged copy whose hash is not the declared digest.
type digestMismatch struct{ got string }

func (e *digestMismatch) Error() string { return "digest mismatch: file hashes to " + e.got }

// stage copies r into the content-addressed store while hashing it:
// <artifacts>/sha256/<first 2 hex>/<64 hex>, mode 0444 (docs/protocol.md §8). The
// copy goes to a temp file in the store and is renamed into place only
// when its hash equals want, over any file already there (an existing
// store file is never trusted). Blocks of zeros are left as holes
// (sparseWriter): a sparse file costs the host its data, not its size, on
// disk. It returns the staged path and the bytes read.
// Copying stops when b's context ends; the path is in b's journal before
// it is in the store.
func (h *Host) stage(b *stageBudget, r io.Reader, want string) (string, int64, error) {
	ctx := b.context()
	store := h.cfg.ArtifactsDir()
	tmpDir := filepath.Join(store, "tmp")
	if err := os.MkdirAll(tmpDir, 0o700); err != nil {
		return "", 0, err
	}
	tmp, err := os.CreateTemp(tmpDir, "stage-*")
	if err != nil {
		return "", 0, err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	var sum hash.Hash = sha256.New()
	sw := &sparseWriter{f: tmp}
	n, err := io.CopyBuffer(io.MultiWriter(sw, sum), &ctxReader{ctx: ctx, r: r}, make([]byte, stageChunk))
	if err == nil {
		err = sw.finish()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", n, err
	}
	hexSum := hex.EncodeToString(sum.Sum(nil))
	if got := "sha256:" + hexSum; got != want {
		return "", n, &digestMismatch{got: got}
	}
	dest := filepath.Join(store, "sha256", hexSum[:2], hexSum)
	// Never reuse what is already at dest: a file of the right name and
	// size may have been made writable and rewritten since it was staged.
	// The fresh copy, just hashed, replaces it atomically.
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return "", n, err
	}
	if err := os.Chmod(tmp.Name(), 0o444); err != nil {
		return "", n, err
	}
	if err := b.note(dest); err != nil {
		return "", n, err
	}
	if err := os.Rename(tmp.Name(), dest); err != nil {
		return "", n, err
	}
	return dest, n, nil
}

// failureCode is the host code for artifact failures: path_outside_root
// when any is a confinement failure, else a protocol violation.
// host.store_quota when the store's quota alone refused them (the host's
// store is full: no fault of the module's).
func failureCode(fails []artifactFailure) (string, modproto.ValidationErrors) {
	code := modproto.CodeHostProtocolViolation
	quota := len(fails) > 0
	var v modproto.ValidationErrors
	for _, f := range fails {
		if f.confinement {
			code = modproto.CodePathOutsideRoot
		}
		quota = quota && f.quota
		v = append(v, f.v)
	}
	if quota {
		code = modproto.CodeHostStoreQuota
	}
	return code, v
}

// maxDetailViolations is how many violations a verdict's Detail joins;
// the rest are counted (each is listed in Violations).
const maxDetailViolations = 3

// detailOf joins violations into one Detail line, the first
// maxDetailViolations of them.
func detailOf(v modproto.ValidationErrors) string {
	parts := make([]string, 0, min(len(v), maxDetailViolations)+1)
	for _, e := range v[:min(len(v), maxDetailViolations)] {
		parts = append(parts, e.Error())
	}
	if n := len(v) - maxDetailViolations; n > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", n))
	}
	return oneLine(strings.Join(parts, "; "))
}
