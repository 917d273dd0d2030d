package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// section is one table of RESULTS.md.
type section int

const (
	secStartup section = iota
	secDiscovery
	secInvoke
	secCockpit
	secKeys
	secViewers
	secMCP
	secGateway
	nSections
)

var sectionTitle = [nSections]string{
	"Start-up", "Discovery", "Invoke (host overhead)", "Cockpit first frame", "Keystrokes", "Viewers", "MCP", "Gateway (`modbay mcp serve`)",
}

// row is one measurement: its value (a duration unless valueText is set),
// the baseline measured in the same run (if any), and the budget it answers
// to (if any).
type row struct {
	what      string
	value     time.Duration
	valueText string
	base      time.Duration
	baseName  string
	// budget is a duration the value must not exceed; budgetText is how
	// the issue states it. verdict, when set, replaces the computed one
	// (budgets that are not a duration).
	budget     time.Duration
	budgetText string
	verdict    string
	note       string
	// pairRatio, when set, is the median of the per-pair ratios of value
	// to baseline over interleaved runs (ABAB…), shown instead of the
	// ratio of the medians.
	pairRatio float64
}

// discRow is one discovery measurement: n modules of one kind and size.
type discRow struct {
	n                        int
	kind, size               string
	cold, warm, floor        time.Duration
	coldCPU, floorCPU        time.Duration
	ratio                    float64 // cold / floor, median per pair
	coldReps, warmReps       int
	coldVerdict, warmVerdict string
}

// initItem is one library's (or package's) share of package init.
type initItem struct {
	name  string
	d     time.Duration
	share float64
	// ir and irShare are the instructions counted by callgrind (0: not
	// counted); target is what the library's init should be, and why.
	ir      int64
	irShare float64
	target  string
}

// report collects the run's measurements and writes RESULTS.md.
type report struct {
	quick     bool
	started   time.Time
	loadStart string
	took      time.Duration
	rows      [nSections][]row
	disc      []discRow
	initLibs  []initItem
	initPkgs  []initItem
	failures  []string
	// loadWait says how the run waited for an idle machine.
	loadWait  string
	cpuStart  cpuSnap // when measuring began (after the idle wait)
	tree      string  // the commit measured
	smallSize int64   // bytes of a "small" module executable
	notes     [nSections][]string
}

func newReport(quick bool) *report {
	return &report{quick: quick, started: time.Now(), loadStart: loadavg()}
}

func (r *report) add(sec section, x row) { r.rows[sec] = append(r.rows[sec], x) }

func (r *report) note(sec section, s string) { r.notes[sec] = append(r.notes[sec], s) }

// skip says in sec's table that what was not measured, and why.
func (r *report) skip(sec section, what, why string) {
	r.add(sec, row{what: what, valueText: "not measured", verdict: "skipped", note: why})
}

func (r *report) failed(step string, err error) {
	r.failures = append(r.failures, fmt.Sprintf("%s: %v", step, err))
}

// ms formats d in milliseconds with a precision that suits it.
func ms(d time.Duration) string {
	f := float64(d) / float64(time.Millisecond)
	switch {
	case d < 0: // a difference of medians can be
		return "−" + ms(-d)
	case d == 0:
		return "0"
	case f < 0.1:
		return fmt.Sprintf("%.1f µs", f*1000)
	case f < 10:
		return fmt.Sprintf("%.2f ms", f)
	case f < 1000:
		return fmt.Sprintf("%.1f ms", f)
	}
	return fmt.Sprintf("%.2f s", f/1000)
}

// ratio is a/b as "N.N×" ("" when b is zero).
func ratio(a, b time.Duration) string {
	if b <= 0 {
		return ""
	}
	return fmt.Sprintf("%.1f×", float64(a)/float64(b))
}

// within says whether value meets limit: "met" or "missed by X (N×)".
func within(value, limit time.Duration) string {
	if value <= limit {
		return "met"
	}
	return fmt.Sprintf("**missed** by %s (%.1f× the budget)", ms(value-limit), float64(value)/float64(limit))
}

// withinF is within for any quantity with a unit formatter.
func withinF(value, limit float64, format func(float64) string) string {
	if value <= limit {
		return "met"
	}
	return fmt.Sprintf("**missed** by %s (%.1f× the budget)", format(value-limit), value/limit)
}

