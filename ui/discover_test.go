package ui

import (
	"context"
	"strings"
	"testing"

	"modbay/runner"
	"modbay/ui/internal/uitest"
)

// streamBackend lists two modules at once and the rest only once release
// is closed, as a discovery with a slow describe does.
type streamBackend struct {
	*fakeBackend
	mods    []*runner.Module
	release chan struct{}
}

func (s *streamBackend) CountCandidates() int { return len(s.mods) }

func (s *streamBackend) DiscoverStream(ctx context.Context, each func(*runner.Module)) []*runner.Module {
	each(s.mods[0])
	each(s.mods[1])
	select {
	case <-s.release:
	case <-ctx.Done():
	}
	for _, m := range s.mods[2:] {
		each(m)
	}
	return s.mods
}

func TestModulesShowAsTheirDescribesFinish(t *testing.T) {
	mods := uitest.Modules(t)
	sb := &streamBackend{fakeBackend: &fakeBackend{}, mods: mods, release: make(chan struct{})}
	m, _ := newTest(t, sb, 100, 30)
	h := newHarness(t, m)
	h.do(m.discover())
	h.until("the first two modules", func() bool { return len(m.modules.modules) == 2 })
	out := frame(t, m)
	for _, want := range []string{"archive", "Echo Tools", "describing 2 more…"} {
		if !strings.Contains(out, want) {
			t.Errorf("while one describe hangs the list lacks %q:\n%s", want, out)
		}
	}
	// The person can already move and open what arrived.
	press(m, "down")
	if sel := m.modules.Selected(); sel == nil || sel.ID != "echo" {
		t.Fatalf("selected %v, want echo", sel)
	}
	// A module of an older discovery is dropped.
	m.Update(moduleFoundMsg{gen: m.gen - 1, modules: []*runner.Module{mods[3]}})
	if len(m.modules.modules) != 2 {
		t.Fatal("a stale discovery's module was listed")
	}
	close(sb.release)
	h.until("discovery done", func() bool { return !m.modules.discovering })
	out = frame(t, m)
	if strings.Contains(out, "describing") || !strings.Contains(out, "4 modules") || !strings.Contains(out, "zz-broken") {
		t.Fatalf("finished list:\n%s", out)
	}
	if sel := m.modules.Selected(); sel == nil || sel.ID != "echo" {
		t.Fatalf("the selection moved to %v as modules arrived", sel)
	}
}

// reverseStream streams modules last-first (a slow describe of the first
// in sort order) and returns them sorted, as the runner does.
type reverseStream struct {
	*fakeBackend
	mods []*runner.Module
}

func (r *reverseStream) CountCandidates() int { return len(r.mods) }

func (r *reverseStream) DiscoverStream(ctx context.Context, each func(*runner.Module)) []*runner.Module {
	for i := len(r.mods) - 1; i >= 0; i-- {
		each(r.mods[i])
	}
	return r.mods
}

// TestCursorStaysOnTopUntilMoved: while modules arrive in describe order
// (here the last in sort order first), an untouched cursor stays on the
// first row instead of following whichever module arrived first.
func TestCursorStaysOnTopUntilMoved(t *testing.T) {
	mods := uitest.Modules(t)
	m, _ := newTest(t, &reverseStream{fakeBackend: &fakeBackend{}, mods: mods}, 100, 30)
	h := newHarness(t, m)
	h.do(m.discover())
	h.until("discovery done", func() bool { return !m.modules.discovering })
	if sel := m.modules.Selected(); sel == nil || sel.ID != mods[0].ID {
		t.Fatalf("selected %v, want the first row %s", sel.ID, mods[0].ID)
	}
}
