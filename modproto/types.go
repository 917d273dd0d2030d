package modproto

import "encoding/json"

// Descriptor is what `module describe --json` returns as the envelope's
// result: a module's identity, capabilities, schemas, knowledge and needs.
// docs/protocol.md §9 lists the rules it must satisfy (see ValidateDescriptor).
type Descriptor struct {
	// Module is the stable module id; it must equal the directory id the
	// module was discovered under (docs/protocol.md §2).
	Module string `json:"module"`
	// Name is the human-readable display name.
	Name string `json:"name"`
	// Version is the module's own release version.
	Version string `json:"version"`
	// ProtocolVersions must contain ProtocolID (membership, not negotiation).
	ProtocolVersions []string `json:"protocol_versions"`
	// Capabilities are the invocable operations, ids unique.
	Capabilities []Capability `json:"capabilities"`
	// RequestSchemas, ResultSchemas and ArtifactSchemas map a schema id to a
	// JSON Schema document (each must be a JSON object).
	RequestSchemas  map[string]json.RawMessage `json:"request_schemas"`
	ResultSchemas   map[string]json.RawMessage `json:"result_schemas"`
	ArtifactSchemas map[string]json.RawMessage `json:"artifact_schemas"`
	// AgentOverlays are module-authored instruction documents.
	AgentOverlays []Overlay `json:"agent_overlays"`
	// Skills are progressively loadable module knowledge documents.
	Skills []Skill `json:"skills"`
	// Permissions is what the module asks for; never a grant.
	Permissions Permissions `json:"permissions"`
	// Requirements are external preconditions surfaced as "needs setup".
	Requirements []Requirement `json:"requirements"`
}

// Capability is one invocable operation of a module.
type Capability struct {
	// ID is passed to `module invoke <id>`.
	ID string `json:"id"`
	// Title and Summary are cockpit-facing copy; Summary is one line.
	Title   string `json:"title"`
	Summary string `json:"summary"`
	// RequestSchema and ResultSchema are ids into the descriptor's schema
	// maps; empty means "no schema". RequestSchema describes Request.Input,
	// except for whole-request schemas (docs/protocol.md §4).
	RequestSchema string `json:"request_schema"`
	ResultSchema  string `json:"result_schema"`
	// ArtifactSchemas lists the artifact kinds this capability may produce;
	// an artifact of any other kind is a hard failure (docs/protocol.md §7).
	ArtifactSchemas []string `json:"artifact_schemas"`
	// Effects is what invoking does, declared before running; it drives
	// approval (docs/protocol.md §11).
	Effects Effects `json:"effects"`
	// Skills lists skill ids relevant to this capability.
	Skills []string `json:"skills"`
	// LongRunning marks a capability that may return a job handle, polled by
	// PollCapability (docs/protocol.md §9: LongRunning ⇔ PollCapability set).
	LongRunning    bool   `json:"long_running"`
	PollCapability string `json:"poll_capability,omitempty"`
	// CancelCapability, a modbay extension (docs/protocol.md §12), names the
	// capability that cancels a job of this one: input {"job_id": ...},
	// answering like a poll. Empty: stopping a job only stops watching it.
	CancelCapability string `json:"cancel_capability,omitempty"`
	// Hidden, a modbay extension (docs/protocol.md §17), keeps a capability
	// out of the forms and the agent tool list; it stays invocable.
	Hidden bool `json:"hidden,omitempty"`
}

// Effects declares what a capability does. CostKnown means only "a numeric
// monetary cost is known"; it does not mean "may spend money".
type Effects struct {
	Local          bool   `json:"local"`
	Network        bool   `json:"network"`
	ExternalWrites bool   `json:"external_writes"`
	Provider       string `json:"provider"`
	CostKnown      bool   `json:"cost_known"`
}

// Envelope is the one JSON object a module prints on stdout for describe and
// invoke. docs/protocol.md §6 lists its rules (see ValidateEnvelope).
type Envelope struct {
	Protocol string `json:"protocol"`
	Module   string `json:"module"`
	// Operation is the verb that was run: OperationDescribe or
	// OperationInvoke, never a capability id.
	Operation string `json:"operation"`
	// RequestID echoes the request's id verbatim on invoke.
	RequestID string `json:"request_id"`
	OK        bool   `json:"ok"`
	// Result is present when OK; Error is present when not.
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
	// Warnings is always an array, never null.
	Warnings []string `json:"warnings"`
	// Execution reports what the call actually did, present even on failure.
	Execution Execution `json:"execution"`

	// seen records which keys the decoded JSON carried; nil for an envelope
	// built in Go, which counts as carrying every key.
	seen map[string]json.RawMessage
}

// Error is a module's structured failure.
type Error struct {
	// Code is stable and machine-readable; route on it, never on Message.
	Code string `json:"code"`
	// Message is human-readable (sanitize before display: modules are
	// untrusted).
	Message string `json:"message"`
	// Retryable tells whether retrying unchanged could succeed.
	Retryable bool `json:"retryable"`
	// Details is bounded structured context; must be an object.
	Details map[string]any `json:"details"`

	// detailsNotObject is set by UnmarshalJSON when "details" was absent or
	// not a JSON object.
	detailsNotObject bool
}

