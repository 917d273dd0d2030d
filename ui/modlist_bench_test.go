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
	mods := benchModules(200)
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

// BenchmarkModuleListStream is a streamed discovery of n modules reaching
// the module list: the start, the modules in batches of 16 (in the order
// describes finish, not the list's), a frame after each batch (the
// program draws after every message), the final list and its frame. ns/module is the cost per module, which stays flat
// when nothing in the list's handling grows with the count.
func BenchmarkModuleListStream(b *testing.B) {
	for _, n := range []int{200, 1600, 3200} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			mods := benchModules(n)
			order := make([]*runner.Module, n)
			for i := range order {
				order[i] = mods[(i*7919)%n] // a fixed shuffle (7919 is prime)
			}
			b.ReportAllocs()
			for b.Loop() {
				m := newModel(nil, "/bench/workspace", Options{})
				m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
				m.modules.discovering = true
				m.Update(discoverStartMsg{gen: m.gen, total: n})
				for i := 0; i < n; i += 16 {
					m.Update(moduleFoundMsg{gen: m.gen, modules: order[i:min(i+16, n)]})
					_ = m.View()
				}
				m.Update(modulesMsg{gen: m.gen, modules: mods})
				if v := m.View(); v.Content == "" || len(m.modules.modules) != n {
					b.Fatalf("%d modules listed, want %d", len(m.modules.modules), n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/module")
		})
	}
}

// benchModules are n ready modules bench-NNNN, in id order.
func benchModules(n int) []*runner.Module {
	mods := make([]*runner.Module, n)
	for i := range mods {
		id := fmt.Sprintf("bench-%04d", i)
		mods[i] = &runner.Module{
			ID: id, Exe: "/bench/home/modules/" + id + "/" + id, Dir: "/bench/home/modules/" + id, Origin: "home",
			Status: runner.StatusReady,
			Descriptor: &modproto.Descriptor{
				Module: id, Name: "Bench module " + id, Version: "1.0.0", ProtocolVersions: []string{modproto.ProtocolID},
				Capabilities: []modproto.Capability{{ID: "bench.echo", Title: "Echo", Summary: "Returns the input."}},
			},
		}
	}
	return mods
}
