package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"modbay/modproto"
)

// ErrRootSymlink is a root path a module could have written (inside the
// home's state or workspace, or inside a rw root) that is, or passes
// through, a symlink: refused when the run is planned and again when it
// starts (a module that swaps its rw root, or <home>/workspace,
// for a symlink must not redirect where the next run reads or writes).
var ErrRootSymlink = errors.New("a directory a module can write must not be a symlink")

// ErrRootChanged is a root that no longer names the directory opened when
// the run was planned.
var ErrRootChanged = errors.New("the root changed since the run was planned")

// beneathDirFlags resolve a path beneath a directory handle without
// following any symlink or magic link (openat2(2)).
const beneathDirFlags = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

// rootDirs holds each root of a run by name, opened as a directory
// (O_PATH) when the run was planned; artifacts are resolved beneath these
// handles, never by path again after the run. Closing is left to the
// *os.File finalizer: a plan that is never run holds a handle per root
// until it is collected.
type rootDirs map[string]*os.File

// openRoots opens every root of roots with openRoot; rw roots are created
// when missing. It returns the handles and the roots with their paths as
// resolved (what the module is given).
func (h *Host) openRoots(roots map[string]modproto.Root) (rootDirs, map[string]modproto.Root, error) {
	dirs := rootDirs{}
	out := make(map[string]modproto.Root, len(roots))
	for name, r := range roots {
		dir, real, err := h.openRoot(r.Path, r.Mode == modproto.RootReadWrite)
		if err != nil {
			return nil, nil, fmt.Errorf("root %s: %w", name, err)
		}
		dirs[name] = dir
		r.Path = real
		out[name] = r
	}
	return dirs, out, nil
}

// openRoot resolves and opens the directory p as a handle, returning it
// and its resolved absolute path. Where p lies decides how:
//   - inside <home>/state or the workspace (when the workspace is in the
//     home), or inside a workspace elsewhere: every component beneath that
//     base is opened without following symlinks (a module could have put
//     one there); a symlink is ErrRootSymlink. Missing directories are
//     made (mode 0700) when create is set.
//   - anywhere else (the person's own --workspace, a configured root, a
//     module's bundle, the home itself): symlinks are resolved once, now,
//     and the result is opened without following any symlink, so a swap
//     between the two steps fails instead of being followed.
func (h *Host) openRoot(p string, create bool) (*os.File, string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, "", err
	}
	home := filepath.Clean(h.cfg.Home)
	realHome := canonical(home)
	ws := filepath.Clean(h.cfg.Workspace)
	var zones []string // module-writable areas, relative to the home
	zones = append(zones, "state")
	if rel, ok := relBeneath(home, ws); ok {
		zones = append(zones, rel)
	}
	for _, base := range []string{home, realHome} {
		rel, ok := relBeneath(base, abs)
		if !ok {
			continue
		}
		for _, z := range zones {
			if _, in := relBeneath(z, rel); in {
				return openDirBeneath(realHome, rel, create)
			}
		}
	}
	if _, inHome := relBeneath(home, ws); !inHome && abs != ws {
		realWS := canonical(ws)
		for _, base := range []string{ws, realWS} {
			if rel, ok := relBeneath(base, abs); ok {
				return openDirBeneath(realWS, rel, create)
			}
		}
	}
	if create {
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return nil, "", err
		}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, "", err
	}
	return openDirBeneath("/", strings.TrimPrefix(real, "/"), false)
}

// relBeneath is p relative to base when p is base or lies beneath it
// (lexically; both absolute and clean), "." for base itself.
func relBeneath(base, p string) (string, bool) {
	if p == base {
		return ".", true
	}
	if base == "." {
		// base "." is the zone of every relative path.
		return p, !filepath.IsAbs(p) && p != ".." && !strings.HasPrefix(p, "../")
	}
	prefix := base
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	if strings.HasPrefix(p, prefix) {
		return p[len(prefix):], true
	}
	return "", false
}

