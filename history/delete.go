package history

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrPinned is what Delete of a pinned run returns unless asked to
// delete pinned runs too: a pin says "never remove this".
var ErrPinned = errors.New("the run is pinned: unpin it, or confirm deleting a pinned run")

// Deleted is what Delete removed: the record and the staged artifacts no
// other kept run references, with their bytes.
type Deleted struct {
	RunID     string
	Artifacts int
	Bytes     int64
}

// Delete removes run id's record from the history and frees the staged
// artifacts (under <home>/artifacts) that no other kept record
// references. A pinned run is deleted only with pinned set (ErrPinned
// otherwise); a run being recorded or polled (its lock held) never is.
// An artifact path outside the store is never removed.
func (s *Store) Delete(id string, pinned bool) (*Deleted, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	lock, err := s.LockRun(id)
	if err != nil {
		return nil, fmt.Errorf("run %s is being recorded or polled: %w", id, err)
	}
	defer lock.Release()
	unlock, err := s.lockWrite()
	if err != nil {
		return nil, err
	}
	defer unlock()
	rec, err := s.read(id)
	if err != nil {
		return nil, err
	}
	if rec.Pinned && !pinned {
		return nil, ErrPinned
	}
	if err := os.Remove(s.recordPath(id)); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	out := &Deleted{RunID: id}
	onDisk, _, err := s.recordIDs()
	if err != nil {
		return out, err
	}
	byID, _, _ := s.readIndex()
	live, _, _ := s.summaries(onDisk, byID)
	if err := s.compact(live); err != nil {
		return out, err
	}
	if s.artifacts == "" || len(rec.Artifacts) == 0 {
		return out, nil
	}
	// Kept runs' references: an artifact two runs staged (same digest,
	// same store path) stays while either is kept.
	kept := map[string]bool{}
	for other := range onDisk {
		r, err := s.read(other)
		if err != nil {
			// A record that cannot be read may reference anything: free
			// nothing rather than guess.
			return out, nil
		}
		for _, a := range r.Artifacts {
			kept[filepath.Clean(a.Staged)] = true
		}
	}
	store := filepath.Clean(s.artifacts) + string(filepath.Separator)
	for _, a := range rec.Artifacts {
		p := filepath.Clean(a.Staged)
		if kept[p] || !strings.HasPrefix(p, store) {
			continue
		}
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if os.Remove(p) == nil {
			kept[p] = true // named twice by this run: counted once
			out.Artifacts++
			out.Bytes += fi.Size()
			// Its type records (<staged>.<id>.type.json) go with it.
			sides, _ := filepath.Glob(p + ".*.type.json")
			for _, side := range sides {
				_ = os.Remove(side)
			}
		}
	}
	return out, nil
}
