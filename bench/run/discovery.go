package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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
// files of the pool of size ("small" or "20 MB"), once; it
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

// floorParallel is how many describes the floor runs at once.
const floorParallel = 8

// discoverySizes are the homes discovery is measured at (small modules);
// the 20 MB ones are measured at maxModules only.
var discoverySizes = []int{50, 100, maxModules}

// benchDiscovery: cold and warm `modbay list` of sleepers and burners at
// three sizes (and 20 MB executables at the largest), each cold run
// interleaved with the floor: bench/run spawning the same describes
// floorParallel at a time.
func (s *suite) benchDiscovery() error {
	scratch := filepath.Join(s.tmp, "describe-scratch")
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return err
	}
	type shape struct {
		n          int
		kind, size string
	}
	var shapes []shape
	for _, n := range discoverySizes {
		for _, kind := range []string{"sleep", "burn"} {
			shapes = append(shapes, shape{n, kind, "small"})
		}
	}
	shapes = append(shapes, shape{maxModules, "sleep", "20 MB"}, shape{maxModules, "burn", "20 MB"})
	for _, sh := range shapes {
		home, exes, err := s.makeHome(sh.kind, sh.size, sh.n)
		if err != nil {
			return err
		}
		d := discRow{n: sh.n, kind: sh.kind + " 20 ms", size: sh.size}
		if err := s.discoverOne(&d, home, exes, scratch); err != nil {
			return fmt.Errorf("%d %s %s: %w", sh.n, sh.kind, sh.size, err)
		}
		s.rep.disc = append(s.rep.disc, d)
		fmt.Fprintf(os.Stderr, "  %3d %-5s %-5s cold %s floor %s (%.2f× per pair) warm %s\n", sh.n, sh.kind, sh.size, ms(d.cold), ms(d.floor), d.ratio, ms(d.warm))
	}
	var note []string
	for _, d := range s.rep.disc {
		if d.n == maxModules && d.coldVerdict != "met" {
			host := (d.coldCPU - d.floorCPU) / time.Duration(d.n)
			note = append(note, fmt.Sprintf("%s %s: %s of host CPU per describe", d.kind, d.size, ms(host)))
		}
	}
	why := "Why: every value is a whole `modbay list`, start-up included. Describes run 32 at a time (docs/protocol.md §2), so describes that wait " +
		"overlap like the floor's; what the floor does not pay is the host's own work per describe, on 2 cores: the contained spawn (pid and mount " +
		"namespaces, the shared network namespace joined, Landlock, seccomp, the checks in /proc), the exit check for left-behind processes (each " +
		"thread's children file read) and the describe cache entry (a file). Run directories are made once per concurrent describe and reused " +
		"(docs/internals.md \"Run directories\"), and the executable is never read: its stat is its fingerprint (docs/protocol.md §18), so a 20 MB " +
		"executable costs what a small one does (measured side by side: within the noise, load 10–14)."
	if len(note) > 0 {
		why += " Missed at " + fmt.Sprint(maxModules) + " modules: " + strings.Join(note, "; ") + " (CPU cold − CPU floor, over n). " +
			"Where it goes (perf record of a cold list of 200 20 MB sleepers, share of all samples): the contained spawn ≈ 10%, the exit check ≈ 7%, " +
			"the cache entries' inodes ≈ 6% (ext4 without a journal scans recently deleted inodes on every create; the run directories' three " +
			"directories per describe were 21% before they were reused), the host's own fresh memory (page zeroing) ≈ 14%. " +
			"What would close it: the describe cache in one file per home instead of one per module, the exit check from the subreaper's " +
			"SIGCHLD instead of the threads' children files, and fewer kernel namespaces per describe (a describe gets no root and no network: " +
			"one set of namespaces made once per process would do for every describe)."
	}
	s.rep.note(secDiscovery, why)
	return nil
}

// floorRun runs the describe of every exe, floorParallel at a time, as
// the host would start them (TMPDIR-only environment, scratch directory),
// and returns the wall time of the whole and the CPU time of all.
func floorRun(exes []string, scratch string) (sample, error) {
	sem := make(chan struct{}, floorParallel)
	errs := make(chan error, len(exes))
	var mu sync.Mutex
	var cpu time.Duration
	var wg sync.WaitGroup
	t := time.Now()
	for _, exe := range exes {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			cmd := exec.Command(exe, "module", "describe", "--json")
			cmd.Env = []string{"TMPDIR=" + scratch}
			cmd.Dir = scratch
			sm, err := runOnce(cmd)
			if err != nil {
				errs <- err
				return
			}
			mu.Lock()
			cpu += sm.cpu
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return sample{}, err
	}
	return sample{wall: time.Since(t), cpu: cpu}, nil
}

// discoverOne measures one home: cold runs (the describe cache removed)
// each followed by a floor run, then warm runs.
func (s *suite) discoverOne(d *discRow, home string, exes []string, scratch string) error {
	list := func() *exec.Cmd { return s.cmdIn(nil, s.exe("modbay"), "list", "--home", home) }
	cache := filepath.Join(home, "cache")
	d.coldReps = s.reps(5, 1)
	if d.n >= maxModules {
		d.coldReps = s.reps(3, 1)
	}
	var cold, floor []sample
	for range d.coldReps {
		if err := os.RemoveAll(cache); err != nil {
			return err
		}
		c, err := runOnce(list())
		if err != nil {
			return err
		}
		f, err := floorRun(exes, scratch)
		if err != nil {
			return err
		}
		cold, floor = append(cold, c), append(floor, f)
	}
	d.cold, d.floor, d.ratio = medianWall(cold), medianWall(floor), pairRatio(cold, floor)
	d.coldCPU, d.floorCPU = medianCPU(cold), medianCPU(floor)
	if err := s.checkListed(home, d.n); err != nil {
		return err
	}
	d.warmReps = s.reps(5, 1)
	warm, err := timeRuns(d.warmReps, nil, list)
	if err != nil {
		return err
	}
	d.warm = medianWall(warm)
	if d.n >= maxModules {
		d.coldVerdict = withinF(d.ratio, 2, func(f float64) string { return fmt.Sprintf("%.2f×", f) })
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
