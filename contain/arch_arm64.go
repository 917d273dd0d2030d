//go:build linux

package contain

import "golang.org/x/sys/unix"

// auditArch is this build's AUDIT_ARCH; hasX32 says whether the x32 table
// exists beside it.
const (
	auditArch = unix.AUDIT_ARCH_AARCH64
	hasX32    = false
)
