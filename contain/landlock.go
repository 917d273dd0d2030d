//go:build linux

package contain

import (
	"errors"
	"fmt"
	"os"
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

// addPathRule adds r to the ruleset, narrowing its rights to what the ABI
// handles and, for a non-directory, to the file rights.
func addPathRule(rulesetFD int, r rule, handled uint64) error {
	fd, err := unix.Open(r.path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "landlock rule", Path: r.path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &os.PathError{Op: "landlock rule", Path: r.path, Err: err}
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
