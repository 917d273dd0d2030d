package runner

import (
	"context"
	"encoding/json"
	"time"

	"modbay/contain"
	"modbay/modproto"
	"modbay/schema"
)

// Driver speaks to one module on the host's behalf: a process started per
// call (ProcessDriver), or one long-lived session (an MCP server). Host
// meets every module through this interface alone: planning, policy, approval, grants,
// envelope and artifact checks and staging stay in Host, whatever the
// driver. A Driver carries transport, never judgement: it returns bytes as
// received and Host decides what they mean.
//
// A Driver must be safe for concurrent use: Host may describe and invoke
// through one driver from several goroutines.
type Driver interface {
	// Key is the module's source identity, stable across describes and
	// independent of the id the module claims: for a process, the
	// absolute path of its executable; for an MCP server, its config id
	// ("mcp:<id>"). Host sorts by it after the id, keys the describe cache
	// on it, and the cockpit keys drafts on it (see Module.Key).
	Key() string

	// Fingerprint identifies exactly what Describe would describe now, for
	// the describe cache (docs/protocol.md §18): a process gives its
	// executable's stat (device, inode, size, mtime, ctime) and, in its
	// own module directory, the listing of the files beside it. "" with a nil error
	// means the describe is never cached; an error means it is not cached
	// this time. It runs nothing.
	Fingerprint() (string, error)

	// Describe obtains the module's describe envelope (docs/protocol.md §6, §9) as
	// the raw bytes of one xibodev.module/v1 envelope; Host decodes and
	// judges them. The error, when non-nil, is the one-line reason the
	// module is broken ("describe: no answer within 10s ..."); Description
	// still carries what was received (stderr, the time).
	Describe(ctx context.Context) (Description, error)

	// Invoke sends one planned request and returns what came back, before
	// any judgement. It must honour call.Request.DeadlineMS and
	// MaxOutputBytes, stop when ctx is cancelled (Failure with
	// modproto CodeCancelled), report live events through call.Emit, route
	// requests to the person through call.Elicit, and record the raw
	// exchange through call.Record. It never returns nil.
	Invoke(ctx context.Context, call *Call) *Reply

	// Status is the driver's lifecycle state now. Host refuses to invoke a
	// broken or closed driver and lists its module as broken.
	Status() Lifecycle

	// Close ends the driver's session (a process driver has none) and makes
	// Status LifecycleClosed. It is idempotent.
	Close() error
}

// Description is what a Driver's Describe received.
type Description struct {
	// Envelope is the raw describe envelope (a process's stdout, bounded
	// by DescribeMaxOutputBytes); nil when Describe failed.
	Envelope []byte
	// Stderr is the module's diagnostics during describe, capped at
	// StderrCap bytes (raw; sanitize to show).
	Stderr string
	// At is when the description was obtained.
	At time.Time
	// ExitCode is the describe process's exit code; 0 when it exited
	// cleanly or the driver starts no process, -1 when it did not exit.
	// Recorded to explain a crash, never decisive (docs/protocol.md §3).
	ExitCode int
	// Enforcement is what containment applied to the describe's process,
	// as observed when it started; zero for a driver that starts none.
	Enforcement contain.Enforcement
	// Built, if non-nil, is Envelope as the driver built it in memory
	// (BuiltDescribe): the host judges these values instead of decoding
	// Envelope again.
	Built *BuiltDescribe
}

// Containable is a Driver that starts processes of its own and applies
// the host's containment policy to them. Host calls SetContainment once,
// before the driver's first Describe, with the policy for describes (the
// module's own directory, no root, no network); each invoke's policy
// comes with its Call (Call.Contain). A driver that starts no process
// (an in-memory driver, a remote MCP server) need not implement it.
type Containable interface {
	SetContainment(describe contain.Spec)
}

// ToolHints are an MCP tool's annotations as its server gave them; nil
// when it left one out (MCP's default applies: not read-only,
// destructive, open world).
type ToolHints struct {
	ReadOnly, Destructive, OpenWorld *bool
}

