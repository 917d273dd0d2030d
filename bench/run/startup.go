package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// sample is one run of a process: wall time and the CPU time (user +
// system) it and its waited-for children used.
type sample struct {
	wall, cpu time.Duration
}

// processTimeout bounds every process the suite times.
const processTimeout = 2 * time.Minute

// runOnce runs cmd to completion with stdout discarded and returns its
// sample; a non-zero exit is an error quoting stderr.
func runOnce(cmd *exec.Cmd) (sample, error) {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr // stdout stays nil: /dev/null
	t := time.Now()
	err := cmd.Start()
	if err == nil {
		// A hung process must not hang the suite.
		kill := time.AfterFunc(processTimeout, func() { cmd.Process.Kill() })
		err = cmd.Wait()
		kill.Stop()
	}
	wall := time.Since(t)
	if err != nil {
		return sample{}, fmt.Errorf("%s: %v: %s", strings.Join(cmd.Args, " "), err, lastLine(stderr.String()))
	}
	st := cmd.ProcessState
	return sample{wall: wall, cpu: st.UserTime() + st.SystemTime()}, nil
}

// timeRuns runs mk()'s command n times (prep before each, untimed) and
// returns the samples.
func timeRuns(n int, prep func() error, mk func() *exec.Cmd) ([]sample, error) {
	out := make([]sample, 0, n)
	for range n {
		if prep != nil {
			if err := prep(); err != nil {
				return nil, err
			}
		}
		sm, err := runOnce(mk())
		if err != nil {
			return nil, err
		}
		out = append(out, sm)
	}
	return out, nil
}

// median of the walls of ss.
func medianWall(ss []sample) time.Duration {
	d := make([]time.Duration, len(ss))
	for i, s := range ss {
		d[i] = s.wall
	}
	return median(d)
}

// median of d (0 for none).
func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	d = slices.Clone(d)
	slices.Sort(d)
	if len(d)%2 == 1 {
		return d[len(d)/2]
	}
	return (d[len(d)/2-1] + d[len(d)/2]) / 2
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// cmdIn is name args with the suite's environment, in the scratch
// directory.
func (s *suite) cmdIn(extraEnv []string, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = append(slices.Clone(s.env), extraEnv...)
	cmd.Dir = s.tmp
	return cmd
}

// interleaved runs the commands of mks in rounds (ABC ABC …), n rounds,
// prep before each round (untimed), so a load that changes during the
// step shifts them alike; out[k] are mks[k]'s samples, in round order.
func interleaved(n int, prep func(round int) error, mks ...func() *exec.Cmd) ([][]sample, error) {
	out := make([][]sample, len(mks))
	for r := range n {
		if prep != nil {
			if err := prep(r); err != nil {
				return nil, err
			}
		}
		for k, mk := range mks {
			sm, err := runOnce(mk())
			if err != nil {
				return nil, err
			}
			out[k] = append(out[k], sm)
		}
	}
	return out, nil
}

// pairRatio is the median over rounds of a's wall over b's (samples from
// the same rounds of interleaved).
func pairRatio(a, b []sample) float64 {
	var rs []float64
	for i := range min(len(a), len(b)) {
		if b[i].wall > 0 {
			rs = append(rs, float64(a[i].wall)/float64(b[i].wall))
		}
	}
	return medianF(rs)
}

// pairDiff is the median over rounds of a's wall minus b's.
func pairDiff(a, b []sample) time.Duration {
	var ds []time.Duration
	for i := range min(len(a), len(b)) {
		ds = append(ds, a[i].wall-b[i].wall)
	}
	return median(ds)
}

// medianF is the median of f (0 for none).
func medianF(f []float64) float64 {
	if len(f) == 0 {
		return 0
	}
	f = slices.Clone(f)
	slices.Sort(f)
	if len(f)%2 == 1 {
		return f[len(f)/2]
	}
	return (f[len(f)/2-1] + f[len(f)/2]) / 2
}

