// Package runner finds modules, describes and validates them, plans and
// runs invocations with the host's guarantees (WIRE.md §2–§8, §11, §12), and
// verifies and stages their artifacts. It never draws: the UI and the CLI
// render what it returns.
package runner

import (
	"encoding/json"
	"time"

	"modbay/contain"
	"modbay/modproto"
)

// Status is a discovered module's state in the cockpit (WIRE.md §2, §9).
type Status string

// Module statuses.
const (
	// StatusReady: described, valid, every probed requirement available.
	StatusReady Status = "ready"
	// StatusNeedsSetup: valid, but a requirement reports available: false.
	StatusNeedsSetup Status = "needs setup"
	// StatusDisabled: <home>/modules/<id>/.disabled exists; listed, never
	// invoked.
	StatusDisabled Status = "disabled"
	// StatusBroken: describe failed or the descriptor breaks WIRE.md §9.
	StatusBroken Status = "broken"
)

// Module is one discovered module candidate, whatever its status.
type Module struct {
	// ID is the directory id under <home>/modules, or a bare executable's
	// name there. For an extra (cfg.Modules, --module) it is the
	// descriptor's module once described, the executable's base name
	// until then or when describe failed.
	ID string
	// Exe is the absolute path of the executable.
	Exe string
	// Dir is the module's bundle directory (skills/, agents/, README);
	// for a bare executable it is the executable's directory.
	Dir string
	// Origin says where it was found: OriginHome, OriginConfig or
	// OriginFlag ("home", "config", "flag").
	Origin string
	// Descriptor is nil when describe failed.
	Descriptor *modproto.Descriptor
	// Status and Reason: Reason explains a non-ready status in one line.
	Status Status
	Reason string
	// Violations are the descriptor's WIRE.md §9 violations.
	Violations modproto.ValidationErrors
	// Warnings are non-fatal findings (a drifted skill or overlay file, an
	// unprobed requirement, describe warnings).
	Warnings []string
	// Stderr is the describe run's diagnostics (capped).
	Stderr string
	// DescribedAt is when the descriptor was obtained; Cached is true when
	// it came from the describe cache.
	DescribedAt time.Time
	Cached      bool
}

// Plan is everything a call will do, computed before anything runs: the
// request as it will be written, and whether a person must approve it
// (WIRE.md §4, §11). The approval dialog shows a Plan.
type Plan struct {
	Module     *Module
	Capability modproto.Capability
	// Request is complete but for grants that depend on approval: it
	// carries the grants that would be given if the call is approved.
	Request modproto.Request
	// WholeRequest is true when the request schema describes the whole
	// request and the input was placed at the root through Extra.
	WholeRequest bool
	// Approval lists why approval is needed; empty means it is not.
	Approval []string
	// Missing lists declared read roots and binaries the host could not
	// supply (absent from the request, WIRE.md §4).
	Missing []string
}

// NeedsApproval reports whether the plan requires a person's approval.
func (p *Plan) NeedsApproval() bool { return len(p.Approval) > 0 }

// HostError is a host verdict on a run (WIRE.md §5): Code is one of the
// modproto host codes, CodeCancelled or CodePathOutsideRoot.
type HostError struct {
	Code   string
	Detail string
	// Violations lists each broken rule for protocol violations.
	Violations modproto.ValidationErrors
}

// Error implements error.
func (e *HostError) Error() string { return e.Code + ": " + e.Detail }

// VerifiedArtifact is an artifact that passed WIRE.md §8 and was staged
// read-only into the content-addressed store.
type VerifiedArtifact struct {
	modproto.Artifact
	// Source is the absolute path the module wrote.
	Source string
	// Staged is the absolute read-only path in <home>/artifacts.
	Staged string
	// Size is the measured size in bytes.
	Size int64
	// Presentation is the resolved rendering primitive (WIRE.md §10).
	Presentation string
}

// Result is the outcome of one run. Exactly one of Host and Envelope
// decides it: Host set means a host verdict (Envelope may still be set when
// the envelope decoded but was refused); otherwise Envelope is the module's
// valid answer, ok or error.
type Result struct {
	RequestID  string
	Module     string
	Capability string
	Envelope   *modproto.Envelope
	Host       *HostError
	// EffectWarnings are WIRE.md §7 warnings (declared versus actual).
	EffectWarnings modproto.ValidationErrors
	// Artifacts are the verified, staged artifacts (empty when Host is set).
	Artifacts []VerifiedArtifact
	// Stdout is kept only up to the ceiling; Stderr up to StderrCap.
	Stdout []byte
	Stderr string
	// StderrTruncated is true when stderr exceeded StderrCap.
	StderrTruncated bool
	ExitCode        int
	Started         time.Time
	Duration        time.Duration
	// Job is set when a long-running capability returned a job handle and
	// the final state after polling (WIRE.md §12).
	Job *JobStatus
	// Enforcement is what containment applied to the module process,
	// layer by layer (issue 10 §Honesty); for a polled job, the last
	// run's (the final poll, or the handle's when none was polled).
	Enforcement contain.Enforcement
	// HandleEnvelope is set when Job was polled: the envelope of the call
	// that returned the handle (its execution says what starting the job
	// cost). Envelope, Artifacts, Stdout and Stderr are then the final
	// poll's, while RequestID stays the original request's id.
	HandleEnvelope *modproto.Envelope
}

// OK reports whether the run succeeded: no host verdict and ok: true.
func (r *Result) OK() bool { return r.Host == nil && r.Envelope != nil && r.Envelope.OK }

// Code is the outcome code: "" on success, the host code, or the module's
// error code.
func (r *Result) Code() string {
	switch {
	case r.Host != nil:
		return r.Host.Code
	case r.Envelope != nil && r.Envelope.Error != nil:
		return r.Envelope.Error.Code
	}
	return ""
}

// JobStatus is a long-running job's state as last polled (WIRE.md §12).
type JobStatus struct {
	// ID is the job handle's job_id.
	ID string
	// State is the module's state string ("running", "succeeded", ...);
	// see IsTerminalJobState. Empty when the module sent none.
	State string
	// Percent is 0–100 as the module reports it; nil when absent or null.
	Percent *float64
	// Detail is the module's one-line progress text (raw; sanitize to show).
	Detail string
	// Polls counts the polls made so far (0 for the handle itself).
	Polls int
	// Raw is the job object as sent ("job" or the whole result).
	Raw json.RawMessage
}

// Event is something a run reports while in flight, for the UI's live view.
type Event struct {
	RequestID string
	// Stderr is a chunk of the module's stderr (raw; sanitize to show).
	Stderr []byte
	// PID is set once when the process started.
	PID int
	// Job is set after each poll of a long-running job.
	Job *JobStatus
}
