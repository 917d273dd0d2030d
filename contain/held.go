//go:build linux

package contain

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// What a run holds but no walk finds: files its processes unlinked and
// keep open (or mapped) take space statfs counts. They are the run's, so
// the confirming walk adds them (held), read from /proc/<pid>/task/*/fd
// and /proc/<pid>/maps of every process of the run.

// maxHeldProcs bounds the processes of one run whose descriptors one
// confirming walk reads; past it the walk is incomplete.
const maxHeldProcs = 4096

// runProcs lists the module and its descendants (by parent pid, from
// /proc), and without a PID namespace (group) its process group too; ok
// is false when /proc cannot be read or past maxHeldProcs.
func runProcs(pid int, group bool) (pids []int, ok bool) {
	procs, ok := runProcStarts(pid, group)
	for _, p := range procs {
		pids = append(pids, p.pid)
	}
	return pids, ok
}

// proc is one process of a run: its pid and its start time (clock ticks
// since boot, /proc/<pid>/stat field 22), which tell a reused pid apart.
type proc struct {
	pid   int
	start string
}

// procStat reads the state, parent, group and start time of pid from
// /proc/<pid>/stat; ok is false when it is gone or unreadable.
func procStat(pid int) (state byte, ppid, pgrp int, start string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, 0, "", false
	}
	// pid (comm) state ppid pgrp … starttime (field 22); comm may hold
	// spaces and ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, 0, "", false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return 0, 0, 0, "", false
	}
	ppid, _ = strconv.Atoi(f[1])
	pgrp, _ = strconv.Atoi(f[2])
	return f[0][0], ppid, pgrp, f[19], true
}

// runProcStarts is runProcs with each process's start time.
func runProcStarts(pid int, group bool) (procs []proc, ok bool) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, false
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, false
	}
	children := map[int][]int{}
	starts := map[int]string{}
	in := map[int]bool{}
	for _, n := range names {
		p, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		_, ppid, pgrp, start, ok := procStat(p)
		if !ok {
			continue // gone: it holds nothing
		}
		starts[p] = start
		children[ppid] = append(children[ppid], p)
		if p == pid || (group && pgrp == pid) {
			in[p] = true
		}
	}
	queue := []int{}
	for p := range in {
		queue = append(queue, p)
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		procs = append(procs, proc{p, starts[p]})
		if len(procs) > maxHeldProcs {
			return procs, false
		}
		for _, c := range children[p] {
			if !in[c] {
				in[c] = true
				queue = append(queue, c)
			}
		}
	}
	return procs, true
}

// held counts, into count, the unlinked files on the devices devs that
// the processes pids hold open or mapped; false when one of them could
// not be read (a descriptor table or map the host may not see, a mapped
// unlinked file it cannot stat): then the run's own use is unknown.
func held(pids []int, devs map[uint64]bool, count func(*unix.Stat_t)) bool {
	for _, p := range pids {
		base := "/proc/" + strconv.Itoa(p)
		tasks, err := readNames(base + "/task")
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ESRCH) {
			continue
		}
		if err != nil {
			return false
		}
		for _, t := range tasks {
			fdDir := base + "/task/" + t + "/fd"
			fds, err := readNames(fdDir)
			if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ESRCH) {
				continue
			}
			if err != nil {
				return false
			}
			for _, fd := range fds {
				var st unix.Stat_t
				if unix.Stat(fdDir+"/"+fd, &st) != nil {
					continue // closed since: it holds nothing now
				}
				if st.Nlink == 0 && devs[st.Dev] && st.Mode&unix.S_IFMT == unix.S_IFREG {
					count(&st)
				}
			}
		}
		if !heldMaps(base, devs, count) {
			return false
		}
	}
	return true
}

// heldMaps counts the unlinked files on devs mapped by the process at
// base (/proc/<pid>), stat'ed through map_files; false when a map the
// host may not read or stat is on one of devs.
func heldMaps(base string, devs map[uint64]bool, count func(*unix.Stat_t)) bool {
	f, err := os.Open(base + "/maps")
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ESRCH) {
		return true
	}
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		// start-end perms offset major:minor inode path
		line := sc.Text()
		if !strings.HasSuffix(line, " (deleted)") {
			continue
		}
		fl := strings.Fields(line)
		if len(fl) < 6 {
			continue
		}
		mj, mn, ok := strings.Cut(fl[3], ":")
		if !ok {
			return false
		}
		major, err1 := strconv.ParseUint(mj, 16, 32)
		minor, err2 := strconv.ParseUint(mn, 16, 32)
		if err1 != nil || err2 != nil {
			return false
		}
		if !devs[unix.Mkdev(uint32(major), uint32(minor))] {
			continue
		}
		var st unix.Stat_t
		if err := unix.Stat(base+"/map_files/"+fl[0], &st); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue // unmapped since
			}
			return false
		}
		if st.Nlink == 0 && st.Mode&unix.S_IFMT == unix.S_IFREG {
			count(&st)
		}
	}
	// A read error of a process that exited meanwhile is ESRCH: gone.
	return sc.Err() == nil || errors.Is(sc.Err(), unix.ESRCH)
}

func readNames(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}
