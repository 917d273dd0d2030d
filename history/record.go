package history

import (
	"encoding/json"
	"strings"
	"time"

	"modbay/contain"
	"modbay/modproto"
	"modbay/runner"
)

// RecordVersion is the version of the record format written.
const RecordVersion = 1

// Status is a run's state in the history.
type Status string

// Run statuses.
const (
	// StatusRunning: the run has started and no outcome is recorded yet
	// (a job being polled is running too).
	StatusRunning Status = "running"
	// StatusDetached: a long-running job whose polling stopped before it
	// reached a terminal state (ctrl+c, quit, the poll budget); the job
	// goes on in the module and `modbay jobs wait` resumes polling it.
	StatusDetached Status = "detached"
	// StatusInterrupted: recorded as running, but no process holds the
	// run's lock any more: the process recording it died (kill -9, a
	// crash). Never written: List and Get derive it.
	StatusInterrupted Status = "interrupted"
	// StatusOK: the module answered ok and the host accepted it.
	StatusOK Status = "ok"
	// StatusError: the module answered with an error (or its job ended
	// failed).
	StatusError Status = "error"
	// StatusFailed: a host verdict (docs/protocol.md §5: spawn, invalid JSON,
	// protocol violation, timeout, output too large, artifact refused).
	StatusFailed Status = "failed"
	// StatusCancelled: the person cancelled the run, or its job ended
	// cancelled.
	StatusCancelled Status = "cancelled"
	// StatusDenied: the call's approval was denied (in the cockpit, or
	// for an agent's call); nothing ran. Its verdict starts DeniedDetail.
	StatusDenied Status = "denied"
)

// Statuses lists every status, for filters and their help.
var Statuses = []Status{StatusRunning, StatusDetached, StatusInterrupted, StatusOK, StatusError, StatusFailed, StatusCancelled, StatusDenied}

// Sources of a run (Record.Source).
const (
	SourceCockpit = "cockpit"
	SourceInvoke  = "invoke"
	SourceRerun   = "rerun"
	// SourceMCPServe is a call an MCP client made through `modbay mcp
	// serve` (docs/gateway.md); Record.Client names the client.
	SourceMCPServe = "mcp serve"
)

// Sources lists every source, for filters and their help.
var Sources = []string{SourceCockpit, SourceInvoke, SourceRerun, SourceMCPServe}

// SourceWord is source as one filter word: spaces as "-" ("mcp-serve").
func SourceWord(source string) string { return strings.ReplaceAll(source, " ", "-") }

// Bounds of what a record keeps.
const (
	// StderrTailBytes is how much of the end of a run's stderr a record
	// keeps: the lines that explain a failure, not a log archive.
	StderrTailBytes = 16 << 10
	// StdoutKeepBytes bounds the raw stdout kept when no envelope decoded
	// (the bytes a protocol-violation report needs).
	StdoutKeepBytes = 64 << 10
	// inputDigestBytes bounds the input text the index keeps for search.
	inputDigestBytes = 160
	// errorDigestBytes bounds the error message the index keeps for
	// search and the history's detail pane.
	errorDigestBytes = 240
)

