package runner

import (
	"encoding/json"
	"time"

	"modbay/contain"
	"modbay/modproto"
	"modbay/schema"
)

// Status is a discovered module's state in the cockpit (docs/protocol.md §2, §9).
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
	// StatusBroken: describe failed or the descriptor breaks docs/protocol.md §9.
	StatusBroken Status = "broken"
)

// Module is one discovered module candidate, whatever its status. It has
// three names, each keying something else: ID is the name shown and the
// id the descriptor must declare; Key is where it came from (keys the
// describe cache, list ties, in-session form drafts); StateKey is what it
// may keep (keys its state directory, the input store and pre-approved
// effects). Only ID can be shared by two modules (a --module PATH
// shadowing an installed one); Key and StateKey never are.
type Module struct {
	// ID is the directory id under <home>/modules, or a bare executable's
	// name there; for a module loaded by path (cfg.Modules, --module,
	// invoke PATH) its executable's base name, which its descriptor must
	// declare (docs/protocol.md §13). The host decides it; the module only
	// agrees.
	ID string
	// Key is the module's source identity (Driver.Key): for a process
	// module the absolute path of its executable, for an MCP server
	// "mcp:<config id>". Unlike ID it does not depend on what the module
	// claims, so it keys the describe cache, breaks ties in the list's
	// order (CompareModules) and, with ID, keys the cockpit's in-memory
	// form drafts (ui draftKey).
	Key string
	// StateKey names the module's state directory, <home>/state/<StateKey>
	// (docs/protocol.md §13), derived by the host, never taken from the
	// module: the id for an installed module (its directory's name), an
	// example or an MCP server; config.PathStateKey (id and a digest of
	// the resolved executable path) for a module loaded by path. It also
	// keys what outlives a session: the input store (last input, presets,
	// drafts kept on quit) and the pre-approved effects record. "" for a
	// module never described: it gets no state root.
	StateKey string
	// Shadows, for a --module path, is the source identity (Key) of the
	// module it runs instead of under the same id (an installed one, a
	// configured extra, an example); "" when it shadows none. ShadowNote
	// says it in one line.
	Shadows string
	// Exe is the absolute path of the executable of a process module, ""
	// for other drivers. It is shown to the person, never used as identity.
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
	// Violations are the descriptor's docs/protocol.md §9 violations.
	Violations modproto.ValidationErrors
	// Warnings are non-fatal findings (a drifted skill or overlay file, an
	// unprobed requirement, describe warnings).
	Warnings []string
	// Refused maps a capability id to why no input can satisfy its
	// request schema (a property required but forbidden by
	// additionalProperties: false, a $ref cycle through required
	// properties; schemalint's finding with its JSON pointer). Plan
	// refuses such a capability with a *SchemaError; the module's other
	// capabilities stay invokable. Nil when none is.
	Refused map[string]string
	// Requirements are the descriptor's requirements as modbay judged them
	// at discovery (docs/protocol.md §9), in the descriptor's order; nil when not
	// judged (no descriptor, or a Module built by hand: see
	// RequirementStates).
	Requirements []RequirementState
	// Stderr is the describe run's diagnostics (capped).
	Stderr string
	// DescribedAt is when the descriptor was obtained; Cached is true when
	// it came from the describe cache.
	DescribedAt time.Time
	Cached      bool
	// Fingerprint is what the descriptor was described from
	// (Driver.Fingerprint: for a process module the executable's stat
	// and its directory's listing); "" when the driver gives none (the
	// examples). Host.Changed compares it with the files as they are.
	Fingerprint string
	// EffectsAreHints is true when the capabilities' effects are derived
	// from the source's hints, not declared by the module itself (an MCP
	// server's tool annotations, with MCP's defaults for absent ones).
	// Approval then follows docs/protocol.md §11's rule for MCP tools: an unknown
	// cost does not by itself ask, and each reason says the effect is
	// the server's hint.
	EffectsAreHints bool
	// Driver speaks to the module (Host.Run, Redescribe). A Module built by
	// hand may leave it nil: a ProcessDriver for Exe is used then.
	Driver Driver

	// name is the candidate's provisional id (Candidate.Name) before the
	// descriptor is checked against it, kept for Redescribe.
	name string
	// exeStat is the executable's stat as it was described (its digest
	// beside), for ExeChanged; nil when the driver keeps none.
	exeStat *exeIdentity
}

