package runner

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// procStat is the part of /proc/<pid>/stat the host needs to find and
// identify a module's processes.
type procStat struct {
	pid, ppid, pgrp int
	state           byte
	// start is the start time in clock ticks since boot: with pid it
	// identifies a process, so a reused pid is never signalled.
	start uint64
}

// readProcStat parses /proc/<pid>/stat; ok is false when the process is
// gone or the file is unreadable.
func readProcStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	// The command name is in parentheses and may contain anything,
	// including ") "; the fields after the last ')' are fixed.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return procStat{}, false
	}
	f := bytes.Fields(b[i+2:])
	// f[0] state, f[1] ppid, f[2] pgrp, ..., f[19] starttime (field 22).
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	pgrp, err2 := strconv.Atoi(string(f[2]))
	start, err3 := strconv.ParseUint(string(f[19]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return procStat{}, false
	}
	return procStat{pid: pid, ppid: ppid, pgrp: pgrp, state: f[0][0], start: start}, true
}

// exited reports whether s is a zombie or dead: it holds no resources but
// its exit status.
func (s procStat) exited() bool { return s.state == 'Z' || s.state == 'X' }

// running reports whether pid is still the process that started at start
// (clock ticks) and has not exited.
func running(pid int, start uint64) bool {
	s, ok := readProcStat(pid)
	return ok && s.start == start && !s.exited()
}

// listProcs returns every process visible in /proc.
func listProcs() []procStat {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	out := make([]procStat, 0, len(names))
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		if s, ok := readProcStat(pid); ok {
			out = append(out, s)
		}
	}
	return out
}

// hasEnvEntry reports whether the initial environment of pid contains
// entry exactly ("TMPDIR=<run tmp>").
func hasEnvEntry(pid int, entry []byte) bool {
	return environHas(pid, func(e []byte) bool { return bytes.Equal(e, entry) })
}

// hasEnvEntryIn reports whether the initial environment of pid contains
// any of entries exactly.
func hasEnvEntryIn(pid int, entries map[string]bool) bool {
	return environHas(pid, func(e []byte) bool { return entries[string(e)] })
}

// environHas reports whether match holds for an entry of pid's initial
// environment; false when it cannot be read (gone, or another user's).
func environHas(pid int, match func([]byte) bool) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for e := range bytes.SplitSeq(b, []byte{0}) {
		if match(e) {
			return true
		}
	}
	return false
}

// procTree tracks every process that belongs to one run, so that all of
// them die when the run is killed or over (docs/protocol.md §3). A process belongs
// to the run when it is the module, is in the module's process group, is a
// descendant of a process already known (the ppid chain, which catches a
// grandchild that called setsid while its parent lives), or carries the
// run's unique TMPDIR in its environment (which catches one whose parent
// already exited and left it with init).
type procTree struct {
	root   int    // the module's pid, also its process group id
	marker []byte // "TMPDIR=<per-run temp dir>"

	mu    sync.Mutex
	known map[int]uint64 // pid -> start time
}

func newProcTree(root int, marker string) *procTree {
	t := &procTree{root: root, marker: []byte(marker), known: map[int]uint64{}}
	if s, ok := readProcStat(root); ok {
		t.known[root] = s.start
	}
	return t
}

// collect scans /proc and adds every process of the run to the known set.
// withEnv also matches the TMPDIR marker, which costs a read per process.
func (t *procTree) collect(withEnv bool) {
	procs := listProcs()
	t.mu.Lock()
	defer t.mu.Unlock()
	add := func(s procStat) bool {
		if s.pid <= 1 || s.pid == hostPID { // the host is never signalled
			return false
		}
		if st, ok := t.known[s.pid]; ok && st == s.start {
			return false
		}
		t.known[s.pid] = s.start
		return true
	}
	rootStart := t.known[t.root]
	spawnMu.RLock()
	for _, s := range procs {
		// An orphan the host adopted as subreaper that started after this
		// module did belongs to some module's tree: it dies with the run.
		adopted := s.start >= rootStart && isAdoptedOrphan(s)
		if s.pgrp == t.root || adopted || (withEnv && hasEnvEntry(s.pid, t.marker)) {
			add(s)
		}
	}
	spawnMu.RUnlock()
	// Descendants through the ppid chain, to a fixed point. A parent
	// counts only while it is still the process we recorded.
	starts := make(map[int]uint64, len(procs))
	for _, s := range procs {
		starts[s.pid] = s.start
	}
	for changed := true; changed; {
		changed = false
		for _, s := range procs {
			st, ok := t.known[s.ppid]
			if ok && s.ppid > 1 && starts[s.ppid] == st && add(s) {
				changed = true
			}
		}
	}
}

// signal sends sig to every known process that is still the same process
// and not yet a zombie, and to the module's process group while its leader
// is unreaped. It reports whether any process was signalled.
func (t *procTree) signal(sig syscall.Signal) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	sent := false
	if s, ok := readProcStat(t.root); ok && s.start == t.known[t.root] {
		// The leader is alive or a zombie: the group id cannot have been
		// reused, so the group kill is safe and catches fresh forks.
		if syscall.Kill(-t.root, sig) == nil {
			sent = true
		}
	}
	for pid, st := range t.known {
		if running(pid, st) && syscall.Kill(pid, sig) == nil {
			sent = true
		}
	}
	return sent
}

// alive reports whether any known process is still running (a zombie
// counts as dead: it holds no resources but its exit status).
func (t *procTree) alive() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for pid, st := range t.known {
		if running(pid, st) {
			return true
		}
	}
	return false
}

// waitDead polls until no known process is alive or d passes, re-collecting
// so that processes forked meanwhile join the set; it reports whether the
// tree is dead.
func (t *procTree) waitDead(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		t.collect(false)
		if !t.alive() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(livenessPoll)
	}
}

// terminate kills the whole tree: SIGTERM to everything known, up to
// KillGrace for it to exit, then SIGKILL until nothing is left (bounded by
// reapWait). It must run while the module is still unreaped, so that the
// ppid chain from it is intact when the first collection runs.
func (t *procTree) terminate() {
	t.collect(true)
	t.signal(syscall.SIGTERM)
	// Stopped processes would never act on SIGTERM.
	t.signal(syscall.SIGCONT)
	if t.waitDead(KillGrace) {
		return
	}
	t.kill()
}

// kill SIGKILLs every process of the run, re-collecting until none is left
// or reapWait passes.
func (t *procTree) kill() {
	deadline := time.Now().Add(reapWait)
	for {
		t.collect(true)
		t.signal(syscall.SIGKILL)
		if t.waitDead(50*time.Millisecond) || time.Now().After(deadline) {
			return
		}
	}
}

// sweep kills whatever of the run is left after the module itself exited:
// background children, setsid'd daemons carrying the run's TMPDIR, members
// of its process group. A finished run leaves nothing behind.
func (t *procTree) sweep() {
	t.collect(true)
	if t.alive() {
		t.kill()
	}
}