// benchStartup: modbay --help and modbay list (empty home) against the
// hello-world program, each interleaved with it.
func (s *suite) benchStartup() error {
	n := s.reps(30, 5)
	hello := func() *exec.Cmd { return s.cmdIn(nil, s.exe("hello")) }
	helpCmd := func() *exec.Cmd { return s.cmdIn(nil, s.exe("modbay"), "--help") }
	// An empty home: the same one each time (after the first run it holds
	// what modbay leaves there), and a fresh one each time.
	empty := filepath.Join(s.tmp, "empty-home")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		return err
	}
	list := func(home string) func() *exec.Cmd {
		return func() *exec.Cmd { return s.cmdIn(nil, s.exe("modbay"), "list", "--home", home) }
	}
	if _, err := runOnce(list(empty)()); err != nil {
		return err
	}
	got, err := interleaved(n, nil, hello, helpCmd, list(empty))
	if err != nil {
		return err
	}
	hs, help, warm := got[0], got[1], got[2]
	s.startup = medianWall(help)
	how := fmt.Sprintf("median of %d, interleaved with hello world", n)
	s.rep.add(secStartup, row{what: "`modbay --help`", value: medianWall(help), base: medianWall(hs), baseName: "hello world",
		pairRatio: pairRatio(help, hs), note: how + "; CPU " + cpuMedian(help)})
	s.rep.add(secStartup, row{what: "`modbay list`, empty home (reused)", value: medianWall(warm), base: medianWall(hs), baseName: "hello world",
		pairRatio: pairRatio(warm, hs), note: "shows the built-in examples, described in modbay's own process (their invokes re-execute it); " + how})
	fresh := ""
	got, err = interleaved(s.reps(10, 3), func(r int) error {
		fresh = filepath.Join(s.tmp, fmt.Sprintf("fresh-home-%d", r))
		return os.MkdirAll(fresh, 0o755)
	}, hello, func() *exec.Cmd { return list(fresh)() })
	if err != nil {
		return err
	}
	s.rep.add(secStartup, row{what: "`modbay list`, empty home (new each run)", value: medianWall(got[1]), base: medianWall(got[0]), baseName: "hello world",
		pairRatio: pairRatio(got[1], got[0]), note: fmt.Sprintf("first run in a home: examples described cold, workspace seeded; median of %d, interleaved", len(got[1]))})
	return nil
}

// cpuMedian is the median CPU time of ss, rounded for the table.
func cpuMedian(ss []sample) string { return ms(medianCPU(ss)) }

// initLine is one line of GODEBUG=inittrace=1:
// "init PKG @T ms, C ms clock, B bytes, A allocs".
var initLine = regexp.MustCompile(`^init (\S+) @[0-9.]+ ms, ([0-9.]+) ms clock, ([0-9]+) bytes, ([0-9]+) allocs`)

