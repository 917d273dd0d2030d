package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"time"

	"modbay/modproto"
)

const (
	// stagedTypeSuffix ends a staged type's sidecar file name:
	// <64 hex>.<12 hex>.type.json beside the staged bytes <64 hex>.
	stagedTypeSuffix = ".type.json"
	// maxStagedTypeBytes bounds a sidecar read back: it holds four short
	// strings (a module's media type is at most a few hundred bytes).
	maxStagedTypeBytes = 16 << 10
	// maxStagedTypes bounds how many sidecars of one file are read: the
	// same bytes staged under more types than this keep the newest.
	maxStagedTypes = 64
)

// stagedNameRe matches a staged file's name in the store: 64 hex digits.
var stagedNameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{64}$`) })

// StagedType is how an artifact was described when its bytes were staged
// (docs/protocol.md §8, §10): the module's media type and presentation hint, as
// sent, with its title and kind. The store keeps one per (media type,
// presentation) beside the bytes, because identical bytes may be staged
// by different runs under different types. Every field is module text:
// sanitize before the terminal.
type StagedType struct {
	MediaType    string    `json:"media_type"`
	Presentation string    `json:"presentation,omitempty"`
	Title        string    `json:"title,omitempty"`
	Kind         string    `json:"kind,omitempty"`
	Staged       time.Time `json:"staged"`
}

// recordStagedType writes a's type beside its staged bytes at staged, as
// <staged>.<id>.type.json where id names the (media type, presentation)
// pair, replacing the record of an earlier staging under the same pair.
// The record is written to a temp file and renamed, so a reader never sees
// half of one. It is best effort: an artifact whose record cannot be
// written is still verified, and StagedTypes then has nothing to say.
func recordStagedType(staged string, a modproto.Artifact, now time.Time) error {
	b, err := json.Marshal(StagedType{MediaType: a.MediaType, Presentation: a.Presentation, Title: a.Title, Kind: a.Kind, Staged: now.UTC()})
	if err != nil {
		return err
	}
	id := sha256.Sum256([]byte(a.MediaType + "\x00" + a.Presentation))
	dest := staged + "." + hex.EncodeToString(id[:6]) + stagedTypeSuffix
	tmp, err := os.CreateTemp(filepath.Dir(staged), ".type-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o444)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dest)
	}
	return err
}

// StagedTypes returns the types the staged file at path was staged under,
// newest first; nil (and no error) when path is not a file of an
// artifact store (its name is not 64 hex digits) or has no records, as for
// bytes staged before records were kept. A record that cannot be read or
// parsed is skipped.
func StagedTypes(path string) ([]StagedType, error) {
	if !stagedNameRe().MatchString(filepath.Base(path)) {
		return nil, nil
	}
	names, err := filepath.Glob(globEscape(path) + ".*" + stagedTypeSuffix)
	if err != nil {
		return nil, fmt.Errorf("staged types of %s: %w", path, err)
	}
	var out []StagedType
	for _, n := range names {
		st, err := readStagedType(n)
		if err != nil {
			continue
		}
		out = append(out, st)
	}
	slices.SortStableFunc(out, func(a, b StagedType) int { return b.Staged.Compare(a.Staged) })
	return out[:min(len(out), maxStagedTypes)], nil
}

// readStagedType reads one bounded sidecar record.
func readStagedType(name string) (StagedType, error) {
	f, err := openRegular(name)
	if err != nil {
		return StagedType{}, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxStagedTypeBytes+1))
	if err != nil {
		return StagedType{}, err
	}
	if len(b) > maxStagedTypeBytes {
		return StagedType{}, errors.New("staged type record too large")
	}
	var st StagedType
	err = json.Unmarshal(b, &st)
	return st, err
}

// globMetaRe matches the characters filepath.Match treats specially.
var globMetaRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[*?\[\\]`) })

// globEscape escapes the glob metacharacters of a literal path.
func globEscape(p string) string {
	return globMetaRe().ReplaceAllStringFunc(p, func(m string) string { return `\` + m })
}