// HintedDriver is a driver whose capabilities' effects come from a
// server's hints (Module.EffectsAreHints): Hints is what it gave for
// capability capID, false when unknown. It does no I/O.
type HintedDriver interface {
	Hints(capID string) (ToolHints, bool)
}

// ServerRooted is a driver whose module touches folders of its own
// rather than the request's roots (an MCP server, fixed when it starts):
// ServerRoots are those, by path, mode "ro", "rw" or "rwx". No I/O.
type ServerRooted interface {
	ServerRoots() map[string]string
}

// ReplyLimiter is a driver whose module sets its own reply ceiling (an MCP
// server's entry, docs/protocol.md §14): ReplyLimit is the request's
// max_output_bytes given the config's (hostMax, 0 when unset).
type ReplyLimiter interface {
	ReplyLimit(hostMax int) int
}

// Call is one invocation as Host hands it to a Driver: the request as
// planned and the channels back to the person. Host builds it; a driver
// only reads it and calls its methods, each safe for concurrent use.
type Call struct {
	// Request is the request exactly as planned and approved (docs/protocol.md §4).
	Request modproto.Request
	// Encoded is Request as JSON, encoded once by the host: the bytes a
	// process reads from --input.
	Encoded []byte
	// Contain is the host's containment policy for this call: the
	// request's roots by mode, the resolved binaries, the network only
	// when granted, limits and sandbox mode. A driver that
	// starts processes applies it to every one of them.
	Contain contain.Spec

	// eventID is the request id events are reported under (a job's polls
	// report under the original request's id).
	eventID string
	events  func(Event)
	elicit  Elicitor
	echoes  []schema.Echo
	record  Recorder
}

// Emit reports a live event (stderr, progress, a log line, a pid) under
// the call's request id; it is a no-op when no one listens. The event's
// RequestID is overwritten.
func (c *Call) Emit(e Event) {
	if c.events == nil {
		return
	}
	e.RequestID = c.eventID
	c.events(e)
}

// Listening reports whether anyone receives Emit's events, so a driver
// can skip copying what no one reads.
func (c *Call) Listening() bool { return c.events != nil }

// Echoes are the secrets of the call's input (docs/protocol.md §4),
// longest first: what a driver that keeps the module's words beyond the
// call (an MCP server's log) masks.
func (c *Call) Echoes() []schema.Echo { return c.echoes }

// Elicit asks the person for something in the middle of the call (an MCP
// elicitation) and blocks until the answer, ctx's end, or the person's
// refusal. Host bounds the request (MaxElicitationBytes) and declines one
// over the bound (ElicitDecline with an error) or when no one can answer
// (ElicitDecline, ErrNoOneToAsk); it validates accepted content against e.Schema
// before the driver sees it, and an answer it refuses comes back as
// ElicitCancel with a non-nil error (*InputError for content that breaks
// the schema).
func (c *Call) Elicit(ctx context.Context, e Elicitation) (ElicitAnswer, error) {
	e.RequestID = c.Request.RequestID
	return c.elicit(ctx, e)
}

// Record hands one frame of the raw exchange to the call's recorder, with
// RequestID and At filled in when empty; it is a no-op when nothing
// records. Data is kept as given: the driver must not change it after.
func (c *Call) Record(f Frame) {
	if c.record == nil {
		return
	}
	if f.RequestID == "" {
		f.RequestID = c.Request.RequestID
	}
	if f.At.IsZero() {
		f.At = time.Now()
	}
	c.record(f)
}

// Recording reports whether a recorder is attached, so a driver can skip
// building frames no one keeps.
func (c *Call) Recording() bool { return c.record != nil }

