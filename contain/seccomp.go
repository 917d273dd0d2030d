//go:build linux

package contain

import (
	"errors"
	"unsafe"

	"golang.org/x/sys/unix"
)

// seccomp_data offsets (uapi/linux/seccomp.h): nr, arch, then args from
// 16; args[0]'s low 32 bits are at 16 on little-endian machines.
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16

	// x32SyscallBit marks x32 syscalls on amd64: refused outright, so the
	// filter cannot be bypassed through the other syscall table.
	x32SyscallBit = 0x40000000
)

// bpf builders.
func stmt(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }
func jump(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
	return unix.SockFilter{Code: code, Jt: jt, Jf: jf, K: k}
}

// seccompProgram is the filter every contained module runs under:
//   - socket(AF_UNIX, …) fails with EACCES: a pathname Unix socket (the tmux
//     server's, an ssh-agent's) is not covered by Landlock before ABI 9;
//     socketpair stays allowed (it reaches nobody);
//   - with noSockets (no network grant), every socket() fails with EACCES:
//     TCP, UDP, MPTCP, raw and netlink alike, whether or not a network
//     namespace could be made;
//   - io_uring_setup fails with ENOSYS: io_uring's socket and connect
//     operations would bypass the socket rule;
//   - keyctl, add_key and request_key fail with ENOSYS: the kernel
//     keyrings belong to the uid (a root module would read root's user
//     and session keyrings), and neither Landlock nor a namespace here
//     covers them;
//   - chmod, fchmod, fchmodat and fchmodat2 with a setuid or setgid bit
//     fail with EPERM: Landlock does not cover a file's mode, so a module
//     run by root could otherwise make a root-owned binary outside its
//     grants setuid and hand root to every local user. Other mode and time
//     changes outside the grants are not confined (Enforcement says so);
//   - with noExecFD (execution narrowed, Spec.ExecNarrow), memfd_create
//     fails with ENOSYS and execveat with EACCES: a program written into
//     an anonymous memory file and executed through its descriptor would
//     pass Landlock's execute rule, which only sees paths;
//   - fallocate fails with EOPNOTSUPP: it reserves blocks at hundreds of
//     GB/s (gigabytes inside one poll of the write bound) and with
//     FALLOC_FL_KEEP_SIZE past RLIMIT_FSIZE, which only checks a size that
//     changes; glibc's posix_fallocate then writes the blocks instead, so
//     both write bounds see them;
//   - a syscall of another architecture's table kills the process.
func seccompProgram(noSockets, noExecFD bool) ([]unix.SockFilter, bool) {
	if auditArch == 0 {
		return nil, false
	}
	const (
		ld   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		jset = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
		ret  = unix.BPF_RET | unix.BPF_K
	)
	eacces := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES))
	enosys := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS))
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	prog := []unix.SockFilter{
		/* 0 */ stmt(ld, offArch),
		/* 1 */ jump(jeq, auditArch, 1, 0),
		/* 2 */ stmt(ret, unix.SECCOMP_RET_KILL_PROCESS),
		/* 3 */ stmt(ld, offNr),
		/* 4 */ jump(jge, x32Bit(), 0, 1),
		/* 5 */ stmt(ret, enosys),
		/* 6 */ jump(jeq, uint32(unix.SYS_IO_URING_SETUP), 3, 0),
		/* 7 */ jump(jeq, uint32(unix.SYS_KEYCTL), 2, 0),
		/* 8 */ jump(jeq, uint32(unix.SYS_ADD_KEY), 1, 0),
		/* 9 */ jump(jeq, uint32(unix.SYS_REQUEST_KEY), 0, 1),
		/* 10 */ stmt(ret, enosys),
		/* 11 */ jump(jeq, uint32(unix.SYS_SOCKET), 0, 3),
		/* 12 */ stmt(ld, offArg0),
		/* 13 */ jump(jeq, unix.AF_UNIX, 0, 1),
		/* 14 */ stmt(ret, eacces),
		/* 15 */ stmt(ret, allow),
	}
	if noSockets {
		prog[12] = stmt(ret, eacces) // socket() of any family
	}
	// The mode rules go before the socket rule (index 11): each is
	// "nr == X ? (mode & 06000 ? EPERM : ALLOW) : next".
	eperm := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	var mode []unix.SockFilter
	for _, m := range modeSyscalls {
		mode = append(mode,
			jump(jeq, uint32(m.nr), 0, 4),
			stmt(ld, uint32(offArg0+8*m.arg)),
			jump(jset, unix.S_ISUID|unix.S_ISGID, 0, 1),
			stmt(ret, eperm),
			stmt(ret, allow),
			stmt(ld, offNr), // restore the syscall number for the next rule
		)
	}
	prog = append(prog[:11], append(mode, prog[11:]...)...)
	// Inserted after the x32 rule (index 5), which the jumps before it
	// land on or skip to: "nr == fallocate ? EOPNOTSUPP : next".
	eopnotsupp := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EOPNOTSUPP))
	falloc := []unix.SockFilter{
		jump(jeq, uint32(unix.SYS_FALLOCATE), 0, 1),
		stmt(ret, eopnotsupp),
	}
	prog = append(prog[:6], append(falloc, prog[6:]...)...)
	if noExecFD {
		// Inserted after the x32 rule (index 5), which the jumps before
		// it land on or skip to: "nr == X ? ERRNO : next" each.
		block := []unix.SockFilter{
			jump(jeq, uint32(unix.SYS_MEMFD_CREATE), 0, 1),
			stmt(ret, enosys),
			jump(jeq, uint32(unix.SYS_EXECVEAT), 0, 1),
			stmt(ret, eacces),
		}
		prog = append(prog[:6], append(block, prog[6:]...)...)
	}
	return prog, true
}

// modeSyscall is a syscall that sets a file's mode and the index of its
// mode argument.
type modeSyscall struct {
	nr  int
	arg int
}

// x32Bit is the lowest syscall number the filter refuses as another
// table's: x32SyscallBit on amd64, no limit elsewhere.
func x32Bit() uint32 {
	if hasX32 {
		return x32SyscallBit
	}
	return 0xffffffff
}

// installSeccomp installs seccompProgram(noSockets, noExecFD) on the
// calling thread only (no TSYNC). no_new_privs must be set.
func installSeccomp(noSockets, noExecFD bool) error {
	prog, ok := seccompProgram(noSockets, noExecFD)
	if !ok {
		return errors.New("no seccomp filter for this architecture")
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	return unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0)
}
