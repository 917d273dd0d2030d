package runner

import "context"

// DiscoverStream is Discover for a live list: it calls each with every
// module as soon as its describe finishes (in no particular order), so one
// module whose describe hangs does not hold back the others, and returns
// what Discover returns: every module, id claims applied, sorted by ID.
//
// each runs on the describe's goroutine, concurrently with other calls, so
// it must be safe for concurrent use (tea.Program.Send is). It receives a
// copy made before the id claims (docs/protocol.md §2) are applied: a module that
// loses its id to one earlier in claim order is broken only in the
// returned slice, which is the authoritative list.
func (h *Host) DiscoverStream(ctx context.Context, each func(*Module)) []*Module {
	var done func(int, *Module)
	if each != nil {
		done = func(_ int, m *Module) {
			c := *m
			each(&c)
		}
	}
	return sortModules(h.discoverOrdered(ctx, done))
}

// CountCandidates returns how many executables a discovery would describe
// now (the home's modules, the configured extras, the --module paths and
// the examples), so a live list can say how many are still being
// described. It reads the modules directory; it runs nothing.
func (h *Host) CountCandidates() int { return len(h.candidates()) }
