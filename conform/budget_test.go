package conform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"modbay/schema"
)

// TestGenerateBudgetTotal: 20 required objects of 10 required strings of
// minLength 100,000, each under MaxBuildString, are 20 MB per input;
// generation stops at the total budget and says which.
func TestGenerateBudgetTotal(t *testing.T) {
	raw, err := os.ReadFile("testdata/hostile/wide-strings.json")
	if err != nil {
		t.Fatal(err)
	}
	h, err := schema.Compile(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Generate(h) {
		if c.Kind == KindMinimal {
			if !strings.Contains(c.Skip, "MaxBuildTotalString") {
				t.Fatalf("minimal case: skip %q, input %d bytes; want the bound MaxBuildTotalString", c.Skip, len(c.Input))
			}
			return
		}
	}
	t.Fatal("no minimal case")
}

// countdown is a context that ends itself after n looks at Err: a
// cancellation arriving in the middle of a generation (a SIGINT).
type countdown struct {
	context.Context
	cancel context.CancelFunc
	n      atomic.Int64
}

func (c *countdown) Err() error {
	if c.n.Add(-1) <= 0 {
		c.cancel()
	}
	return c.Context.Err()
}

// TestGenerateStopsWithItsContext: generation stops once its context
// ends — before it starts, or in the middle of a big schema — with an
// error wrapping schema.ErrCancelled and the context's, and makes nothing
// more.
func TestGenerateStopsWithItsContext(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	var req []string
	for i := range 2000 {
		fmt.Fprintf(&b, `"p%d":{"type":"string","minLength":100},`, i)
		req = append(req, fmt.Sprintf("%q", fmt.Sprintf("p%d", i)))
	}
	b.WriteString(`"last":{"type":"integer","minimum":3}},"required":[` + strings.Join(req, ",") + `]}`)
	h, err := schema.Compile(json.RawMessage(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	full, err := GenerateContext(context.Background(), h)
	if err != nil || len(full) < 3 {
		t.Fatalf("uncancelled: %d cases, %v", len(full), err)
	}

	done, cancel := context.WithCancel(context.Background())
	cancel()
	cases, err := GenerateContext(done, h)
	if !errors.Is(err, schema.ErrCancelled) || !errors.Is(err, context.Canceled) || len(cases) != 0 {
		t.Fatalf("cancelled before: %d cases, %v", len(cases), err)
	}

	parent, stop := context.WithCancel(context.Background())
	defer stop()
	cd := &countdown{Context: parent, cancel: stop}
	cd.n.Store(3000) // within the minimal case's 2,000 properties
	cases, err = GenerateContext(cd, h)
	if !errors.Is(err, schema.ErrCancelled) || len(cases) >= len(full) {
		t.Fatalf("cancelled midway: %d of %d cases, %v", len(cases), len(full), err)
	}
	if left := cd.n.Load(); left < -100 {
		t.Fatalf("generation looked at its ended context %d more times: it went on", -left)
	}
}

// selfWide is a 170 KB request schema under every compile bound: an
// object of n properties, each referring to the root.
func selfWide(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{"$ref":"#"}`, i)
	}
	b.WriteString(`}}`)
	return json.RawMessage(b.String())
}

// TestGenerateCountsPropertiesLookedAt: every optional field of 7,000
// properties each referring to the root is 7,000 looks per object;
// counted against MaxBuildTotalItems, the full case stops after a few
// objects (optional fields it could not make left out) and the others
// are made (`modbay check` took 74 s and 3 GB before, its full case
// 100,000 values).
func TestGenerateCountsPropertiesLookedAt(t *testing.T) {
	h, err := schema.Compile(selfWide(7000))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[CaseKind]Case{}
	for _, c := range Generate(h) {
		kinds[c.Kind] = c
	}
	if c := kinds[KindFull]; c.Skip != "" || len(c.Input) > 1024 {
		t.Errorf("full case: skip %q, input %d bytes, want a few objects", c.Skip, len(c.Input))
	}
	if c := kinds[KindMinimal]; c.Skip != "" || string(c.Input) != "{}" {
		t.Errorf("minimal case: %q skip %q", c.Input, c.Skip)
	}
	if c := kinds[KindInvalid]; c.Skip != "" || !strings.HasPrefix(c.Name, "invalid: /p0 is") {
		t.Errorf("invalid case %q: skip %q", c.Name, c.Skip)
	}
}

// BenchmarkGenerateSelfWide: that schema's cases (74 s in `modbay check`
// before properties looked at were counted and merges shared their
// targets' property lists).
func BenchmarkGenerateSelfWide(b *testing.B) {
	h, err := schema.Compile(selfWide(7000))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		Generate(h)
	}
}
