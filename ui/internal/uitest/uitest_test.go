package uitest

import (
	"io/fs"
	"testing"

	"modbay/modproto"
	"modbay/schema"
)

// TestFixturesKeepTheWire: the project's own fixtures are what a module
// would really send: the describe envelope keeps docs/protocol.md §6 and its
// descriptor §9; each invoke envelope keeps §6 for the request id Plan
// sends; the success's artifact is declared (§7) and its digest and size
// are those of the artifact bytes kept beside it; the failure's effects go
// beyond what fake.report declares (so the result screen has a difference
// to flag).
func TestFixturesKeepTheWire(t *testing.T) {
	env := Envelope(t, "describe/descriptor.json")
	if v := modproto.ValidateEnvelope(env, modproto.OperationDescribe, "", "fake"); len(v) > 0 {
		t.Fatalf("describe envelope: %v", v)
	}
	m := Module(t)
	if v := modproto.ValidateDescriptor(m.Descriptor); len(v) > 0 {
		t.Fatalf("descriptor: %v", v)
	}
	slow := m.Descriptor.Capability("fake.slow")
	if slow == nil || !slow.LongRunning || m.Descriptor.Capability(slow.PollCapability) == nil {
		t.Fatal("fake.slow is not long-running with a declared poll capability")
	}
	p := Plan(t, m)
	names, err := fs.Glob(Fixtures, "invoke/*.json")
	if err != nil || len(names) != 2 {
		t.Fatalf("invoke fixtures %v: %v", names, err)
	}
	for _, name := range names {
		env := Envelope(t, name)
		if v := modproto.ValidateEnvelope(env, modproto.OperationInvoke, p.Request.RequestID, "fake"); len(v) > 0 {
			t.Errorf("%s: %v", name, v)
		}
	}
	ok := Result(t, p, "invoke/success-with-artifact.json")
	if v, _ := modproto.CheckExecutionAgainstDeclared(m.Descriptor, "fake.report", &ok.Envelope.Execution); len(v) > 0 {
		t.Errorf("success breaks §7: %v", v)
	}
	body := Read(t, "artifacts/quarterly.json")
	if a := ok.Envelope.Execution.Artifacts; len(a) != 1 || a[0].Digest != modproto.Digest(body) || a[0].Bytes != int64(len(body)) {
		t.Errorf("artifact %+v does not describe artifacts/quarterly.json (%d bytes, %s)", a, len(body), modproto.Digest(body))
	}
	failed := Result(t, p, "invoke/error-provider-failure-unknown-cost.json")
	if failed.Envelope.OK || failed.Envelope.Execution.EstimatedCost != nil || len(failed.EffectWarnings) == 0 {
		t.Errorf("failure: ok %v, estimated %v, effect warnings %v", failed.Envelope.OK, failed.Envelope.Execution.EstimatedCost, failed.EffectWarnings)
	}
}

// TestSchemasCompile: every schema fixture is listed in SchemaNames and
// compiles offline with the runner's validator.
func TestSchemasCompile(t *testing.T) {
	files, _ := fs.Glob(Fixtures, "schemas/*.json")
	if len(files) != len(SchemaNames) {
		t.Fatalf("schema files %v, SchemaNames %v", files, SchemaNames)
	}
	for _, name := range SchemaNames {
		if _, err := schema.ValidateInput(Schema(t, name), []byte(`{}`)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if !modproto.IsWholeRequestSchema(Schema(t, "whole-request")) {
		t.Error("whole-request is not a whole-request schema")
	}
}
