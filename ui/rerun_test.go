package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"modbay/config"
	"modbay/history"
	"modbay/runner"
)

// rerunCockpit installs a launcher module (exec /bin/sh impl.sh "$@") as
// <home>/modules/<id>, opens the cockpit on a real host, runs its
// capability from the form and returns on the result.
func rerunCockpit(t *testing.T) (m *Model, h *harness, writeImpl func(caps, schemas string)) {
	t.Helper()
	if _, err := os.Stat("/usr/bin/sed"); err != nil {
		t.Skip("needs /usr/bin/sed for the test module")
	}
	home := t.TempDir()
	_, writeImpl = launcherModule(t, filepath.Join(home, "modules"), "relaunch")
	writeImpl(devCap("relaunch.a", "s", localEffects), schemaV1)
	cfg, err := config.Load(home)
	if err != nil {
		t.Fatal(err)
	}
	m = New(runner.NewHost(cfg), Options{NoColor: true})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	m.ctx = ctx
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	h = newHarness(t, m)
	h.do(m.Init())
	h.untilWithin(devWait, "the module list", func() bool { return !m.modules.discovering && len(m.modules.modules) == 1 })
	h.key("enter")
	h.key("enter")
	if m.screen() != screenForm {
		t.Fatalf("screen %v, want the form", m.screen())
	}
	typeText(m, "Ada")
	h.key("ctrl+s")
	h.untilWithin(devWait, "the first result", func() bool { return m.screen() == screenResult })
	return m, h, writeImpl
}

// TestRerunRedescribesAChangedLauncherModule: after the script a launcher
// runs is edited, r on the result describes the module again first; its
// capability's request schema changed, so r says so and opens the form
// for the new schema with the input loaded and checked against it, and
// nothing runs.
func TestRerunRedescribesAChangedLauncherModule(t *testing.T) {
	m, h, writeImpl := rerunCockpit(t)
	before := m.flow.module
	writeImpl(devCap("relaunch.a", "s", localEffects), schemaV2)
	h.key("r")
	h.untilWithin(devWait, "the form after the check", func() bool { return m.screen() == screenForm && m.flow.module != before })
	if len(m.runOrder) != 1 {
		t.Fatalf("%d runs: r re-ran with a changed schema", len(m.runOrder))
	}
	if _, ok := m.flow.module.Descriptor.RequestSchemas["s"]; !ok || !strings.Contains(string(m.flow.module.Descriptor.RequestSchemas["s"]), `"n"`) {
		t.Fatalf("the form's module has the old descriptor: %s", m.flow.module.Descriptor.RequestSchemas["s"])
	}
	note := m.form().Note()
	for _, want := range []string{"The module changed since this run: the request schema of relaunch.a changed", "nothing ran", "Against the new schema", "n"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
	if got := m.modules.modules[0]; got != m.flow.module {
		t.Error("the module list keeps the stale module")
	}
}

// TestRerunOfAnUnchangedModuleRunsAgain: with nothing edited, r runs the
// last input again at once; with only the version changed, r runs it
// with the new descriptor.
func TestRerunOfAnUnchangedModuleRunsAgain(t *testing.T) {
	m, h, writeImpl := rerunCockpit(t)
	h.key("r")
	h.untilWithin(devWait, "the second result", func() bool { return len(m.runOrder) == 2 && m.screen() == screenResult })
	before := m.flow.module
	writeImpl(devCap("relaunch.a", "s", localEffects)+`,`+devCap("relaunch.b", "s", localEffects), schemaV1)
	h.key("r")
	h.untilWithin(devWait, "the third result", func() bool { return len(m.runOrder) == 3 && m.screen() == screenResult })
	if m.flow.module == before || m.run().plan.Module != m.flow.module || len(m.flow.module.Descriptor.Capabilities) != 2 {
		t.Fatal("the re-run did not use the new descriptor")
	}
}

// TestRerunOfABuiltInExampleSaysHowToGetItBack: r on a run of a built-in
// example the home no longer shows says to start with --examples.
func TestRerunOfABuiltInExampleSaysHowToGetItBack(t *testing.T) {
	m := historyAt(t, 100, 20, nil)
	hs, _ := find[*historyScreen](m)
	for _, c := range []struct {
		examples bool
		want     string
	}{
		{true, "Cannot re-run: module render-farm is not installed now. (a built-in example: start with --examples)"},
		{false, "Cannot re-run: module render-farm is not installed now."},
	} {
		m.rerunRecord(&history.Record{Module: "render-farm", Capability: "render-farm.render", Repeat: runner.Globals{Examples: c.examples}})
		if hs.note != c.want {
			t.Errorf("examples %v: note %q, want %q", c.examples, hs.note, c.want)
		}
	}
}
