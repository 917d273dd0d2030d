package runnertest

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"modbay/modproto"
	"modbay/runner"
)

// KeyPrefix starts every in-memory driver's Key ("mem:<module id>").
const KeyPrefix = "mem:"

// Origin is the Module.Origin of the modules a Source yields.
const Origin = "memory"

// Handler plays the module for one call: it may call call.Emit,
// call.Elicit and call.Record, must honour ctx, and returns the reply as
// the module would send it. It runs on the goroutine of Host.Run.
type Handler func(ctx context.Context, call *runner.Call) *runner.Reply

// Driver is an in-memory runner.Driver. Describe answers with Descriptor
// in an ok describe envelope; Invoke hands the call to Handle, recording
// the request sent and the envelope received (FrameRequest, FrameStdout).
// Its lifecycle is ready until SetStatus or Close. Safe for concurrent
// use once built; set the fields before handing it to a Host.
type Driver struct {
	// Descriptor is the module's descriptor; its Module is the module id.
	Descriptor *modproto.Descriptor
	// Handle plays each invocation; nil answers every call with an error
	// envelope "unimplemented".
	Handle Handler

	mu        sync.Mutex
	life      runner.Lifecycle
	invokes   int
	describes int
}

var _ runner.Driver = (*Driver)(nil)

// New returns a ready driver for d whose calls are played by h.
func New(d *modproto.Descriptor, h Handler) *Driver {
	return &Driver{Descriptor: d, Handle: h, life: runner.Lifecycle{State: runner.LifecycleReady}}
}

// Key is KeyPrefix followed by the descriptor's module id.
func (d *Driver) Key() string { return KeyPrefix + d.Descriptor.Module }

// Fingerprint is "": an in-memory module is never cached.
func (d *Driver) Fingerprint() (string, error) { return "", nil }

// Describe answers with the descriptor in an ok describe envelope.
func (d *Driver) Describe(ctx context.Context) (runner.Description, error) {
	d.mu.Lock()
	d.describes++
	d.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return runner.Description{At: time.Now()}, err
	}
	res, err := json.Marshal(d.Descriptor)
	if err != nil {
		return runner.Description{At: time.Now()}, err
	}
	env := &modproto.Envelope{
		Protocol: modproto.ProtocolID, Module: d.Descriptor.Module, Operation: modproto.OperationDescribe,
		OK: true, Result: res, Warnings: []string{}, Execution: modproto.Execution{Local: true, Artifacts: []modproto.Artifact{}},
	}
	b, err := json.Marshal(env)
	return runner.Description{Envelope: b, At: time.Now()}, err
}

// Invoke counts the call, records the request, runs Handle and records the
// envelope it returned.
func (d *Driver) Invoke(ctx context.Context, call *runner.Call) *runner.Reply {
	d.mu.Lock()
	d.invokes++
	d.mu.Unlock()
	started := time.Now()
	call.Record(runner.Frame{Direction: runner.FrameSent, Kind: runner.FrameRequest, Data: call.Encoded})
	var rep *runner.Reply
	if d.Handle != nil {
		rep = d.Handle(ctx, call)
	}
	if rep == nil {
		rep = &runner.Reply{Envelope: Fail(call.Request, d.Descriptor.Module, "unimplemented", "no handler")}
	}
	if rep.Started.IsZero() {
		rep.Started, rep.Duration = started, time.Since(started)
	}
	if rep.ExitCode == 0 {
		rep.ExitCode = -1 // there is no process
	}
	call.Record(runner.Frame{Direction: runner.FrameReceived, Kind: runner.FrameStdout, Data: rep.Envelope})
	return rep
}

// Status is the lifecycle set by New, SetStatus or Close.
func (d *Driver) Status() runner.Lifecycle {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.life
}

// SetStatus sets the lifecycle Status reports (a session that breaks).
func (d *Driver) SetStatus(l runner.Lifecycle) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.life = l
}

// Close makes Status runner.LifecycleClosed.
func (d *Driver) Close() error {
	d.SetStatus(runner.Lifecycle{State: runner.LifecycleClosed})
	return nil
}

// Invokes is how many times Invoke was called.
func (d *Driver) Invokes() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.invokes
}

// Describes is how many times Describe was called.
func (d *Driver) Describes() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.describes
}

// OK is an ok invoke envelope answering req from module with result (any
// JSON-encodable value) and file artifacts arts, executed locally with no
// other effect (docs/protocol.md §6).
func OK(req modproto.Request, module string, result any, arts ...modproto.Artifact) []byte {
	res, err := json.Marshal(result)
	if err != nil {
		panic("runnertest.OK: " + err.Error())
	}
	if arts == nil {
		arts = []modproto.Artifact{}
	}
	return envelope(&modproto.Envelope{OK: true, Result: res, Execution: modproto.Execution{Local: true, Artifacts: arts}}, req, module)
}

// Fail is an error invoke envelope answering req from module with code
// and message.
func Fail(req modproto.Request, module, code, message string) []byte {
	return envelope(&modproto.Envelope{
		Error:     &modproto.Error{Code: code, Message: message, Details: map[string]any{}},
		Execution: modproto.Execution{Local: true, Artifacts: []modproto.Artifact{}},
	}, req, module)
}

// envelope completes env as an invoke envelope of module answering req.
func envelope(env *modproto.Envelope, req modproto.Request, module string) []byte {
	env.Protocol, env.Module, env.Operation, env.RequestID = modproto.ProtocolID, module, modproto.OperationInvoke, req.RequestID
	env.Warnings = []string{}
	b, err := json.Marshal(env)
	if err != nil {
		panic("runnertest: encode an envelope: " + err.Error())
	}
	return b
}

// Source is a runner.Source yielding its drivers' modules, in order, with
// Origin "memory".
type Source struct {
	// Drivers are the modules yielded, each claiming its descriptor's id.
	Drivers []*Driver
}

var _ runner.Source = Source{}

// Origin is Origin ("memory").
func (s Source) Origin() string { return Origin }

// Candidates yields one candidate per driver, claiming its descriptor's
// module id.
func (s Source) Candidates() []runner.Candidate {
	out := make([]runner.Candidate, 0, len(s.Drivers))
	for _, d := range s.Drivers {
		out = append(out, runner.Candidate{ID: d.Descriptor.Module, Name: d.Descriptor.Module, Origin: Origin, Driver: d})
	}
	return out
}
