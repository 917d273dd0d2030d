package runner

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"modbay/modproto"
)

// describeCacheKey identifies one exact executable: absolute path, size,
// modification time and the sha256 of its bytes (WIRE.md §2 modbay).
type describeCacheKey struct {
	Exe     string `json:"exe"`
	Size    int64  `json:"size"`
	MTimeNS int64  `json:"mtime_ns"`
	Digest  string `json:"digest"`
}

// describeCacheEntry is one cached describe: the module's stdout as it
// was (re-judged on every load, so a rule change never trusts old data)
// and its stderr.
type describeCacheEntry struct {
	Key         describeCacheKey `json:"key"`
	Stdout      json.RawMessage  `json:"stdout"`
	Stderr      string           `json:"stderr"`
	DescribedAt time.Time        `json:"described_at"`
}

// exeIdentity reads the executable's identity, hashing it whole.
func exeIdentity(exe string) (describeCacheKey, error) {
	f, err := os.Open(exe)
	if err != nil {
		return describeCacheKey{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return describeCacheKey{}, err
	}
	d, _, err := modproto.DigestReader(f)
	if err != nil {
		return describeCacheKey{}, err
	}
	return describeCacheKey{Exe: exe, Size: fi.Size(), MTimeNS: fi.ModTime().UnixNano(), Digest: d}, nil
}

// describeCacheFile is the cache file of k: <cache>/describe/<sha256 of
// the executable's path>.json. One file per executable path, so a rebuilt
// module replaces its entry instead of adding one; the full key is stored
// inside and compared on read.
func (h *Host) describeCacheFile(k describeCacheKey) string {
	sum := sha256.Sum256([]byte(k.Exe))
	return filepath.Join(h.cfg.CacheDir(), "describe", hex.EncodeToString(sum[:])+".json")
}

// readDescribeCache returns the entry for k; any problem is a miss.
func (h *Host) readDescribeCache(k describeCacheKey) (describeCacheEntry, bool) {
	b, err := os.ReadFile(h.describeCacheFile(k))
	if err != nil {
		return describeCacheEntry{}, false
	}
	var e describeCacheEntry
	if json.Unmarshal(b, &e) != nil || e.Key != k || len(e.Stdout) == 0 {
		return describeCacheEntry{}, false
	}
	return e, true
}

// writeDescribeCache stores a describe that passed; failures to write only
// cost a later describe.
func (h *Host) writeDescribeCache(k describeCacheKey, stdout []byte, stderr string, at time.Time) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(describeCacheEntry{Key: k, Stdout: bytes.TrimSpace(stdout), Stderr: stderr, DescribedAt: at}) != nil {
		return
	}
	path := h.describeCacheFile(k)
	if os.MkdirAll(filepath.Dir(path), 0o700) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(buf.Bytes())
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}
