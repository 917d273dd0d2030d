package approval

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// PendingDir is the folder of the stored questions under <home>/serve:
// a question outlives the serve process that asked it, so a cockpit can
// answer it after that process ended and a later serve process of the
// home honours the answer for the same call (docs/gateway.md "Approvals
// in the cockpit").
const PendingDir = "pending"

// maxStored bounds one stored question or answer file, in bytes.
const maxStored = MaxMessage + 4096

// Stored is one question as kept in PendingDir (<id>.json), and its
// answer (<id>.answer.json) once a cockpit gave one.
type Stored struct {
	Question Question `json:"question"`
	// Key is the call's digest (CallKey: tool and input); Identity the
	// source identity of the module or server it runs.
	Key      string    `json:"key"`
	Identity string    `json:"identity"`
	Expires  time.Time `json:"expires"`
}

// CallKey is the digest a stored question is matched by: the tool's name
// and the call's input bytes.
func CallKey(tool string, input []byte) string {
	h := sha256.New()
	h.Write([]byte(tool))
	h.Write([]byte{0})
	h.Write(input)
	return hex.EncodeToString(h.Sum(nil))
}

// validID reports whether id can name a stored file ("apr_" and hex).
func validID(id string) bool {
	rest, ok := strings.CutPrefix(id, "apr_")
	if !ok || rest == "" || len(rest) > 64 {
		return false
	}
	_, err := hex.DecodeString(rest)
	return err == nil
}

// Store keeps s in dir (made 0700; the file 0600, written whole).
func Store(dir string, s Stored) error {
	if !validID(s.Question.ID) {
		return fmt.Errorf("approval: question id %q", s.Question.ID)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return writeNew(dir, s.Question.ID+".json", b, false)
}

// writeNew writes name in dir through a temporary file; excl makes the
// first writer win (an existing file is an error).
func writeNew(dir, name string, b []byte, excl bool) error {
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if excl {
		return os.Link(tmp.Name(), filepath.Join(dir, name)) // fails when it exists
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, name))
}

// readOwn reads a file of dir the current user owns (the socket's rule:
// same user only), bounded by maxStored.
func readOwn(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := sameOwner(fi); err != nil {
		return nil, fmt.Errorf("approval: %s: %w", path, err)
	}
	if fi.Size() > maxStored {
		return nil, fmt.Errorf("approval: %s is larger than the bound", path)
	}
	b := make([]byte, fi.Size())
	n, err := f.ReadAt(b, 0)
	if n == len(b) {
		err = nil
	}
	return b[:n], err
}

// Load reads question id's stored record; ok is false when none is kept,
// it expired by now (then removed) or it cannot be read.
func Load(dir, id string, now time.Time) (Stored, bool) {
	var s Stored
	if !validID(id) {
		return s, false
	}
	b, err := readOwn(filepath.Join(dir, id+".json"))
	if err != nil || json.Unmarshal(b, &s) != nil || s.Question.ID != id {
		return Stored{}, false
	}
	if now.After(s.Expires) {
		Remove(dir, id)
		return Stored{}, false
	}
	return s, true
}

// AnswerStored records a cockpit's answer to stored question id: the
// first answer wins, a later one (or one to a question no longer kept)
// is an error.
func AnswerStored(dir, id string, a Answer, now time.Time) error {
	if !valid(a.Decision) {
		return fmt.Errorf("approval: decision %q", a.Decision)
	}
	if _, ok := Load(dir, id, now); !ok {
		return fmt.Errorf("approval question %s is no longer open (its serve process ended and it expired)", id)
	}
	a.ID, a.By = id, oneLine(a.By)
	b, _ := json.Marshal(a)
	if err := writeNew(dir, id+".answer.json", b, true); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("approval question %s was already answered", id)
		}
		return err
	}
	return nil
}

// TakeAnswer finds the answer a cockpit gave to a stored question for
// the same call (key) of the same identity, still within its expiry, and
// removes the question: an answer applies once. ok is false when there
// is none. Expired questions are removed on the way.
func TakeAnswer(dir, key, identity string, now time.Time) (Answer, bool) {
	names, _ := filepath.Glob(filepath.Join(dir, "apr_*.json"))
	for _, name := range names {
		id, ok := strings.CutSuffix(filepath.Base(name), ".json")
		if !ok || strings.HasSuffix(id, ".answer") {
			continue
		}
		s, ok := Load(dir, id, now)
		if !ok || s.Key != key || s.Identity != identity {
			continue
		}
		// Taken by renaming: of two serve processes, one gets it.
		taken := filepath.Join(dir, ".taken-"+id)
		if os.Rename(filepath.Join(dir, id+".answer.json"), taken) != nil {
			continue
		}
		b, err := readOwn(taken)
		_ = os.Remove(taken)
		Remove(dir, id)
		var a Answer
		if err != nil || json.Unmarshal(b, &a) != nil || a.ID != id || !valid(a.Decision) {
			continue
		}
		return a, true
	}
	return Answer{}, false
}

// Remove forgets stored question id and its answer.
func Remove(dir, id string) {
	if !validID(id) {
		return
	}
	_ = os.Remove(filepath.Join(dir, id+".json"))
	_ = os.Remove(filepath.Join(dir, id+".answer.json"))
}