// benchInit runs `modbay --help` with GODEBUG=inittrace=1 and itemises
// package init by library (the module a package belongs to), median over
// runs.
func (s *suite) benchInit() error {
	n := s.reps(15, 3)
	perLib := map[string][]time.Duration{}
	perPkg := map[string][]time.Duration{}
	var totals []time.Duration
	for range n {
		cmd := s.cmdIn([]string{"GODEBUG=inittrace=1"}, s.exe("modbay"), "--help")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("modbay --help: %v", err)
		}
		libs := map[string]time.Duration{}
		pkgs := map[string]time.Duration{}
		var total time.Duration
		for _, l := range strings.Split(stderr.String(), "\n") {
			m := initLine.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			f, _ := strconv.ParseFloat(m[2], 64)
			d := time.Duration(f * float64(time.Millisecond))
			libs[library(m[1])] += d
			pkgs[m[1]] += d
			total += d
		}
		if total == 0 {
			return fmt.Errorf("no inittrace lines from modbay --help")
		}
		for k, v := range libs {
			perLib[k] = append(perLib[k], v)
		}
		for k, v := range pkgs {
			perPkg[k] = append(perPkg[k], v)
		}
		totals = append(totals, total)
	}
	type item struct {
		name string
		d    time.Duration
	}
	var libs []item
	for k, v := range perLib {
		for len(v) < n { // a run where the library did not show
			v = append(v, 0)
		}
		libs = append(libs, item{k, median(v)})
	}
	sort.Slice(libs, func(i, j int) bool {
		return libs[i].d > libs[j].d || libs[i].d == libs[j].d && libs[i].name < libs[j].name
	})
	var pkgs []item
	for k, v := range perPkg {
		pkgs = append(pkgs, item{k, median(v)})
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].d > pkgs[j].d })
	total := median(totals)
	var own time.Duration
	// Instruction counts for the costliest libraries (one valgrind run
	// each, ≈ 4 s): the rest are under 1% of the clock.
	var names []string
	for _, l := range libs[:min(callgrindLibs, len(libs))] {
		names = append(names, l.name)
	}
	allIr, libIr, why := s.callgrindInit(names)
	if why != "" {
		s.rep.note(secStartup, "Instruction counts: not measured — "+why+".")
	} else {
		s.rep.note(secStartup, initIrNote)
	}
	for _, l := range libs {
		if l.name == "modbay" {
			own = l.d
		}
		it := initItem{name: l.name, d: l.d, share: float64(l.d) / float64(total), target: initTargets[l.name]}
		if ir, ok := libIr[l.name]; ok && allIr > 0 {
			it.ir, it.irShare = ir, float64(ir)/float64(allIr)
		}
		if it.target == "" {
			it.target = "as it is: under 1 ms"
			if l.d >= time.Millisecond {
				it.target = "as it is"
			}
		}
		s.rep.initLibs = append(s.rep.initLibs, it)
	}
	if allIr > 0 {
		s.rep.add(secStartup, row{what: "package init, all (instructions)", valueText: fmt.Sprintf("%.1f M", float64(allIr)/1e6),
			note: "valgrind --tool=callgrind, collecting inside runtime.doInit1 only; repeatable where clocks are not"})
	}
	for _, p := range pkgs[:min(10, len(pkgs))] {
		s.rep.initPkgs = append(s.rep.initPkgs, initItem{name: p.name, d: p.d, share: float64(p.d) / float64(total)})
	}
	if len(libs) >= 3 {
		s.rep.note(secStartup, fmt.Sprintf("Why: package init alone takes %s per run of `modbay --help` (median over the inittrace runs; the whole command: %s, hello world's whole run: see its row); the three costliest libraries are %s (%s), %s (%s) and %s (%s).",
			ms(total), ms(s.startup), libs[0].name, ms(libs[0].d), libs[1].name, ms(libs[1].d), libs[2].name, ms(libs[2].d)))
	}
	s.rep.add(secStartup, row{what: "package init, all (inittrace)", value: total, note: fmt.Sprintf("median over %d runs of `modbay --help`; itemised below", n)})
	s.rep.add(secStartup, row{what: "package init, modbay's own packages", value: own, budget: time.Millisecond, budgetText: "≤ 1 ms"})
	return nil
}

// initTargets is the target for each library's package init in
// `modbay --help`, and why it is what it is.
var initTargets = map[string]string{
	"modbay": "≤ 1 ms",
	"github.com/alecthomas/chroma/v2": "kept: glamour (the markdown renderer) imports chroma's lexers and styles, which register and parse at init; " +
		"no option leaves them out, so only replacing glamour (or a fork of it without code highlighting) removes them — weighed and not done: it is the renderer of every markdown artifact",
	"github.com/santhosh-tekuri/jsonschema/v6": "kept: it builds its draft meta-schemas at init (draft.go); it is schema/'s one JSON Schema implementation",
	"github.com/yuin/goldmark":                 "kept: glamour's parser (its linkify and case-folding tables at init)",
	"github.com/microcosm-cc/bluemonday":       "kept: glamour's HTML sanitizer (its regular expressions at init)",
	"std":                                      "as it is (encoding/gob, unicode tables, regexp users)",
}

