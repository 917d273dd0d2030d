//go:build linux

package contain

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock access rights (uapi/linux/landlock.h), by the ABI that added
// them.
const (
	fsExecute     = unix.LANDLOCK_ACCESS_FS_EXECUTE
	fsWriteFile   = unix.LANDLOCK_ACCESS_FS_WRITE_FILE
	fsReadFile    = unix.LANDLOCK_ACCESS_FS_READ_FILE
	fsReadDir     = unix.LANDLOCK_ACCESS_FS_READ_DIR
	fsRemoveDir   = unix.LANDLOCK_ACCESS_FS_REMOVE_DIR
	fsRemoveFile  = unix.LANDLOCK_ACCESS_FS_REMOVE_FILE
	fsMakeChar    = unix.LANDLOCK_ACCESS_FS_MAKE_CHAR
	fsMakeDir     = unix.LANDLOCK_ACCESS_FS_MAKE_DIR
	fsMakeReg     = unix.LANDLOCK_ACCESS_FS_MAKE_REG
	fsMakeSock    = unix.LANDLOCK_ACCESS_FS_MAKE_SOCK
	fsMakeFifo    = unix.LANDLOCK_ACCESS_FS_MAKE_FIFO
	fsMakeBlock   = unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK
	fsMakeSym     = unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	fsRefer       = unix.LANDLOCK_ACCESS_FS_REFER            // ABI 2
	fsTruncate    = unix.LANDLOCK_ACCESS_FS_TRUNCATE         // ABI 3
	fsIoctlDev    = unix.LANDLOCK_ACCESS_FS_IOCTL_DEV        // ABI 5
	netBindTCP    = unix.LANDLOCK_ACCESS_NET_BIND_TCP        // ABI 4
	netConnTCP    = unix.LANDLOCK_ACCESS_NET_CONNECT_TCP     // ABI 4
	scopeAbstract = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET // ABI 6
	scopeSignal   = unix.LANDLOCK_SCOPE_SIGNAL               // ABI 6

	// fileRights are the rights that apply to a regular file; a rule on
	// a file with any other right is refused by the kernel.
	fileRights = fsExecute | fsWriteFile | fsReadFile | fsTruncate | fsIoctlDev

	// accessRX reads and executes a tree (system directories, the
	// module's own directory); accessRO reads one; accessRW writes one
	// but never executes from it (what a module writes it cannot run)
	// and never makes device nodes.
	accessRX = fsExecute | fsReadFile | fsReadDir
	accessRO = fsReadFile | fsReadDir
	accessRW = fsReadFile | fsReadDir | fsWriteFile | fsTruncate | fsRemoveDir | fsRemoveFile |
		fsMakeDir | fsMakeReg | fsMakeSock | fsMakeFifo | fsMakeSym | fsRefer
)

// MinLandlockABI is the oldest Landlock ABI containment uses: 1 gives the
// filesystem rules; 4 adds TCP, 6 signal and abstract-socket scopes. Each
// missing piece is reported separately.
const MinLandlockABI = 1

// landlockAttr is struct landlock_ruleset_attr up to ABI 6 (scoped); the
// size passed tells the kernel which fields are present.
type landlockAttr struct {
	handledFS, handledNet, scoped uint64
}

// landlockABI returns the kernel's Landlock ABI version, or 0 and why
// when Landlock is unavailable.
func landlockABI() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	switch {
	case errno == unix.ENOSYS:
		return 0, errors.New("kernel built without Landlock")
	case errno == unix.EOPNOTSUPP:
		return 0, errors.New("Landlock disabled at boot (lsm=)")
	case errno != 0:
		return 0, fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	return int(v), nil
}

// handledFS is every filesystem right the ABI knows: each is denied unless
// a rule allows it.
func handledFS(abi int) uint64 {
	h := uint64(fsExecute | fsWriteFile | fsReadFile | fsReadDir | fsRemoveDir | fsRemoveFile |
		fsMakeChar | fsMakeDir | fsMakeReg | fsMakeSock | fsMakeFifo | fsMakeBlock | fsMakeSym)
	if abi >= 2 {
		h |= fsRefer
	}
	if abi >= 3 {
		h |= fsTruncate
	}
	if abi >= 5 {
		h |= fsIoctlDev
	}
	return h
}

