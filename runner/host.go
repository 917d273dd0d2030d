package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"modbay/config"
	"modbay/contain"
	"modbay/modproto"
	"modbay/schema"
)

// ErrApprovalRequired is returned by Run when the plan needs approval and
// none was given; nothing was started (docs/protocol.md §11).
var ErrApprovalRequired = errors.New("approval required: the call was not run")

// ErrDisabled is returned by Plan for a disabled module.
var ErrDisabled = errors.New("module is disabled")

// ErrBroken is returned (wrapped) by Plan for a module whose describe failed
// or whose descriptor breaks docs/protocol.md §9: it is listed, never invoked.
var ErrBroken = errors.New("module is broken")

// ErrUnknownCapability is returned (wrapped) by Plan when the descriptor
// declares no capability with the requested id.
var ErrUnknownCapability = errors.New("unknown capability")

// ErrNotFound is returned (wrapped) by Load when no module has the id.
var ErrNotFound = errors.New("module not found")

// ErrContentRefused is returned (wrapped) by SkillPath and OverlayPath when
// a bundle file is missing, escapes the module directory or does not match
// its declared digest (docs/protocol.md §9: a drifted file is refused).
var ErrContentRefused = errors.New("content refused")

// InputError is returned by Plan when the input does not validate against
// the capability's request schema; nothing was run.
type InputError struct {
	// Schema is the request schema id.
	Schema string
	// Violations has one entry per schema error: Path is the instance
	// location as a JSON pointer ("/name", "" for the root), Detail the
	// rule broken.
	Violations modproto.ValidationErrors
}

// Error implements error.
func (e *InputError) Error() string {
	return "input is invalid against request schema " + e.Schema + ":\n" + e.Violations.Error()
}

// SchemaError is returned by Plan when the capability's request schema
// does not compile (or names a $ref that resolves to nothing): the module's
// descriptor is at fault, nothing was run.
type SchemaError struct {
	// Schema is the request schema id, Capability the capability's.
	Schema, Capability string
	Err                error
	// Unsatisfiable is set when the schema compiles but admits no input
	// (Module.Refused): Err is then the finding, with its JSON pointer.
	Unsatisfiable bool
}

// Error implements error.
func (e *SchemaError) Error() string {
	if e.Unsatisfiable {
		return fmt.Sprintf("request schema %q of %s admits no input, so %s cannot be invoked: %v", e.Schema, e.Capability, e.Capability, e.Err)
	}
	return fmt.Sprintf("request schema %q of %s does not compile: %v", e.Schema, e.Capability, e.Err)
}

// Unwrap returns the compiler's error.
func (e *SchemaError) Unwrap() error { return e.Err }

// Host is modbay's module host for one home and configuration. It is safe
// for concurrent use; set the exported fields before the first call.
type Host struct {
	cfg *config.Config

	// PollInterval is the first wait between polls of a long-running job
	// and PollMaxInterval the longest; each wait doubles the previous one
	// (docs/protocol.md §12). NewHost sets DefaultPollInterval and
	// DefaultPollMaxInterval; tests shrink them.
	PollInterval    time.Duration
	PollMaxInterval time.Duration
	// NoCache makes every describe run afresh, never read from the
	// describe cache (docs/protocol.md §18); a describe that passed still
	// refreshes its entry. The --no-cache flag sets it.
	NoCache bool
	// DescribeExample, when set, answers the describe of a built-in
	// example (id: its module directory's name) in this process instead
	// of starting its launcher. The launchers re-execute this very binary
	// (`modbay example-module <id> module describe --json`), so the
	// envelope is the same bytes, judged the same way, without paying the
	// binary's library init once per example at every start.
	// Invokes still start the launcher, contained. Set it before the first
	// call, only for examples that are this binary's.
	DescribeExample func(id string) []byte

	mu             sync.Mutex
	flagModules    []string // --module paths, origin "flag"
	exampleModules []string // built-in examples, origin "examples"
	extraSources   []Source // AddSource's, after the built-in ones
}

