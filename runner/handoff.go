package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"modbay/modproto"
)

// Handoff directories: one fresh directory per run
// under <home>/handoff/<request id>/<root name>, holding copies of the
// handed artifacts and nothing else, never the shared artifact store.
const (
	// handoffDirName is the folder of the home that holds them.
	handoffDirName = "handoff"
	// handoffFileMode and handoffRootMode make the copies and their root
	// read-only for everyone: a module that is not contained by Landlock
	// (sandbox: off) and not root cannot write them either.
	handoffFileMode = 0o444
	handoffRootMode = 0o555
	// handoffSweepAge is how old a handoff directory left behind (a plan
	// that was never run, a host that died mid-run) must be before a
	// later handoff removes it. A run removes its own when it ends; the
	// age keeps well clear of any run still going (the sweep also spares
	// a directory younger than twice the configured deadline).
	handoffSweepAge = 24 * time.Hour
	// maxHandoffFiles bounds the artifacts handed to one run: a person
	// picks them one by one.
	maxHandoffFiles = 64
)

// ErrHandoff is returned (wrapped) by PlanWith when a handoff cannot be
// made: the consumer does not declare the root as a read root, a file
// name is unusable or taken twice, or a source is not a regular file or
// does not match its digest. Nothing was run.
var ErrHandoff = errors.New("handoff refused")

// HandoffFile is one artifact handed to a run: the
// bytes at Source (a staged artifact, <home>/artifacts/<sha256>) copied
// into the handoff root as Name.
type HandoffFile struct {
	// Root is the read root name the consumer declares in
	// permissions.filesystem_read (docs/protocol.md §4) that receives the file.
	Root string
	// Source is the absolute path of the bytes to hand (read, never
	// handed itself).
	Source string
	// Name is the file name in the root: the base name of the artifact's
	// declared path (HandoffName). A plain name: no separator, not "." or
	// "..", no NUL.
	Name string
	// Digest, when set ("sha256:<64 hex>"), must match the copied bytes.
	Digest string
	// Origin says where the file came from, for the record ("RUN:ID").
	Origin string
}

// HandedFile is a file a plan placed in a handoff root: the request's
// root Root holds it at Rel (its path relative to the root, what the
// consumer's input names), whose absolute path is Path. The directory is
// removed when the run ends.
type HandedFile struct {
	HandoffFile
	Rel  string
	Path string
	Size int64
}