// Reply is what a Driver brings back from one call, before Host judges it
// in docs/protocol.md §5 order. Results have one shape whatever their origin: an
// envelope whose artifacts name files under the run's roots (a process),
// plus content blocks the host writes into a run directory and verifies
// and stages like files (an MCP server's inline content).
type Reply struct {
	// Envelope is the raw invoke envelope (docs/protocol.md §6) as received: a
	// process's stdout, kept up to max_output_bytes. Host decodes it.
	Envelope []byte
	// Blocks are artifacts received inline; see ContentBlock.
	Blocks []ContentBlock
	// Beside is what a session's reply sent beside the envelope's
	// result, as a JSON object, when the result does not carry it: an
	// MCP tools/call with structuredContent has its content entries and
	// _meta here ({"content": […], "_meta": …}, as sent). Nil otherwise.
	// Module text: sanitize to show.
	Beside json.RawMessage
	// Stderr is the module's diagnostics, capped at StderrCap bytes;
	// StderrTruncated is true when more was discarded.
	Stderr          string
	StderrTruncated bool
	// ExitCode is the process's exit code, -1 when there was no process or
	// it did not exit; it is recorded, never decisive (docs/protocol.md §3).
	ExitCode int
	// Signal names the signal that ended the process ("SIGKILL"), "" when
	// it exited (ExitCode is then -1).
	Signal string
	// Started is when the call began; Duration how long it took.
	Started  time.Time
	Duration time.Duration
	// Enforcement is what containment applied to the module's process,
	// layer by layer, as applied (not as requested); zero for a driver
	// that starts none.
	Enforcement contain.Enforcement
	// WriteStart is what the run's next process counts its writes from (a
	// job's polls: one write budget, contain.Spec.WriteFrom); nil for none.
	WriteStart *contain.WriteStart
	// Failure is set when no envelope could be obtained: the module could
	// not start (modproto CodeHostSpawnFailed), its output exceeded
	// max_output_bytes (CodeHostOutputTooLarge), the deadline passed
	// (CodeHostTimeout) or ctx was cancelled (CodeCancelled). Envelope and
	// Blocks are then ignored.
	Failure *HostError
}

// ContentRoot is the root name of content-block artifacts: the run
// directory the host writes blocks into. It is never a request root, so a
// module's own artifacts cannot name it (they are checked against the
// request's roots only).
const ContentRoot = "content"

// ContentBlock is one artifact a driver received inline (an MCP content
// block: text, an image, an embedded resource) rather than as a file under
// a root. Host writes Data into a fresh run directory under ContentRoot,
// adds the block to the envelope's execution.artifacts, and from there
// judges it exactly like a file: docs/protocol.md §6 fields, §7 kinds, §8
// confinement, size, digest and staging.
type ContentBlock struct {
	// Artifact describes the block: ID, Kind (one of the capability's
	// artifact_schemas), MediaType, Presentation and Title as the module
	// stated them. Path is the file name the host writes the block under,
	// relative to the content root ("" gives "block-<n>", n from 0). Root
	// is set by the host. Digest and Bytes, when set, are checked against
	// Data like a file's; when empty the host fills them from Data.
	Artifact modproto.Artifact
	// Data is the block's content, bytes (counted against
	// max_output_bytes with the envelope).
	Data []byte
	// HostWritten says Data is the module's words as the host wrote them
	// out (an MCP resource link's own JSON), not bytes the module made:
	// secrets of the input echoed in it are masked as in the result
	// (docs/protocol.md §4).
	HostWritten bool
}

// Elicitation is a request to the person in the middle of a call (MCP
// elicitation/create): a message and the schema of the answer wanted.
// Both are module text: sanitize before display.
type Elicitation struct {
	// RequestID is the call's request id (set by Call.Elicit).
	RequestID string
	// Message says what is asked and why.
	Message string
	// Schema is the JSON Schema of the answer (a JSON object); nil asks for
	// no content, only an action.
	Schema json.RawMessage
	// URL, when set, is a URL elicitation: the person is asked to open it
	// (on a key press) and accept or decline; Schema is then nil.
	URL string
	// Sampling, when set, is a sampling request (MCP
	// sampling/createMessage) put to the person: they write the reply, no
	// model is called. Schema is then SamplingReplySchema.
	Sampling *SamplingRequest
}

