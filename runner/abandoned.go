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
// the temp dir. Every run directory therefore names its host, and a new
// host sweeps runs whose host is gone: it kills every process still
// carrying such a run's TMPDIR and removes the directory (docs/protocol.md §3: no
// module process outlives its run).

// runDirPrefix begins every per-run directory's name; newRunDir follows it
// with "<host pid>.<host start time in clock ticks>-" and os.MkdirTemp's
// random digits, so the owner is known from the directory's creation on
// without a file in it (one inode less per run).
const runDirPrefix = "modbay-run-"

// runOwnerFile, inside a per-run directory of a host from before the owner
// was in the name, holds "<host pid> <host start time in clock ticks>".
// Such directories are still swept.
const runOwnerFile = "host"

// runDirPattern matches the per-run directories execute creates.
const runDirPattern = runDirPrefix + "*"

var sweepOnce sync.Once

// hostStat is the host's own /proc stat, read once: its pid and start time
// never change.
var hostStat = sync.OnceValues(func() (procStat, bool) { return readProcStat(hostPID) })

// newRunDir creates a fresh per-run directory (mode 0700) in the temp dir,
// its name recording this host (runDirPrefix).
func newRunDir() (string, error) {
	s, ok := hostStat()
	if !ok {
		return "", fmt.Errorf("cannot read the host's own process status")
	}
	return os.MkdirTemp("", fmt.Sprintf("%s%d.%d-", runDirPrefix, s.pid, s.start))
}

// runDirOwner is the host a per-run directory's name records (newRunDir),
// ok false for a name that records none.
func runDirOwner(name string) (pid int, start uint64, ok bool) {
	rest, found := strings.CutPrefix(name, runDirPrefix)
	if !found {
		return 0, 0, false
	}
	owner, _, found := strings.Cut(rest, "-")
	p, st, found2 := strings.Cut(owner, ".")
	if !found || !found2 {
		return 0, 0, false
	}
	pid, err1 := strconv.Atoi(p)
	start, err2 := strconv.ParseUint(st, 10, 64)
	if err1 != nil || err2 != nil || pid <= 0 {
		return 0, 0, false
	}
	return pid, start, true
}

// ownerAlive reports whether the host recorded in runDir (its name, else
// an older host's owner file) still runs. A run directory that records no
// owner is foreign: it counts as alive, so it is never swept.
func ownerAlive(runDir string) bool {
	if pid, start, ok := runDirOwner(filepath.Base(runDir)); ok {
		return running(pid, start)
	}
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
