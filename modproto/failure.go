package modproto

// FailureKind is the coarse class of a failed call, the same word in
// `invoke --json`, history, the cockpit and the MCP gateway's tool errors
// (docs/protocol.md §15). It is derived from the error code, never sent by
// a module.
type FailureKind string

// The failure kinds, after the tool vocabulary modbay follows.
const (
	// KindAuthz: the call was not allowed (a grant, a consent, a policy).
	KindAuthz FailureKind = "authz"
	// KindValidation: the input or request broke a rule the caller can fix.
	KindValidation FailureKind = "validation"
	// KindNotFound: what the call named does not exist (a capability, a job).
	KindNotFound FailureKind = "not_found"
	// KindConflict: the call collides with state (a job already finished).
	KindConflict FailureKind = "conflict"
	// KindExternal: a provider, the network or a deadline outside the host.
	KindExternal FailureKind = "external"
	// KindNotRun: the host did not run the call (approval denied or
	// required, cancelled before start, a bound of the host).
	KindNotRun FailureKind = "not_run"
	// KindSystem: the module or the host failed (a crash, a protocol
	// violation, a missing requirement).
	KindSystem FailureKind = "system"
)

// failureKinds is the one table of docs/protocol.md §15: error code → kind.
// Codes not listed are KindSystem.
var failureKinds = map[string]FailureKind{
	CodeUnsupportedProtocol:   KindSystem,
	CodeUnknownCapability:     KindNotFound,
	CodeInvalidRequest:        KindValidation,
	CodeMissingRequirement:    KindSystem,
	CodePermissionDenied:      KindAuthz,
	CodePathOutsideRoot:       KindAuthz,
	CodeProviderFailure:       KindExternal,
	CodeTimeout:               KindExternal,
	CodeCancelled:             KindNotRun,
	CodeInternal:              KindSystem,
	"consent_required":        KindAuthz,
	"unknown_job":             KindNotFound,
	"input_not_found":         KindNotFound,
	"missing_root":            KindSystem,
	"conflict":                KindConflict,
	"already_exists":          KindConflict,
	CodeHostSpawnFailed:       KindSystem,
	CodeHostOutputTooLarge:    KindSystem,
	CodeHostTimeout:           KindExternal,
	CodeHostInvalidJSON:       KindSystem,
	CodeHostProtocolViolation: KindSystem,
	CodeHostNoEnvelope:        KindSystem,
	CodeHostWriteBound:        KindSystem,
	CodeHostStoreQuota:        KindSystem,
	"host.not_started":        KindNotRun,
	// An MCP server's JSON-RPC error answer.
	"host.mcp_error": KindSystem,
	// The gateway's own: a person denied the call, an approval still
	// pending, a job whose capability cannot cancel it.
	"denied":               KindAuthz,
	"approval_pending":     KindNotRun,
	"no_cancel_capability": KindNotRun,
}

// KnownCode reports whether code is in docs/protocol.md §15's table.
func KnownCode(code string) bool {
	_, ok := failureKinds[code]
	return ok
}

// KindOf returns the failure kind of an error code (docs/protocol.md §15);
// an unknown code is KindSystem.
func KindOf(code string) FailureKind {
	if k, ok := failureKinds[code]; ok {
		return k
	}
	return KindSystem
}