// HandoffName is the file name an artifact declared at path declared
// (relative, "/"-separated, docs/protocol.md §6) is handed under: its base name,
// or "" when that is unusable as a file name ("", ".", "..").
func HandoffName(declared string) string {
	n := path.Base(strings.ReplaceAll(declared, `\`, "/"))
	if !safeFileName(n) || n == "" || n == "/" || !printableName(n) {
		return ""
	}
	return n
}

// safeFileName reports whether name is one path element that stays in
// its directory.
func safeFileName(name string) bool {
	return name != "." && name != ".." && !strings.ContainsAny(name, `/\`+"\x00")
}

// printableName reports whether a handed file's name is valid UTF-8 with
// no control character (a newline, an escape): a name the module reads
// and the screen prints as it is.
func printableName(name string) bool {
	return utf8.ValidString(name) && strings.IndexFunc(name, unicode.IsControl) < 0
}

// checkHandoff refuses files that cannot be handed to capability c of d
// (ErrHandoff, wrapped, naming the rule): each root must be a name d
// declares in filesystem_read only (a name also written is rw, the
// workspace and bundle names are the host's), each name usable and
// unique in its root, and at most maxHandoffFiles files.
func checkHandoff(d *modproto.Descriptor, files []HandoffFile) error {
	if len(files) > maxHandoffFiles {
		return fmt.Errorf("%w: %d files (at most %d)", ErrHandoff, len(files), maxHandoffFiles)
	}
	seen := map[string]bool{}
	for _, f := range files {
		switch {
		case !slices.Contains(d.Permissions.FilesystemRead, f.Root):
			return fmt.Errorf("%w: module %s declares no read root %q (permissions.filesystem_read lists %s)", ErrHandoff, d.Module, f.Root, listOrNone(d.Permissions.FilesystemRead))
		case f.Root == rootWorkspace || slices.Contains(d.Permissions.FilesystemWrite, f.Root):
			return fmt.Errorf("%w: root %q is written by the module; a handoff goes to a read-only root", ErrHandoff, f.Root)
		case isBundleRootName(f.Root):
			return fmt.Errorf("%w: root %q names the module's own directory (a bundle root)", ErrHandoff, f.Root)
		case !modproto.ValidRootName(f.Root):
			return fmt.Errorf("%w: root %q breaks the root name grammar: %s", ErrHandoff, f.Root, modproto.RootNameRule)
		case f.Name == "" || !safeFileName(f.Name) || !printableName(f.Name):
			return fmt.Errorf("%w: %q is not a usable file name", ErrHandoff, f.Name)
		case !filepath.IsAbs(f.Source):
			return fmt.Errorf("%w: source %q is not absolute", ErrHandoff, f.Source)
		case seen[f.Root+"/"+f.Name]:
			return fmt.Errorf("%w: two files named %q for root %s", ErrHandoff, f.Name, f.Root)
		}
		seen[f.Root+"/"+f.Name] = true
	}
	return nil
}

// handoffRoots is the set of root names files go to.
func handoffRoots(files []HandoffFile) map[string]bool {
	out := map[string]bool{}
	for _, f := range files {
		out[f.Root] = true
	}
	return out
}

// listOrNone joins names, or says none.
func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// handoffBase is <home>/handoff.
func (h *Host) handoffBase() string { return filepath.Join(h.cfg.Home, handoffDirName) }

// makeHandoff copies files into fresh read-only roots for run requestID:
// <home>/handoff/<requestID>/<root>/<name>, each file 0444 and each root
// 0555 once filled. It returns the roots to add to the request, the files
// as placed, and the run's directory (to remove when the run ends). On
// error nothing is left behind.
func (h *Host) makeHandoff(requestID string, files []HandoffFile) (map[string]modproto.Root, []HandedFile, string, error) {
	h.sweepHandoff()
	base := h.handoffBase()
	if err := os.MkdirAll(base, 0o700); err != nil {
		return nil, nil, "", fmt.Errorf("handoff: %w", err)
	}
	runDir := filepath.Join(base, requestID)
	if err := os.Mkdir(runDir, 0o700); err != nil {
		return nil, nil, "", fmt.Errorf("handoff: a fresh directory for the run: %w", err)
	}
	roots := map[string]modproto.Root{}
	var placed []HandedFile
	fail := func(err error) (map[string]modproto.Root, []HandedFile, string, error) {
		removeHandoff(runDir)
		return nil, nil, "", err
	}
	for _, f := range files {
		dir := filepath.Join(runDir, f.Root)
		if _, ok := roots[f.Root]; !ok {
			if err := os.Mkdir(dir, 0o700); err != nil {
				return fail(fmt.Errorf("handoff: root %s: %w", f.Root, err))
			}
			roots[f.Root] = modproto.Root{Path: dir, Mode: modproto.RootReadOnly}
		}
		dst := filepath.Join(dir, f.Name)
		n, err := copyHandoffFile(f.Source, dst, f.Digest)
		if err != nil {
			return fail(fmt.Errorf("%w: %s: %v", ErrHandoff, f.Name, err))
		}
		placed = append(placed, HandedFile{HandoffFile: f, Rel: f.Name, Path: dst, Size: n})
	}
	for _, r := range roots {
		if err := os.Chmod(r.Path, handoffRootMode); err != nil {
			return fail(fmt.Errorf("handoff: %w", err))
		}
	}
	return roots, placed, runDir, nil
}

// copyHandoffFile copies the regular file src (never a FIFO or device,
// never through a final symlink) to a new file dst, checks its sha256
// against digest when one is given, and makes it read-only. It returns
// the bytes copied.
func copyHandoffFile(src, dst, digest string) (int64, error) {
	in, err := openRegular(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, err
	}
	sum := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, sum), in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	if got := "sha256:" + hex.EncodeToString(sum.Sum(nil)); digest != "" && got != digest {
		return 0, fmt.Errorf("the bytes at %s are %s, not the artifact's %s", src, got, digest)
	}
	return n, os.Chmod(dst, handoffFileMode)
}

// removeHandoff removes a run's handoff directory, making its read-only
// roots writable first so they can be emptied.
func removeHandoff(runDir string) {
	if runDir == "" {
		return
	}
	entries, _ := os.ReadDir(runDir)
	for _, e := range entries {
		if e.IsDir() && e.Type()&os.ModeSymlink == 0 {
			_ = os.Chmod(filepath.Join(runDir, e.Name()), 0o700)
		}
	}
	_ = os.RemoveAll(runDir)
}

// sweepHandoff removes handoff directories left behind (a plan never
// run, a host that died) once older than handoffSweepAge and twice the
// configured deadline. Best effort.
func (h *Host) sweepHandoff() {
	entries, err := os.ReadDir(h.handoffBase())
	if err != nil {
		return
	}
	age := max(handoffSweepAge, 2*time.Duration(h.cfg.DeadlineMS)*time.Millisecond)
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil || !e.IsDir() || time.Since(fi.ModTime()) < age {
			continue
		}
		removeHandoff(filepath.Join(h.handoffBase(), e.Name()))
	}
}

// HandoffRoots are the read roots of d a handed file can go to, in the
// order d declares them: in filesystem_read, neither written (a name both
// read and written is rw) nor the workspace nor a bundle name, and within
// the root name grammar (docs/protocol.md §4, §13). checkHandoff accepts
// exactly these.
func HandoffRoots(d *modproto.Descriptor) []string {
	var out []string
	for _, r := range d.Permissions.FilesystemRead {
		if r == rootWorkspace || isBundleRootName(r) || !modproto.ValidRootName(r) ||
			slices.Contains(d.Permissions.FilesystemWrite, r) || slices.Contains(out, r) {
			continue
		}
		out = append(out, r)
	}
	return out
}