// SamplingRequest is what a server asks a model for, shown to the person
// who writes the reply. All of it is module text: sanitize before display.
type SamplingRequest struct {
	// SystemPrompt is the server's system prompt ("" when none).
	SystemPrompt string
	// Messages are the conversation so far, oldest first.
	Messages []SamplingMessage
	// ModelHints are the model names the server prefers, in order.
	ModelHints []string
	// Priorities are the server's cost, speed and intelligence priorities
	// (0–1), nil when it gave none.
	Priorities map[string]float64
	// MaxTokens is the longest reply the server wants, in tokens.
	MaxTokens int64
}

// SamplingMessage is one message of a SamplingRequest: its role ("user",
// "assistant") and its text (a non-text block as a one-line note).
type SamplingMessage struct {
	Role, Text string
}

// SamplingReplySchema is the schema of a sampling request's answer: the
// reply the person wrote, as text.
var SamplingReplySchema = json.RawMessage(`{"type":"object","properties":{"reply":{"type":"string","title":"Reply","description":"the reply sent as the model's message","contentMediaType":"text/plain"}},"required":["reply"]}`)

// ElicitAction is the person's decision on an Elicitation (MCP's
// accept, decline, cancel).
type ElicitAction string

// Elicitation actions.
const (
	// ElicitAccept: the person answered; Content holds the answer.
	ElicitAccept ElicitAction = "accept"
	// ElicitDecline: the person refused to answer.
	ElicitDecline ElicitAction = "decline"
	// ElicitCancel: the person dismissed the question without deciding.
	ElicitCancel ElicitAction = "cancel"
)

// ElicitAnswer is the person's answer to an Elicitation.
type ElicitAnswer struct {
	// Action is the decision.
	Action ElicitAction
	// Content is the answer, a JSON value valid against the elicitation's
	// schema; only with ElicitAccept.
	Content json.RawMessage
}

// Elicitor answers an Elicitation for the person, blocking until they do
// or ctx ends (the UI opens a dialog; a non-interactive caller declines).
type Elicitor func(ctx context.Context, e Elicitation) (ElicitAnswer, error)

// MaxElicitationBytes bounds an elicitation's message and its schema
// each, and an accepted answer, in bytes: a question to a person is short,
// and a module must not make the host hold or show megabytes.
const MaxElicitationBytes = 64 << 10

// MaxElicitURLBytes bounds a URL elicitation's URL, in bytes.
const MaxElicitURLBytes = 8 << 10

// MaxSamplingBytes bounds a sampling request's text (system prompt,
// messages and model hints together), in bytes.
const MaxSamplingBytes = 256 << 10

// size is r's text in bytes, 0 for nil.
func (r *SamplingRequest) size() int {
	if r == nil {
		return 0
	}
	n := len(r.SystemPrompt)
	for _, m := range r.Messages {
		n += len(m.Role) + len(m.Text)
	}
	for _, h := range r.ModelHints {
		n += len(h)
	}
	return n
}

// FrameDirection says which way a recorded frame went.
type FrameDirection string

// Frame directions.
const (
	// FrameSent is host to module.
	FrameSent FrameDirection = "sent"
	// FrameReceived is module to host.
	FrameReceived FrameDirection = "received"
)

// Frame kinds (Frame.Kind).
const (
	// FrameArgv is a process's argv after the executable, as a JSON array
	// (the request file's real path included).
	FrameArgv = "argv"
	// FrameRequest is the request file's bytes.
	FrameRequest = "request"
	// FrameStdout is the stdout kept (up to the ceiling).
	FrameStdout = "stdout"
	// FrameStderr is the stderr kept (up to StderrCap).
	FrameStderr = "stderr"
	// FrameJSONRPC is one JSON-RPC message of a session.
	FrameJSONRPC = "jsonrpc"
	// FrameEnv is a process's environment, as a JSON array of "K=V".
	FrameEnv = "env"
	// FrameDir is a process's working directory.
	FrameDir = "dir"
	// FrameExit is how a process ended: an ExitFrame as JSON.
	FrameExit = "exit"
	// FramePhase marks the end of a phase of the call: Data is one of the
	// Phase* names, At when it ended.
	FramePhase = "phase"
)

