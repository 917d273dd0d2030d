package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"modbay/modproto"
	"modbay/runner"
	"modbay/schema"
	"modbay/ui/form"
	"modbay/ui/internal/uitest"
)

// caps returns the top-most capability list, or nil.
func caps(m *Model) *capList {
	c, _ := find[*capList](m)
	return c
}

// openCaps shows the fixture module's capability list.
func openCaps(t *testing.T, m *Model) {
	t.Helper()
	withModules(t, m)
	press(m, "enter")
	if m.screen() != screenCaps {
		t.Fatalf("screen %v, want capabilities", m.screen())
	}
}

// typeNoQuit types s, failing when a key quits the program.
func typeNoQuit(t *testing.T, m *Model, s string) {
	t.Helper()
	for _, msg := range uitest.Type(s) {
		if _, cmd := m.Update(msg); cmd != nil {
			if _, quit := cmd().(tea.QuitMsg); quit {
				t.Fatalf("typing %q into the filter quit the program", s)
			}
		}
	}
}

func TestCapabilityListFilters(t *testing.T) {
	m, _ := newTest(t, nil, 80, 24)
	openCaps(t, m)
	press(m, "/")
	typeNoQuit(t, m, "q")
	press(m, "backspace")
	typeNoQuit(t, m, "slow")
	out := ansi.Strip(frame(t, m))
	if !strings.Contains(out, "/slow") || !strings.Contains(out, "fake.slow") || strings.Contains(out, "fake.echo") {
		t.Fatalf("filtered list:\n%s", out)
	}
	press(m, "enter") // leaves the filter, keeping it
	press(m, "enter") // opens the one shown
	if m.screen() != screenForm || m.flow.cap.ID != "fake.slow" {
		t.Fatalf("screen %v cap %q, want the fake.slow form", m.screen(), m.flow.cap.ID)
	}

	m, _ = newTest(t, nil, 80, 24)
	openCaps(t, m)
	press(m, "/")
	typeNoQuit(t, m, "slow")
	press(m, "esc")
	if out := ansi.Strip(frame(t, m)); m.screen() != screenCaps || !strings.Contains(out, "fake.echo") || strings.Contains(out, "/slow") {
		t.Fatalf("esc did not clear the filter (screen %v):\n%s", m.screen(), out)
	}
	press(m, "esc")
	if m.screen() != screenModules {
		t.Fatalf("esc with no filter: screen %v, want modules", m.screen())
	}
}

func TestCapabilityListHomeEnd(t *testing.T) {
	for _, k := range [][2]string{{"end", "home"}, {"G", "g"}} {
		m, _ := newTest(t, nil, 80, 24)
		openCaps(t, m)
		press(m, k[0])
		// fake.jobs.status polls fake.slow's jobs: hidden, no form
		// (docs/protocol.md §17).
		if got := caps(m).Selected().ID; got != "fake.slow" {
			t.Errorf("%s selects %q", k[0], got)
		}
		press(m, k[1])
		if got := caps(m).Selected().ID; got != "fake.echo" {
			t.Errorf("%s selects %q", k[1], got)
		}
	}
}

// TestCapabilityListHidesJobCapabilities: a poll capability is no form
// (docs/protocol.md §17); the capability it polls shows it as its poller.
func TestCapabilityListHidesJobCapabilities(t *testing.T) {
	m, _ := newTest(t, nil, 80, 24)
	openCaps(t, m)
	out := ansi.Strip(frame(t, m))
	if strings.Contains(out, "fake.jobs.status") || !strings.Contains(out, "fake.slow") {
		t.Fatalf("list:\n%s", out)
	}
}

// TestCapDetailBuildsOffTheLoop: the detail pane never builds a form while
// it draws. A build that does not end (a hostile schema) leaves the frame
// drawn with "…" for the inputs; the finished build fills them in, and
// frames drawn after it build nothing again.
func TestCapDetailBuildsOffTheLoop(t *testing.T) {
	m, _ := newTest(t, nil, 80, 24)
	m.formWait = 0
	gate, started := make(chan struct{}), make(chan struct{}, 8)
	var builds atomic.Int32
	m.buildForm = func(ctx context.Context, raw json.RawMessage) (*form.Form, error) {
		builds.Add(1)
		started <- struct{}{}
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %v", schema.ErrCancelled, ctx.Err())
		}
		return form.BuildContext(ctx, raw)
	}
	withModules(t, m)
	_, cmd := m.Update(uitest.Key("enter"))
	if m.screen() != screenCaps {
		t.Fatalf("screen %v, want capabilities", m.screen())
	}
	var out string
	for range 3 {
		out = frame(t, m)
	}
	<-started // the build runs, off the loop, blocked
	if n := builds.Load(); n != 1 {
		t.Fatalf("%d builds for one capability over three frames, want 1 started off the loop", n)
	}
	golden.RequireEqual(t, []byte(out))
	if !strings.Contains(ansi.Strip(out), "…") {
		t.Fatalf("the pending inputs are not shown as …:\n%s", out)
	}
	close(gate)
	m.Update(msgOf[capSummaryMsg](t, cmd))
	for range 3 {
		out = ansi.Strip(frame(t, m))
	}
	if !strings.Contains(out, "• name * string") || builds.Load() != 1 {
		t.Fatalf("after the build (%d builds):\n%s", builds.Load(), out)
	}
}

// TestCapDetailCostlySchemaIsNoError: a schema too costly for form fields
// (a bound passed) is a JSON input in the detail pane, not a ✗ as an
// unreadable one is.
func TestCapDetailCostlySchemaIsNoError(t *testing.T) {
	m, _ := newTest(t, nil, 80, 24)
	m.buildForm = func(ctx context.Context, raw json.RawMessage) (*form.Form, error) {
		return nil, &schema.BoundError{Bound: "MaxBuildTotalItems", Limit: 100000, Detail: "the form would make more than 100000 fields"}
	}
	withModules(t, m)
	m.Update(uitest.Key("enter"))
	var out string
	for range 3 {
		out = ansi.Strip(frame(t, m))
	}
	if strings.Contains(out, "✗") || !strings.Contains(out, "JSON input: too costly for form") {
		t.Fatalf("detail pane:\n%s", out)
	}
}

// TestCapListAllHidden: a module whose one capability is its own poller
// has nothing offered; the list says why, not "declares no capabilities".
func TestCapListAllHidden(t *testing.T) {
	m, _ := newTest(t, nil, 100, 24)
	d := &modproto.Descriptor{Module: "selfpoll", Name: "S", Version: "1", ProtocolVersions: []string{modproto.ProtocolID},
		Capabilities: []modproto.Capability{{ID: "s.run", Summary: "s", LongRunning: true, PollCapability: "s.run"}}}
	d.Normalize()
	scr, _ := openCapsScreen(m, &runner.Module{ID: "selfpoll", Descriptor: d, Status: runner.StatusReady})
	if v := ansi.Strip(scr.View()); !strings.Contains(v, "one capability is hidden") {
		t.Fatalf("view: %s", v)
	}
}
