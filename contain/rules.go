//go:build linux

package contain

import "path/filepath"

// systemExec are the trees every module may read and execute: what
// executing a program needs on a merged-/usr system. A missing one (or a
// symlink into /usr) changes nothing.
var systemExec = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// systemRead are the files under /etc any program may read (loader cache,
// user and group names, name-service switch, time zone): not all of /etc,
// which as root includes shadow.
var systemRead = []string{"/etc/ld.so.cache", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/localtime"}

// networkRead are the /etc entries resolving and TLS need, granted with
// the network only.
var networkRead = []string{"/etc/resolv.conf", "/etc/hosts", "/etc/gai.conf", "/etc/ssl", "/etc/ca-certificates"}

// rules builds the Landlock allowlist of spec (design note: containment.md
// §Exec allowlist). /tmp, /run, /proc, /sys, /dev/tty, the person's home
// and modbay's home state are in no rule.
func (s Spec) rules() []rule {
	var rs []rule
	add := func(access uint64, paths ...string) {
		for _, p := range paths {
			if p != "" && filepath.IsAbs(p) {
				rs = append(rs, rule{path: filepath.Clean(p), access: access})
			}
		}
	}
	add(accessRX, systemExec...)
	add(accessRO, systemRead...)
	if s.Network {
		add(accessRO, networkRead...)
	}
	add(fsReadFile|fsWriteFile|fsTruncate, "/dev/null", "/dev/zero")
	add(fsReadFile, "/dev/urandom", "/dev/random")
	dir := s.ModuleDir
	if dir == "" && s.Module != "" {
		dir = filepath.Dir(s.Module)
	}
	add(accessRX, dir, s.Module)
	add(accessRX, s.Binaries...)
	add(accessRO, s.ReadRoots...)
	add(accessRW, s.WriteRoots...)
	add(accessRW, s.RunDir)
	return rs
}