// Record is one run as the history keeps it. Strings from the module are
// kept raw: sanitize them before a terminal.
type Record struct {
	Version int `json:"version"`
	// RunID is the request's request_id.
	RunID      string `json:"run_id"`
	Module     string `json:"module"`
	Capability string `json:"capability"`
	// ModuleExe is the module's executable when it has one, so a later
	// process can find a module given by path (--module).
	ModuleExe string `json:"module_exe,omitempty"`
	// ModuleRef is how the line that repeats the run names the module
	// (runner.ModuleRef): a module loaded by path by its path, so the line
	// never runs an installed module that has its id (docs/protocol.md §13);
	// "" in records written before it, which name the module by id.
	ModuleRef string `json:"module_ref,omitempty"`
	// Repeat are the global flags the line that repeats the run carries
	// (runner.Globals: home, workspace, examples); zero in records
	// written before it.
	Repeat runner.Globals `json:"repeat,omitzero"`
	// Source is SourceCockpit, SourceInvoke or SourceRerun; RerunOf the
	// run a re-run repeats.
	Source  string `json:"source"`
	RerunOf string `json:"rerun_of,omitempty"`
	Status  Status `json:"status"`
	// Code is the outcome code: the host's or the module's error code, ""
	// on success; Kind its failure kind (docs/protocol.md §15).
	Code   string `json:"code,omitempty"`
	Kind   string `json:"kind,omitempty"`
	Pinned bool   `json:"pinned,omitempty"`
	// Started and Finished bound the run (Finished zero while running);
	// DurationMS is their difference in milliseconds.
	Started    time.Time `json:"started"`
	Finished   time.Time `json:"finished,omitzero"`
	DurationMS int64     `json:"duration_ms"`

	// Input is the input as sent (for a whole-request schema, the object
	// the person gave), with secret fields replaced by schema.Mask;
	// nil when InputRecorded is false (config history.record_inputs).
	Input         json.RawMessage `json:"input,omitempty"`
	InputRecorded bool            `json:"input_recorded"`
	// InputNote, when InputRecorded is false for another reason than the
	// config (a refused call's input over MaxRefusedInput), says why
	// (NoInputWhy).
	InputNote string `json:"input_note,omitempty"`
	// Redacted lists the JSON pointers of the secret fields not stored.
	Redacted []string `json:"redacted,omitempty"`
	// Roots, Grants, Binaries, DeadlineMS and MaxOutputBytes are the
	// request's (docs/protocol.md §4).
	Roots          map[string]modproto.Root `json:"roots"`
	Grants         modproto.Grants          `json:"grants"`
	Binaries       map[string]string        `json:"binaries,omitempty"`
	DeadlineMS     int                      `json:"deadline_ms"`
	MaxOutputBytes int                      `json:"max_output_bytes"`
	// Approval lists why approval was asked (empty: not needed, or
	// pre-approved by policy); Approved says it was asked and given (a
	// person, --yes, a session's allow, an agent's client): false when
	// nothing was asked.
	Approval []string `json:"approval,omitempty"`
	Approved bool     `json:"approved"`
	// ApprovedBy says who gave the approval when it was not the person
	// at modbay's own prompt ("<client>'s elicitation"); "" otherwise.
	ApprovedBy string `json:"approved_by,omitempty"`
	// Client is the MCP client as it declared itself (sanitized and
	// bounded by the gateway), for SourceMCPServe; "" otherwise.
	Client string `json:"client,omitempty"`

	// Envelope is the module's (final) envelope as the host judged it;
	// HandleEnvelope the envelope that returned a job's handle.
	Envelope       json.RawMessage `json:"envelope,omitempty"`
	HandleEnvelope json.RawMessage `json:"handle_envelope,omitempty"`
	// Beside is what the reply sent beside the envelope's result
	// (runner.Result.Beside: an MCP result's content entries and _meta
	// when structuredContent is the result).
	Beside json.RawMessage `json:"beside,omitempty"`
	// Stdout is the raw reply, kept (up to StdoutKeepBytes) only when no
	// envelope decoded.
	Stdout string `json:"stdout,omitempty"`
	// Host is the host's verdict, nil when the module's answer stood.
	Host *Verdict `json:"host_verdict,omitempty"`
	// EffectWarnings are docs/protocol.md §7 warnings, "path: detail".
	EffectWarnings []string `json:"effect_warnings,omitempty"`
	// Masked are the envelopes' numbers withheld (null there) for the
	// secret each held (runner.Result.Masked).
	Masked []runner.MaskedNumber `json:"masked_numbers,omitempty"`
	// Enforcement is what containment applied (runner.Result.Enforcement).
	Enforcement *contain.Enforcement `json:"enforcement,omitempty"`
	// StderrTail is the last StderrTailBytes of stderr; StderrCut says
	// earlier bytes were dropped (by the runner's cap or by this tail).
	StderrTail string `json:"stderr_tail,omitempty"`
	StderrCut  bool   `json:"stderr_cut,omitempty"`
	ExitCode   int    `json:"exit_code"`
	// Signal names the signal that ended the process ("SIGKILL"), when one did.
	Signal string `json:"signal,omitempty"`
	// Artifacts reference the verified artifacts staged read-only in the
	// artifact store (docs/protocol.md §8); the store keeps the bytes.
	Artifacts []Artifact `json:"artifacts,omitempty"`
	// Job is a long-running job's handle and last state (docs/protocol.md §12).
	Job *Job `json:"job,omitempty"`
	// Cancel is the outcome of stopping the job, when someone did.
	Cancel *CancelOutcome `json:"cancel,omitempty"`
	// Handoff lists the artifacts of other runs handed to this one:
	// where each came from and where it was put.
	Handoff []Handed `json:"handoff,omitempty"`
	// SentUnchecked is true when the person sent the input anyway, not
	// checked against the request schema (runner.Plan.Unchecked).
	SentUnchecked bool `json:"sent_unchecked,omitempty"`
}

// Handed is one artifact handed to a run, as recorded: the read root
// that received it, its path relative to that root, and where it came
// from ("RUN:ARTIFACT_ID").
type Handed struct {
	Root   string `json:"root"`
	Rel    string `json:"rel"`
	Origin string `json:"origin"`
	Digest string `json:"digest,omitempty"`
}

// Verdict is a host verdict (runner.HostError) as recorded.
type Verdict struct {
	Code       string   `json:"code"`
	Detail     string   `json:"detail"`
	Violations []string `json:"violations,omitempty"`
}

