package runner

import "time"

// Limits the host enforces on every module process. Each is a constant so
// the guarantees are the same on every machine and visible in one place.
const (
	// DescribeTimeout bounds `module describe --json` (docs/protocol.md §3): a
	// descriptor is static data, so 10 s is generous even for a cold start.
	DescribeTimeout = 10 * time.Second

	// DescribeMaxOutputBytes is the stdout ceiling of a describe, checked
	// as it is read, before anything decodes it. It is larger than the
	// invoke default because a descriptor carries every schema the module
	// knows (facet's, the largest in the test corpora, is 231 KB: this is
	// 17× it) and no request can set it. Decoding costs about 1 s per MiB
	// of a hostile descriptor (an 11 MB one took 10 s and 2 GB of
	// allocations here); past the bound it is refused at once.
	DescribeMaxOutputBytes = 4 << 20

	// StderrCap is how much of a run's stderr is kept, in bytes
	// (docs/protocol.md §3): its first StderrHead bytes (streamed live)
	// and its last StderrCap-StderrHead, where a traceback is. What lies
	// between is read and discarded, so the module never blocks on a full
	// pipe, and counted in a mark (StderrDropMark).
	StderrCap  = 64 << 10
	StderrHead = 48 << 10

	// KillGrace is how long the process tree gets between SIGTERM and
	// SIGKILL (docs/protocol.md §3): long enough to flush a file, short enough that a hung module does not
	// hold the person up.
	KillGrace = 500 * time.Millisecond

	// PipeDrainGrace is cmd.WaitDelay: how long Wait keeps reading stdout
	// and stderr after the module exited. A descendant that escaped the
	// kill and still holds a pipe cannot hang the host past it.
	PipeDrainGrace = time.Second

	// DefaultPollInterval and DefaultPollMaxInterval bound the back-off
	// between polls of a long-running job (docs/protocol.md §12: 1 s to 10 s).
	DefaultPollInterval    = time.Second
	DefaultPollMaxInterval = 10 * time.Second
)

// Internal limits.
const (
	// reapWait bounds how long a kill waits for every killed process to
	// be gone, so Run returns only once the tree is really dead.
	reapWait = 3 * time.Second
	// livenessPoll is how often a kill re-checks /proc while waiting.
	livenessPoll = 10 * time.Millisecond
)
