//go:build !linux

package approval

import (
	"errors"
	"net"
)

// samePeer refuses every peer where SO_PEERCRED is not available.
func samePeer(*net.UnixConn) error {
	return errors.New("approval socket: peer credentials are checked only on Linux")
}
