package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modbay/modproto"
	"modbay/schema"
)

// storeFiles counts the files under the artifact store's sha256/ and tmp/.
func storeFiles(t *testing.T, f *fixture) int {
	n := 0
	filepath.Walk(f.cfg.ArtifactsDir(), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n++
		}
		return nil
	})
	return n
}

// TestPlanValidationStopsWithItsContext: the input's validation stops
// when the plan's context ends (invoke's signals and --deadline), and a
// validation past a bound is an error naming it.
func TestPlanValidationStopsWithItsContext(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"array","items":{"$ref":"#/$defs/d0"},"$defs":{`)
	for i := range 14 {
		fmt.Fprintf(&b, `"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]},`, i, i+1, i+1)
	}
	b.WriteString(`"d14":{"type":"string"}}}`)
	c := &modproto.Capability{ID: "b.run", RequestSchema: "b/v1"}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := validateRequest(ctx, c, json.RawMessage(b.String()), json.RawMessage(`["a"]`)); !errors.Is(err, schema.ErrCancelled) {
		t.Fatalf("cancelled: %v", err)
	}
	big := "[" + strings.Repeat(`"a",`, 199) + `"a"]`
	if err := validateRequest(nil, c, json.RawMessage(b.String()), json.RawMessage(big)); !schema.IsBound(err) || !strings.Contains(err.Error(), "MaxValidateSteps") {
		t.Fatalf("past the bound: %v", err)
	}
}

// TestCheckRequestSchemasStopsWithItsContext: discovery's compile of a
// module's request schemas stops when its context ends, and a module so
// stopped is not judged (a cancelled compile is no schema error).
func TestCheckRequestSchemasStopsWithItsContext(t *testing.T) {
	m := &Module{Status: StatusReady, Descriptor: &modproto.Descriptor{
		Capabilities:   []modproto.Capability{{ID: "c.run", RequestSchema: "c/v1"}},
		RequestSchemas: map[string]json.RawMessage{"c/v1": json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)},
	}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if checkRequestSchemas(ctx, m) || len(m.Warnings) != 0 {
		t.Fatalf("cancelled: judged anyway, warnings %v", m.Warnings)
	}
	if !checkRequestSchemas(context.Background(), m) || m.Status != StatusReady {
		t.Fatalf("not cancelled: %s %s", m.Status, m.Reason)
	}
}