// Artifact is a staged artifact as recorded: the module's declaration and
// where the host staged it.
type Artifact struct {
	modproto.Artifact
	// Staged is the absolute read-only path in <home>/artifacts.
	Staged string `json:"staged"`
	// Size is the measured size in bytes.
	Size int64 `json:"size"`
	// Presentation is the resolved rendering primitive (docs/protocol.md §10).
	Presentation string `json:"resolved_presentation"`
}

// Job is a long-running job as recorded (docs/protocol.md §12).
type Job struct {
	// ID is the handle's job_id, masked when it holds a secret of the
	// input (then Masked is set and the handle is in the host's job state,
	// Store.JobStatus; docs/protocol.md §12).
	ID     string `json:"job_id"`
	Masked bool   `json:"masked,omitempty"`
	State  string `json:"state,omitempty"`
	// Percent is 0–100 as last reported; nil when not reported.
	Percent *float64 `json:"percent,omitempty"`
	Detail  string   `json:"detail,omitempty"`
	Polls   int      `json:"polls"`
	// PollCapability and CancelCapability are the capability's, as
	// declared when the job started ("" CancelCapability: none).
	PollCapability   string `json:"poll_capability"`
	CancelCapability string `json:"cancel_capability,omitempty"`
	// Updated is when the state was last recorded.
	Updated time.Time `json:"updated"`
}

// Terminal reports whether the job's last state ends it (docs/protocol.md §12).
func (j *Job) Terminal() bool { return j != nil && runner.IsTerminalJobState(j.State) }

// CancelOutcome records an attempt to stop a job.
type CancelOutcome struct {
	At time.Time `json:"at"`
	// Via is the cancel_capability called; "" when none is declared and
	// modbay only stopped watching.
	Via string `json:"via,omitempty"`
	// OK says the module accepted the cancel; Code and Detail say why not.
	OK     bool   `json:"ok"`
	Code   string `json:"code,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// Resumable reports whether the record is a job that polling may resume:
// it has a handle, its last state is not terminal, and no outcome ends it.
func (r *Record) Resumable() bool {
	if r.Job == nil || r.Job.Terminal() {
		return false
	}
	switch r.Status {
	case StatusRunning, StatusDetached, StatusInterrupted:
		return true
	}
	return false
}

// Summary is a run's line in the index: what the history list shows,
// filters and searches on without reading the record.
type Summary struct {
	RunID      string    `json:"id"`
	Module     string    `json:"m"`
	Capability string    `json:"c"`
	Status     Status    `json:"s"`
	Code       string    `json:"code,omitempty"`
	Source     string    `json:"src,omitempty"`
	Started    time.Time `json:"t"`
	DurationMS int64     `json:"ms"`
	Pinned     bool      `json:"pin,omitempty"`
	// JobID is the job's handle, "" for a run without one; JobState and
	// JobPercent its last reported state.
	JobID      string   `json:"job,omitempty"`
	JobState   string   `json:"js,omitempty"`
	JobPercent *float64 `json:"jp,omitempty"`
	// Input is the start of the recorded (redacted) input, for search.
	Input string `json:"in,omitempty"`
	// Error is the start of the outcome's error message (the host's
	// verdict detail, else the module's error message), raw: sanitize it
	// before a terminal; "" for a run without one or a record indexed
	// before it was kept.
	Error string `json:"err,omitempty"`
	// Bytes is the record's size on disk.
	Bytes int64 `json:"b"`
}

// summary is r's index line; n is the record's size in bytes.
func (r *Record) summary(n int64) Summary {
	s := Summary{RunID: r.RunID, Module: r.Module, Capability: r.Capability, Status: r.Status, Code: r.Code,
		Source: r.Source, Started: r.Started, DurationMS: r.DurationMS, Pinned: r.Pinned, Bytes: n}
	if r.Job != nil {
		s.JobID, s.JobState, s.JobPercent = r.Job.ID, r.Job.State, r.Job.Percent
	}
	if len(r.Input) > 0 {
		in := string(r.Input)
		if len(in) > inputDigestBytes {
			in = in[:inputDigestBytes]
		}
		s.Input = in
	}
	s.Error = r.errorMessage()
	if len(s.Error) > errorDigestBytes {
		s.Error = strings.ToValidUTF8(s.Error[:errorDigestBytes], "")
	}
	return s
}

// errorMessage is the outcome's error message: the host's verdict
// detail, else the module's envelope's error message; "" for neither.
func (r *Record) errorMessage() string {
	if r.Host != nil && r.Host.Detail != "" {
		return r.Host.Detail
	}
	if len(r.Envelope) == 0 || r.Status == StatusOK {
		return ""
	}
	var env struct {
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(r.Envelope, &env) != nil || env.Error == nil {
		return ""
	}
	return env.Error.Message
}