// markdown is RESULTS.md.
func (r *report) markdown() string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("# modbay benchmark results\n\n")
	w("Written by `go run ./bench/run%s`. Every baseline was measured in the same run, on the same machine.\n\n", map[bool]string{true: " --quick", false: ""}[r.quick])
	if r.quick {
		w("> **--quick run**: few repetitions, a smoke test of the suite. These numbers are not for the record.\n\n")
	}
	w("| | |\n| --- | --- |\n")
	w("| date | %s |\n", r.started.UTC().Format("2006-01-02 15:04 MST"))
	w("| machine | %d cores (nproc), %s |\n", runtime.NumCPU(), cpuModel())
	w("| kernel | %s |\n", strings.TrimSpace(readFile("/proc/sys/kernel/osrelease")))
	w("| Go | %s |\n", runtime.Version())
	if r.tree != "" {
		w("| tree | %s |\n", r.tree)
	}
	w("| load average (1, 5, 15 min) | at start %s; at end %s |\n", r.loadStart, loadavg())
	w("| suite took | %s |\n", r.took.Round(time.Second))
	if r.loadWait != "" {
		w("| idle wait | %s |\n", r.loadWait)
	}
	// The load average counts the suite's own processes, so whether others
	// shared the machine is judged by their CPU time: the machine's busy
	// time less this process's and its waited-for children's.
	others, ok := r.cpuStart.othersSince()
	capacity := time.Since(r.cpuStart.at).Seconds() * float64(runtime.NumCPU())
	if ok {
		w("| other processes' CPU while measuring | %.1f s (%.0f%% of the machine's %.0f CPU-seconds) |\n", others, 100*others/capacity, capacity)
	}
	w("\n")
	if l1 := load1(r.loadStart); l1 >= 1.5 || (ok && others > 0.05*capacity) {
		w("> **Warning: the machine was busy** (1-minute load %.1f when measuring began; other processes used %.1f CPU-seconds while it ran, on %d cores): other work competed for the CPUs and every number here is inflated. Run again on an idle machine.\n\n", l1, others, runtime.NumCPU())
	}
	w("Timings are medians of repeated runs of real processes started from bench/run (fork/exec is in every value and every baseline). A measurement and its baseline run interleaved (ABAB…); a ratio marked \"per pair\" is the median of the ratios of each pair, otherwise value / baseline. A budget is the bound the project holds that row to.\n\n")
	if len(r.failures) > 0 {
		w("## Measurements that failed\n\n")
		for _, f := range r.failures {
			w("- %s\n", strings.ReplaceAll(f, "\n", " "))
		}
		w("\n")
	}
	for sec := range nSections {
		if len(r.rows[sec]) == 0 && !(sec == secDiscovery && len(r.disc) > 0) {
			continue
		}
		w("## %s\n\n", sectionTitle[sec])
		if sec == secDiscovery {
			r.discTable(&b)
		}
		if len(r.rows[sec]) > 0 {
			w("| measurement | value | baseline | ratio | budget | verdict | how |\n| --- | --- | --- | --- | --- | --- | --- |\n")
			for _, x := range r.rows[sec] {
				val := x.valueText
				if val == "" {
					val = ms(x.value)
				}
				base, rat := "", ""
				if x.baseName != "" {
					base = x.baseName + " " + ms(x.base)
					rat = ratio(x.value, x.base)
				}
				if x.pairRatio > 0 {
					rat = fmt.Sprintf("%.2f× (per pair)", x.pairRatio)
				}
				verdict := x.verdict
				if verdict == "" && x.budget > 0 {
					verdict = within(x.value, x.budget)
				}
				w("| %s | %s | %s | %s | %s | %s | %s |\n", x.what, val, base, rat, x.budgetText, verdict, x.note)
			}
			w("\n")
		}
		for _, n := range r.notes[sec] {
			w("%s\n\n", n)
		}
		if sec == secStartup && len(r.initLibs) > 0 {
			w("### Package init by library (`GODEBUG=inittrace=1 modbay --help`; instructions: callgrind)\n\n| library | init (clock) | share | instructions | share | target |\n| --- | --- | --- | --- | --- | --- |\n")
			for _, it := range r.initLibs {
				ir, irs := "", ""
				if it.ir > 0 {
					ir, irs = fmt.Sprintf("%.2f M", float64(it.ir)/1e6), fmt.Sprintf("%.0f%%", it.irShare*100)
				}
				w("| %s | %s | %.0f%% | %s | %s | %s |\n", it.name, ms(it.d), it.share*100, ir, irs, it.target)
			}
			w("\nThe ten slowest packages:\n\n| package | init (clock) | share |\n| --- | --- | --- |\n")
			for _, it := range r.initPkgs {
				w("| %s | %s | %.0f%% |\n", it.name, ms(it.d), it.share*100)
			}
			w("\n")
		}
	}
	return b.String()
}

