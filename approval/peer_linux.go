package approval

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// samePeer reports an error unless c's peer runs as this process's user
// (SO_PEERCRED): another user's process is never asked or answered.
func samePeer(c *net.UnixConn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) { cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) }); err != nil {
		return err
	}
	if cerr != nil {
		return cerr
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("approval socket: peer uid %d is not this user's (%d)", cred.Uid, os.Getuid())
	}
	return nil
}

// sameOwner refuses a stored file another user owns (the socket's rule).
func sameOwner(fi os.FileInfo) error {
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Geteuid() {
		return errors.New("not owned by this user")
	}
	return nil
}