// rule is one Landlock path rule: access under path (for a directory) or
// on it (for any other file).
type rule struct {
	path   string
	access uint64
}

// landlockResult is what restrictThread applied.
type landlockResult struct {
	abi     int
	tcp     bool // TCP bind/connect denied
	scoped  bool // signals and abstract unix sockets scoped
	skipped []string
}

// restrictThread makes a Landlock ruleset of rules and restricts the
// calling thread with it (landlock_restrict_self without TSYNC applies to
// this thread only). no_new_privs must already be set. Paths that do not
// exist are skipped and listed.
func restrictThread(abi int, rules []rule, denyTCP bool) (landlockResult, error) {
	res := landlockResult{abi: abi}
	attr := landlockAttr{handledFS: handledFS(abi)}
	size := unsafe.Sizeof(attr.handledFS)
	if abi >= 4 {
		size += unsafe.Sizeof(attr.handledNet)
		if denyTCP {
			attr.handledNet = netBindTCP | netConnTCP
			res.tcp = true
		}
	}
	if abi >= 6 {
		size += unsafe.Sizeof(attr.scoped)
		attr.scoped = scopeAbstract | scopeSignal
		res.scoped = true
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return res, fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	systemFDs.mu.Lock()
	defer systemFDs.mu.Unlock()
	for _, r := range rules {
		if err := addPathRule(int(fd), r, attr.handledFS); err != nil {
			if errors.Is(err, unix.ENOENT) {
				res.skipped = append(res.skipped, r.path)
				continue
			}
			return res, err
		}
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return res, fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return res, nil
}

// systemFDs keeps an O_PATH descriptor of each system path every run's
// rules name (systemPaths), opened once per process: a rule on one then
// costs a stat of the path, compared with the descriptor's, instead of an
// open, an fstat and a close. A path that names another file now (an
// /etc file replaced by a rename) is opened again. Only system paths are
// kept: a descriptor held on a root or a module's folder would keep its
// file system busy (no unmount while modbay runs). mu is held while a
// descriptor is used, so none is closed under a rule being added.
var systemFDs struct {
	mu sync.Mutex
	m  map[string]heldFD
}

type heldFD struct {
	fd int
	st unix.Stat_t
}

// systemPaths are the rule paths systemFDs keeps.
var systemPaths = func() map[string]bool {
	m := map[string]bool{"/dev/null": true, "/dev/zero": true, "/dev/urandom": true, "/dev/random": true}
	for _, l := range [][]string{systemExec, systemRead, machineRead, networkRead} {
		for _, p := range l {
			m[p] = true
		}
	}
	return m
}()

// ruleFD returns a descriptor of path and its stat: systemFDs' for a
// system path still naming the same file, else one opened now (closed
// by the caller when owned).
func ruleFD(path string) (fd int, st unix.Stat_t, owned bool, err error) {
	if systemPaths[path] {
		if err := unix.Stat(path, &st); err != nil {
			return -1, st, false, err
		}
		if h, ok := systemFDs.m[path]; ok && h.st.Dev == st.Dev && h.st.Ino == st.Ino {
			return h.fd, h.st, false, nil
		}
	}
	fd, err = unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, st, false, err
	}
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, st, false, err
	}
	if !systemPaths[path] {
		return fd, st, true, nil
	}
	if old, ok := systemFDs.m[path]; ok {
		unix.Close(old.fd)
	}
	if systemFDs.m == nil {
		systemFDs.m = map[string]heldFD{}
	}
	systemFDs.m[path] = heldFD{fd, st}
	return fd, st, false, nil
}

// addPathRule adds r to the ruleset, narrowing its rights to what the ABI
// handles and, for a non-directory, to the file rights. systemFDs.mu is
// held.
func addPathRule(rulesetFD int, r rule, handled uint64) error {
	fd, st, owned, err := ruleFD(r.path)
	if err != nil {
		return &os.PathError{Op: "landlock rule", Path: r.path, Err: err}
	}
	if owned {
		defer unix.Close(fd)
	}
	access := r.access & handled
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= fileRights
	}
	if access == 0 {
		return nil
	}
	pb := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rulesetFD), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&pb)), 0, 0, 0)
	if errno != 0 {
		return &os.PathError{Op: "landlock_add_rule", Path: r.path, Err: errno}
	}
	return nil
}
