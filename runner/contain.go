package runner

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"modbay/config"
	"modbay/contain"
	"modbay/modproto"
)

// defaultSandbox is the mode when config sets none. The runner's own tests
// set ModeOff: their fake modules record their pids for the host-side
// sweeps they test (process group, ppid, environment marker), which a PID
// namespace would renumber; contain_test.go runs fakes contained.
var defaultSandbox = contain.ModeAuto

// ProbeCacheFile is where, under the home's cache directory, the
// containment support probe's answer is kept for the rest of the boot
// (contain.UseProbeCache).
const ProbeCacheFile = "contain-probe.json"

// useProbeCache keeps the support probe's answer in the home of the first
// host of the process with one, keyed on its config as loaded (and, in
// contain, the boot, kernel, user and executable).
func useProbeCache(cfg *config.Config) {
	if cfg == nil || cfg.Home == "" {
		return
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		return
	}
	contain.UseProbeCache(filepath.Join(cfg.CacheDir(), ProbeCacheFile), modproto.Digest(b))
}

// PrepareContainment starts making, in the background, what this host's
// first run would make on its path: its run directory (PrepareRunDir)
// and, unless sandbox: off, containment's (contain.Prepare). For a
// command about to run a module.
func (h *Host) PrepareContainment() {
	PrepareRunDir()
	if h.cfg == nil || contain.Mode(h.cfg.Sandbox) != contain.ModeOff {
		contain.Prepare()
	}
}

// containSpec is what a module may touch in one run: its own
// directory, the request's roots by mode, its resolved binaries, the
// network only when granted, execution narrowed when no subprocess is
// granted, and the config's limits and sandbox mode.
// execute fills in the executable and the per-run directory. req is nil
// for a describe, which gets no root and no network.
//
// Every module may also execute the modbay binary: the built-in examples
// (and the demo home's copies of them) are launchers that exec it, and it
// runs under the module's own restrictions, so it grants nothing.
func (h *Host) containSpec(dir string, req *modproto.Request) contain.Spec {
	var cfg config.Config
	if h.cfg != nil {
		cfg = *h.cfg
	}
	s := contain.Spec{ModuleDir: dir, Limits: contain.DefaultLimits, Mode: contain.Mode(cfg.Sandbox)}
	if s.Mode == "" {
		s.Mode = defaultSandbox
	}
	s.Limits = ContainLimits(cfg.Limits)
	if exe := hostExecutable(); exe != "" {
		s.Binaries = append(s.Binaries, exe)
	}
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
	// permissions.subprocess is binding: granted none, the module can
	// execute only its own directory, its interpreters and the modbay
	// binary. A describe (before the descriptor is known) keeps the
	// system trees executable, as does any grant of a subprocess.
	s.ExecNarrow = len(req.Grants.Subprocess) == 0
	return s
}

// ContainLimits is config's `limits:` as contain applies them: a limit
// config leaves zero is contain.DefaultLimits' (none for address space,
// CPU and processes).
func ContainLimits(l config.Limits) contain.Limits {
	d := contain.DefaultLimits
	or := func(v, def uint64) uint64 {
		if v == 0 {
			return def
		}
		return v
	}
	return contain.Limits{
		OpenFiles:    or(l.OpenFiles, d.OpenFiles),
		AddressSpace: or(l.AddressSpaceMB<<20, d.AddressSpace),
		CPUSeconds:   or(l.CPUSeconds, d.CPUSeconds),
		Processes:    or(l.Processes, d.Processes),
		FileSize:     or(l.FileSizeMB<<20, d.FileSize),
		WriteBytes:   or(l.WriteMB<<20, d.WriteBytes),
		WriteFiles:   or(l.WriteFiles, d.WriteFiles),
	}
}

// hostExecutable is the running modbay binary's path ("" when unknown),
// resolved once.
var hostExecutable = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
})

// OwnDir is the folder a module executable may read and execute as its
// own (docs/protocol.md §13): dir when it is the executable's folder and
// named after it (<id>/<id>) and is not a folder every module or user
// shares (the filesystem's top, the temporary directory, a user's home,
// the modbay home and its modules folder, or a folder holding one of
// them, or one anyone may write to); "" for a loose executable, which
// gets only the file itself and its declared bundle files.
//
// The folder is judged and returned with its symlinks resolved: one named
// after the module that is a symlink to /tmp is /tmp, not its own. A
// folder holding a shared one is not its own either: /srv/srv with the
// home at /srv/modbay would read the whole home.
func OwnDir(exe, dir string, shared ...string) string {
	if exe == "" || dir == "" {
		return dir
	}
	exe, dir = filepath.Clean(exe), filepath.Clean(dir)
	name := filepath.Base(exe)
	if filepath.Dir(exe) != dir || filepath.Base(dir) != name {
		return ""
	}
	if dir = canonical(dir); filepath.Base(dir) != name || filepath.Dir(dir) == "/" {
		return ""
	}
	if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&0o002 != 0 {
		return "" // world-writable (/var/tmp, /dev/shm): anyone's folder
	}
	userHome, _ := os.UserHomeDir()
	for _, s := range append([]string{os.TempDir(), userHome}, shared...) {
		if s != "" && within(dir, canonical(s)) {
			return ""
		}
	}
	return dir
}

// moduleContainSpec is the containment of a call to m: its own folder
// (ownDir), or for a loose executable its declared bundle files, read-only.
func (h *Host) moduleContainSpec(m *Module, req *modproto.Request) contain.Spec {
	dir := h.ownDir(m.Exe, m.Dir)
	s := h.containSpec(dir, req)
	if dir == "" {
		s.ReadRoots = append(s.ReadRoots, bundleFiles(m)...)
	}
	return s
}

// ownDir is OwnDir for a module of this host.
func (h *Host) ownDir(exe, dir string) string {
	if h.cfg == nil {
		return OwnDir(exe, dir)
	}
	return OwnDir(exe, dir, h.cfg.Home, h.cfg.ModulesDir(), h.cfg.Workspace)
}

// bundleFiles are the files m's descriptor names in its bundle (skills,
// overlays), resolved beneath its directory and matching their declared
// digests: what a loose executable may read besides itself. A file that
// escapes or drifted is left out.
func bundleFiles(m *Module) []string {
	if m.Descriptor == nil {
		return nil
	}
	var out []string
	for _, o := range m.Descriptor.AgentOverlays {
		if p, err := confinedBundleFile(m.Dir, o.Path, o.Digest); err == nil {
			out = append(out, p)
		}
	}
	for _, s := range m.Descriptor.Skills {
		if p, err := confinedBundleFile(m.Dir, s.Path, s.Digest); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// ContainSpec is the containment a describe of the module in dir gets
// under this host's config (sandbox mode, limits, no root, no network):
// what `modbay doctor` starts its trial process with, so its verdict is
// the one a real run would get.
func (h *Host) ContainSpec(dir string) contain.Spec { return h.containSpec(dir, nil) }
