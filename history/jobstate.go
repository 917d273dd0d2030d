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
// history, never inside it). So are the input's secrets, for any job of
// an input that had some, so that the polls of a job resumed later mask
// them too. It goes when the job ends or its record does.

// maxJobStateBytes bounds a job state file read back (the host's own): one
// handle (a module's job_id) and the input's secrets, of an input of at
// most 16 MiB (cli's maxInputFileBytes), JSON-escaped.
const maxJobStateBytes = 40 << 20

// jobState is a <home>/jobs/<run id>.json file.
type jobState struct {
	JobID   string        `json:"job_id"`
	Secrets []schema.Echo `json:"secrets"`
}

// jobStatePath is run id's job state file.
func (s *Store) jobStatePath(id string) string { return filepath.Join(s.jobs, id+".json") }

// putJobState keeps js's handle (when its id is masked) and the input's
// secrets for run id; it writes nothing when there are neither.
func (s *Store) putJobState(id string, js *runner.JobStatus) error {
	if js == nil || (js.Handle == "" && len(js.Secrets) == 0) || CheckID(id) != nil {
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
	st, ok := s.readJobState(rec.RunID)
	switch {
	case j.Masked && (!ok || st.JobID == ""):
		return js, ErrNoJobHandle
	case j.Masked:
		js.Handle = st.JobID
	}
	if ok {
		js.Secrets = st.Secrets
	}
	if js.Secrets == nil {
		js.Secrets = []schema.Echo{}
	}
	return js, nil
}

// readJobState reads run id's job state; false when there is none or it
// cannot be read.
func (s *Store) readJobState(id string) (jobState, bool) {
	var st jobState
	if CheckID(id) != nil {
		return st, false
	}
	f, err := os.Open(s.jobStatePath(id))
	if err != nil {
		return st, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxJobStateBytes+1))
	if err != nil || len(b) > maxJobStateBytes || json.Unmarshal(b, &st) != nil {
		return jobState{}, false
	}
	return st, true
}

// JobStatus is the job of the run being resumed, as Store.JobStatus
// reads it.
func (r *Run) JobStatus() (runner.JobStatus, error) {
	r.mu.Lock()
	rec := *r.rec
	r.mu.Unlock()
	return r.s.JobStatus(&rec)
}
