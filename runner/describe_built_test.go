package runner

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"modbay/modproto"
)

// builtCase is a descriptor a driver may build, and how its envelope is
// changed before judging.
type builtCase struct {
	name  string
	desc  func(d *modproto.Descriptor)
	env   func(e *modproto.Envelope)
	ready bool
}

// TestJudgeBuiltAgreesWithJudgeDescribe: a driver's built answer
// (BuiltDescribe) gets the verdict its encoding gets from judgeDescribe,
// the decoders' scans aside: the same status, reason, violations,
// warnings and descriptor, for good and broken descriptors alike.
func TestJudgeBuiltAgreesWithJudgeDescribe(t *testing.T) {
	for _, tc := range []builtCase{
		{name: "good", ready: true},
		{name: "wrong module id", desc: func(d *modproto.Descriptor) { d.Module = "other" }},
		{name: "repeated capability", desc: func(d *modproto.Descriptor) { d.Capabilities = append(d.Capabilities, d.Capabilities[0]) }},
		{name: "no version", desc: func(d *modproto.Descriptor) { d.Version = "" }},
		{name: "missing request schema", desc: func(d *modproto.Descriptor) { d.Capabilities[0].RequestSchema = "nowhere" }},
		{name: "no capabilities", desc: func(d *modproto.Descriptor) { d.Capabilities = nil }, ready: true},
		{name: "envelope warning", env: func(e *modproto.Envelope) { e.Warnings = []string{"1 tool skipped"} }, ready: true},
		{name: "wrong protocol", env: func(e *modproto.Envelope) { e.Protocol = "mcp" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			build := func() (*modproto.Envelope, *modproto.Descriptor, []byte) {
				d := &modproto.Descriptor{
					Module: "srv", Name: "Server", Version: "1.0.0", ProtocolVersions: []string{modproto.ProtocolID},
					Capabilities: []modproto.Capability{{ID: "search", Title: "Search", Summary: "Searches.", RequestSchema: "search.input",
						Effects: modproto.Effects{Network: true}}},
					RequestSchemas: map[string]json.RawMessage{"search.input": json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)},
					ResultSchemas:  map[string]json.RawMessage{}, ArtifactSchemas: map[string]json.RawMessage{},
				}
				if tc.desc != nil {
					tc.desc(d)
				}
				d.Normalize()
				res, err := json.Marshal(d)
				if err != nil {
					t.Fatal(err)
				}
				env := &modproto.Envelope{Protocol: modproto.ProtocolID, Module: "srv", Operation: modproto.OperationDescribe,
					OK: true, Result: res, Warnings: []string{}, Execution: modproto.Execution{Network: true, Artifacts: []modproto.Artifact{}}}
				if tc.env != nil {
					tc.env(env)
				}
				b, err := json.Marshal(env)
				if err != nil {
					t.Fatal(err)
				}
				return env, d, b
			}
			_, _, stdout := build()
			decoded := &Module{ID: "srv"}
			okDecoded := judgeDescribe(context.Background(), decoded, stdout, "srv", 0)
			env, d, stdout := build()
			built := &Module{ID: "srv"}
			okBuilt := judgeFresh(context.Background(), built, stdout, &BuiltDescribe{Envelope: env, Descriptor: d}, "srv", 0)
			if okBuilt != okDecoded || okBuilt != tc.ready {
				t.Fatalf("built %t, decoded %t, want %t (reasons %q / %q)", okBuilt, okDecoded, tc.ready, built.Reason, decoded.Reason)
			}
			if built.Status != decoded.Status || built.Reason != decoded.Reason ||
				!reflect.DeepEqual(built.Violations, decoded.Violations) || !reflect.DeepEqual(built.Warnings, decoded.Warnings) {
				t.Fatalf("built %s %q %v %q\ndecoded %s %q %v %q", built.Status, built.Reason, built.Violations, built.Warnings,
					decoded.Status, decoded.Reason, decoded.Violations, decoded.Warnings)
			}
			if okBuilt && !reflect.DeepEqual(built.Descriptor, decoded.Descriptor) {
				t.Fatalf("descriptors differ:\n%+v\n%+v", built.Descriptor, decoded.Descriptor)
			}
		})
	}
}

// TestJudgeBuiltBoundsSize: a built answer whose encoding passes
// DescribeMaxOutputBytes is refused as a process's stdout would be.
func TestJudgeBuiltBoundsSize(t *testing.T) {
	m := &Module{ID: "srv"}
	big := make([]byte, DescribeMaxOutputBytes+1)
	if judgeFresh(context.Background(), m, big, &BuiltDescribe{Envelope: &modproto.Envelope{}, Descriptor: &modproto.Descriptor{}}, "srv", 0) ||
		m.Status != StatusBroken || !strings.Contains(m.Reason, "exceeds") {
		t.Fatalf("status %s %q", m.Status, m.Reason)
	}
}

// cancelAfterFirst is a context whose first look says "going on" and every
// later one "cancelled": a cancel that lands while the judge is reading.
type cancelAfterFirst struct {
	context.Context
	looks int
}

func (c *cancelAfterFirst) Err() error {
	c.looks++
	if c.looks > 1 {
		return context.Canceled
	}
	return nil
}

// TestJudgeDescribeStopsOnCancel: a cancel while a 4 MiB describe is being
// decoded ends the judging there (docs/protocol.md §14), as cancelled, not
// with a verdict on the module.
func TestJudgeDescribeStopsOnCancel(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"protocol":"xibodev.module/v1","module":"big","operation":"describe","request_id":"","ok":true,"warnings":[],"execution":{},"result":{"module":"big","name":"Big","version":"1","protocol_versions":["xibodev.module/v1"],"capabilities":[{"id":"run","summary":"Runs."}],"x":[`)
	for b.Len() < DescribeMaxOutputBytes-64 {
		b.WriteString(`[[[1,2,3]]],`)
	}
	b.WriteString(`0]}}`)
	m := &Module{ID: "big"}
	ctx := &cancelAfterFirst{Context: context.Background()}
	if judgeDescribe(ctx, m, []byte(b.String()), "big", 0) || m.Status != StatusBroken || !strings.Contains(m.Reason, "cancelled") {
		t.Fatalf("status %s %q after %d looks at the context", m.Status, m.Reason, ctx.looks)
	}
	// The same describe, not cancelled, is ready: the cancel decided.
	m = &Module{ID: "big"}
	if !judgeDescribe(context.Background(), m, []byte(b.String()), "big", 0) {
		t.Fatalf("status %s %q", m.Status, m.Reason)
	}
}
