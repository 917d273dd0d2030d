//go:build linux

package contain

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSystemRuleFDs: a system path's rule descriptor is opened once and
// reused while the path names the same file; a file replaced by a rename
// (as ldconfig replaces /etc/ld.so.cache) is opened again; other paths
// get a descriptor of their own each time.
func TestSystemRuleFDs(t *testing.T) {
	dir := t.TempDir()
	sys, other := filepath.Join(dir, "ld.so.cache"), filepath.Join(dir, "root")
	for _, p := range []string{sys, other} {
		if err := os.WriteFile(p, []byte("1"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	systemPaths[sys] = true
	systemFDs.mu.Lock()
	defer func() {
		delete(systemPaths, sys)
		if h, ok := systemFDs.m[sys]; ok {
			unix.Close(h.fd)
			delete(systemFDs.m, sys)
		}
		systemFDs.mu.Unlock()
	}()
	fd1, st1, owned, err := ruleFD(sys)
	if err != nil || owned {
		t.Fatalf("first: owned %v, %v", owned, err)
	}
	fd2, _, owned, err := ruleFD(sys)
	if err != nil || owned || fd2 != fd1 {
		t.Fatalf("second: fd %d (first %d), owned %v, %v", fd2, fd1, owned, err)
	}
	// Replaced by a rename: a new inode, opened again.
	if err := os.WriteFile(sys+".new", []byte("2"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(sys+".new", sys); err != nil {
		t.Fatal(err)
	}
	fd3, st3, owned, err := ruleFD(sys)
	if err != nil || owned || st3.Ino == st1.Ino {
		t.Fatalf("after the rename: ino %d (was %d), owned %v, %v", st3.Ino, st1.Ino, owned, err)
	}
	var got unix.Stat_t
	if err := unix.Fstat(fd3, &got); err != nil || got.Ino != st3.Ino {
		t.Errorf("the descriptor is not the new file's: %d vs %d (%v)", got.Ino, st3.Ino, err)
	}
	// Not a system path: its own descriptor, the caller's to close.
	fd4, _, owned, err := ruleFD(other)
	if err != nil || !owned {
		t.Fatalf("other path: owned %v, %v", owned, err)
	}
	unix.Close(fd4)
	if _, ok := systemFDs.m[other]; ok {
		t.Error("a non-system path was kept")
	}
}
