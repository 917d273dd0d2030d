//go:build linux

package contain

import (
	"sync"

	"golang.org/x/sys/unix"
)

// sharedNetNS is a descriptor of one empty network namespace (only lo,
// down) made once per process on a throwaway thread, which every run
// without the network joins instead of making its own: a network
// namespace costs about 1 ms to make and more to tear down, on every run
// and every describe.
var sharedNetNS = sync.OnceValues(func() (int, error) {
	type made struct {
		fd  int
		err error
	}
	ch := make(chan made, 1)
	go onDisposableThread(func() {
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			ch <- made{-1, err}
			return
		}
		fd, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		ch <- made{fd, err}
	})
	m := <-ch
	return m.fd, m.err
})

// enterNetNS moves the calling (locked, disposable) thread out of the
// host's network namespace, so the child it starts is too, and reports
// whether the namespace is the shared one. It joins the shared empty
// namespace only when share is true (the thread's seccomp filter refuses
// socket() of every family, so no run can reach another through it:
// not even an abstract Unix socket, which is scoped to the namespace),
// else unshares a fresh one. When neither works the child stays in the
// host's namespace, which observe finds and records.
func enterNetNS(share bool) bool {
	if share {
		if fd, err := sharedNetNS(); err == nil && unix.Setns(fd, unix.CLONE_NEWNET) == nil {
			return true
		}
	}
	_ = unix.Unshare(unix.CLONE_NEWNET)
	return false
}

// Prepare starts making, in the background, what the first contained run
// without the network would otherwise make on its own path: the probe's
// answer and the shared network namespace. A one-shot command calls it as
// soon as it knows it will run a module, so the namespace is made while it
// plans. It does nothing where the shared namespace is not used.
func Prepare() {
	go func() {
		if s := Probe(); s.Root && s.NetNS && s.Seccomp && !forceUserNS {
			_, _ = sharedNetNS()
		}
	}()
}