// callgrindInit counts the instructions of `modbay --help`'s package
// init with valgrind's callgrind, all of it and per library of libs (one
// run each, collecting only inside that library's init functions: a lower
// bound, see count's pattern); std
// is not counted (its packages have no common prefix). why says why
// nothing was counted.
func (s *suite) callgrindInit(libs []string) (all int64, per map[string]int64, why string) {
	vg, err := exec.LookPath("valgrind")
	if err != nil {
		return 0, nil, "valgrind is not on PATH"
	}
	count := func(toggles ...string) (int64, error) {
		args := []string{"--tool=callgrind", "--callgrind-out-file=" + filepath.Join(s.tmp, "callgrind.out")}
		for _, t := range toggles {
			args = append(args, "--toggle-collect="+t)
		}
		// callgrind stops on Go's asynchronous preemption signals.
		cmd := s.cmdIn([]string{"GODEBUG=asyncpreemptoff=1"}, vg, append(args, s.exe("modbay"), "--help")...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return 0, fmt.Errorf("valgrind: %v: %s", err, lastLine(stderr.String()))
		}
		m := collected.FindStringSubmatch(stderr.String())
		if m == nil {
			return 0, fmt.Errorf("valgrind printed no instruction count")
		}
		return strconv.ParseInt(strings.ReplaceAll(m[1], ",", ""), 10, 64)
	}
	all, err = count("runtime.doInit1")
	if err != nil {
		return 0, nil, err.Error()
	}
	per = map[string]int64{}
	for _, lib := range libs {
		if lib == "std" {
			continue
		}
		// One pattern: callgrind toggles collection at each matching
		// entry, so two patterns that nest (pkg.init calling
		// pkg.map.init.0) would turn it off inside. Closures named
		// pkg.init.funcN toggle it too, and are not counted.
		ir, err := count(lib + "*.init*")
		if err != nil {
			return 0, nil, err.Error()
		}
		per[lib] = ir
	}
	return all, per, ""
}

// initIrNote says what the instruction columns are.
const initIrNote = "Instructions: the total (every package's init, inside runtime.doInit1) repeats within a few per cent from run to run; " +
	"a library's count is a lower bound, since callgrind's --toggle-collect turns collection off inside any nested function that also " +
	"matches the library's pattern (closures named pkg.init.funcN, map initialisers), so read the clock for the shares and the instructions " +
	"for a change's effect on the whole. Choice: nothing taken out of the start path — the costliest init is chroma's (glamour's code " +
	"highlighting), which Go cannot defer without replacing glamour; jsonschema's meta-schemas and goldmark's and bluemonday's tables are the " +
	"same case (libraries whose init is theirs); modbay's own is under its 1 ms target."

// callgrindLibs is how many libraries get an instruction count.
const callgrindLibs = 10

// collected is callgrind's "Collected : N" line.
var collected = regexp.MustCompile(`Collected\s*:\s*([0-9,]+)`)

// library is the module a package path belongs to, close enough for
// itemising: the standard library as "std", modbay's own packages as
// "modbay", github.com/golang.org/gopkg paths by their first three
// elements (plus a /vN), charm.land by two.
func library(pkg string) string {
	parts := strings.Split(pkg, "/")
	switch {
	case parts[0] == "modbay":
		return "modbay"
	case !strings.Contains(parts[0], "."):
		return "std"
	}
	n := 3
	switch {
	case parts[0] == "charm.land" || parts[0] == "gopkg.in":
		n = 2
	case len(parts) > 3 && parts[0] == "github.com" && parts[1] == "charmbracelet" && parts[2] == "x":
		n = 4 // x/ansi, x/term, ... are modules of their own
	}
	if len(parts) <= n {
		return pkg
	}
	lib := strings.Join(parts[:n], "/")
	if len(parts) > n && len(parts[n]) >= 2 && parts[n][0] == 'v' && parts[n][1] >= '0' && parts[n][1] <= '9' {
		lib += "/" + parts[n]
	}
	return lib
}
