package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"modbay/schema"
)

// ExchangeStdoutShown bounds the stdout an Exchange keeps for display, in
// bytes (the first 64 KiB; the envelope itself is judged
// whole by the host).
const ExchangeStdoutShown = 64 << 10

// Exchange is the raw exchange of one run, built frame by frame from a
// Recorder (RunOptions.Record): for each process call (a job's polls are
// calls too) what was sent and what came back, exactly, with the time each
// phase ended; for a session call (an MCP server) its JSON-RPC messages. It is safe for concurrent use.
type Exchange struct {
	mu    sync.Mutex
	calls []*ExchangeCall
}

// ExchangeCall is one call of an Exchange. Byte fields are raw module
// bytes: sanitize before display.
type ExchangeCall struct {
	// RequestID is the call's request id.
	RequestID string `json:"request_id"`
	// Argv is the argv after the executable, the request file's path
	// included; Env the whole environment; Dir the working directory.
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`
	// Request is the request file's bytes as written.
	Request []byte `json:"-"`
	// Stdout is stdout as received, at most ExchangeStdoutShown bytes;
	// StdoutBytes how many were received (kept by the host, up to the
	// ceiling).
	Stdout      []byte `json:"-"`
	StdoutBytes int    `json:"stdout_bytes"`
	// Stderr is stderr as kept (StderrCap).
	Stderr []byte `json:"-"`
	// Exit is how the process ended; nil when no process ran.
	Exit *ExitFrame `json:"exit,omitempty"`
	// Phases are the phases' ends in the order they happened.
	Phases []PhaseMark `json:"-"`
	// Messages are the JSON-RPC messages of a session call (an MCP
	// server's tools/call and what came with it), in the order recorded;
	// none for a process call. At most ExchangeMessagesKept are kept,
	// each cut to ExchangeStdoutShown bytes; MessagesDropped counts the
	// rest.
	Messages        []ExchangeMessage `json:"messages,omitempty"`
	MessagesDropped int               `json:"messages_dropped,omitempty"`
	// messageBytes is the Data kept over Messages (ExchangeMessageBytesKept).
	messageBytes int
}

// ExchangeMessagesKept bounds the JSON-RPC messages an ExchangeCall keeps:
// a chatty server (progress, log lines) must not make the host hold an
// unbounded list for display.
const ExchangeMessagesKept = 256

// ExchangeMessageBytesKept bounds the bytes of Data kept over a call's
// Messages (1 MiB): 256 messages of 64 KiB each would be 16 MiB per call,
// and the cockpit keeps the exchange of its last runs.
const ExchangeMessageBytesKept = 1 << 20

// ExchangeMessage is one JSON-RPC message of a session call (FrameJSONRPC).
// Data is raw module bytes: sanitize before display.
type ExchangeMessage struct {
	// At is when it was sent or received; Direction which way it went.
	At        time.Time      `json:"at"`
	Direction FrameDirection `json:"direction"`
	// Data is the message as encoded, its first ExchangeStdoutShown
	// bytes; Bytes its whole length.
	Data  []byte `json:"-"`
	Bytes int    `json:"bytes"`
}

// PhaseMark is the end of one phase of a call.
type PhaseMark struct {
	Name string
	At   time.Time
}

// Timing is how long one phase of a call took.
type Timing struct {
	// Phase is a Phase* name; Duration is measured from the end of the
	// phase before it (spawn from the start, first_byte and exit from
	// spawn, verify from exit, stage from verify).
	Phase    string        `json:"phase"`
	Duration time.Duration `json:"duration_ns"`
}

// NewExchange returns an empty Exchange.
func NewExchange() *Exchange { return &Exchange{} }

// Recorder returns the Recorder that fills x.
func (x *Exchange) Recorder() Recorder { return x.record }

// record files one frame under its call, starting a call at a new request
// id.
func (x *Exchange) record(f Frame) {
	x.mu.Lock()
	defer x.mu.Unlock()
	var c *ExchangeCall
	if n := len(x.calls); n > 0 && x.calls[n-1].RequestID == f.RequestID {
		c = x.calls[n-1]
	} else {
		c = &ExchangeCall{RequestID: f.RequestID}
		x.calls = append(x.calls, c)
	}
	switch f.Kind {
	case FrameArgv:
		_ = json.Unmarshal(f.Data, &c.Argv)
	case FrameEnv:
		_ = json.Unmarshal(f.Data, &c.Env)
	case FrameDir:
		c.Dir = string(f.Data)
	case FrameRequest:
		c.Request = f.Data
	case FrameStdout:
		c.StdoutBytes = len(f.Data)
		c.Stdout = f.Data[:min(len(f.Data), ExchangeStdoutShown)]
	case FrameStderr:
		c.Stderr = f.Data
	case FrameExit:
		var e ExitFrame
		if json.Unmarshal(f.Data, &e) == nil {
			c.Exit = &e
		}
	case FramePhase:
		c.Phases = append(c.Phases, PhaseMark{Name: string(f.Data), At: f.At})
	case FrameJSONRPC:
		n := min(len(f.Data), ExchangeStdoutShown)
		if len(c.Messages) >= ExchangeMessagesKept || c.messageBytes+n > ExchangeMessageBytesKept {
			c.MessagesDropped++
			break
		}
		// A copy: the frame's buffer may be a whole large message.
		c.messageBytes += n
		c.Messages = append(c.Messages, ExchangeMessage{At: f.At, Direction: f.Direction,
			Data: bytes.Clone(f.Data[:n]), Bytes: len(f.Data)})
	}
}

// Words says how a process ended, for a person: "status 3", "killed by
// SIGKILL (deadline passed: the host killed the tree)", "did not start:
// …". The spawn error is the host's text; sanitize before display.
func (e *ExitFrame) Words() string {
	var s string
	switch {
	case e.SpawnError != "":
		return "did not start: " + e.SpawnError
	case e.Signal != "":
		s = "killed by " + e.Signal
	default:
		s = fmt.Sprintf("status %d", e.Code)
	}
	switch {
	case e.TimedOut:
		s += " (deadline passed: the host killed the tree)"
	case e.Cancelled:
		s += " (cancelled: the host killed the tree)"
	case e.OutputTooLarge:
		s += " (stdout over max_output_bytes: the host killed the tree)"
	case e.WriteBound != "":
		s += " (write bound: " + e.WriteBound + ")"
	}
	return s
}

// Calls returns the calls recorded so far, in order (copies of the
// records; the byte slices are shared and must not be changed).
func (x *Exchange) Calls() []ExchangeCall {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make([]ExchangeCall, len(x.calls))
	for i, c := range x.calls {
		out[i] = *c
		out[i].Phases = append([]PhaseMark(nil), c.Phases...)
		out[i].Messages = append([]ExchangeMessage(nil), c.Messages...)
	}
	return out
}

// Timings returns how long each phase of c took, in phase order; a phase
// that did not happen (no stdout, no artifacts judged) is left out.
func (c ExchangeCall) Timings() []Timing {
	at := map[string]time.Time{}
	for _, p := range c.Phases {
		at[p.Name] = p.At
	}
	from := map[string]string{PhaseSpawn: PhaseStart, PhaseFirstByte: PhaseSpawn, PhaseExit: PhaseSpawn, PhaseVerify: PhaseExit, PhaseStage: PhaseVerify}
	var out []Timing
	for _, name := range []string{PhaseSpawn, PhaseFirstByte, PhaseExit, PhaseVerify, PhaseStage} {
		end, ok := at[name]
		start, ok2 := at[from[name]]
		if ok && ok2 {
			out = append(out, Timing{Phase: name, Duration: end.Sub(start)})
		}
	}
	return out
}

// requestsDir is where saved request files live: <home>/requests, outside
// <home>/state, so no module id or root name addresses it
// (docs/protocol.md §13).
func (h *Host) requestsDir() string { return h.cfg.RequestsDir() }

// SaveRequest writes a call's request file (the bytes as sent) where it
// outlives the run, <home>/requests/<request id>.json with mode
// 0600, and returns its path: the file the module-call copy line
// (ModuleCallLine) names. The request id must be the host's own
// (docs/protocol.md §1: req_ and 32 hex), so it is a safe file name.
func (h *Host) SaveRequest(requestID string, request []byte) (string, error) {
	if !requestIDPattern.MatchString(requestID) {
		return "", fmt.Errorf("request id %q is not the host's", requestID)
	}
	dir := h.requestsDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, requestID+".json")
	_ = os.Remove(path) // a second save of the same call replaces it
	if err := writeFileMode(path, request, 0o600); err != nil {
		return "", err
	}
	return path, nil
}

// requestIDPattern is docs/protocol.md §1's request id.
var requestIDPattern = regexp.MustCompile(`^req_[0-9a-f]{32}$`)

// InvokeLine is the `modbay invoke` command line that repeats a call:
// g's flags (Globals.Line), module reference, capability and input
// (compact JSON), each quoted for a POSIX shell. The caller redacts
// secret values from input first.
func InvokeLine(g Globals, module, capability string, input json.RawMessage) string {
	in := strings.TrimSpace(string(input))
	if in == "" {
		in = "{}"
	}
	return g.Line("invoke", module, capability, "--input", in)
}

// ModuleCallLine is a shell command that makes the module call exactly as
// modbay made it, without modbay: in a subshell, so the pasting shell
// stays where it was, the empty environment but a fresh TMPDIR, a fresh
// working directory, the executable and argv of docs/protocol.md §3 with
// requestFile (a saved copy, SaveRequest). It runs WITHOUT
// modbay's containment (no namespaces, Landlock, seccomp or limits) and
// with the roots named in the request file: say so wherever it is shown.
func ModuleCallLine(exe, capability, requestFile string) string {
	return `( cd "$(mktemp -d)" && env -i TMPDIR="$(mktemp -d)" ` + ShellQuote(exe) +
		" module invoke " + ShellQuote(capability) + " --input " + ShellQuote(requestFile) + " )"
}

// CopyLines are a run's two copy actions, built the same
// way for `modbay invoke --trace` and the cockpit's raw exchange, so the
// two show the same strings.
type CopyLines struct {
	// Invoke is the InvokeLine, secret values masked (schema.Redact).
	Invoke string `json:"invoke"`
	// NeedsYes says the call needed approval: Invoke, run as printed,
	// stops at the approval (RepeatNeedsYes).
	NeedsYes bool `json:"needs_yes,omitempty"`
	// ModuleCall is the ModuleCallLine over RequestFile, the first call's
	// request file saved by SaveRequest; Note is ModuleCallNote. All
	// three are empty when no request file was written or it could not
	// be saved (SaveError says why).
	ModuleCall  string `json:"module_call,omitempty"`
	RequestFile string `json:"request_file,omitempty"`
	Note        string `json:"note,omitempty"`
	SaveError   string `json:"save_error,omitempty"`
}

// CopyLines builds the copy lines of plan p run with input (the input as
// given, before any whole-request split), naming the module as moduleRef
// (what the person typed; ModuleRef for a module found by discovery),
// from the recorded calls. It writes the first call's request file under
// <home>/requests (SaveRequest): call it from a command, never
// from a UI's Update.
func (h *Host) CopyLines(p *Plan, moduleRef string, input json.RawMessage, calls []ExchangeCall) CopyLines {
	var out CopyLines
	masked := input
	if d := p.Module.Descriptor; d != nil && p.Capability.RequestSchema != "" {
		// Secrets stay out of the copied line (AGENTS.md "Redaction").
		if sh, err := schema.Compile(d.RequestSchemas[p.Capability.RequestSchema]); err == nil {
			masked, _ = schema.Redact(sh, input, schema.RedactMask)
		}
	}
	out.Invoke = InvokeLine(h.Repeat().For(p.Module), moduleRef, p.Capability.ID, masked)
	out.NeedsYes = p.NeedsApproval()
	for _, f := range p.Handoff {
		out.Invoke += " --artifact " + ShellQuote(f.Root+"="+f.Origin)
	}
	if len(calls) == 0 || len(calls[0].Request) == 0 || p.Module.Exe == "" {
		return out
	}
	path, err := h.SaveRequest(calls[0].RequestID, calls[0].Request)
	if err != nil {
		out.SaveError = err.Error()
		return out
	}
	out.RequestFile = path
	out.ModuleCall = ModuleCallLine(p.Module.Exe, p.Capability.ID, path)
	out.Note = ModuleCallNote
	if len(p.Handoff) > 0 {
		roots := make([]string, len(p.Handoff))
		for i, f := range p.Handoff {
			roots[i] = f.Root
		}
		out.Note += "; " + HandoffGoneNote(roots)
	}
	return out
}

// HandoffGoneNote is what ModuleCallNote adds for a run that was handed
// artifacts (PlanOptions.Handoff): the read roots named (as given) point
// at the run's handoff directory, removed when the run ended.
func HandoffGoneNote(roots []string) string {
	return "the handoff directory it names for read root " + strings.Join(slices.Compact(slices.Sorted(slices.Values(roots))), ", ") +
		" was removed when the run ended: put a copy of the handed file there, or edit the request file's roots, before running it"
}

// ModuleRef is how a copied `modbay invoke` line names m: its id for a
// module under <home>/modules or a built-in example (found by id; an
// example's launcher lives in a directory that goes stale, and history's
// lines name it by id too), else its executable's path.
func ModuleRef(m *Module) string {
	if m.Origin == OriginHome || m.Origin == OriginExamples || m.Exe == "" {
		return m.ID
	}
	return m.Exe
}

// ModuleCallNote is the note shown with a ModuleCallLine.
const ModuleCallNote = "it runs without modbay's containment (no namespaces, Landlock, seccomp or limits) on the real roots the request file names"

// ShellQuote quotes s for a POSIX shell: bare when it holds only safe
// characters, otherwise in single quotes, each quote inside closed,
// escaped and reopened.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=@,+%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellJoin is words as one POSIX shell line: each quoted by ShellQuote,
// joined by spaces.
func ShellJoin(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = ShellQuote(w)
	}
	return strings.Join(q, " ")
}
