package examples

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"modbay/modkit"
	"modbay/modproto"
)

// Limits of an invocation.
const (
	// maxRequestBytes bounds the request file read from --input: requests
	// are small JSON documents, and a runaway file must not exhaust memory.
	maxRequestBytes = 16 << 20
	// deadlineMargin is kept back from deadline_ms so the module can still
	// print its timeout envelope before the host kills it (docs/protocol.md §3);
	// at most a tenth of the deadline.
	deadlineMargin = 500 * time.Millisecond
	// stepPause is the pause after each progress line, so the cockpit's
	// live stderr tail shows the steps at a human pace.
	stepPause = 25 * time.Millisecond
)

// progressBudget bounds the total of progress pauses in one run, so fast
// paths stay fast (a variable only so tests can set it to zero).
var progressBudget = 150 * time.Millisecond

// runBudget is the time a run may take: deadline_ms less deadlineMargin
// (or less a tenth of it, whichever is smaller).
func runBudget(deadlineMS int) time.Duration {
	d := time.Duration(deadlineMS) * time.Millisecond
	return d - min(deadlineMargin, d/10)
}

// readRequest reads and decodes the request file at path (docs/protocol.md §4). On a
// decode failure it still returns what it could read of the request, so the
// error envelope can echo the request id.
func readRequest(path string) (*modproto.Request, *modError) {
	details := map[string]any{"field": "--input", "path": path}
	if !filepath.IsAbs(path) {
		return nil, newError(modproto.CodeInvalidRequest, details, "--input must be an absolute path (got %q)", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, newError(modproto.CodeInvalidRequest, details, "cannot open the request file: %v", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRequestBytes+1))
	if err != nil {
		return nil, newError(modproto.CodeInvalidRequest, details, "cannot read the request file: %v", err)
	}
	if len(b) > maxRequestBytes {
		return nil, newError(modproto.CodeInvalidRequest, details, "the request file is over %d bytes", maxRequestBytes)
	}
	var req modproto.Request
	if err := json.Unmarshal(b, &req); err != nil {
		var partial struct {
			RequestID string `json:"request_id"`
		}
		_ = json.Unmarshal(b, &partial)
		return &modproto.Request{RequestID: partial.RequestID},
			newError(modproto.CodeInvalidRequest, details, "the request file is not a request object: %v", err)
	}
	return &req, nil
}

// call is one invocation in progress: the request, the execution report
// being built, warnings, and the progress writer.
type call struct {
	ctx    context.Context
	mod    *module
	cap    *capability
	req    *modproto.Request
	stderr io.Writer
	// exec is what the call actually did; handlers set Network when they
	// touch it, and artifacts are appended by writeArtifact.
	exec     modproto.Execution
	warnings []string
	// paused is the total of progress pauses so far (see progressBudget).
	paused time.Duration
}

// newCall prepares a call of c. Its execution starts as "ran as declared,
// used nothing yet": local and provider as declared, no network, no
// external writes, and costs 0 when the capability's cost is known, else
// null (unknown is never 0, docs/protocol.md §6).
func newCall(ctx context.Context, m *module, c *capability, req *modproto.Request, stderr io.Writer) *call {
	e := c.decl.Effects
	x := modproto.Execution{Local: e.Local, Provider: e.Provider, Artifacts: []modproto.Artifact{}}
	if e.CostKnown {
		x.EstimatedCost, x.ActualCost = cost(0), cost(0)
	}
	return &call{ctx: ctx, mod: m, cap: c, req: req, stderr: stderr, exec: x}
}

// runHandler runs the capability's handler, turning a panic into an
// internal error so one envelope is still printed.
func (c *call) runHandler() (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			result, err = nil, newError(modproto.CodeInternal, nil, "%s panicked: %v", c.cap.decl.ID, p)
		}
	}()
	return c.cap.run(c)
}

// progress writes one line to stderr (the cockpit's live tail) and pauses
// briefly while the run's progressBudget lasts.
func (c *call) progress(format string, a ...any) {
	fmt.Fprintf(c.stderr, format+"\n", a...)
	if c.paused >= progressBudget {
		return
	}
	d := min(stepPause, progressBudget-c.paused)
	c.paused += d
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.ctx.Done():
	}
}

// warn adds a warning to the envelope (docs/protocol.md §6: shown, never fatal).
func (c *call) warn(format string, a ...any) {
	c.warnings = append(c.warnings, fmt.Sprintf(format, a...))
}

