package runner

import (
	"maps"
	"slices"

	"modbay/config"
	"modbay/contain"
	"modbay/modproto"
)

// defaultSandbox is the mode when config sets none. The runner's own tests
// set ModeOff: their fake modules record their pids for the host-side
// sweeps they test (process group, ppid, environment marker), which a PID
// namespace would renumber; contain_test.go runs fakes contained.
var defaultSandbox = contain.ModeAuto

// testExec are paths every module may execute besides its grants: set only
// by the runner's tests, whose fake modules are launchers that exec the
// test binary.
var testExec []string

// containSpec is what a module may touch in one run (issue 10): its own
// directory, the request's roots by mode, its resolved binaries, the
// network only when granted, and the config's limits and sandbox mode.
// execute fills in the executable and the per-run directory. req is nil
// for a describe, which gets no root and no network.
func (h *Host) containSpec(dir string, req *modproto.Request) contain.Spec {
	var cfg config.Config
	if h.cfg != nil {
		cfg = *h.cfg
	}
	s := contain.Spec{ModuleDir: dir, Limits: contain.DefaultLimits, Mode: contain.Mode(cfg.Sandbox)}
	if s.Mode == "" {
		s.Mode = defaultSandbox
	}
	if l := cfg.Limits; l != (config.Limits{}) {
		s.Limits = contain.Limits{OpenFiles: l.OpenFiles, AddressSpace: l.AddressSpaceMB << 20, CPUSeconds: l.CPUSeconds, Processes: l.Processes}
		if s.Limits.OpenFiles == 0 {
			s.Limits.OpenFiles = contain.DefaultLimits.OpenFiles
		}
	}
	s.Binaries = append(s.Binaries, testExec...)
	if req == nil {
		return s
	}
	for _, name := range slices.Sorted(maps.Keys(req.Roots)) {
		r := req.Roots[name]
		if r.Mode == modproto.RootReadWrite {
			s.WriteRoots = append(s.WriteRoots, r.Path)
		} else {
			s.ReadRoots = append(s.ReadRoots, r.Path)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(req.Binaries)) {
		s.Binaries = append(s.Binaries, req.Binaries[name])
	}
	s.Network = len(req.Grants.Network) > 0
	return s
}
