package ui

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"modbay/config"
	"modbay/runner"
	"modbay/ui/internal/uitest"
)

// listBackend discovers a fixed list of modules and counts discoveries.
type listBackend struct {
	*fakeBackend
	mods      []*runner.Module
	discovers atomic.Int32
}

func (b *listBackend) Discover(context.Context) []*runner.Module {
	b.discovers.Add(1)
	return b.mods
}

// pump runs cmd and feeds what it answers back into m, depth first,
// dropping the spinner's ticks (which would tick forever).
func pump(m *Model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			pump(m, c)
		}
	case nil, spinner.TickMsg:
	default:
		_, next := m.Update(msg)
		pump(m, next)
	}
}

// TestReloadTakesNewConfig: r on the module list reads config.yaml again
// (Options.Reload), then discovers on the backend built from it, with its
// banner; the detail pane's fix for a missing binary says r does it.
func TestReloadTakesNewConfig(t *testing.T) {
	mods := uitest.Modules(t)
	old := &listBackend{fakeBackend: &fakeBackend{}, mods: mods}
	next := &listBackend{fakeBackend: &fakeBackend{}, mods: mods[:1]}
	m, _ := newTest(t, old, 200, 30)
	var reloads atomic.Int32
	m.opts.Reload = func(context.Context) (*Reloaded, error) {
		reloads.Add(1)
		return &Reloaded{Backend: next, Workspace: "/w2", Banner: "Reloaded config."}, nil
	}
	pump(m, m.discover())
	if len(m.modules.modules) != len(mods) {
		t.Fatalf("first discovery listed %d modules", len(m.modules.modules))
	}
	_, cmd := m.Update(keyPress("r"))
	pump(m, cmd)
	if reloads.Load() != 1 || m.backend != Backend(next) || m.workspace != "/w2" {
		t.Fatalf("r: %d reloads, backend swapped %v, workspace %q", reloads.Load(), m.backend == Backend(next), m.workspace)
	}
	if next.discovers.Load() != 1 || len(m.modules.modules) != 1 {
		t.Errorf("after r: new backend discovered %d times, %d modules listed", next.discovers.Load(), len(m.modules.modules))
	}
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "Reloaded config.") {
		t.Errorf("the new banner is not shown:\n%s", out)
	}
}

// TestReloadBrokenConfigKeepsPrevious: a config.yaml that no longer parses
// keeps the previous backend (its modules are rediscovered), and the list
// says config.yaml was not taken and where it broke; the next good reload
// clears the note.
func TestReloadBrokenConfigKeepsPrevious(t *testing.T) {
	old := &listBackend{fakeBackend: &fakeBackend{}, mods: uitest.Modules(t)}
	m, _ := newTest(t, old, 200, 30)
	var broken atomic.Bool
	broken.Store(true)
	m.opts.Reload = func(context.Context) (*Reloaded, error) {
		if broken.Load() {
			return nil, &config.FileError{Path: "/h/config.yaml", Line: 3, Column: 3, Msg: "non-map value is specified", Source: ">  3 |   - oops"}
		}
		return &Reloaded{Backend: old, Workspace: m.workspace}, nil
	}
	pump(m, m.discover())
	_, cmd := m.Update(keyPress("r"))
	pump(m, cmd)
	if m.backend != Backend(old) || old.discovers.Load() != 2 {
		t.Fatalf("a broken config replaced the backend, or r did not rediscover (%d)", old.discovers.Load())
	}
	want := "config.yaml not reloaded, the previous config stays: /h/config.yaml:3:3: non-map value is specified"
	out := ansi.Strip(frame(t, m))
	if !strings.Contains(out, want) || strings.Contains(out, "oops") {
		t.Errorf("the list should say %q on one line (no excerpt):\n%s", want, out)
	}
	broken.Store(false)
	_, cmd = m.Update(keyPress("r"))
	pump(m, cmd)
	if out := ansi.Strip(frame(t, m)); strings.Contains(out, "not reloaded") {
		t.Errorf("a good reload should clear the note:\n%s", out)
	}
}

// TestReloadKeepsTheSelectedModule: after r, whose discovery empties the
// list and lists the modules again one by one from a new host (each
// module a new value, its source identity possibly new), the cursor is on
// the module id it was on, not on the first module.
func TestReloadKeepsTheSelectedModule(t *testing.T) {
	mods := uitest.Modules(t)
	if len(mods) < 3 {
		t.Fatalf("%d fixture modules, want 3 or more", len(mods))
	}
	m, _ := newTest(t, &listBackend{fakeBackend: &fakeBackend{}, mods: mods}, 200, 30)
	pump(m, m.discover())
	press(m, "down", "down")
	want := m.modules.Selected().ID
	fresh := func(keySuffix string) []*runner.Module {
		out := make([]*runner.Module, len(mods))
		for i, mod := range mods {
			c := *mod
			c.Key += keySuffix
			out[i] = &c
		}
		return out
	}
	// A streamed discovery: emptied, then module by module.
	m.gen++
	m.modules.discovering = true
	m.Update(discoverStartMsg{gen: m.gen, total: len(mods)})
	if len(m.modules.list.Items()) != 0 {
		t.Fatal("a streamed discovery starts from an empty list")
	}
	next := fresh("")
	for _, mod := range next {
		m.Update(moduleFoundMsg{gen: m.gen, modules: []*runner.Module{mod}})
	}
	m.Update(modulesMsg{gen: m.gen, modules: next})
	if got := m.modules.Selected().ID; got != want {
		t.Fatalf("after a streamed rediscovery the cursor is on %s, want %s", got, want)
	}
	// All at once, from a host whose source identities differ.
	m.gen++
	m.Update(modulesMsg{gen: m.gen, modules: fresh("/new")})
	if got := m.modules.Selected().ID; got != want {
		t.Fatalf("after a rediscovery with new keys the cursor is on %s, want %s", got, want)
	}
}
