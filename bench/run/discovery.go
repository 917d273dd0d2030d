package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// bigSize is the size of a "20 MB" module executable: the bench module
// padded with a sparse hole.
const bigSize = 20 << 20

// maxModules is the largest home.
const maxModules = 200

// pools makes maxModules copies of the bench module (distinct files, as
// installed modules are) and maxModules copies padded to bigSize, once;
// each home hard-links the first n of one pool under its module ids, so a
// sleeper home and a burner home share files but no home sees one twice.
func (s *suite) pools() (small, big []string, err error) {
	if s.pool != nil {
		return s.pool["small"], s.pool["20 MB"], nil
	}
	defer func() {
		if err == nil {
			s.pool = map[string][]string{"small": small, "20 MB": big}
		}
	}()
	src := s.exe("benchmod")
	if fi, err := os.Stat(src); err == nil {
		s.rep.smallSize = fi.Size()
	}
	for _, p := range []struct {
		dir   string
		into  *[]string
		sized bool
	}{{"pool-small", &small, false}, {"pool-20mb", &big, true}} {
		dir := filepath.Join(s.tmp, p.dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, nil, err
		}
		for i := range maxModules {
			dst := filepath.Join(dir, fmt.Sprintf("m%03d", i))
			if err := copyFile(src, dst); err != nil {
				return nil, nil, err
			}
			if p.sized {
				if err := os.Truncate(dst, bigSize); err != nil {
					return nil, nil, err
				}
			}
			*p.into = append(*p.into, dst)
		}
	}
	return small, big, nil
}

// copyFile copies an executable.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// makeHome lays out <home>/modules/<kind>-NNN/<kind>-NNN for the first n
// files of the pool of size ("small" or "20 MB"; docs/protocol.md §18), once; it
// returns the home and the module executables.
func (s *suite) makeHome(kind, size string, n int) (string, []string, error) {
	small, big, err := s.pools()
	if err != nil {
		return "", nil, err
	}
	pool := map[string][]string{"small": small, "20 MB": big}[size]
	home := filepath.Join(s.tmp, "homes", fmt.Sprintf("%s-%s-%d", kind, strings.ReplaceAll(size, " ", ""), n))
	var exes []string
	if _, err := os.Stat(home); err == nil {
		for i := range n {
			id := fmt.Sprintf("%s-%03d", kind, i)
			exes = append(exes, filepath.Join(home, "modules", id, id))
		}
		return home, exes, nil
	}
	for i := range n {
		id := fmt.Sprintf("%s-%03d", kind, i)
		dir := filepath.Join(home, "modules", id)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", nil, err
		}
		exe := filepath.Join(dir, id)
		if err := os.Link(pool[i], exe); err != nil {
			return "", nil, err
		}
		exes = append(exes, exe)
	}
	return home, exes, nil
}

// benchDiscovery: cold and warm `modbay list` of 10, 50 and 200 sleepers
// and burners, small and 20 MB, against a sequential loop of the same
// describes and the floor.
func (s *suite) benchDiscovery() error {
	scratch := filepath.Join(s.tmp, "describe-scratch")
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return err
	}
	for _, n := range []int{10, 50, maxModules} {
		for _, kind := range []string{"sleep", "burn"} {
			for _, size := range []string{"small", "20 MB"} {
				home, exes, err := s.makeHome(kind, size, n)
				if err != nil {
					return err
				}
				d := discRow{n: n, kind: kind + " 20 ms", size: size}
				if err := s.discoverOne(&d, home, exes, scratch); err != nil {
					return fmt.Errorf("%d %s %s: %w", n, kind, size, err)
				}
				s.rep.disc = append(s.rep.disc, d)
				fmt.Fprintf(os.Stderr, "  %3d %-5s %-5s cold %s warm %s seq %s floor %s\n", n, kind, size, ms(d.cold), ms(d.warm), ms(d.seq), ms(d.floor))
			}
		}
	}
	s.rep.note(secDiscovery, "Why: every value is a whole `modbay list`, start-up included (see Start-up: most of the warm rows). "+
		"Cold, each describe is a contained run (the support probe once, then ≈ 4 ms of host CPU per describe: spawn, run directory, "+
		"cache write) and docs/protocol.md §2 bounds describes at 4 × the CPU count, at least 8 (8 here): 200 describes that wait 20 ms take at least "+
		"25 rounds × 20 ms = 500 ms however idle the machine, against a floor that assumes no bound; the 20 MB rows add hashing each "+
		"executable once (docs/protocol.md §18 asks for it on a first sight). Warm, the rest is stat calls, the module directories' listings and "+
		"decoding the cached descriptors (`go test ./runner -bench DiscoverWarm200`).")
	return nil
}

