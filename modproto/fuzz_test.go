package modproto

import (
	"os"
	"testing"

	"modbay/internal/testcorpus"
)

// seedCorpus adds every JSON fixture of the corpus as a seed, when the
// corpus is present (it must be under CI), and a few inputs of its own.
func seedCorpus(f *testing.F) {
	f.Helper()
	if dir, ok := testcorpus.Lookup(f, "modules"); ok {
		for _, p := range jsonFiles(f, dir) {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte(""))
	f.Add([]byte(`{"ok":true,"result":null,"execution":{"artifacts":null}}`))
	f.Add([]byte(`{"error":{"details":7}}{}`))
}

// FuzzDecodeDescriptor: decoding a describe result never panics; a decoded
// descriptor is normalized and validation never panics.
func FuzzDecodeDescriptor(f *testing.F) {
	seedCorpus(f)
	f.Add([]byte(`{"capabilities":[{"id":"a","long_running":true,"poll_capability":"b"}],"request_schemas":{"x":1}}`))
	// Duplicate and case-variant keys (refused), and case variants inside
	// a schema (allowed).
	f.Add([]byte(`{"module":"m","Module":"n","capabilities":[]}`))
	f.Add([]byte(`{"capabilities":[{"id":"a","effects":{"network":false,"NETWORK":true}}]}`))
	f.Add([]byte(`{"request_schemas":{"s":{"properties":{"Name":{},"name":{}}}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		// Both a describe envelope's result and a bare descriptor.
		if env, err := DecodeEnvelope(b); err == nil && len(env.Result) > 0 {
			b = env.Result
		}
		sameDescriptor(t, b)
		d, err := DecodeDescriptor(b)
		if err != nil {
			return
		}
		if !topLevelKeysUnique(b) {
			t.Fatalf("a descriptor with case-variant or duplicate top-level keys decoded: %q", b)
		}
		if d.Capabilities == nil || d.RequestSchemas == nil || d.Skills == nil || d.Permissions.Network == nil {
			t.Fatal("not normalized")
		}
		_ = ValidateDescriptor(d)
		for _, c := range d.Capabilities {
			_, _ = CheckExecutionAgainstDeclared(d, c.ID, &Execution{})
			_ = IsWholeRequestSchema(d.RequestSchemas[c.RequestSchema])
		}
	})
}
