package examples

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"modbay/modproto"
)

// Exit statuses of Main. The host never decides an outcome on them
// (docs/protocol.md §3); they help a person running an example by hand.
const (
	// ExitOK is returned when the envelope printed has ok true.
	ExitOK = 0
	// ExitError is returned when the envelope printed has ok false.
	ExitError = 1
)

// registry lists every example in the order a person should meet them.
var registry = sync.OnceValue(func() []*module {
	return []*module{notesModule(), fetchModule(), transcodeModule(), renderFarmModule()}
})

// IDs returns the example module ids, in demo order: "notes", "fetch",
// "transcode", "render-farm". Each id is the module's directory name under
// <home>/modules and its descriptor's module field (docs/protocol.md §2).
func IDs() []string {
	ids := make([]string, len(registry()))
	for i, m := range registry() {
		ids[i] = m.id
	}
	return ids
}

// lookup returns the example with id, or nil.
func lookup(id string) *module {
	for _, m := range registry() {
		if m.id == id {
			return m
		}
	}
	return nil
}

// Main runs one example module. args are the words after `example-module`:
//
//	<id> module describe [--json]
//	<id> module invoke <capability> --input <abs request file>
//
// where <id> may also be a launcher's path, <dir>/<id>/<id> (its base name
// is the id), as the kernel passes it to a shebang launcher.
//
// It always prints exactly one envelope to stdout (docs/protocol.md §6): protocol
// exact, module = id, operation = the verb (invoke when argv names none),
// request_id echoed verbatim from the request file on invoke, execution
// always present. Bad argv or an unreadable request file gives error code
// invalid_request; an unknown capability gives unknown_capability; a request
// for another protocol gives unsupported_protocol. Progress lines go to
// stderr. It returns ExitOK when the envelope is ok, else ExitError.
func Main(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, args, stderr).emit(stdout)
}

// Describe is the stdout of `example-module <id> module describe --json`
// (Main's describe), produced in this process: the host answers the
// examples' describes with it instead of re-executing the binary
// (start-up stays fast). An unknown id gives the same error envelope Main would print.
func Describe(id string) []byte {
	var b bytes.Buffer
	run(context.Background(), []string{id, "module", modproto.OperationDescribe, "--json"}, io.Discard).emit(&b)
	return b.Bytes()
}

// argv is a parsed example-module command line.
type argv struct {
	id         string
	verb       string
	capability string
	inputPath  string
}

// parseArgs reads args (after `example-module`) as the command lines of
// docs/protocol.md §3. It returns the parsed argv even on error, so the envelope can
// carry the id and verb it did recognize.
func parseArgs(args []string) (argv, error) {
	var a argv
	if len(args) > 0 {
		// A shebang launcher (see launcher) passes its own path,
		// <dir>/<id>/<id>, where a person types the id.
		a.id = args[0]
		if strings.Contains(a.id, "/") {
			a.id = filepath.Base(a.id)
		}
	}
	if len(args) > 2 && (args[2] == modproto.OperationDescribe || args[2] == modproto.OperationInvoke) {
		a.verb = args[2]
	}
	usage := fmt.Errorf("usage: example-module <id> module describe --json | example-module <id> module invoke <capability> --input <file> (got %q)", args)
	if len(args) < 3 || args[1] != "module" || a.verb == "" {
		return a, usage
	}
	rest := args[3:]
	if a.verb == modproto.OperationDescribe {
		if len(rest) > 1 || (len(rest) == 1 && rest[0] != "--json") {
			return a, usage
		}
		return a, nil
	}
	if len(rest) == 0 || strings.HasPrefix(rest[0], "-") {
		return a, fmt.Errorf("invoke: the capability id must follow invoke (got %q)", args)
	}
	a.capability, rest = rest[0], rest[1:]
	switch {
	case len(rest) == 2 && rest[0] == "--input":
		a.inputPath = rest[1]
	case len(rest) == 1 && strings.HasPrefix(rest[0], "--input="):
		a.inputPath = strings.TrimPrefix(rest[0], "--input=")
	default:
		return a, fmt.Errorf("invoke: expected --input <abs request file> after the capability (got %q)", rest)
	}
	if a.inputPath == "" {
		return a, errors.New("invoke: --input names no file")
	}
	return a, nil
}

// run does the work of Main and returns the envelope to print.
func run(ctx context.Context, args []string, stderr io.Writer) *reply {
	a, err := parseArgs(args)
	op := a.verb
	if op == "" {
		op = modproto.OperationInvoke
	}
	name := a.id
	if name == "" {
		name = "example-module"
	}
	r := newReply(name, op, "")
	if err != nil {
		r.fail(newError(modproto.CodeInvalidRequest, map[string]any{"field": "argv", "argv": args}, "%s", err))
		return r
	}
	m := lookup(a.id)
	if m == nil {
		r.fail(newError(modproto.CodeInvalidRequest, map[string]any{"field": "id", "id": a.id, "known": IDs()},
			"no example module %q (known: %s)", a.id, strings.Join(IDs(), ", ")))
		return r
	}
	if a.verb == modproto.OperationDescribe {
		r.succeed(m.descriptor())
		return r
	}
	return m.invoke(ctx, a, stderr)
}

// invoke reads the request file and runs the capability a.capability of m.
func (m *module) invoke(ctx context.Context, a argv, stderr io.Writer) *reply {
	r := newReply(m.id, modproto.OperationInvoke, "")
	req, rerr := readRequest(a.inputPath)
	if req != nil {
		r.env.RequestID = req.RequestID
	}
	if rerr != nil {
		r.fail(rerr)
		return r
	}
	if req.Protocol != modproto.ProtocolID {
		r.fail(newError(modproto.CodeUnsupportedProtocol,
			map[string]any{"protocol": req.Protocol, "supported": []string{modproto.ProtocolID}},
			"request protocol %q is not supported; this module speaks %q", req.Protocol, modproto.ProtocolID))
		return r
	}
	c := m.capability(a.capability)
	if c == nil {
		r.fail(newError(modproto.CodeUnknownCapability,
			map[string]any{"capability": a.capability, "available": m.capabilityIDs()},
			"module %q has no capability %q (available: %s)", m.id, a.capability, strings.Join(m.capabilityIDs(), ", ")))
		return r
	}
	if req.Capability != "" && req.Capability != c.decl.ID {
		r.fail(newError(modproto.CodeInvalidRequest, map[string]any{"field": "capability", "argv": c.decl.ID, "request": req.Capability},
			"the request file names capability %q but argv names %q", req.Capability, c.decl.ID))
		return r
	}
	req.Normalize()
	ctx, cancel := context.WithTimeout(ctx, runBudget(req.DeadlineMS))
	defer cancel()
	cl := newCall(ctx, m, c, req, stderr)
	result, err := cl.runHandler()
	r.env.Execution = cl.exec
	r.env.Warnings = append(r.env.Warnings, cl.warnings...)
	if err != nil {
		r.fail(asModError(ctx, err))
	} else {
		r.succeed(result)
	}
	r.maxOutput = req.MaxOutputBytes
	return r
}

// capability returns m's capability with id, or nil.
func (m *module) capability(id string) *capability {
	for _, c := range m.caps {
		if c.decl.ID == id {
			return c
		}
	}
	return nil
}

// capabilityIDs lists m's capability ids in declaration order.
func (m *module) capabilityIDs() []string {
	ids := make([]string, 0, len(m.caps))
	for _, c := range m.caps {
		ids = append(ids, c.decl.ID)
	}
	return ids
}
