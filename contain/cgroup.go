//go:build linux

package contain

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The processes limit as root: RLIMIT_NPROC is counted per real uid and
// the kernel exempts root from it, so where a pids cgroup can be made
// (cgroup v1's pids hierarchy: this machine kind's v2 hierarchy has no
// controllers) each run with limits.processes gets one of its own, its
// stopped module moved in before its first instruction; every process it
// starts is counted there and fork fails (EAGAIN) past pids.max, root or
// not. The group is removed once the module and everything it started
// have exited.

// cgroupGone bounds how long removal waits for the last processes of a
// run (its PID namespace is being torn down) to leave the group.
const cgroupGone = 2 * time.Second

// pidsHierarchy returns the directory of this process's own cgroup in the
// v1 pids hierarchy, where a run's group is made: "" and why when there
// is none.
func pidsHierarchy() (string, error) {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	mount := ""
	for line := range bytes.SplitSeq(mi, []byte{'\n'}) {
		// … mountpoint … - cgroup cgroup rw,pids
		pre, post, ok := bytes.Cut(line, []byte(" - "))
		f, g := strings.Fields(string(pre)), strings.Fields(string(post))
		if !ok || len(f) < 5 || len(g) < 3 || g[0] != "cgroup" {
			continue
		}
		if opts := strings.Split(g[2], ","); contains(opts, "pids") {
			mount = f[4]
			break
		}
	}
	if mount == "" {
		return "", errors.New("no cgroup v1 pids hierarchy mounted (and cgroup v2 offers no pids controller here)")
	}
	cg, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	defer cg.Close()
	sc := bufio.NewScanner(cg)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) == 3 && contains(strings.Split(parts[1], ","), "pids") {
			return filepath.Join(mount, filepath.Clean("/"+parts[2])), nil
		}
	}
	return "", errors.New("modbay is in no pids cgroup")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// pidsParent is pidsHierarchy, found once per process.
var pidsParent = sync.OnceValues(pidsHierarchy)

// newPidsGroup makes the run's pids cgroup under modbay's own, sets
// pids.max to max and moves pid (stopped, before its first instruction)
// into it.
func newPidsGroup(pid int, max uint64) (string, error) {
	parent, err := pidsParent()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(parent, "modbay-run-"+strconv.Itoa(pid))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", err
	}
	write := func(name, v string) error { return os.WriteFile(filepath.Join(dir, name), []byte(v), 0) }
	if err := write("pids.max", strconv.FormatUint(max, 10)); err != nil {
		os.Remove(dir)
		return "", err
	}
	if err := write("cgroup.procs", strconv.Itoa(pid)); err != nil {
		os.Remove(dir)
		return "", err
	}
	return dir, nil
}

// removePidsGroup removes dir once no process is left in it (waiting up
// to cgroupGone for a PID namespace's teardown).
func removePidsGroup(dir string) {
	deadline := time.Now().Add(cgroupGone)
	for {
		err := os.Remove(dir)
		if err == nil || errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// probePidsCgroup checks that a run's pids cgroup can be made here (it
// makes one and removes it).
func probePidsCgroup() error {
	parent, err := pidsHierarchy()
	if err != nil {
		return err
	}
	dir := filepath.Join(parent, fmt.Sprintf("modbay-probe-%d", os.Getpid()))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return fmt.Errorf("cannot make a pids cgroup: %w", err)
	}
	defer os.Remove(dir)
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte("1"), 0); err != nil {
		return fmt.Errorf("cannot set pids.max: %w", err)
	}
	return nil
}
