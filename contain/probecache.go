//go:build linux

package contain

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// bootIDFile names the kernel's id of the current boot.
const bootIDFile = "/proc/sys/kernel/random/boot_id"

var (
	cacheMu   sync.Mutex
	cachePath string // "" : no probe cache
	cacheKey  string
)

// UseProbeCache keeps Probe's answer in the file path for the processes
// that follow, until the machine reboots: a later process whose key
// matches reads the answer instead of probing (the trial clones, mount
// namespace and pids cgroup cost 15–17 ms). The key is the kernel's boot
// id, the kernel release, the effective user, this executable (path,
// inode, size, mtime) and config, the caller's digest of whatever else
// the answer depends on. It takes effect only when called before the
// process's first Probe; the first call wins. A cached answer changes
// nothing about what a run is checked for: Start still reads back from
// /proc what each child got, so a stale answer can make a run fail, never
// make it weaker unnoticed.
func UseProbeCache(path, config string) {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if cachePath != "" {
		return
	}
	key, err := probeKey(config)
	if err != nil {
		return // no boot id or executable to key on: probe every time
	}
	cachePath, cacheKey = path, key
}

// probeKey is the cache key: a digest of what the answer depends on.
func probeKey(config string) (string, error) {
	boot, err := os.ReadFile(bootIDFile)
	if err != nil {
		return "", err
	}
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	var st syscall.Stat_t
	if err := syscall.Stat(exe, &st); err != nil {
		return "", err
	}
	release, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	h := sha256.New()
	fmt.Fprintf(h, "boot %s\nrelease %s\neuid %d\nexe %s %d %d %d %d\nconfig %s\n",
		strings.TrimSpace(string(boot)), strings.TrimSpace(string(release)), os.Geteuid(),
		exe, st.Dev, st.Ino, st.Size, st.Mtim.Nano(), config)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// probeRecord is the probe cache file.
type probeRecord struct {
	Key     string  `json:"key"`
	Support Support `json:"support"`
}

// probeWithCache is probe through the cache, when one is set.
func probeWithCache() Support {
	cacheMu.Lock()
	path, key := cachePath, cacheKey
	cacheMu.Unlock()
	if path == "" {
		return probe()
	}
	if b, err := os.ReadFile(path); err == nil && len(b) <= maxProbeRecord {
		var rec probeRecord
		if json.Unmarshal(b, &rec) == nil && rec.Key == key {
			return rec.Support
		}
	}
	s := probe()
	if b, err := json.Marshal(probeRecord{Key: key, Support: s}); err == nil {
		writeProbeRecord(path, b)
	}
	return s
}

// maxProbeRecord bounds the probe cache file read back.
const maxProbeRecord = 64 << 10

// writeProbeRecord replaces path with b atomically (a temporary file
// renamed over it); a failure leaves the next process to probe again.
func writeProbeRecord(path string, b []byte) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	f, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Rename(f.Name(), path) != nil {
		os.Remove(f.Name())
	}
}
