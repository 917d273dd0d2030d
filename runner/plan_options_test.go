package runner

import (
	"encoding/json"
	"errors"
	"testing"

	"modbay/config"
	"modbay/modproto"
)

// optionsModule is a stub module whose one capability "c" has schema.
func optionsModule(t *testing.T, schema string) (*Host, *Module) {
	t.Helper()
	d := &modproto.Descriptor{Module: "m", Name: "M", Version: "1", ProtocolVersions: []string{modproto.ProtocolID},
		Capabilities:   []modproto.Capability{{ID: "c", Summary: "s", RequestSchema: "r/v1", Effects: modproto.Effects{CostKnown: true}}},
		RequestSchemas: map[string]json.RawMessage{"r/v1": json.RawMessage(schema)}}
	d.Normalize()
	cfg, err := config.Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return NewHost(cfg), stubModule(t, "m", d)
}

func TestPlanWithSkipValidationSendsInvalidInput(t *testing.T) {
	t.Parallel()
	h, m := optionsModule(t, `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	in := json.RawMessage(`{"n":"not a number"}`)
	var ie *InputError
	if _, err := h.PlanWith(m, "c", in, PlanOptions{}); !errors.As(err, &ie) {
		t.Fatalf("checked plan: err %v, want *InputError", err)
	}
	p, err := h.PlanWith(m, "c", in, PlanOptions{SkipValidation: true})
	if err != nil {
		t.Fatal(err)
	}
	if string(p.Request.Input) != string(in) || p.Module != m {
		t.Fatalf("input %s module %p (want %p)", p.Request.Input, p.Module, m)
	}
	if got := string(m.Descriptor.RequestSchemas["r/v1"]); got != `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}` || got[0:1] != "{" || len(got) < 40 {
		t.Fatalf("the module's own schema changed: %s", got)
	}
}

func TestPlanWithSkipValidationKeepsWholeRequestSplit(t *testing.T) {
	t.Parallel()
	h, m := optionsModule(t, `{"type":"object","properties":{"tool":{"type":"string","minLength":1},"input":{"type":"object"}},"required":["tool","input"]}`)
	p, err := h.PlanWith(m, "c", json.RawMessage(`{"tool":"","input":{"a":1}}`), PlanOptions{SkipValidation: true})
	if err != nil {
		t.Fatal(err)
	}
	if !p.WholeRequest || string(p.Request.Input) != `{"a":1}` || string(p.Request.Extra["tool"]) != `""` {
		t.Fatalf("whole %v input %s extra %v", p.WholeRequest, p.Request.Input, p.Request.Extra)
	}
}

func TestPlanWithReadsUndeclaredDraft07(t *testing.T) {
	t.Parallel()
	// A draft-07 tuple ("items" as an array) without "$schema": not a valid
	// 2020-12 schema, a valid draft-07 one.
	h, m := optionsModule(t, `{"type":"object","properties":{"pair":{"type":"array","items":[{"type":"string"},{"type":"integer"}],"additionalItems":false}}}`)
	if _, err := h.Plan(m, "c", json.RawMessage(`{"pair":["a",1]}`)); err != nil {
		t.Fatalf("Plan refused valid draft-07 input: %v", err)
	}
	if _, err := h.PlanWith(m, "c", json.RawMessage(`{"pair":["a",1]}`), PlanOptions{}); err != nil {
		t.Fatalf("valid draft-07 input: %v", err)
	}
	var ie *InputError
	if _, err := h.PlanWith(m, "c", json.RawMessage(`{"pair":["a","b"]}`), PlanOptions{}); !errors.As(err, &ie) {
		t.Fatalf("invalid draft-07 input: err %v, want *InputError", err)
	}
}

// A number no reader can hold is a finding like any other: Plan refuses
// it, "send anyway" sends it exactly as typed.
func TestPlanWithSkipValidationSendsANumberNoReaderCanHold(t *testing.T) {
	t.Parallel()
	h, m := optionsModule(t, `{"type":"object","properties":{"n":{"type":"number"}}}`)
	in := json.RawMessage(`{"n":1e999}`)
	var ie *InputError
	if _, err := h.Plan(m, "c", in); !errors.As(err, &ie) {
		t.Fatalf("checked plan: err %v, want *InputError", err)
	}
	p, err := h.PlanWith(m, "c", in, PlanOptions{SkipValidation: true})
	if err != nil {
		t.Fatalf("send anyway: %v", err)
	}
	if string(p.Request.Input) != string(in) {
		t.Fatalf("input %s, want %s", p.Request.Input, in)
	}
	if !p.Unchecked {
		t.Error("a plan sent anyway is not marked Unchecked (history would not say so)")
	}
}
