//go:build !linux

package approval

import (
	"errors"
	"net"
	"os"
)

// samePeer refuses every peer where SO_PEERCRED is not available.
func samePeer(*net.UnixConn) error {
	return errors.New("approval socket: peer credentials are checked only on Linux")
}

// sameOwner refuses every stored file where ownership is not checked.
func sameOwner(os.FileInfo) error {
	return errors.New("stored questions are read only on Linux")
}
