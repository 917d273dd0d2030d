//go:build linux

package contain

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestWalkPastPathMax: a module nests 25 directories of 250-character
// names (paths past PATH_MAX) and writes 1 MiB at the bottom; the
// confirming walk still counts it, or says it is incomplete.
func TestWalkPastPathMax(t *testing.T) {
	root := t.TempDir()
	since := time.Now().Add(-time.Minute)
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("d", 250)
	for range 25 {
		if err := unix.Mkdirat(fd, name, 0o755); err != nil {
			t.Fatal(err)
		}
		sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		unix.Close(fd)
		if err != nil {
			t.Fatal(err)
		}
		fd = sub
	}
	f, err := unix.Openat(fd, "fill.bin", unix.O_WRONLY|unix.O_CREAT, 0o644)
	unix.Close(fd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unix.Write(f, make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	unix.Fsync(f)
	unix.Close(f)
	t.Cleanup(func() { removeDeep(root, name, 25) })

	w := &writeWatch{paths: []string{root}, since: since}
	b, n, complete := w.walk()
	if complete && b < 1<<20 {
		t.Fatalf("walk says complete but counted %d bytes in %d entries; the 1 MiB file is missed", b, n)
	}
	if !complete {
		t.Fatalf("walk incomplete on a 26-entry tree")
	}
}

// removeDeep removes the depth-deep chain of name directories under root
// by descriptors (os.RemoveAll cannot pass PATH_MAX).
func removeDeep(root, name string, depth int) {
	fds := []int{}
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return
	}
	fds = append(fds, fd)
	for range depth {
		sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			break
		}
		fd = sub
		fds = append(fds, fd)
	}
	unix.Unlinkat(fd, "fill.bin", 0)
	for i := len(fds) - 1; i > 0; i-- {
		unix.Close(fds[i])
		unix.Unlinkat(fds[i-1], name, unix.AT_REMOVEDIR)
	}
	unix.Close(fds[0])
}
