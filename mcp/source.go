package mcp

import (
	"errors"
	"maps"
	"reflect"
	"slices"
	"sync"
	"time"

	"modbay/config"
	"modbay/internal/crash"
	"modbay/runner"
)

// Source is the runner.Source of the configured MCP servers
// (config.yaml mcp_servers): one candidate per entry, by id, claiming its
// config id, with effects that are hints (runner.Module.EffectsAreHints).
// Tool lists are cached in the home (cache.go): a server is connected by
// a discovery only when never seen, changed or refreshed.
// Its drivers live as long as the Source: a server is started on first
// use and stopped by Close.
type Source struct {
	ids     []string
	drivers map[string]*Driver
	errs    map[string]string
}

var _ runner.Source = (*Source)(nil)

// NewSource makes a Source of cfg's mcp_servers; lookup resolves ${NAME}
// in env and header values when a server starts (nil: the host's
// environment). An unusable entry is yielded broken with its reason.
func NewSource(cfg *config.Config, lookup func(string) (string, bool)) *Source {
	s := &Source{drivers: map[string]*Driver{}, errs: map[string]string{}}
	s.ids = slices.Sorted(maps.Keys(cfg.MCPServers))
	pruneStates(cfg.CacheDir(), cfg.MCPServers)
	for _, id := range s.ids {
		srv := cfg.MCPServers[id]
		s.drivers[id] = NewDriver(id, srv, lookup)
		s.drivers[id].cacheDir = cfg.CacheDir()
		s.drivers[id].home = cfg.Home
		s.drivers[id].shared = []string{cfg.Home, cfg.ModulesDir(), cfg.Workspace}
		if err := config.CheckMCPServer(id, srv); err != nil {
			s.errs[id] = err.Error()
		}
	}
	return s
}

// NewSourceFrom is NewSource over a config that replaces prev's (a
// reload): a server whose entry is unchanged keeps prev's driver, its
// session and process; one whose entry changed only in roots or cwd keeps
// it too and is restarted with them (Driver.SetRoots: the sandbox cannot
// widen in place), then told its roots changed. prev's other drivers are
// closed. A nil prev is NewSource.
func NewSourceFrom(cfg *config.Config, lookup func(string) (string, bool), prev *Source) *Source {
	s := NewSource(cfg, lookup)
	if prev == nil {
		return s
	}
	carried := map[string]bool{}
	for _, id := range s.ids {
		old, ok := prev.drivers[id]
		if !ok || s.errs[id] != "" {
			continue
		}
		srv := cfg.MCPServers[id]
		was := old.entry()
		a, b := was, srv
		a.Roots, a.Cwd, b.Roots, b.Cwd = nil, "", nil, ""
		if !reflect.DeepEqual(a, b) {
			continue
		}
		old.SetRoots(srv.Roots, srv.Cwd)
		s.drivers[id].Close()
		s.drivers[id] = old
		carried[id] = true
	}
	for id, d := range prev.drivers {
		if !carried[id] {
			_ = d.Close()
		}
	}
	return s
}

// Origin is Origin ("mcp").
func (s *Source) Origin() string { return Origin }

// Candidates yields one candidate per server, sorted by id.
func (s *Source) Candidates() []runner.Candidate {
	out := make([]runner.Candidate, 0, len(s.ids))
	for _, id := range s.ids {
		out = append(out, runner.Candidate{ID: id, Name: id, Origin: Origin, Driver: s.drivers[id],
			Err: s.errs[id], EffectsAreHints: true})
	}
	return out
}

// Refresh makes every server's cached tool list stale (Driver.Refresh):
// the next discovery lists each again.
func (s *Source) Refresh() {
	for _, id := range s.ids {
		s.drivers[id].Refresh()
	}
}

// Driver is server id's driver, nil when there is none.
func (s *Source) Driver(id string) *Driver { return s.drivers[id] }

// Close stops every server the source started; no process is left.
func (s *Source) Close() error { return s.CloseWithin(0) }

// CloseWithin is Close giving each server only grace (0: StopGrace) to
// exit before its tree is killed (Driver.CloseWithin), all at once.
func (s *Source) CloseWithin(grace time.Duration) error {
	errs := make([]error, len(s.ids))
	var wg sync.WaitGroup
	for i, id := range s.ids {
		wg.Add(1)
		crash.Go(func() {
			defer wg.Done()
			errs[i] = s.drivers[id].CloseWithin(grace)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
