package modproto

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"regexp"
	"strings"
	"sync"
)

// digestPattern is docs/protocol.md §1's digest: "sha256:" + 64 lowercase hex.
var digestPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^sha256:[0-9a-f]{64}$`) })

// requestIDPattern is docs/protocol.md §1's request id: "req_" + 32 lowercase hex.
var requestIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^req_[0-9a-f]{32}$`) })

// ValidDigest reports whether s is "sha256:" followed by 64 lowercase hex
// characters (docs/protocol.md §1).
func ValidDigest(s string) bool { return digestPattern().MatchString(s) }

// ValidRequestID reports whether s has the host request-id shape "req_" + 32
// lowercase hex (docs/protocol.md §1).
func ValidRequestID(s string) bool { return requestIDPattern().MatchString(s) }

// Digest returns the protocol digest of b: "sha256:<64 lowercase hex>".
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// MaxBundleFileBytes is the largest skill or overlay file a descriptor may
// declare that a host reads or hashes: 2 MiB (docs/protocol.md §14).
const MaxBundleFileBytes = 2 << 20

// DigestReader streams r through sha256 and returns the protocol digest and
// the number of bytes read.
func DigestReader(r io.Reader) (digest string, n int64, err error) {
	h := sha256.New()
	n, err = io.Copy(h, r)
	if err != nil {
		return "", n, err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), n, nil
}

// NewRequestID returns a fresh request id: "req_" + 32 lowercase hex from 16
// random bytes (docs/protocol.md §1).
func NewRequestID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("modproto: crypto/rand failed: " + err.Error())
	}
	return "req_" + hex.EncodeToString(b[:])
}

// IsRelativePath reports whether p is a relative, non-empty path in the
// protocol's sense: not "/…", not "\…", not a drive path "C:\…" or "C:/…"
// (docs/protocol.md §6).
func IsRelativePath(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) {
		return false
	}
	if len(p) >= 2 && p[1] == ':' && isASCIILetter(p[0]) {
		return false
	}
	return true
}

func isASCIILetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
