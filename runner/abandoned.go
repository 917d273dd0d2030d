package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// A host killed outright (SIGKILL, a crash) cannot kill its running
// modules' trees; they are orphaned with their per-run directory left in
// the temp dir. Every run therefore records its host in that directory, and
// a new host sweeps runs whose host is gone: it kills every process still
// carrying such a run's TMPDIR and removes the directory (docs/protocol.md §3: no
// module process outlives its run).

// runOwnerFile, inside a per-run directory, holds "<host pid> <host start
// time in clock ticks>".
const runOwnerFile = "host"

// runDirPattern matches the per-run directories execute creates.
const runDirPattern = "modbay-run-*"

var sweepOnce sync.Once

// hostStat is the host's own /proc stat, read once: its pid and start time
// never change.
var hostStat = sync.OnceValues(func() (procStat, bool) { return readProcStat(hostPID) })

// recordRunOwner writes the host's identity into runDir.
func recordRunOwner(runDir string) error {
	s, ok := hostStat()
	if !ok {
		return fmt.Errorf("cannot read the host's own process status")
	}
	return writeFileMode(filepath.Join(runDir, runOwnerFile), fmt.Appendf(nil, "%d %d", s.pid, s.start), 0o600)
}

// ownerAlive reports whether the host recorded in runDir still runs. A run
// directory without a readable owner is young (being created) or foreign:
// it counts as alive, so it is never swept.
func ownerAlive(runDir string) bool {
	b, err := os.ReadFile(filepath.Join(runDir, runOwnerFile))
	if err != nil {
		return true
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return true
	}
	pid, err1 := strconv.Atoi(f[0])
	start, err2 := strconv.ParseUint(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return true
	}
	return running(pid, start)
}

// sweepAbandonedRuns kills the processes of runs whose host died and
// removes their directories. Only directories owned by this user are
// touched. /proc is scanned once, and only when some run was abandoned,
// since this runs at every start. It returns how many runs it swept.
func sweepAbandonedRuns(tmpDir string) int {
	dirs, _ := filepath.Glob(filepath.Join(tmpDir, runDirPattern))
	var abandoned []string
	for _, dir := range dirs {
		fi, err := os.Lstat(dir)
		if err != nil || !fi.IsDir() {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Geteuid() {
			continue
		}
		if !ownerAlive(dir) {
			abandoned = append(abandoned, dir)
		}
	}
	if len(abandoned) == 0 {
		return 0
	}
	markers := make(map[string]bool, len(abandoned))
	for _, dir := range abandoned {
		markers["TMPDIR="+filepath.Join(dir, "tmp")] = true
	}
	for _, p := range listProcs() {
		if p.pid != hostPID && hasEnvEntryIn(p.pid, markers) {
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
		}
	}
	for _, dir := range abandoned {
		RemoveTree(dir)
	}
	return len(abandoned)
}
