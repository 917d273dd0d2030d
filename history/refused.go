package history

import (
	"encoding/json"

	"modbay/modproto"
	"modbay/runner"
)

// MaxRefusedInput bounds the input a refused call's record keeps, in
// bytes: a larger one is left out, and the record says so (InputNote).
const MaxRefusedInput = 16 << 10

// Refused is a call refused before it was planned (an invalid input, a
// busy gateway, a tool not served or withheld): nothing ran and no plan
// exists (docs/gateway.md "What is recorded").
type Refused struct {
	// Module and Capability are what the call named when it named a
	// served (or withheld) tool; Module nil for a tool not served, whose
	// name as given (sanitized and bounded by the caller) is Tool.
	Module     *runner.Module
	Capability modproto.Capability
	Tool       string
	// Input is the input as given; kept redacted (RedactedInput) up to
	// MaxRefusedInput bytes when Module is set, and inputs are recorded.
	Input json.RawMessage
	// Source and Client are recorded as given (Record.Source, Client).
	Source, Client string
	// Detail is the verdict's detail: "not run: <reason>".
	Detail string
}

// RecordRefused records r as a finished run that was not run: the verdict
// host.not_started (docs/protocol.md §15 kind not_run) with r.Detail,
// approved false, under a fresh run id, which it returns.
func (s *Store) RecordRefused(r Refused) (string, error) {
	now := s.now()
	rec := &Record{RunID: modproto.NewRequestID(), Capability: r.Tool, Source: r.Source, Client: r.Client,
		Status: StatusFailed, Code: "host.not_started", Started: now, Finished: now,
		Host: &Verdict{Code: "host.not_started", Detail: r.Detail}}
	switch m := r.Module; {
	case m == nil:
		rec.InputNote = "the call named no tool modbay serves"
	default:
		rec.Module, rec.Capability, rec.ModuleExe, rec.ModuleRef = m.ID, r.Capability.ID, m.Exe, runner.ModuleRef(m)
		rec.Repeat = s.repeat.For(m)
		switch {
		case !s.RecordInputs():
		case len(r.Input) > MaxRefusedInput:
			rec.InputNote = "a refused call's input is kept up to 16 KiB"
		default:
			p := &runner.Plan{Module: m, Capability: r.Capability, Request: modproto.Request{Input: r.Input}}
			rec.Input, rec.Redacted = RedactedInput(p)
			rec.InputRecorded = true
		}
	}
	return rec.RunID, s.putFinal(rec)
}

// NoInputWhy is why rec keeps no input, in words for a person ("input
// not recorded (…)"): its InputNote, else the config that turned inputs
// off.
func (r *Record) NoInputWhy() string {
	if r.InputNote != "" {
		return r.InputNote
	}
	return "history.record_inputs is false"
}