// discTable writes the discovery table.
func (r *report) discTable(b *strings.Builder) {
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	w("`modbay list --home H` over a home of n modules (real executables: bench/internal/benchmod, %.1f MB as built (\"small\"); \"20 MB\" = the same executable padded to 20 MiB with a sparse hole).", float64(r.smallSize)/(1<<20))
	w(" Cold: the describe cache removed before each run; warm: the cache filled by the run before. Floor: bench/run itself spawning the same describes %d at a time (as the host starts them: TMPDIR-only environment, scratch directory), run right after each cold run; cold / floor is the median of those pairs. Per module: the value over n.\n\n", floorParallel)
	w("| modules | describe | size | cold | floor | cold / floor (per pair) | cold per module | CPU cold / floor | warm | warm per module | budget: cold ≤ 2× floor (%d modules) | budget: warm ≤ 50 ms (%d modules) |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n", maxModules, maxModules)
	for _, d := range r.disc {
		w("| %d | %s | %s | %s | %s | %.2f× | %s | %s / %s | %s | %s | %s | %s |\n", d.n, d.kind, d.size, ms(d.cold), ms(d.floor), d.ratio,
			ms(d.cold/time.Duration(d.n)), ms(d.coldCPU), ms(d.floorCPU), ms(d.warm), ms(d.warm/time.Duration(d.n)), d.coldVerdict, d.warmVerdict)
	}
	w("\n")
}

// cpuModel is the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	for _, l := range strings.Split(readFile("/proc/cpuinfo"), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

// loadavg is the 1, 5 and 15 minute load averages.
func loadavg() string {
	f := strings.Fields(readFile("/proc/loadavg"))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], ", ")
}

// load1 is the first number of a loadavg string (0 when unknown).
func load1(s string) float64 {
	f, _ := strconv.ParseFloat(strings.TrimSuffix(strings.Fields(s + " 0")[0], ","), 64)
	return f
}

func readFile(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}

// cpuSnap is the machine's busy CPU time and this process's own (with its
// waited-for children) at one moment.
type cpuSnap struct {
	at      time.Time
	machine float64 // seconds, all CPUs: /proc/stat's busy columns
	own     float64 // seconds: getrusage of self and children
	ok      bool
}

func takeCPU() cpuSnap {
	m, ok := machineBusy()
	return cpuSnap{at: time.Now(), machine: m, own: ownCPU(), ok: ok}
}

// othersSince is the CPU-seconds other processes used since s.
func (s cpuSnap) othersSince() (float64, bool) {
	m, ok := machineBusy()
	if !ok || !s.ok {
		return 0, false
	}
	return max(0, (m-s.machine)-(ownCPU()-s.own)), true
}

// machineBusy sums /proc/stat's first line but idle and iowait, in seconds.
func machineBusy() (float64, bool) {
	line, _, _ := strings.Cut(readFile("/proc/stat"), "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return 0, false
	}
	var busy float64
	for i, v := range f[1:8] { // user nice system idle iowait irq softirq
		if i == 3 || i == 4 {
			continue
		}
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, false
		}
		busy += n
	}
	if len(f) > 8 { // steal
		if n, err := strconv.ParseFloat(f[8], 64); err == nil {
			busy += n
		}
	}
	return busy / 100, true // USER_HZ is 100 on Linux
}

func ownCPU() float64 {
	var t float64
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			t += time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
		}
	}
	return t
}