// RequirementKindBinary is the requirement kind the host resolves itself
// when the descriptor declares the name in permissions.subprocess (docs/protocol.md
// §9).
const RequirementKindBinary = "binary"

// Requirement states (RequirementState.State).
const (
	// RequirementMet: the host resolved the binary, or the module probed
	// it available.
	RequirementMet = "met"
	// RequirementMissing: the host could not resolve the binary, or the
	// module probed it unavailable: the module needs setup.
	RequirementMissing = "missing"
	// RequirementNotProbed: the module omitted available; never called
	// missing (docs/protocol.md §9).
	RequirementNotProbed = "not probed"
)

// RequirementState is one descriptor requirement with modbay's judgement
// of it (docs/protocol.md §9).
type RequirementState struct {
	modproto.Requirement
	// State is RequirementMet, RequirementMissing or RequirementNotProbed.
	State string
	// By says what satisfied a binary the host resolved: its absolute
	// path and where the host found it, "/bin/true (config binaries)" or
	// "/usr/bin/ffmpeg (PATH)"; "" when the module's probe decided.
	By string
	// Problem says why the host could not resolve a declared binary ("not
	// in the config's binaries nor on PATH"); "" otherwise.
	Problem string
}

// RequirementStates is m.Requirements, or, for a module whose
// requirements were not judged by discovery, each requirement as the
// module probed it.
func (m *Module) RequirementStates() []RequirementState {
	if m.Requirements != nil || m.Descriptor == nil {
		return m.Requirements
	}
	out := make([]RequirementState, 0, len(m.Descriptor.Requirements))
	for _, r := range m.Descriptor.Requirements {
		rs := RequirementState{Requirement: r, State: RequirementNotProbed}
		if r.Available != nil {
			rs.State = RequirementMissing
			if *r.Available {
				rs.State = RequirementMet
			}
		}
		out = append(out, rs)
	}
	return out
}

// driver is m's Driver, or a ProcessDriver for Exe when m was built by
// hand without one.
func (m *Module) driver() Driver {
	if m.Driver != nil {
		return m.Driver
	}
	return &ProcessDriver{Exe: m.Exe, Uncached: m.Origin == OriginExamples}
}

// Plan is everything a call will do, computed before anything runs: the
// request as it will be written, and whether a person must approve it
// (docs/protocol.md §4, §11). The approval dialog shows a Plan.
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
	// AskedAgain, when set, is why a call that was approved before is
	// asked again, one line (docs/protocol.md §11): a pre_approved entry or
	// a session approval named this module's id but not this module, or
	// its declared effects changed. Not part of ApprovalKey.
	AskedAgain string
	// Missing lists declared read roots and binaries the host could not
	// supply (absent from the request, docs/protocol.md §4).
	Missing []string

	// Handoff lists the files handed to the run (PlanOptions.Handoff),
	// as placed in their fresh read-only roots; removed when Run ends.
	Handoff []HandedFile

	// Destructive is true when the capability is an MCP tool whose server
	// said destructiveHint: true (not MCP's default): a "for this session"
	// approval of it asks twice.
	Destructive bool
	// ServerRoots are the folders an MCP stdio server was started with
	// (its config entry's roots and cwd), named "server", "server2", … by
	// path, which the server touches instead of the request's roots;
	// empty for a remote server, nil for a module that gets the
	// request's (ServerRooted).
	ServerRoots map[string]modproto.Root
	// NoNetwork is set for an MCP tool that may reach the network on a
	// stdio server started without it: it runs without the network; the
	// text says how to grant it (docs/mcp.md).
	NoNetwork string

	// Unchecked is true when the input was sent anyway, without checking
	// it against the request schema (PlanOptions.SkipValidation: the
	// person's "send anyway"); history records it and screens say so.
	Unchecked bool
	// Echoes are secrets from beyond the input that the run masks as it
	// masks the input's (docs/protocol.md §12): a masked job handle's, for
	// the call that cancels the job (history.PlanCancel).
	Echoes []schema.Echo

	// dirs holds Request.Roots opened as directories when the plan was
	// made; nil for a plan built by hand (Run opens them then).
	dirs rootDirs
	// handoffDir is the run's handoff directory ("" without a handoff).
	handoffDir string
	// approvedEffects is the capability's declared effects (JSON) to
	// record as pre-approved when the run starts ("" for none).
	approvedEffects string
}

