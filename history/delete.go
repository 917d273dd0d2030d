package history

import (
	"errors"
	"fmt"
	"os"
)

// ErrPinned is what Delete of a pinned run returns unless asked to
// delete pinned runs too: a pin says "never remove this".
var ErrPinned = errors.New("the run is pinned: unpin it, or confirm deleting a pinned run")

// Deleted is what Delete removed: the record, and what the store's
// garbage collection then freed (CollectArtifacts).
type Deleted struct {
	RunID     string
	Artifacts int
	Bytes     int64
}

// Delete removes run id's record from the history and frees, through
// CollectArtifacts, the staged artifacts no kept record names (a run not
// yet recorded keeps its own). A
// pinned run is deleted only with pinned set (ErrPinned otherwise); a run
// being recorded or polled (its lock held) never is.
func (s *Store) Delete(id string, pinned bool) (*Deleted, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	lock, err := s.LockRun(id)
	if err != nil {
		return nil, err // ErrBusy names the run
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
	_ = os.Remove(s.livePath(id)) // left by a process that died mid-run
	s.removeJobState(id)
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
	// The store's garbage collection frees what no kept run names.
	c, err := s.CollectArtifacts()
	out.Artifacts, out.Bytes = int(c.Files), c.Bytes
	return out, err
}