// NewHost returns a host for cfg.
func NewHost(cfg *config.Config) *Host {
	// Runs left behind by a host that was killed outright die now.
	sweepOnce.Do(func() { sweepAbandonedRuns(os.TempDir()) })
	useProbeCache(cfg)
	return &Host{cfg: cfg, PollInterval: DefaultPollInterval, PollMaxInterval: DefaultPollMaxInterval}
}

// Config returns the host's configuration.
func (h *Host) Config() *config.Config { return h.cfg }

// AddFlagModules adds module executables given on the command line
// (--module PATH, docs/protocol.md §2 modbay). Each is an executable or a module
// directory holding <dir>/<basename of dir>; relative paths are made
// absolute against the host's working directory. Discover lists them with
// Origin "flag", after the home's modules and cfg.Modules.
func (h *Host) AddFlagModules(paths ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.flagModules = append(h.flagModules, paths...)
}

// AddExampleModules adds the built-in example modules' directories (each
// holding <dir>/<basename of dir>). Discover lists them with Origin
// "examples" after every other module; their describes are never cached,
// since their launchers live in a directory private to one process.
func (h *Host) AddExampleModules(dirs ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.exampleModules = append(h.exampleModules, dirs...)
}

// Discover finds every module candidate (docs/protocol.md §2) and describes them in
// parallel (cached); broken candidates are returned with their reason,
// never as an error. Sorted by ID.
func (h *Host) Discover(ctx context.Context) []*Module { return h.discover(ctx) }

// Load finds one module by id (in the home or the configured extras) or by
// a path to its executable (any ref containing "/"), and describes it. The
// error is non-nil only when nothing was found (wrapping ErrNotFound); a
// broken or disabled module is returned with its Status and Reason.
func (h *Host) Load(ctx context.Context, ref string) (*Module, error) { return h.load(ctx, ref) }

// Plan builds the request for capability capID of m with input (a JSON
// value; nil means {}), validates input against the request schema
// (*InputError), computes roots, binaries, the grants approval would give,
// and whether approval is needed (docs/protocol.md §4, §11). It creates the state
// directories backing the module's write roots. Errors: ErrDisabled,
// ErrBroken, ErrUnknownCapability (wrapped), *InputError, or a schema that
// does not compile (naming the schema).
func (h *Host) Plan(m *Module, capID string, input json.RawMessage) (*Plan, error) {
	return h.plan(m, capID, input, PlanOptions{})
}

// Run executes the plan (docs/protocol.md §3, §5–§8, §12). approved tells whether a
// person (or --yes, or policy) approved it; a plan that needs approval and
// is not approved returns ErrApprovalRequired and starts nothing. events, if
// non-nil, receives live stderr and job progress (called from the run's
// goroutines). Cancelling ctx kills the whole process tree (outcome
// cancelled). The error is non-nil only when nothing could be attempted
// (approval, a disabled module, a request that cannot be encoded); every
// outcome of a started run is in Result (Host or Envelope).
func (h *Host) Run(ctx context.Context, p *Plan, approved bool, events func(Event)) (*Result, error) {
	return h.run(ctx, p, RunOptions{Approved: approved, Events: events})
}

// RunOptions are what a caller gives a run beyond its plan.
type RunOptions struct {
	// Approved tells whether a person (or --yes, or policy) approved the
	// plan (docs/protocol.md §11).
	Approved bool
	// Events, if non-nil, receives live events (stderr, progress, log
	// lines, the pid, job polls), called from the run's goroutines.
	Events func(Event)
	// Elicit, if non-nil, answers the module's requests to the person in
	// the middle of the call; without it every request is declined.
	Elicit Elicitor
	// Record, if non-nil, receives the raw exchange frame by frame.
	Record Recorder

	// echoes are the run's secrets (maskingOptions): an artifact naming
	// one is refused, a title holding one is masked.
	echoes []schema.Echo
	// writeFrom counts the run's write bound from a job's first call
	// (contain.Spec.WriteFrom).
	writeFrom *contain.WriteStart
}

// RunWith is Run with options: the same guarantees, plus answers to the
// module's questions (opts.Elicit) and a record of the raw exchange
// (opts.Record). Every driver runs through it alike.
func (h *Host) RunWith(ctx context.Context, p *Plan, opts RunOptions) (*Result, error) {
	return h.run(ctx, p, opts)
}