// Discard removes what planning made for a run that will not happen (a
// denied approval): today the handoff directory. Run does it itself.
func (p *Plan) Discard() {
	removeHandoff(p.handoffDir)
	p.handoffDir = ""
}

// NeedsApproval reports whether the plan requires a person's approval.
func (p *Plan) NeedsApproval() bool { return len(p.Approval) > 0 }

// HostError is a host verdict on a run (docs/protocol.md §5): Code is one of the
// modproto host codes, CodeCancelled or CodePathOutsideRoot.
type HostError struct {
	Code   string
	Detail string
	// Violations lists each broken rule for protocol violations.
	Violations modproto.ValidationErrors
}

// Error implements error.
func (e *HostError) Error() string { return e.Code + ": " + e.Detail }

// VerifiedArtifact is an artifact that passed docs/protocol.md §8 and was staged
// read-only into the content-addressed store.
type VerifiedArtifact struct {
	modproto.Artifact
	// Source is the absolute path the module wrote; "" for a content
	// block, whose run directory is removed once it is staged.
	Source string
	// Staged is the absolute read-only path in <home>/artifacts.
	Staged string
	// Size is the measured size in bytes.
	Size int64
	// Presentation is the resolved rendering primitive (docs/protocol.md §10).
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
	// EffectWarnings are docs/protocol.md §7 warnings (declared versus actual).
	EffectWarnings modproto.ValidationErrors
	// Artifacts are the verified, staged artifacts: all of them on
	// success; with Host set, those that passed when others were refused
	// (Refused), else none.
	Artifacts []VerifiedArtifact
	// Refused are the reported artifacts that failed verification
	// (docs/protocol.md §8), in execution.artifacts order; their failure
	// is Host's verdict.
	Refused []RefusedArtifact
	// Beside is the reply's fields beside the result (Reply.Beside), nil
	// when there are none. Module text: sanitize to show.
	Beside json.RawMessage
	// Stdout is kept only up to the ceiling; Stderr up to StderrCap.
	Stdout []byte
	Stderr string
	// StderrTruncated is true when stderr exceeded StderrCap.
	StderrTruncated bool
	ExitCode        int
	// Signal names the signal that ended the process ("SIGKILL"); "" when
	// it exited or there was no process.
	Signal   string
	Started  time.Time
	Duration time.Duration
	// Job is set when a long-running capability returned a job handle and
	// the final state after polling (docs/protocol.md §12).
	Job *JobStatus
	// Enforcement is what containment applied to the module process,
	// layer by layer; for a polled job, the last
	// run's (the final poll, or the handle's when none was polled).
	Enforcement contain.Enforcement
	// HandleEnvelope is set when Job was polled: the envelope of the call
	// that returned the handle (its execution says what starting the job
	// cost). Envelope, Artifacts, Stdout and Stderr are then the final
	// poll's, while RequestID stays the original request's id.
	HandleEnvelope *modproto.Envelope
	// LikelyCause, on a failed run, is a cause the host can see, inferred
	// from the module's own words (LikelyCause: a write containment likely
	// refused, a missing program); "" when nothing suggests one. Module
	// text: sanitize to show.
	LikelyCause string
	// Masked are the numbers of the reply the host keeps typed (the
	// execution's costs) that held a secret of the input
	// (docs/protocol.md §4): withheld, nil in the envelope, each named
	// with the mask shown in its place.
	Masked []MaskedNumber
	// writeStart is what a job's polls count their writes from
	// (Reply.WriteStart of the call that returned the handle).
	writeStart *contain.WriteStart
	// stagedJournal is the run's staging journal (stageBudget.note), until
	// ReleaseStaged.
	stagedJournal string
}

