package ui

import (
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"

	"modbay/modproto"
	"modbay/runner"
)

// BenchmarkModuleList200Keystroke is one navigation keystroke on the
// module list of 200 ready modules at 120×40, colored: the root model's
// Update of ↓ (↑ on the way back) and the View of the whole screen, as the
// program runs them per key. bench/run reports it against its budget
// (any keystroke's Update + View ≤ 4 ms).
func BenchmarkModuleList200Keystroke(b *testing.B) {
	m := newModel(nil, "/bench/workspace", Options{})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	mods := make([]*runner.Module, 200)
	for i := range mods {
		id := fmt.Sprintf("bench-%03d", i)
		mods[i] = &runner.Module{
			ID: id, Exe: "/bench/home/modules/" + id + "/" + id, Dir: "/bench/home/modules/" + id, Origin: "home",
			Status: runner.StatusReady,
			Descriptor: &modproto.Descriptor{
				Module: id, Name: "Bench module " + id, Version: "1.0.0", ProtocolVersions: []string{modproto.ProtocolID},
				Capabilities: []modproto.Capability{{ID: "bench.echo", Title: "Echo", Summary: "Returns the input."}},
			},
		}
	}
	m.Update(modulesMsg{gen: m.gen, modules: mods})
	if len(m.modules.modules) != 200 {
		b.Fatalf("the list holds %d modules, want 200", len(m.modules.modules))
	}
	down, up := tea.KeyPressMsg{Code: tea.KeyDown}, tea.KeyPressMsg{Code: tea.KeyUp}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k := down
		if i%398 >= 199 {
			k = up
		}
		i++
		m.Update(k)
		if v := m.View(); v.Content == "" {
			b.Fatal("empty frame")
		}
	}
}
