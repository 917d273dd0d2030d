//go:build linux

package contain

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
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

// TestFreezeStopsTree: freeze stops a process and its descendants, a
// child the tree stopped itself stays stopped after thaw, and thaw
// continues the others.
func TestFreezeStopsTree(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "sleep 30 & sleep 30 & kill -STOP $!; wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	pid := cmd.Process.Pid
	var procs []int
	for range 200 {
		pids, _ := runProcs(pid, false)
		if len(pids) == 3 && countState(pids, 'T') == 1 {
			procs = pids
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if procs == nil {
		t.Fatal("the shell did not start its two sleeps, one stopped")
	}
	f, whole := freeze(pid, false)
	if !whole || countState(procs, 'T') != 3 {
		f.thaw()
		t.Fatalf("frozen: whole %v, %d of 3 stopped", whole, countState(procs, 'T'))
	}
	f.thaw()
	for range 200 {
		if countState(procs, 'T') == 1 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("after thaw %d of 3 stopped, want the one the shell stopped", countState(procs, 'T'))
}

func countState(pids []int, s byte) int {
	n := 0
	for _, p := range pids {
		if st, _, _, _, ok := procStat(p); ok && st == s {
			n++
		}
	}
	return n
}

// TestWriteWatchOtherWriter: growth another process makes (48 MiB against 8 MiB) on the same
// filesystem is credited to it when the run is in its own PID namespace
// (stopped and measured whole), and taken as the run's without one (a
// process that left the group may hold what no walk sees).
func TestWriteWatchOtherWriter(t *testing.T) {
	for _, group := range []bool{false, true} {
		cmd := exec.Command("/bin/sh", "-c", "sleep 30")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		watched, other := t.TempDir(), t.TempDir()
		w := newWriteWatch([]string{watched}, 8<<20, 0, time.Now(), nil, cmd.Process.Pid, group)
		if w == nil {
			t.Fatal("no watch")
		}
		f, err := os.Create(filepath.Join(other, "other.bin"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(make([]byte, 48<<20)); err != nil {
			t.Fatal(err)
		}
		f.Sync()
		f.Close()
		err = w.check()
		var wb *WriteBoundError
		if group {
			if !errors.As(err, &wb) || wb.Attributed {
				t.Errorf("no PID namespace: 48 MiB grown past 8 MiB gave %v, want an unattributed bound", err)
			}
		} else if err != nil || w.slackBytes < 8<<20 {
			t.Errorf("another writer's 48 MiB: %v, %d bytes credited", err, w.slackBytes)
		}
		w.stopPolling()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		os.Remove(filepath.Join(other, "other.bin"))
	}
}

// TestWriteWatchCreditTakenBack: growth credited to another writer does
// not outlive it. After another process writes 48 MiB and deletes it,
// the run's own 20 MiB pass its 8 MiB bound; and when the other writer
// deletes while the run writes the same amount (the filesystems' use
// flat, so nothing falls to take back), the next re-count finds the
// run's own bytes.
func TestWriteWatchCreditTakenBack(t *testing.T) {
	fill := func(p string, n int) {
		t.Helper()
		if err := os.WriteFile(p, make([]byte, n), 0o600); err != nil {
			t.Fatal(err)
		}
		if f, err := os.Open(p); err == nil {
			f.Sync()
			f.Close()
		}
	}
	for _, coordinated := range []bool{false, true} {
		cmd := exec.Command("/bin/sh", "-c", "sleep 30")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		watched, other := t.TempDir(), t.TempDir()
		w := newWriteWatch([]string{watched}, 8<<20, 0, time.Now(), nil, cmd.Process.Pid, false)
		if w == nil {
			t.Fatal("no watch")
		}
		fill(filepath.Join(other, "other.bin"), 48<<20)
		if err := w.check(); err != nil || w.slackBytes < 8<<20 {
			t.Fatalf("another writer's 48 MiB: %v, %d bytes credited", err, w.slackBytes)
		}
		if coordinated {
			fill(filepath.Join(other, "keep.bin"), 8<<20)
			os.Remove(filepath.Join(other, "other.bin"))
			unix.Sync()
			fill(filepath.Join(watched, "mine.bin"), 40<<20)
			// Flat use: within the credit, unless files other tests delete
			// meanwhile set off a walk, which finds the run's own bytes
			// sooner (what the re-count below must do).
			if err := w.check(); err != nil {
				var early *WriteBoundError
				if !errors.As(err, &early) || !early.Attributed || early.Bytes < 20<<20 {
					t.Fatalf("before the re-count: %v", err)
				}
				w.walked = time.Time{} // found: the check below returns it
			} else {
				w.walked = time.Now().Add(-2 * reverifyMin)
			}
		} else {
			os.Remove(filepath.Join(other, "other.bin"))
			unix.Sync() // freed before the run writes
			fill(filepath.Join(watched, "mine.bin"), 20<<20)
		}
		var wb *WriteBoundError
		if err := w.check(); !errors.As(err, &wb) || !wb.Attributed || wb.Bytes < 20<<20 {
			t.Errorf("coordinated %v: the run's own bytes past 8 MiB gave %v (credit %d)", coordinated, err, w.slackBytes)
		}
		w.stopPolling()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		os.RemoveAll(other)
		unix.Sync() // the next round starts from settled use
	}
}

// TestWriteWatchOthersDeletionsDebited: another process deleting 48 MiB
// that was there before the run lowers the filesystem's use as much, so
// the run's own 20 MiB would not raise it past the 8 MiB bound; the
// falls are counted, a walk sets a debit, and the run's bytes are found.
func TestWriteWatchOthersDeletionsDebited(t *testing.T) {
	other, watched := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "old.bin"), make([]byte, 48<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	unix.Sync()
	cmd := exec.Command("/bin/sh", "-c", "sleep 30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	w := newWriteWatch([]string{watched}, 8<<20, 0, time.Now(), nil, cmd.Process.Pid, false)
	if w == nil {
		t.Fatal("no watch")
	}
	defer w.stopPolling()
	os.Remove(filepath.Join(other, "old.bin"))
	unix.Sync()
	if err := w.check(); err != nil || w.slackBytes > -40<<20 {
		t.Fatalf("after another's deletion: %v, credit %d (want a debit of about 48 MiB)", err, w.slackBytes)
	}
	if err := os.WriteFile(filepath.Join(watched, "mine.bin"), make([]byte, 20<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	unix.Sync()
	var wb *WriteBoundError
	if err := w.check(); !errors.As(err, &wb) || !wb.Attributed {
		t.Errorf("the run's 20 MiB past 8 MiB gave %v (credit %d)", err, w.slackBytes)
	}
}
