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

// describeCacheKey identifies one exact thing described: the driver's
// source identity (Driver.Key: an executable's absolute path) and its
// fingerprint (Driver.Fingerprint: for an executable its stat and, for a
// module directory, the listing of the files beside it; docs/protocol.md §2
// modbay).
type describeCacheKey struct {
	Source      string `json:"source"`
	Fingerprint string `json:"fingerprint"`
}

// describeCacheEntry is one cached describe: the module's stdout as it
// was, its stderr, the executable's stat-keyed identity record (so the
// next discovery hashes it only when its stat changed), and modbay's
// verdict on the descriptor, valid only for the build that reached it.
//
// The file is the entry without Stdout as one JSON line, then Stdout's
// bytes as they were: a warm discovery decodes the small header and hands
// the stdout to applyVerdict, without scanning it as part of the header
// (warm discovery of 200 modules).
type describeCacheEntry struct {
	Key         describeCacheKey `json:"key"`
	Stdout      json.RawMessage  `json:"-"`
	Stderr      string           `json:"stderr"`
	DescribedAt time.Time        `json:"described_at"`
	Identity    *exeIdentity     `json:"identity,omitempty"`
	Verdict     *cachedVerdict   `json:"verdict,omitempty"`
}

// cachedVerdict is modbay's own verdict on a described descriptor
// (envelope and descriptor validation, request schema compilation;
// docs/protocol.md §18), cached with it and trusted only by the same build:
// a new modbay re-judges every cached describe.
type cachedVerdict struct {
	BuildID    string                    `json:"build_id"`
	ID         string                    `json:"id"`
	Status     Status                    `json:"status"`
	Reason     string                    `json:"reason,omitempty"`
	Violations modproto.ValidationErrors `json:"violations,omitempty"`
	Warnings   []string                  `json:"warnings,omitempty"`
	Refused    map[string]string         `json:"refused,omitempty"`
	// Bundle is the bundle check's verdict, when the fingerprint covers
	// the bundle's files (bundleCovered).
	Bundle *bundleVerdict `json:"bundle,omitempty"`
}

// bundleVerdict is what checkBundle found: the warnings it added (none
// when every skill and overlay file matched its digest).
type bundleVerdict struct {
	Warnings []string `json:"warnings,omitempty"`
}

// describeCacheFile is the cache file of k: <cache>/describe/<sha256 of
// the source identity>.json. One file per source (an executable's path),
// so a rebuilt module replaces its entry instead of adding one; the full
// key is stored inside and compared on read.
func (h *Host) describeCacheFile(k describeCacheKey) string {
	sum := sha256.Sum256([]byte(k.Source))
	return filepath.Join(h.cfg.CacheDir(), "describe", hex.EncodeToString(sum[:])+".json")
}

// readDescribeEntry returns the cache entry stored for source; any
// problem is a miss. The caller compares the entry's key.
func (h *Host) readDescribeEntry(source string) (describeCacheEntry, bool) {
	b, err := os.ReadFile(h.describeCacheFile(describeCacheKey{Source: source}))
	if err != nil {
		return describeCacheEntry{}, false
	}
	header, stdout, _ := bytes.Cut(b, []byte{'\n'})
	var e describeCacheEntry
	if json.Unmarshal(header, &e) != nil || e.Key.Source != source || len(stdout) == 0 {
		return describeCacheEntry{}, false
	}
	e.Stdout = stdout
	return e, true
}

// writeDescribeCache stores a describe that passed; failures to write only
// cost a later describe.
func (h *Host) writeDescribeCache(e describeCacheEntry) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(e) != nil { // one line: the encoder escapes newlines in strings
		return
	}
	buf.Write(bytes.TrimSpace(e.Stdout))
	path := h.describeCacheFile(e.Key)
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
