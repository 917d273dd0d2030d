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
var systemRead = []string{"/etc/ld.so.cache", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/localtime",
	"/etc/ssl/openssl.cnf"} // Node reads OpenSSL's configuration at start-up

// machineRead are what programs read to size themselves (CPU count, memory):
// machine facts, not any process's. The rest of /proc and /sys is not
// granted, /proc/self included: there is no fresh /proc (no mount
// namespace), so a module cannot read /proc/self/exe or /proc/self/fd.
var machineRead = []string{"/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/uptime", "/proc/loadavg",
	"/sys/devices/system/cpu", "/sys/fs/cgroup/cpu.max"}

// networkRead are the /etc entries resolving and TLS need, granted with
// the network only: the CA certificates, not all of /etc/ssl (whose
// private/ holds the machine's keys).
var networkRead = []string{"/etc/resolv.conf", "/etc/hosts", "/etc/gai.conf", "/etc/ssl/certs", "/etc/ca-certificates",
	"/etc/pki/tls/certs", "/etc/ca-certificates.conf"}

// rules builds the Landlock allowlist of spec (docs/containment.md). /tmp, /run, /proc, /sys, /dev/tty, the person's home
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
	if s.ExecNarrow {
		add(accessRO, systemExec...)
	} else {
		add(accessRX, systemExec...)
	}
	add(accessRO, systemRead...)
	add(accessRO, machineRead...)
	if s.Network {
		add(accessRO, networkRead...)
	}
	add(fsReadFile|fsWriteFile|fsTruncate, "/dev/null", "/dev/zero")
	add(fsReadFile, "/dev/urandom", "/dev/random")
	// A loose executable (no ModuleDir) gets itself, never its neighbours.
	add(accessRX, s.ModuleDir, s.Module)
	add(accessRX, s.Binaries...)
	if s.ExecNarrow {
		// A rule on a file keeps only file rights: read and execute.
		add(accessRX, execChain(s.Module)...)
		for _, b := range s.Binaries {
			add(accessRX, execChain(b)...)
		}
	}
	add(accessRO, s.ReadRoots...)
	add(accessRW, s.WriteRoots...)
	add(accessRW, s.RunDir)
	return rs
}
