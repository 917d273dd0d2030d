package examples

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"modbay/modproto"
)

// Error codes the examples send beyond the protocol's own list; docs/protocol.md §5
// says hosts show them as they are, not retryable unless marked so.
const (
	// codeMissingRoot: a root the capability needs was not supplied, or is
	// not a directory (details {root}).
	codeMissingRoot = "missing_root"
	// codeUnknownJob: farm.jobs.status was asked about a job it never
	// started (details {job_id}).
	codeUnknownJob = "unknown_job"
)

// modError is a module failure as the envelope carries it (docs/protocol.md §6):
// a stable code to route on, a human message, whether retrying unchanged
// could succeed, and an object of details. Handlers return it; any other
// error becomes code internal.
type modError struct {
	code      string
	message   string
	retryable bool
	details   map[string]any
}

// Error implements error as "code: message".
func (e *modError) Error() string { return e.code + ": " + e.message }

// newError returns a non-retryable modError; details nil becomes {}.
func newError(code string, details map[string]any, format string, a ...any) *modError {
	if details == nil {
		details = map[string]any{}
	}
	return &modError{code: code, message: fmt.Sprintf(format, a...), details: details}
}

// retry marks e retryable and returns it.
func (e *modError) retry() *modError {
	e.retryable = true
	return e
}

// invalidField is the invalid_request error for one input field, naming the
// field and the request schema it breaks (details {field, schema, ...}).
func invalidField(schema, field string, extra map[string]any, format string, a ...any) *modError {
	d := map[string]any{"field": field, "schema": schema}
	for k, v := range extra {
		d[k] = v
	}
	return newError(modproto.CodeInvalidRequest, d, format, a...)
}

// asModError turns any handler error into a modError: a modError as is; a
// passed deadline as timeout (retryable); a cancelled run as cancelled;
// anything else as internal.
func asModError(ctx context.Context, err error) *modError {
	var me *modError
	switch {
	case errors.As(err, &me):
		return me
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return newError(modproto.CodeTimeout, nil, "the deadline passed: %v", err).retry()
	case errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled):
		return newError(modproto.CodeCancelled, nil, "cancelled: %v", err)
	default:
		return newError(modproto.CodeInternal, nil, "%v", err)
	}
}

// reply is the one envelope a run prints, with the stdout ceiling the
// request set (0 before a request was read).
type reply struct {
	env       modproto.Envelope
	maxOutput int
}

// newReply starts an envelope for module and verb op with an empty result,
// no warnings and the execution of a local call that did nothing and cost
// nothing.
func newReply(module, op, requestID string) *reply {
	return &reply{env: modproto.Envelope{
		Protocol:  modproto.ProtocolID,
		Module:    module,
		Operation: op,
		RequestID: requestID,
		Warnings:  []string{},
		Execution: modproto.Execution{
			Local: true, Provider: providerLocal,
			EstimatedCost: cost(0), ActualCost: cost(0),
			Artifacts: []modproto.Artifact{},
		},
	}}
}

// succeed sets ok and result to v marshalled; a value that does not marshal
// turns the reply into an internal error.
func (r *reply) succeed(v any) {
	b, err := marshal(v)
	if err != nil {
		r.fail(newError(modproto.CodeInternal, nil, "result does not marshal: %v", err))
		return
	}
	r.env.OK, r.env.Result, r.env.Error = true, b, nil
}

// fail sets ok false and the error from e; the result is dropped.
func (r *reply) fail(e *modError) {
	r.env.OK, r.env.Result = false, nil
	r.env.Error = &modproto.Error{Code: e.code, Message: e.message, Retryable: e.retryable, Details: e.details}
}

// emit normalizes and prints the envelope as one JSON object and a newline,
// and returns Main's exit status. An envelope larger than the request's
// max_output_bytes is replaced by an internal error saying so, because the
// host would kill the run unread (docs/protocol.md §3).
func (r *reply) emit(w io.Writer) int {
	r.env.Normalize()
	b, err := marshal(r.env)
	if err == nil && r.maxOutput > 0 && len(b)+1 > r.maxOutput {
		err = fmt.Errorf("the envelope would be %d bytes, over max_output_bytes %d", len(b)+1, r.maxOutput)
		r.env.Warnings = []string{}
		r.env.Execution.Artifacts = []modproto.Artifact{}
	}
	if err != nil {
		r.fail(newError(modproto.CodeInternal, map[string]any{"max_output_bytes": r.maxOutput}, "%v", err))
		r.env.Normalize()
		b, _ = marshal(r.env)
	}
	b = append(b, '\n')
	_, _ = w.Write(b)
	if r.env.OK {
		return ExitOK
	}
	return ExitError
}

// marshal encodes v as compact JSON without HTML escaping (so "<" stays
// readable) and without a trailing newline.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// marshalIndent is marshal with two-space indentation and a trailing
// newline, for files a person may open.
func marshalIndent(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// cost returns a pointer to a known cost v; nil is the unknown cost, and
// the two are never turned into each other (docs/protocol.md §6).
func cost(v float64) *float64 { return &v }
