package history

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"

	"modbay/runner"
	"modbay/schema"
)

// The host's job state (docs/protocol.md §12): a job whose job_id holds a
// secret of the input is recorded, listed and shown by its masked id
// (Job.Masked); the handle as the module sent it, which polls and cancels
// send, is kept only in <home>/jobs/<run id>.json (0600, beside the
// history, never inside it), with the secrets it holds, so that the polls
// of a job resumed later mask them too. It goes when the job ends or its
// record does.

// maxJobStateBytes bounds a job state file read back: one handle (a
// module's job_id) and the few secrets it holds.
const maxJobStateBytes = 256 << 10

// jobState is a <home>/jobs/<run id>.json file.
type jobState struct {
	JobID   string        `json:"job_id"`
	Secrets []schema.Echo `json:"secrets"`
}

// jobStatePath is run id's job state file.
func (s *Store) jobStatePath(id string) string { return filepath.Join(s.jobs, id+".json") }

// putJobState keeps js's handle for run id when its id is masked; it
// writes nothing otherwise.
func (s *Store) putJobState(id string, js *runner.JobStatus) error {
	if js == nil || js.Handle == "" || CheckID(id) != nil {
		return nil
	}
	b, err := json.Marshal(jobState{JobID: js.Handle, Secrets: js.Secrets})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.jobs, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.jobs, ".job-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), s.jobStatePath(id))
	}
	return err
}

// removeJobState forgets run id's handle (the job ended, or its record
// went); a missing file is no error.
func (s *Store) removeJobState(id string) {
	if CheckID(id) == nil {
		_ = os.Remove(s.jobStatePath(id))
	}
}

// ErrNoJobHandle is JobStatus's error for a masked job whose handle the
// host's job state no longer holds: it cannot be polled or cancelled.
var ErrNoJobHandle = errors.New("the job's id holds a secret and the host's job state no longer has it: the job cannot be polled or cancelled from here")

// JobStatus is rec's job as runner.Host.ResumeJob polls it: its recorded
// state, and for a masked id the handle and its secrets from the host's
// job state (ErrNoJobHandle when they are gone). rec must have a job.
func (s *Store) JobStatus(rec *Record) (runner.JobStatus, error) {
	j := rec.Job
	if j == nil {
		return runner.JobStatus{}, errors.New("run " + rec.RunID + " has no job")
	}
	js := runner.JobStatus{ID: j.ID, State: j.State, Percent: j.Percent, Detail: j.Detail, Polls: j.Polls}
	if !j.Masked {
		return js, nil
	}
	if CheckID(rec.RunID) != nil {
		return js, ErrNoJobHandle
	}
	f, err := os.Open(s.jobStatePath(rec.RunID))
	if err != nil {
		return js, ErrNoJobHandle
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxJobStateBytes+1))
	var st jobState
	if err != nil || len(b) > maxJobStateBytes || json.Unmarshal(b, &st) != nil || st.JobID == "" {
		return js, ErrNoJobHandle
	}
	js.Handle, js.Secrets = st.JobID, st.Secrets
	if js.Secrets == nil {
		js.Secrets = []schema.Echo{}
	}
	return js, nil
}

// JobStatus is the job of the run being resumed, as Store.JobStatus
// reads it.
func (r *Run) JobStatus() (runner.JobStatus, error) {
	r.mu.Lock()
	rec := *r.rec
	r.mu.Unlock()
	return r.s.JobStatus(&rec)
}