// Execution reports what an invocation actually did.
type Execution struct {
	Local          bool   `json:"local"`
	Network        bool   `json:"network"`
	ExternalWrites bool   `json:"external_writes"`
	Provider       string `json:"provider"`
	// EstimatedCost and ActualCost: nil means unknown, 0 means free. The two
	// are never turned into each other (docs/protocol.md §6).
	EstimatedCost *float64 `json:"estimated_cost"`
	ActualCost    *float64 `json:"actual_cost"`
	// Artifacts point at produced files (docs/protocol.md §8).
	Artifacts []Artifact `json:"artifacts"`
}

// Artifact points at a file a module produced under one of its rw roots.
type Artifact struct {
	ID string `json:"id"`
	// Kind is an artifact schema id the capability declared.
	Kind string `json:"kind"`
	// Path is relative to the root named by Root (a name supplied to this
	// run, mode rw).
	Path string `json:"path"`
	Root string `json:"root"`
	// Presentation optionally names a rendering primitive (docs/protocol.md §10).
	Presentation string `json:"presentation,omitempty"`
	// MediaType, Bytes and Digest ("sha256:<64 lowercase hex>") let the host
	// render, budget and verify. Bytes 0 means "not stated".
	MediaType string `json:"media_type"`
	Bytes     int64  `json:"bytes"`
	Digest    string `json:"digest"`
	Title     string `json:"title,omitempty"`
}

// Grants are the permissions actually authorized for one invocation.
type Grants struct {
	Network       []string `json:"network"`
	Credentials   []string `json:"credentials"`
	PaidProviders []string `json:"paid_providers"`
	Publish       bool     `json:"publish"`
	Subprocess    []string `json:"subprocess"`
}

// Normalizer is implemented by every type whose nil lists and maps must be
// sent as [] and {} (docs/protocol.md §4, §9).
type Normalizer interface {
	Normalize()
}

// Overlay is a module-authored instruction document, relative to the module
// directory, with a digest the host checks.
type Overlay struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Path   string `json:"path"`
	Digest string `json:"digest"`
	// Tokens is the module's estimate of the context cost.
	Tokens int `json:"tokens"`
}

// Permissions is what a module declares it may need: a request, never a
// grant. Filesystem entries are logical root names, not paths.
type Permissions struct {
	FilesystemRead  []string `json:"filesystem_read"`
	FilesystemWrite []string `json:"filesystem_write"`
	Network         []string `json:"network"`
	Credentials     []string `json:"credentials"`
	PaidProviders   []string `json:"paid_providers"`
	Publish         bool     `json:"publish"`
	Subprocess      []string `json:"subprocess"`
}

// Request is what the host writes to the request file of an invoke
// (docs/protocol.md §4). Extra is flattened at the JSON root; host-owned keys win.
type Request struct {
	Protocol   string `json:"protocol"`
	Capability string `json:"capability"`
	RequestID  string `json:"request_id"`
	// Input is what the capability's request schema describes.
	Input json.RawMessage `json:"input"`
	// Roots maps logical root names to absolute clean paths and modes.
	Roots map[string]Root `json:"roots"`
	// Grants are the permissions authorized for this call.
	Grants Grants `json:"grants"`
	// Binaries maps declared subprocess names to resolved absolute paths;
	// unresolved names are absent.
	Binaries map[string]string `json:"binaries"`
	// DeadlineMS is the wall-clock budget in milliseconds.
	DeadlineMS int `json:"deadline_ms"`
	// MaxOutputBytes is the stdout ceiling in bytes.
	MaxOutputBytes int `json:"max_output_bytes"`
	// Extra holds additional root-level fields for modules that read
	// arguments beside Input; marshalled inline, never overriding a
	// host-owned key.
	Extra map[string]json.RawMessage `json:"-"`
}

// Requirement is an external precondition of a module.
type Requirement struct {
	// Kind is "binary", "version", "config" or "env".
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Available is the module's own probe result; nil means the module did
	// not probe it (docs/protocol.md §9: say so, don't call it missing).
	Available *bool `json:"available,omitempty"`
	// Detail says what is missing and how to satisfy it.
	Detail string `json:"detail,omitempty"`
}

// Root is one filesystem root supplied to a run.
type Root struct {
	// Path is absolute and clean.
	Path string `json:"path"`
	// Mode is RootReadOnly or RootReadWrite.
	Mode string `json:"mode"`
}

// Skill is a module knowledge document, relative to the module directory.
type Skill struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Summary string `json:"summary"`
	Path    string `json:"path"`
	// Digest is "sha256:<lowercase-hex>" over the file contents.
	Digest string `json:"digest"`
	// Tokens is the module's estimate of the context cost.
	Tokens int `json:"tokens"`
}

// ValidationError is one broken rule: Path locates the offending value
// (e.g. "capabilities[2].poll_capability") and Detail names the rule.
type ValidationError struct {
	Path   string
	Detail string
}

// Error implements error as "path: detail".
func (e ValidationError) Error() string {
	if e.Path == "" {
		return e.Detail
	}
	return e.Path + ": " + e.Detail
}

// ValidationErrors is every violation found, in a stable order.
type ValidationErrors []ValidationError

// Error joins all violations, one per line.
func (es ValidationErrors) Error() string {
	s := ""
	for i, e := range es {
		if i > 0 {
			s += "\n"
		}
		s += e.Error()
	}
	return s
}

// Err returns es as an error, or nil when there are no violations.
func (es ValidationErrors) Err() error {
	if len(es) == 0 {
		return nil
	}
	return es
}
