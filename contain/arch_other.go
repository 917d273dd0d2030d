//go:build linux && !amd64 && !arm64

package contain

// No seccomp filter is built for this architecture: auditArch 0 makes the
// unix-socket layer report "not enforced".
const (
	auditArch = 0
	hasX32    = false
)
