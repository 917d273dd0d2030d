package examples

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// createBeneath creates rel (a relative, slash-separated path) under the
// directory root with b as its content, making missing directories, and
// following no symlink on the way: the workspace is a module's to write,
// so any component may be a symlink it planted to lead the host's own
// writes outside the home. A path where anything already exists is left
// alone (created false); a symlink in a directory component is an error.
func createBeneath(root, rel string, b []byte, mode os.FileMode) (created bool, err error) {
	// root is the host's own (the config's workspace may be a symlink).
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	fd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false, &os.PathError{Op: "open", Path: root, Err: err}
	}
	defer func() { unix.Close(fd) }()
	parts := strings.Split(filepath.ToSlash(filepath.Clean(rel)), "/")
	for _, dir := range parts[:len(parts)-1] {
		if dir == ".." || dir == "." || dir == "" {
			return false, errors.New("path " + rel + " is not beneath " + root)
		}
		if err := unix.Mkdirat(fd, dir, uint32(dirMode)); err != nil && !errors.Is(err, unix.EEXIST) {
			return false, &os.PathError{Op: "mkdir", Path: filepath.Join(root, dir), Err: err}
		}
		next, err := unix.Openat(fd, dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			// ELOOP or ENOTDIR: a symlink (or a file) where a directory
			// should be.
			return false, &os.PathError{Op: "open", Path: filepath.Join(root, dir), Err: err}
		}
		unix.Close(fd)
		fd = next
	}
	last := parts[len(parts)-1]
	if last == ".." || last == "." || last == "" {
		return false, errors.New("path " + rel + " is not beneath " + root)
	}
	ffd, err := unix.Openat(fd, last, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(mode))
	if errors.Is(err, unix.EEXIST) {
		return false, nil
	}
	if err != nil {
		return false, &os.PathError{Op: "create", Path: filepath.Join(root, rel), Err: err}
	}
	f := os.NewFile(uintptr(ffd), filepath.Join(root, rel))
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return true, err
}