// Phases of a call, as FramePhase frames name them. Each
// frame marks the moment the phase ended; PhaseStart marks the call's
// start, from which the first phase is measured.
const (
	// PhaseStart: the host began the call (per-run directory, request
	// file).
	PhaseStart = "start"
	// PhaseSpawn: the process is running.
	PhaseSpawn = "spawn"
	// PhaseFirstByte: the first byte of stdout arrived.
	PhaseFirstByte = "first_byte"
	// PhaseExit: the process exited (or was killed).
	PhaseExit = "exit"
	// PhaseVerify: the host decoded and judged the envelope (docs/protocol.md §5–§7).
	PhaseVerify = "verify"
	// PhaseStage: every artifact was confined, hashed and staged (docs/protocol.md
	// §8; hashing streams while staging, so the two are one phase).
	PhaseStage = "stage"
)

// ExitFrame is how a process ended, the data of a FrameExit frame.
type ExitFrame struct {
	// Code is the exit code, -1 when the process did not exit by itself
	// (a signal) or never started.
	Code int `json:"exit_code"`
	// Signal names the signal that ended it ("SIGKILL"), "" for an exit.
	Signal string `json:"signal,omitempty"`
	// TimedOut, Cancelled and OutputTooLarge say the host killed it, and
	// why; SpawnError why it never started.
	TimedOut       bool   `json:"timed_out,omitempty"`
	Cancelled      bool   `json:"cancelled,omitempty"`
	OutputTooLarge bool   `json:"output_too_large,omitempty"`
	SpawnError     string `json:"spawn_error,omitempty"`
	// WriteBound is the write bound the run passed (file size, bytes or
	// files of its rw roots and run directory), "" when none.
	WriteBound string `json:"write_bound,omitempty"`
}

// Frame is one piece of the raw exchange between host and module, for a
// recorder (a run history, a debugging trace). Data is raw module bytes:
// sanitize before display.
type Frame struct {
	// RequestID is the call's request id.
	RequestID string
	// At is when the frame was sent or received.
	At time.Time
	// Direction is FrameSent or FrameReceived.
	Direction FrameDirection
	// Kind is one of the Frame* kinds.
	Kind string
	// Data is the frame's bytes.
	Data []byte
}

// Recorder receives every frame of a call's raw exchange, from the
// driver's goroutines; it must be safe for concurrent use and not block.
type Recorder func(Frame)

// LifecycleState is a driver's state (Lifecycle.State).
type LifecycleState string

// Lifecycle states.
const (
	// LifecycleStarting: a session is being set up; calls wait for it.
	LifecycleStarting LifecycleState = "starting"
	// LifecycleReady: calls can be made (a process driver always is until
	// closed).
	LifecycleReady LifecycleState = "ready"
	// LifecycleBroken: the session failed; Reason and StderrTail say why.
	LifecycleBroken LifecycleState = "broken"
	// LifecycleClosed: Close was called.
	LifecycleClosed LifecycleState = "closed"
)

// Lifecycle is a driver's state as Status reports it.
type Lifecycle struct {
	// State is the lifecycle state.
	State LifecycleState
	// Reason explains a broken state in one line (module text: sanitize).
	Reason string
	// StderrTail is the last of the session's stderr, at most StderrCap
	// bytes (raw; sanitize to show).
	StderrTail string
}

// Usable reports whether calls can be made: starting or ready.
func (l Lifecycle) Usable() bool {
	return l.State == LifecycleReady || l.State == LifecycleStarting
}