// MaskedNumber is one number withheld for the secret it held.
type MaskedNumber struct {
	// Pointer is where it was in the reply: "/execution/actual_cost",
	// "/handle/execution/estimated_cost" (the envelope that returned a
	// job's handle).
	Pointer string `json:"pointer"`
	// Label is the mask: "‹masked: writeOnly /pin›".
	Label string `json:"label"`
}

// MaskedAt is the mask of the number at pointer, when it was withheld.
func (r *Result) MaskedAt(pointer string) (label string, ok bool) {
	for _, m := range r.Masked {
		if m.Pointer == pointer {
			return m.Label, true
		}
	}
	return "", false
}

// RefusedArtifact is a reported artifact the host refused, and why.
type RefusedArtifact struct {
	// ID is the artifact's id as reported (module text: sanitize).
	ID string
	// Reason is the rule it broke, one line.
	Reason string
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

// JobStatus is a long-running job's state as last polled (docs/protocol.md §12).
type JobStatus struct {
	// ID is the job handle's job_id.
	ID string
	// State is the module's state string ("running", "succeeded", ...);
	// see IsTerminalJobState. Empty when the module sent none.
	State string
	// Percent is 0–100 as the module reports it; nil when absent, null,
	// outside 0–100 or holding a secret of the input (the raw status
	// keeps what was sent, masked).
	Percent *float64
	// Detail is the module's one-line progress text (raw; sanitize to show).
	Detail string
	// Polls counts the polls made so far (0 for the handle itself).
	Polls int
	// Raw is the job object as sent ("job" or the whole result).
	Raw json.RawMessage
	// Handle, set only when ID carries a secret of the input and so is
	// masked (docs/protocol.md §12), is the job_id as the module sent it:
	// polls and cancels send it; never show or record it beyond the
	// host's job state. Secrets are the input's secrets, which the polls
	// of a job resumed later mask (kept in the host's job state too).
	Handle  string        `json:"-"`
	Secrets []schema.Echo `json:"-"`
}

// PollID is the job_id a poll or a cancel sends: Handle when ID is
// masked, else ID.
func (j *JobStatus) PollID() string {
	if j.Handle != "" {
		return j.Handle
	}
	return j.ID
}

// Event is something a run reports while in flight, for the UI's live view.
// One field besides RequestID is set per event.
type Event struct {
	// RequestID is the request the event belongs to (a job's polls report
	// under the original request's id).
	RequestID string
	// Stderr is a chunk of the module's stderr (raw; sanitize to show).
	Stderr []byte
	// PID is set once when the process started.
	PID int
	// Job is set after each poll of a long-running job.
	Job *JobStatus
	// Progress is set when the module reported progress during the call
	// (an MCP progress notification).
	Progress *Progress
	// Log is set when the module sent a log line (an MCP log message).
	Log *LogLine
	// Staging is set once the module has answered and its envelope
	// passed: the host is checking and staging its artifacts (the
	// count; docs/protocol.md §8).
	Staging *int
}

// Progress is a module's progress report during one call.
type Progress struct {
	// Percent is 0–100 when the module gave a total; nil otherwise.
	Percent *float64
	// Message is the module's one-line progress text (raw; sanitize to
	// show).
	Message string
}

// LogLine is one log message a module sent during a call.
type LogLine struct {
	// Level is the module's level name ("debug", "info", "warning",
	// "error", ...), as sent.
	Level string
	// Text is the message (raw; sanitize to show).
	Text string
}
