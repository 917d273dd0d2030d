//go:build linux

package contain

import "golang.org/x/sys/unix"

// auditArch is this build's AUDIT_ARCH; hasX32 says whether the x32 table
// exists beside it.
const (
	auditArch = unix.AUDIT_ARCH_X86_64
	hasX32    = true
)

// modeSyscalls are the syscalls that set a file's mode, with the index of
// their mode argument (seccompProgram refuses setuid and setgid bits).
var modeSyscalls = []modeSyscall{
	{unix.SYS_CHMOD, 1}, {unix.SYS_FCHMOD, 1}, {unix.SYS_FCHMODAT, 2}, {unix.SYS_FCHMODAT2, 2},
}
