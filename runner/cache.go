package runner

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"modbay/modproto"
)

// describeCacheKey identifies one exact thing described: the driver's
// source identity (Driver.Key: an executable's absolute path) and its
// fingerprint (Driver.Fingerprint: for an executable its size,
// modification time and sha256; WIRE.md §2 modbay).
type describeCacheKey struct {
	Source      string `json:"source"`
	Fingerprint string `json:"fingerprint"`
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

// exeFingerprint reads an executable's identity, hashing it whole:
// "size=<bytes> mtime_ns=<ns> sha256:<hex>".
func exeFingerprint(exe string) (string, error) {
	f, err := os.Open(exe)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	d, _, err := modproto.DigestReader(f)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("size=%d mtime_ns=%d %s", fi.Size(), fi.ModTime().UnixNano(), d), nil
}

// describeCacheFile is the cache file of k: <cache>/describe/<sha256 of
// the source identity>.json. One file per source (an executable's path),
// so a rebuilt module replaces its entry instead of adding one; the full
// key is stored inside and compared on read.
func (h *Host) describeCacheFile(k describeCacheKey) string {
	sum := sha256.Sum256([]byte(k.Source))
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
