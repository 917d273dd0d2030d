package schema_test

import (
	"encoding/json"
	"errors"
	"testing"

	"modbay/config"
	"modbay/modproto"
	"modbay/runner"
	"modbay/schema"
	"modbay/ui/form"
)

// TestRunnerCompileIsTheFormsHandle: a capability's request schema that
// the runner compiled to plan a call is the handle the form builds on and
// validates with, on every check: one compile for all of them.
func TestRunnerCompileIsTheFormsHandle(t *testing.T) {
	// A draft-07 tuple without "$schema": the form's Declared bytes are
	// not the descriptor's, and must still reach the same handle.
	raw := json.RawMessage(`{"type":"object","required":["pair"],"properties":{
		"pair":{"type":"array","items":[{"type":"string"},{"type":"integer"}],"additionalItems":false},
		"shareTest":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`)
	d := &modproto.Descriptor{Module: "m", Name: "M", Version: "1", ProtocolVersions: []string{modproto.ProtocolID},
		Capabilities:   []modproto.Capability{{ID: "c", Summary: "s", RequestSchema: "r/v1", Effects: modproto.Effects{CostKnown: true}}},
		RequestSchemas: map[string]json.RawMessage{"r/v1": raw}}
	d.Normalize()
	cfg, err := config.Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workspace = t.TempDir()
	m := &runner.Module{ID: "m", Dir: t.TempDir(), Descriptor: d, Status: runner.StatusReady}

	before := schema.Compiles()
	var ie *runner.InputError
	if _, err := runner.NewHost(cfg).Plan(m, "c", json.RawMessage(`{"pair":["a",1,true]}`)); !errors.As(err, &ie) {
		t.Fatalf("plan: %v, want an InputError (additionalItems)", err)
	}
	if n := schema.Compiles() - before; n != 1 {
		t.Fatalf("the runner compiled %d times, want 1", n)
	}
	f, err := form.Build(raw)
	if err != nil {
		t.Fatal(err)
	}
	h, err := schema.Compile(raw)
	if err != nil {
		t.Fatal(err)
	}
	if f.Compiled() != h || f.Draft != schema.Draft7 {
		t.Fatalf("the form compiled its own schema (%p, runner's %p), draft %q", f.Compiled(), h, f.Draft)
	}
	for range 3 { // keystrokes
		if _, p := f.Check(schema.ValidateInput); p.Count() == 0 {
			t.Fatal("an empty form passed a schema requiring pair")
		}
	}
	if n := schema.Compiles() - before; n != 1 {
		t.Errorf("%d compiles after the form was built and checked, want 1", n)
	}
}
