//go:build linux

package contain

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// The mount namespace (root only): Landlock confines reads, writes and
// execution, but not a file's mode, owner or times (chmod, chown, utime),
// so a module run by root could change any root-owned file outside its
// grants. The spawning thread therefore unshares its mount namespace
// (unshare(CLONE_NEWNS), which also unshares CLONE_FS for that thread
// only: the rest of modbay keeps the host's), makes every mount private
// and read-only, and puts the rw roots and the run directory back
// read-write. The child inherits the thread's namespace at clone, so a
// metadata change outside the rw roots fails with EROFS. Mounts must
// happen before Landlock: a Landlock domain forbids mount changes.

// readOnlyMounts runs on the spawning thread (locked, never unlocked): it
// moves the thread into a new private mount namespace in which everything
// is read-only except writable (absolute paths; missing ones are skipped),
// each of which keeps the mounts it had, with their own flags (a mount
// read-only on the host stays so). It checks that / is now read-only.
// entered is false when the thread is still in the host's namespace (the
// error is then a gap, not a failure: nothing changed).
func readOnlyMounts(writable []string) (entered bool, err error) {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return false, fmt.Errorf("unshare(CLONE_NEWNS): %w", err)
	}
	return true, remount(writable)
}

// remount is readOnlyMounts inside the thread's new mount namespace.
func remount(writable []string) error {
	// Private first: nothing done here may propagate to the host's mounts.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make / private: %w", err)
	}
	// Detached copies of the writable trees, taken before the whole tree
	// turns read-only, so each keeps its mounts' own flags.
	type clone struct {
		fd   int
		path string
	}
	var clones []clone
	defer func() {
		for _, c := range clones {
			unix.Close(c.fd)
		}
	}()
	for _, p := range writable {
		fd, err := unix.OpenTree(unix.AT_FDCWD, p, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if errors.Is(err, unix.ENOENT) {
			continue // not granted by Landlock either
		}
		if err != nil {
			return fmt.Errorf("open_tree %s: %w", p, err)
		}
		clones = append(clones, clone{fd, p})
	}
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, &attr); err != nil {
		return fmt.Errorf("mount_setattr / read-only: %w", err)
	}
	for _, c := range clones {
		if err := unix.MoveMount(c.fd, "", unix.AT_FDCWD, c.path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("move_mount %s: %w", c.path, err)
		}
	}
	var st unix.Statfs_t
	if err := unix.Statfs("/", &st); err != nil {
		return fmt.Errorf("statfs /: %w", err)
	}
	if st.Flags&unix.ST_RDONLY == 0 {
		return errors.New("/ is still writable")
	}
	return nil
}

// writablePaths are the paths a run may write (rw roots and the run
// directory), absolute and cleaned, in order.
func (s Spec) writablePaths() []string {
	var ps []string
	for _, p := range append(append([]string(nil), s.WriteRoots...), s.RunDir) {
		if p != "" && filepath.IsAbs(p) {
			ps = append(ps, filepath.Clean(p))
		}
	}
	return ps
}

// probeMountNS tries readOnlyMounts on a throwaway locked thread (the
// thread, never unlocked, dies with its goroutine, and its namespace with
// it): nil when a run's mount namespace can be made here.
func probeMountNS() error {
	if !isRoot() {
		return errors.New("needs root: without it a mount namespace needs a user namespace, which a multi-threaded process cannot enter")
	}
	dir, err := os.MkdirTemp("", "modbay-probe-")
	if err != nil {
		return fmt.Errorf("cannot probe: %w", err)
	}
	defer os.Remove(dir)
	res := make(chan error, 1)
	go onDisposableThread(func() {
		_, err := readOnlyMounts([]string{dir})
		res <- err
	})
	return <-res
}
