package contain

import (
	"fmt"
	"strings"
)

// Layer values recorded in an Enforcement. A layer that is not enforced
// reads "not enforced (why)" and is also listed in Enforcement.Gaps.
const (
	// ProcessesPIDNamespace: the module is pid 1 of a fresh PID namespace;
	// killing it kills everything it started, and the host's processes
	// are not visible to it.
	ProcessesPIDNamespace = "pid namespace"
	// ProcessesGroup: the module leads its own session and process group;
	// the host finds descendants by group, ppid and environment marker.
	ProcessesGroup = "process group"
	// NetworkNamespace: a fresh network namespace (only lo, down).
	NetworkNamespace = "namespace"
	// NetworkNamespaceShared: the host process's one empty network
	// namespace (only lo, down), which its runs without the network share;
	// only ever with NetworkNoSockets, so no run can open a socket in it
	// (contain.enterNetNS).
	NetworkNamespaceShared = NetworkNamespace + " (shared, empty)"
	// NetworkGranted: the call was granted the network; nothing is
	// withheld.
	NetworkGranted = "granted"
	// NetworkNoSockets: the seccomp filter refuses socket() of every
	// family (TCP, UDP, MPTCP, raw, netlink), io_uring with it.
	NetworkNoSockets = "no sockets (seccomp)"
	// NetworkLandlockTCP: only Landlock's TCP bind/connect rules apply.
	NetworkLandlockTCP = "landlock TCP only; UDP and MPTCP not enforced"
	// UnixSocketsRefused: the seccomp filter refuses new AF_UNIX sockets.
	UnixSocketsRefused = "refused (seccomp)"
	// CapabilitiesDropped: the module holds no capability in the host's
	// namespaces (checked in /proc after exec, before it ran).
	CapabilitiesDropped = "dropped"
	// TerminalOwnSession: the module leads a new session with no
	// controlling terminal: /dev/tty and TIOCSTI do not reach the person's.
	TerminalOwnSession = "own session"
	// DescriptorsClosed: every descriptor above 2 was close-on-exec.
	DescriptorsClosed = "closed above 2"
	// MetadataSetuidRefused: seccomp refuses setuid and setgid mode bits;
	// Landlock does not cover modes and times, so other changes of them
	// outside the grants are not confined.
	MetadataSetuidRefused = "setuid/setgid bits refused (seccomp); other mode and time changes outside the grants not confined"
	// MetadataReadOnly: everything outside the rw roots and the run
	// directory is mounted read-only in the module's mount namespace, so
	// chmod, chown, utime and xattr changes there fail (EROFS); seccomp
	// refuses setuid and setgid bits inside them too.
	MetadataReadOnly = "mode, owner and time changes outside the rw roots refused (read-only mount namespace); setuid/setgid bits refused (seccomp)"
	// FilesystemMountNS is appended to the Landlock filesystem layer when
	// the module runs in its own mount namespace, read-only outside its
	// rw roots and run directory (root only).
	FilesystemMountNS = " + mount namespace (read-only outside rw roots)"
	// FilesystemExecNarrow ends the filesystem layer when execution was
	// narrowed (Spec.ExecNarrow: no subprocess granted).
	// It is a narrowing, not a boundary: the dynamic loader, which must be
	// executable to start any dynamic program, can load and run any
	// readable program (docs/containment.md).
	FilesystemExecNarrow = "; execve narrowed to the module, its interpreters and granted binaries (the dynamic loader can still run other readable programs)"
)

// metadataText is the Metadata layer for a run with (or without) the
// read-only mount namespace and the seccomp filter; unixSockets is the
// filter's own layer, whose why is the same when it is missing.
func metadataText(mountNS, seccomp bool, unixSockets string) string {
	switch {
	case mountNS && seccomp:
		return MetadataReadOnly
	case mountNS:
		return "mode, owner and time changes outside the rw roots refused (read-only mount namespace); setuid/setgid bits inside them " + unixSockets
	case seccomp:
		return MetadataSetuidRefused
	}
	return unixSockets // the same filter, not installed: the same why
}

