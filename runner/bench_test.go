package runner

import (
	"encoding/json"
	"errors"
	"testing"

	"modbay/modproto"
)

// The runner's costs, measured against a real subprocess module (the test
// binary re-executed). Results and the command are in bench/runner.txt.

// BenchmarkDescribeCold: one describe of a module, cache bypassed: spawn,
// read, decode, validate envelope and descriptor, check the bundle.
func BenchmarkDescribeCold(b *testing.B) {
	f := newFixture(b)
	f.addModule("bench", "good")
	m := f.load("bench")
	ctx := ctxGuard(b)
	b.ResetTimer()
	for b.Loop() {
		if got := f.host.Redescribe(ctx, m); got.Descriptor == nil {
			b.Fatal(got.Reason)
		}
	}
}

// BenchmarkDiscoverCached: discovery of a home whose module's describe is
// cached (identity is hashed, nothing is spawned).
func BenchmarkDiscoverCached(b *testing.B) {
	f := newFixture(b)
	f.addModule("bench", "good")
	ctx := ctxGuard(b)
	f.host.Discover(ctx) // fill the cache
	b.ResetTimer()
	for b.Loop() {
		mods := f.host.Discover(ctx)
		if len(mods) != 1 || !mods[0].Cached {
			b.Fatalf("not served from the cache: %+v", mods)
		}
	}
}

// BenchmarkInvokeEcho: plan (schema validation included) and run one
// invoke end to end: request file, sandboxed spawn, envelope checks,
// process-tree sweep.
func BenchmarkInvokeEcho(b *testing.B) {
	f := newFixture(b)
	f.addModule("bench", "good")
	m := f.load("bench")
	ctx := ctxGuard(b)
	in := json.RawMessage(`{"name":"bench"}`)
	b.ResetTimer()
	for b.Loop() {
		p, err := f.host.Plan(m, "t.echo", in)
		if err != nil {
			b.Fatal(err)
		}
		res, err := f.host.Run(ctx, p, true, nil)
		if err != nil || !res.OK() {
			b.Fatalf("%v %+v", err, res.Host)
		}
	}
}

// BenchmarkValidateInput: validating a value against a compiled (cached)
// request schema, as Plan does and as the form does on every keystroke.
func BenchmarkValidateInput(b *testing.B) {
	d := kitchenDescriptor(b)
	c := &modproto.Capability{ID: "kitchen.plate", RequestSchema: "plate_photo"}
	raw := d.RequestSchemas[c.RequestSchema]
	in := json.RawMessage(`{"width":1280,"height":720,"fps":30}`)
	var ie *InputError
	if err := validateRequest(c, raw, in); err != nil && !errors.As(err, &ie) {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if err := validateRequest(c, raw, in); err != nil && !errors.As(err, &ie) {
			b.Fatal(err)
		}
	}
}
