package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
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
	nSections
)

var sectionTitle = [nSections]string{
	"Start-up", "Discovery", "Invoke (host overhead)", "Cockpit first frame", "Keystrokes", "Viewers", "MCP",
}

// row is one measurement: its value (a duration unless valueText is set),
// the baseline measured in the same run (if any), and the budget it
// answers to (if any).
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
}

// discRow is one discovery measurement: n modules of one kind and size.
type discRow struct {
	n                        int
	kind, size               string
	cold, warm, seq, floor   time.Duration
	slowest, cpuTotal        time.Duration
	coldReps, warmReps       int
	coldVerdict, warmVerdict string
}

// initItem is one library's (or package's) share of package init.
type initItem struct {
	name  string
	d     time.Duration
	share float64
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
	tree      string // the commit measured
	smallSize int64  // bytes of a "small" module executable
	notes     [nSections][]string
}

func newReport(quick bool) *report {
	return &report{quick: quick, started: time.Now(), loadStart: loadavg()}
}

func (r *report) add(sec section, x row) { r.rows[sec] = append(r.rows[sec], x) }

func (r *report) note(sec section, s string) { r.notes[sec] = append(r.notes[sec], s) }

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
	w("| suite took | %s |\n\n", r.took.Round(time.Second))
	if l1, l2 := load1(r.loadStart), load1(loadavg()); max(l1, l2) >= 1.5 {
		w("> **Warning: the machine was busy** (1-minute load %.1f at the start, %.1f at the end, on %d cores): other work competed for the CPUs and every number here is inflated. Run again on an idle machine.\n\n", l1, l2, runtime.NumCPU())
	}
	w("Timings are medians of repeated runs of real processes started from bench/run (fork/exec is in every value and every baseline). A ratio is value / baseline. A budget is the bound the project holds that row to.\n\n")
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
			w("### Package init by library (`GODEBUG=inittrace=1 modbay --help`)\n\n| library | init (clock) | share |\n| --- | --- | --- |\n")
			for _, it := range r.initLibs {
				w("| %s | %s | %.0f%% |\n", it.name, ms(it.d), it.share*100)
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
	w(" Cold: the describe cache removed before each run; warm: the cache filled by the run before. Sequential: bench/run running the same describes one after another (as the host would: TMPDIR-only environment, scratch directory). Floor: max(slowest describe, total CPU of all describes / %d cores), from the sequential run.\n\n", runtime.NumCPU())
	w("| modules | describe | size | cold | sequential | floor | cold / floor | cold / sequential | warm | budget: cold ≤ 1.5× floor | budget: warm ≤ 50 ms (200 modules) |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, d := range r.disc {
		w("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", d.n, d.kind, d.size, ms(d.cold), ms(d.seq),
			ms(d.floor), ratio(d.cold, d.floor), ratio(d.cold, d.seq), ms(d.warm), d.coldVerdict, d.warmVerdict)
	}
	var warmSmall, warmBig time.Duration
	for _, d := range r.disc {
		if d.n == maxModules && d.size == "small" {
			warmSmall = max(warmSmall, d.warm)
		}
		if d.n == maxModules && d.size != "small" {
			warmBig = max(warmBig, d.warm)
		}
	}
	if warmSmall > 0 && warmBig > 2*warmSmall {
		w("\nWhy (warm): with %d modules the 20 MB homes cost %.1f× the small ones warm — a warm discovery still reads every executable whole (its identity is its sha256), so the cost grows with the bytes installed, not with what changed.\n", maxModules, float64(warmBig)/float64(warmSmall))
	}
	w("\nFloor detail: slowest describe / total describe CPU per row: ")
	var parts []string
	for _, d := range r.disc {
		parts = append(parts, fmt.Sprintf("%d %s %s: %s / %s", d.n, d.kind, d.size, ms(d.slowest), ms(d.cpuTotal)))
	}
	w("%s.\n\n", strings.Join(parts, "; "))
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