// root returns the absolute path of the root name the host supplied; when
// write is true the root must be mode rw. An absent root, or one that is
// not a directory, is missing_root; a read-only root asked for writing is
// permission_denied (docs/protocol.md §4, §8).
func (c *call) root(name string, write bool) (string, error) {
	r, ok := c.req.Roots[name]
	if !ok {
		return "", newError(codeMissingRoot, map[string]any{"root": name},
			"the host supplied no %q root; %s needs it", name, c.cap.decl.ID)
	}
	if !filepath.IsAbs(r.Path) {
		return "", newError(modproto.CodeInvalidRequest, map[string]any{"field": "roots." + name + ".path", "path": r.Path},
			"root %q: path %q is not absolute", name, r.Path)
	}
	if write && r.Mode != modproto.RootReadWrite {
		return "", newError(modproto.CodePermissionDenied, map[string]any{"root": name, "required": modproto.RootReadWrite, "mode": r.Mode},
			"root %q is supplied %q but %s writes into it", name, r.Mode, c.cap.decl.ID)
	}
	p := filepath.Clean(r.Path)
	if st, err := os.Stat(p); err != nil || !st.IsDir() {
		return "", newError(codeMissingRoot, map[string]any{"root": name, "path": p},
			"root %q (%s) is not a directory", name, p)
	}
	return p, nil
}

// runSuffixPattern keeps the characters of a request id safe in a file name.
var runSuffixPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9_-]+`) })

// runSuffixLen is how many trailing characters of the request id name a
// run's output directory: 12 hex characters (48 random bits) keep the names
// short and distinct.
const runSuffixLen = 12

// runSuffix names this run's output directory (e.g. reports/<suffix>/): the
// last runSuffixLen safe characters of the request id after "req_", or the
// time when the id has none.
func (c *call) runSuffix() string {
	s := runSuffixPattern().ReplaceAllString(strings.ToLower(strings.TrimPrefix(c.req.RequestID, "req_")), "")
	if s == "" {
		return time.Now().UTC().Format("20060102T150405.000")
	}
	if len(s) > runSuffixLen {
		s = s[len(s)-runSuffixLen:]
	}
	return s
}

// artifactFile is one file a handler writes and reports as an artifact.
type artifactFile struct {
	id, kind     string
	root         string // logical root name, supplied rw
	rel          string // slash path relative to the root
	mediaType    string
	presentation string
	title        string
	data         []byte
}

// writeArtifact writes a.data to a.rel under root a.root (atomically: temp
// file then rename, mode 0644) and appends the artifact to the execution
// with the exact byte count and digest (docs/protocol.md §8). Directories on the way
// are created; one that is a symlink or not a directory is refused with
// path_outside_root, so a hostile workspace cannot redirect the write.
func (c *call) writeArtifact(a artifactFile) error {
	rootPath, err := c.root(a.root, true)
	if err != nil {
		return err
	}
	if !modproto.IsRelativePath(a.rel) || !filepath.IsLocal(filepath.FromSlash(a.rel)) {
		return newError(modproto.CodePathOutsideRoot, map[string]any{"root": a.root, "path": a.rel},
			"artifact path %q is not inside root %q", a.rel, a.root)
	}
	dir, err := confinedMkdir(rootPath, a.root, filepath.Dir(filepath.FromSlash(a.rel)))
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, filepath.Base(a.rel)), a.data, 0o644); err != nil {
		return err
	}
	c.exec.Artifacts = append(c.exec.Artifacts, modproto.Artifact{
		ID: a.id, Kind: a.kind, Path: a.rel, Root: a.root, Presentation: a.presentation,
		MediaType: a.mediaType, Bytes: int64(len(a.data)), Digest: modkit.Digest(a.data), Title: a.title,
	})
	return nil
}

// confinedMkdir creates rel (a local path) under rootPath one component at
// a time, refusing any existing component that is a symlink or not a
// directory, and returns the absolute directory.
func confinedMkdir(rootPath, rootName, rel string) (string, error) {
	dir := rootPath
	if rel == "." {
		return dir, nil
	}
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		dir = filepath.Join(dir, part)
		st, err := os.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return "", err
			}
		case err != nil:
			return "", err
		case st.Mode()&fs.ModeSymlink != 0 || !st.IsDir():
			return "", newError(modproto.CodePathOutsideRoot, map[string]any{"root": rootName, "path": filepath.ToSlash(rel)},
				"%s in root %q is a symlink or not a directory; refusing to write through it", filepath.ToSlash(rel), rootName)
		}
	}
	return dir, nil
}

// writeFileAtomic writes data to path through a temp file in the same
// directory and a rename, so a reader never sees a half-written file and a
// symlink at path is replaced, not followed.
func writeFileAtomic(path string, data []byte, perm fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// within reports whether path p is root or inside it, both absolute and
// clean.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}
