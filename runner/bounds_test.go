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
	"time"

	"modbay/modproto"
	"modbay/schema"
)

// sparse writes a file of size bytes that holds no data (one hole) at
// ws/name and returns its artifact entry, digest and all (a hole reads as
// zeros): what a module lists to make the host copy and hash it.
func sparse(ws, name string, size int64, a map[string]any) map[string]any {
	p := filepath.Join(ws, name)
	f, _ := os.Create(p)
	f.Truncate(size)
	f.Close()
	b := map[string]any{}
	for k, v := range a {
		b[k] = v
	}
	b["path"], b["bytes"], b["id"] = name, size, name
	b["digest"] = "sha256:" + strings.Repeat("0", 64)
	return b
}

func init() {
	// sparse_huge lists a 64 GiB hole: one copy would fill the disk.
	hardenModes["sparse_huge"] = func(ws string, _ modproto.Request, _ []byte, a map[string]any, ok func(any, []map[string]any) int) int {
		return ok(map[string]any{}, []map[string]any{sparse(ws, "huge.bin", 64<<30, a)})
	}
	// sparse_many lists the same 3 MiB hole eight times.
	hardenModes["sparse_many"] = func(ws string, _ modproto.Request, _ []byte, a map[string]any, ok func(any, []map[string]any) int) int {
		e := sparse(ws, "hole.bin", 3<<20, a)
		e["digest"] = modproto.Digest(make([]byte, 3<<20))
		var arts []map[string]any
		for i := range 8 {
			c := map[string]any{}
			for k, v := range e {
				c[k] = v
			}
			c["id"] = fmt.Sprintf("hole%d", i)
			arts = append(arts, c)
		}
		return ok(map[string]any{}, arts)
	}
	// sparse_slow lists a 3 GiB hole, which takes seconds to copy.
	hardenModes["sparse_slow"] = func(ws string, _ modproto.Request, _ []byte, a map[string]any, ok func(any, []map[string]any) int) int {
		return ok(map[string]any{}, []map[string]any{sparse(ws, "slow.bin", 3<<30, a)})
	}
}

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

// TestStagingBounded: a module cannot make the host fill the disk with
// its artifacts: a file past the run's byte budget is refused before any
// byte is copied, the store's quota refuses what would pass it, and a
// staging that outlives the run's deadline stops, its copy removed.
func TestStagingBounded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("good", "good")
	m := f.load("good")

	res := f.run(m, "t.art", `{"mode":"sparse_huge"}`, nil)
	wantHost(t, res, modproto.CodeHostProtocolViolation)
	if !strings.Contains(res.Host.Detail, "MaxRunStageBytes") || storeFiles(t, f) != 0 {
		t.Fatalf("huge hole: %s; %d files in the store", res.Host.Detail, storeFiles(t, f))
	}

	f.cfg.Artifacts.MaxBytes = 10 << 20
	res = f.run(m, "t.art", `{"mode":"sparse_many"}`, nil)
	wantHost(t, res, modproto.CodeHostProtocolViolation)
	if !strings.Contains(res.Host.Detail, "artifacts.max_bytes") {
		t.Fatalf("quota: %s", res.Host.Detail)
	}
	if n := len(res.Refused); n != 5 {
		t.Fatalf("quota of 10 MiB refused %d of 8 listings of 3 MiB, want 5", n)
	}
	f.cfg.Artifacts.MaxBytes = 0

	start := time.Now()
	res = f.run(m, "t.art", `{"mode":"sparse_slow"}`, func(p *Plan) { p.Request.DeadlineMS = 300 })
	wantHost(t, res, modproto.CodeHostTimeout)
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("staging ran %v past a 300 ms deadline", took)
	}
	if res.Duration < 300*time.Millisecond {
		t.Fatalf("the run's duration %v leaves out its staging", res.Duration)
	}
	if tmps, _ := os.ReadDir(filepath.Join(f.cfg.ArtifactsDir(), "tmp")); len(tmps) != 0 {
		t.Fatalf("a stopped staging left %d temporary files", len(tmps))
	}
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
