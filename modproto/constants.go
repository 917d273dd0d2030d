package modproto

// ProtocolID is the protocol a descriptor's protocol_versions must contain
// (docs/protocol.md §1).
const ProtocolID = "xibodev.module/v1"

// Verbs, as they appear in Envelope.Operation and argv (docs/protocol.md §1, §3).
const (
	OperationDescribe = "describe"
	OperationInvoke   = "invoke"
)

// Root modes (docs/protocol.md §4).
const (
	RootReadOnly  = "ro"
	RootReadWrite = "rw"
)

// Defaults the host applies to a request (docs/protocol.md §4).
const (
	// DefaultDeadlineMS is the invoke deadline when none is configured: 3 min.
	DefaultDeadlineMS = 180_000
	// DefaultMaxOutputBytes is the stdout ceiling: 1 MiB.
	DefaultMaxOutputBytes = 1 << 20
)

// Module error codes defined by the protocol (docs/protocol.md §5). Real modules also
// send others (consent_required, unknown_job, ...); show them as they are.
const (
	CodeUnsupportedProtocol = "unsupported_protocol"
	CodeUnknownCapability   = "unknown_capability"
	CodeInvalidRequest      = "invalid_request"
	CodeMissingRequirement  = "missing_requirement"
	CodePermissionDenied    = "permission_denied"
	CodePathOutsideRoot     = "path_outside_root"
	CodeProviderFailure     = "provider_failure"
	CodeTimeout             = "timeout"
	CodeCancelled           = "cancelled"
	CodeInternal            = "internal"
)

// Host outcome codes, produced by the host rather than the module
// (docs/protocol.md §5). CodeCancelled and CodePathOutsideRoot are shared with
// modules.
const (
	CodeHostSpawnFailed       = "host.spawn_failed"
	CodeHostOutputTooLarge    = "host.output_too_large"
	CodeHostTimeout           = "host.timeout"
	CodeHostInvalidJSON       = "host.invalid_json"
	CodeHostProtocolViolation = "host.protocol_violation"
	// CodeHostNoEnvelope: the process exited non-zero (or was killed by a
	// signal) before writing any envelope — a crash, not malformed JSON.
	CodeHostNoEnvelope = "host.no_envelope"
	// CodeHostWriteBound: the run wrote past a write bound of docs/protocol.md
	// §14 (one file's size, or the bytes or files it added to its rw roots
	// and run directory); the detail names it.
	CodeHostWriteBound = "host.write_bound"
	// CodeHostStoreQuota: the artifact store's quota (docs/protocol.md
	// §14) refused the run's artifacts: the host's store is full, no fault
	// of the module's.
	CodeHostStoreQuota = "host.store_quota"
)

// KnownCodes lists the protocol's module error codes in docs/protocol.md order.
var KnownCodes = []string{
	CodeUnsupportedProtocol, CodeUnknownCapability, CodeInvalidRequest,
	CodeMissingRequirement, CodePermissionDenied, CodePathOutsideRoot,
	CodeProviderFailure, CodeTimeout, CodeCancelled, CodeInternal,
}

// hostOwnedKeys are the request keys the host owns; Extra never overrides
// them (docs/protocol.md §4).
var hostOwnedKeys = []string{
	"protocol", "capability", "request_id", "input", "roots", "grants",
	"binaries", "deadline_ms", "max_output_bytes",
}

// IsHostOwnedKey reports whether name is a request key owned by the host
// (docs/protocol.md §4), which Extra can never set.
func IsHostOwnedKey(name string) bool {
	for _, k := range hostOwnedKeys {
		if k == name {
			return true
		}
	}
	return false
}
