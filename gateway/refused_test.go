package gateway

import (
	"testing"
	"time"

	"modbay/history"
)

// The bound takes refusedBurst at once, then one each refusedEvery, and
// hands the count of those it dropped to the next one it takes.
func TestRefusalsBound(t *testing.T) {
	var b refusals
	now := time.Unix(1_000_000, 0)
	for i := range refusedBurst {
		if ok, n, _ := b.take(now, history.Refused{}); !ok || n != 0 {
			t.Fatalf("refusal %d of the burst: %v %d", i, ok, n)
		}
	}
	for range 5 {
		if ok, _, _ := b.take(now.Add(time.Second), history.Refused{Tool: "junk"}); ok {
			t.Fatal("a refusal over the burst was taken")
		}
	}
	ok, n, since := b.take(now.Add(refusedEvery+time.Second), history.Refused{})
	if !ok || n != 5 || !since.Equal(now.Add(time.Second)) {
		t.Errorf("after a refill: %v, %d dropped since %v", ok, n, since)
	}
	if ok, _, _ := b.take(now.Add(refusedEvery+2*time.Second), history.Refused{}); ok {
		t.Error("the refill gave more than one")
	}
	if b.dropped != 1 || b.lastDropped.Tool != "" {
		t.Errorf("dropped %d, last %+v", b.dropped, b.lastDropped)
	}
}