// openDirBeneath opens base/rel as a directory handle, one component at a
// time beneath base with openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS),
// making missing components (0700) when create is set. A symlink on the
// way is ErrRootSymlink; anything but a directory is refused. It returns
// the handle and base/rel.
func openDirBeneath(base, rel string, create bool) (*os.File, string, error) {
	full := filepath.Join(base, rel)
	fd, err := unix.Open(base, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, "", &os.PathError{Op: "open", Path: base, Err: err}
	}
	walked := base
	for _, comp := range strings.Split(filepath.Clean(rel), "/") {
		if comp == "." || comp == "" {
			continue
		}
		walked = filepath.Join(walked, comp)
		next, err := openat2Dir(fd, comp)
		if errors.Is(err, unix.ENOENT) && create {
			if merr := unix.Mkdirat(fd, comp, 0o700); merr != nil && !errors.Is(merr, unix.EEXIST) {
				unix.Close(fd)
				return nil, "", &os.PathError{Op: "mkdir", Path: walked, Err: merr}
			}
			next, err = openat2Dir(fd, comp)
		}
		unix.Close(fd)
		switch {
		case errors.Is(err, unix.ELOOP):
			return nil, "", fmt.Errorf("%s is a symlink (beneath %s): %w; refused", walked, base, ErrRootSymlink)
		case errors.Is(err, unix.ENOTDIR):
			return nil, "", fmt.Errorf("%s is not a directory", walked)
		case err != nil:
			return nil, "", &os.PathError{Op: "open", Path: walked, Err: err}
		}
		fd = next
	}
	return os.NewFile(uintptr(fd), full), full, nil
}

// openat2Dir opens the one component name beneath dirfd as an O_PATH
// directory without following a symlink; kernels without openat2 use
// openat with O_NOFOLLOW, which refuses a final symlink the same way.
func openat2Dir(dirfd int, name string) (int, error) {
	flags := unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC | unix.O_NOFOLLOW
	fd, err := unix.Openat2(dirfd, name, &unix.OpenHow{Flags: uint64(flags), Resolve: beneathDirFlags})
	if errors.Is(err, unix.ENOSYS) {
		fd, err = unix.Openat(dirfd, name, flags, 0)
	}
	if errors.Is(err, unix.ENOTDIR) {
		// O_NOFOLLOW|O_DIRECTORY on a symlink says "not a directory";
		// say what it is.
		var st unix.Stat_t
		if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			err = unix.ELOOP
		}
	}
	return fd, err
}

// sameDir reports whether a and b are the same directory (device and
// inode).
func sameDir(a, b *os.File) bool {
	var sa, sb unix.Stat_t
	if unix.Fstat(int(a.Fd()), &sa) != nil || unix.Fstat(int(b.Fd()), &sb) != nil {
		return false
	}
	return sa.Dev == sb.Dev && sa.Ino == sb.Ino
}

// removed reports whether the directory behind f was removed (no links).
func removed(f *os.File) bool {
	var st unix.Stat_t
	return unix.Fstat(int(f.Fd()), &st) == nil && st.Nlink == 0
}

// recheckRoots runs when a planned run starts: every root must still
// name the directory opened at plan time (ErrRootChanged, or
// ErrRootSymlink when it is now a symlink); a rw root removed since is
// made again and its new handle used.
func (h *Host) recheckRoots(roots map[string]modproto.Root, dirs rootDirs) error {
	for name, r := range roots {
		held := dirs[name]
		now, _, err := h.openRoot(r.Path, r.Mode == modproto.RootReadWrite)
		if err != nil {
			return fmt.Errorf("root %s: %w", name, err)
		}
		switch {
		case held == nil || (r.Mode == modproto.RootReadWrite && removed(held)):
			dirs[name] = now
		case !sameDir(held, now):
			now.Close()
			return fmt.Errorf("root %s: %s: %w; refused", name, r.Path, ErrRootChanged)
		default:
			now.Close()
		}
	}
	return nil
}

// coarseClockSlack is how far a new file's birth time may lag the run's
// start: the kernel stamps files from a coarse clock (one tick, 1–10 ms).
const coarseClockSlack = 50 * time.Millisecond

// checkLinks refuses a file with more than one hard link unless the file
// itself was born during the run (statx birth time at or after started):
// a hard link is how a module under containment would make a file it may
// not read (~/.ssh/id_ed25519, another module's output) appear inside its
// rw root for the host to stage and show. Where the filesystem
// keeps no birth time every file with more than one link is refused.
func checkLinks(f *os.File, started time.Time) error {
	var sx unix.Statx_t
	if err := unix.Statx(int(f.Fd()), "", unix.AT_EMPTY_PATH, unix.STATX_NLINK|unix.STATX_BTIME, &sx); err != nil {
		return err
	}
	if sx.Nlink <= 1 {
		return nil
	}
	if sx.Mask&unix.STATX_BTIME != 0 && !started.IsZero() {
		born := time.Unix(sx.Btime.Sec, int64(sx.Btime.Nsec))
		if !born.Before(started.Add(-coarseClockSlack)) {
			return nil
		}
		return fmt.Errorf("has %d hard links and existed before the run (born %s); a hard link to a file the module could not have made is refused", sx.Nlink, born.Format(time.RFC3339))
	}
	return fmt.Errorf("has %d hard links and this filesystem records no birth time to show the module made it; refused", sx.Nlink)
}