// discoverOne measures one home.
func (s *suite) discoverOne(d *discRow, home string, exes []string, scratch string) error {
	// The sequential loop, as the host runs a describe.
	seqReps := s.reps(2, 1)
	if d.n >= maxModules {
		seqReps = 1
	}
	var seqs []time.Duration
	for r := range seqReps {
		t := time.Now()
		var slowest, cpu time.Duration
		for _, exe := range exes {
			cmd := exec.Command(exe, "module", "describe", "--json")
			cmd.Env = []string{"TMPDIR=" + scratch}
			cmd.Dir = scratch
			sm, err := runOnce(cmd)
			if err != nil {
				return err
			}
			slowest = max(slowest, sm.wall)
			cpu += sm.cpu
		}
		seqs = append(seqs, time.Since(t))
		if r == 0 {
			d.slowest, d.cpuTotal = slowest, cpu
			d.floor = max(slowest, cpu/time.Duration(cores()))
		}
	}
	d.seq = median(seqs)

	list := func() *exec.Cmd { return s.cmdIn(nil, s.exe("modbay"), "list", "--home", home) }
	cache := filepath.Join(home, "cache")
	d.coldReps = s.reps(5, 1)
	if d.n >= maxModules {
		d.coldReps = s.reps(3, 1)
	}
	cold, err := timeRuns(d.coldReps, func() error { return os.RemoveAll(cache) }, list)
	if err != nil {
		return err
	}
	d.cold = medianWall(cold)
	if err := s.checkListed(home, d.n); err != nil {
		return err
	}
	d.warmReps = s.reps(5, 1)
	if d.n >= maxModules {
		d.warmReps = s.reps(3, 1)
	}
	warm, err := timeRuns(d.warmReps, nil, list)
	if err != nil {
		return err
	}
	d.warm = medianWall(warm)
	d.coldVerdict = within(d.cold, d.floor*3/2)
	if d.n >= maxModules {
		d.warmVerdict = within(d.warm, 50*time.Millisecond)
	}
	return nil
}

// warmHome is a home of n modules of kind and size whose describe cache
// is filled (one `modbay list` run), checked to list them all ready.
func (s *suite) warmHome(kind, size string, n int) (string, error) {
	home, _, err := s.makeHome(kind, size, n)
	if err != nil {
		return "", err
	}
	if _, err := runOnce(s.cmdIn(nil, s.exe("modbay"), "list", "--home", home)); err != nil {
		return "", err
	}
	return home, s.checkListed(home, n)
}

// checkListed makes sure every module of home was described and is
// ready: a benchmark of modules that failed would measure nothing.
func (s *suite) checkListed(home string, n int) error {
	cmd := s.cmdIn(nil, s.exe("modbay"), "list", "--json", "--home", home)
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("modbay list --json: %v", err)
	}
	var mods []struct {
		ID     string `json:"id"`
		Status string `json:"status"`
		Reason string `json:"reason"`
	}
	if err := json.Unmarshal(out, &mods); err != nil {
		var wrapped struct {
			Modules []struct {
				ID     string `json:"id"`
				Status string `json:"status"`
				Reason string `json:"reason"`
			} `json:"modules"`
		}
		if err2 := json.Unmarshal(out, &wrapped); err2 != nil {
			return fmt.Errorf("modbay list --json: %v", err)
		}
		for _, m := range wrapped.Modules {
			mods = append(mods, struct {
				ID     string `json:"id"`
				Status string `json:"status"`
				Reason string `json:"reason"`
			}(m))
		}
	}
	for _, m := range mods {
		if m.Status != "ready" {
			return fmt.Errorf("module %s is %s: %s", m.ID, m.Status, m.Reason)
		}
	}
	if len(mods) != n {
		return fmt.Errorf("%d modules listed, want %d", len(mods), n)
	}
	return nil
}
