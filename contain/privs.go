//go:build linux

package contain

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// Securebits (uapi/linux/securebits.h) set and locked on the spawning
// thread: root gains no capabilities at execve (NOROOT), none can be
// raised into the ambient set, and neither can be undone.
const (
	secbitNoRoot             = 1 << 0
	secbitNoRootLocked       = 1 << 1
	secbitKeepCapsLocked     = 1 << 5
	secbitNoAmbientRaise     = 1 << 6
	secbitNoAmbientRaiseLock = 1 << 7
	securebits               = secbitNoRoot | secbitNoRootLocked | secbitKeepCapsLocked |
		secbitNoAmbientRaise | secbitNoAmbientRaiseLock
)

// setNoNewPrivs sets no_new_privs on the calling thread: execve never
// grants privileges (setuid bits, file capabilities) again.
func setNoNewPrivs() error {
	return unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
}

// dropCapsForExec makes sure a program executed from the calling thread
// starts with no capability: securebits NOROOT (locked), the bounding and
// ambient sets emptied, the inheritable set cleared. The thread keeps its
// own effective capabilities, which clone needs for the namespaces when
// the host runs as root. Call it only with CAP_SETPCAP (as root): without
// it there is nothing to drop.
func dropCapsForExec() error {
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, securebits, 0, 0, 0); err != nil {
		return fmt.Errorf("securebits: %w", err)
	}
	for c := 0; ; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			break // past CAP_LAST_CAP
		}
		if err != nil {
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear the ambient set: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	data[0].Inheritable, data[1].Inheritable = 0, 0
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}
