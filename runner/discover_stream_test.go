package runner

import (
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestDiscoverStreamDoesNotWaitForASlowModule(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("aaa-slow", "slow_describe")
	f.addModule("fast1", "good")
	f.addModule("fast2", "broken")
	// An extra claiming "fast1" again: broken in the final list only.
	f.writeLauncher(filepath.Join(f.home, "elsewhere", "fast1"), "good", "fast1")
	f.cfg.Modules = []string{filepath.Join(f.home, "elsewhere", "fast1")}

	if n := f.host.CountCandidates(); n != 4 {
		t.Fatalf("CountCandidates = %d, want 4", n)
	}
	type arrival struct {
		id string
		at time.Duration
	}
	var (
		mu       sync.Mutex
		arrivals []arrival
	)
	start := time.Now()
	got := f.host.DiscoverStream(ctxGuard(t), func(m *Module) {
		mu.Lock()
		defer mu.Unlock()
		arrivals = append(arrivals, arrival{m.ID, time.Since(start)})
	})
	if len(arrivals) != 4 {
		t.Fatalf("each was called %d times, want 4: %v", len(arrivals), arrivals)
	}
	var slowAt time.Duration
	for _, a := range arrivals {
		if a.id == "aaa-slow" {
			slowAt = a.at
		}
	}
	if slowAt < slowDescribe {
		t.Fatalf("the slow module arrived after %v, sooner than its describe takes", slowAt)
	}
	for _, a := range arrivals {
		if a.id != "aaa-slow" && a.at >= slowAt {
			t.Errorf("%s arrived at %v, not before the slow module (%v)", a.id, a.at, slowAt)
		}
	}
	// The final list is Discover's: sorted, id claims applied.
	want := f.host.Discover(ctxGuard(t))
	summary := func(mods []*Module) []string {
		var s []string
		for _, m := range mods {
			s = append(s, m.ID+" "+string(m.Status)+" "+m.Exe)
		}
		return s
	}
	if g, w := summary(got), summary(want); !slices.Equal(g, w) {
		t.Fatalf("DiscoverStream returned\n%q\nDiscover returns\n%q", g, w)
	}
	for _, m := range byID(got)["fast1"] {
		if want := map[string]Status{OriginHome: StatusReady, OriginConfig: StatusBroken}[m.Origin]; m.Status != want {
			t.Errorf("fast1 from %s: %s (%s), want %s", m.Origin, m.Status, m.Reason, want)
		}
	}
	// Nothing else to call back into: a nil each is Discover.
	if n := len(f.host.DiscoverStream(ctxGuard(t), nil)); n != 4 {
		t.Fatalf("DiscoverStream(nil) listed %d", n)
	}
}