// Enforcement is what was applied to one module process, layer by layer,
// as observed when it started: never what was asked
// for. Every field is a short phrase for the screen and for
// `invoke --json`.
type Enforcement struct {
	// Contained is false when containment was off for this run (every
	// layer then reads "not enforced (containment off)").
	Contained bool `json:"contained"`
	// Processes: ProcessesPIDNamespace or ProcessesGroup.
	Processes string `json:"processes"`
	// Filesystem: "landlock ABI N", followed by FilesystemMountNS when
	// the module runs in a read-only mount namespace (root), or by "; mount
	// namespace not enforced (why)" when root could not have one (a gap);
	// or "not enforced (why)"; FilesystemExecNarrow ends it when
	// execution was narrowed.
	Filesystem string `json:"filesystem"`
	// Network: "namespace + no sockets (seccomp)" when both apply (as
	// root "namespace (shared, empty) + no sockets (seccomp)",
	// NetworkNamespaceShared), else NetworkNamespace, NetworkNoSockets, NetworkLandlockTCP, or
	// NetworkGranted when the call was granted the network, or "not
	// enforced (why)".
	Network string `json:"network"`
	// Capabilities: CapabilitiesDropped or "kept (why)".
	Capabilities string `json:"capabilities"`
	// Terminal: TerminalOwnSession.
	Terminal string `json:"terminal"`
	// Signals: how the host is kept out of the module's reach for signals
	// ("landlock scope", "pid namespace", both joined by " + ") or "not
	// enforced (why)".
	Signals string `json:"signals"`
	// UnixSockets: "refused (seccomp)" or "not enforced (why)": new
	// AF_UNIX sockets, the way to a tmux or ssh-agent socket file.
	UnixSockets string `json:"unix_sockets"`
	// Descriptors: DescriptorsClosed.
	Descriptors string `json:"descriptors"`
	// Metadata: what holds for file modes, owners and times, which
	// Landlock does not cover: MetadataReadOnly with the read-only mount
	// namespace (root); without it MetadataSetuidRefused (setuid and
	// setgid bits refused by seccomp; other changes outside the grants,
	// of files the module's user owns, are not confined) or "not enforced
	// (why)". Not being root, the missing namespace is a limit of the
	// design, not a gap of this machine: it does not make a run
	// incomplete (as root, the filesystem layer lists it as a gap).
	Metadata string `json:"metadata"`
	// Limits lists the resource limits applied ("open files 1024, cpu
	// 60 s"), with the ones that do not bind said so; "none" when none.
	Limits string `json:"limits"`
	// Gaps names each layer that is not fully enforced, with why; empty
	// means the run was fully contained.
	Gaps []string `json:"gaps,omitempty"`
}

// Complete reports whether every layer was enforced (no gaps). A run with
// a network grant is complete when everything else is.
func (e Enforcement) Complete() bool { return e.Contained && len(e.Gaps) == 0 }

// String is the enforcement as a few lines for the screen, one layer per
// line: "processes: pid namespace".
func (e Enforcement) String() string {
	var b strings.Builder
	for _, l := range e.layers() {
		fmt.Fprintf(&b, "%s: %s\n", l[0], l[1])
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (e Enforcement) layers() [][2]string {
	return [][2]string{
		{"processes", e.Processes},
		{"filesystem", e.Filesystem},
		{"network", e.Network},
		{"capabilities", e.Capabilities},
		{"terminal", e.Terminal},
		{"signals", e.Signals},
		{"unix sockets", e.UnixSockets},
		{"descriptors", e.Descriptors},
		{"metadata", e.Metadata},
		{"limits", e.Limits},
	}
}

// notEnforced is the phrase for a layer that was not applied.
func notEnforced(why string) string { return "not enforced (" + why + ")" }

// off is the enforcement of a run started with containment off.
func off(why string) Enforcement {
	n := notEnforced(why)
	e := Enforcement{
		Processes: ProcessesGroup, Filesystem: n, Network: n, Capabilities: "kept (" + why + ")",
		Terminal: n, Signals: n, UnixSockets: n, Descriptors: n, Metadata: n, Limits: "none",
	}
	e.Gaps = []string{"containment: " + why}
	return e
}
