package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"
)

// cols and rows are the terminal the cockpit is measured in.
const cols, rows = 120, 40

// cockpitSizes are the homes the cockpit's complete list is measured at.
var cockpitSizes = []int{200, 1600, 3200}

// linkedHome is a home of n modules that are hard links of the bench
// module under the ids quick-NNNN (their describe answers at once; a
// module's fingerprint holds its directory's listing, so each caches its
// own descriptor), its describe cache filled and checked.
func (s *suite) linkedHome(n int) (string, error) {
	home := filepath.Join(s.tmp, "homes", fmt.Sprintf("quick-%d", n))
	if _, err := os.Stat(home); err == nil {
		return home, nil
	}
	for i := range n {
		id := fmt.Sprintf("quick-%04d", i)
		dir := filepath.Join(home, "modules", id)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		if err := os.Link(s.exe("benchmod"), filepath.Join(dir, id)); err != nil {
			return "", err
		}
	}
	if _, err := runOnce(s.cmdIn(nil, s.exe("modbay"), "list", "--home", home)); err != nil {
		return "", err
	}
	return home, s.checkListed(home, n)
}

// cockpitList starts the cockpit on home (n modules) and returns the time
// until its complete list is shown: the header's "n modules", which the
// module list says only once discovery is done.
func (s *suite) cockpitList(home string, n int) (shown, first time.Duration, err error) {
	p, err := startPTY(s.exe("modbay"), []string{"--home", home}, s.env, s.tmp, cols, rows)
	if err != nil {
		return 0, 0, err
	}
	d, err := p.waitText(fmt.Sprintf("%d modules", n), 30*time.Second)
	p.stop("q")
	return d, p.firstOutput(), err
}

// benchCockpit: the real modbay binary on a 120×40 pseudo-terminal that
// bench/run reads: the time from starting the process until the complete
// module list is shown, warm (the describe cache filled), each run
// interleaved with a warm `modbay list --json` of the same home; then the
// bytes written to the terminal per ↓ on a list of 200 modules.
func (s *suite) benchCockpit() error {
	n := s.reps(10, 2)
	type point struct {
		n                  int
		shown, list, first time.Duration
		ratio              float64
	}
	var pts []point
	for _, size := range cockpitSizes {
		home, err := s.linkedHome(size)
		if err != nil {
			return err
		}
		listJSON := func() *exec.Cmd { return s.cmdIn(nil, s.exe("modbay"), "list", "--json", "--home", home) }
		var shown, firsts []time.Duration
		var lists []sample
		var ratios []float64
		for range n {
			d, f, err := s.cockpitList(home, size)
			if err != nil {
				return err
			}
			l, err := runOnce(listJSON())
			if err != nil {
				return err
			}
			shown, firsts, lists = append(shown, d), append(firsts, f), append(lists, l)
			ratios = append(ratios, float64(d)/float64(l.wall))
		}
		pt := point{n: size, shown: median(shown), list: medianWall(lists), first: median(firsts), ratio: medianF(ratios)}
		pts = append(pts, pt)
		r := row{what: fmt.Sprintf("cockpit, %d modules (warm): start → complete list shown", size), value: pt.shown,
			base: pt.list, baseName: "warm `modbay list --json`", pairRatio: pt.ratio,
			note: fmt.Sprintf("median of %d, interleaved; the real binary on a %d×%d pty read by bench/run, until the header says %q (escape sequences stripped), which it says once discovery is done; first byte at %s; %s per module", n, cols, rows, fmt.Sprintf("%d modules", size), ms(pt.first), ms(pt.shown/time.Duration(size)))}
		if size == 1600 {
			r.budgetText = "≤ 2× warm `list --json`"
			r.verdict = withinF(pt.ratio, 2, func(f float64) string { return fmt.Sprintf("%.2f×", f) })
		}
		s.rep.add(secCockpit, r)
	}
	// Growth: the cost of each further module between sizes, which is flat
	// when the list's cost per module does not grow with the count.
	if len(pts) == 3 {
		m1 := (pts[1].shown - pts[0].shown) / time.Duration(pts[1].n-pts[0].n)
		m2 := (pts[2].shown - pts[1].shown) / time.Duration(pts[2].n-pts[1].n)
		l1 := (pts[1].list - pts[0].list) / time.Duration(pts[1].n-pts[0].n)
		l2 := (pts[2].list - pts[1].list) / time.Duration(pts[2].n-pts[1].n)
		g := float64(m2) / float64(max(m1, 1))
		s.rep.add(secCockpit, row{what: fmt.Sprintf("cockpit: cost per further module, %d→%d and %d→%d", pts[0].n, pts[1].n, pts[1].n, pts[2].n),
			valueText: fmt.Sprintf("%s, then %s (%.2f×)", ms(m1), ms(m2), g), budgetText: "flat (≤ 1.25×)",
			verdict: withinF(g, 1.25, func(f float64) string { return fmt.Sprintf("%.2f×", f) }),
			note:    fmt.Sprintf("differences of the medians above; warm `list --json`: %s, then %s", ms(l1), ms(l2))})
	}
	s.rep.note(secCockpit, "Why: the cockpit runs the same warm discovery as `list --json` and streams it to the list in batches of a frame "+
		"(the program draws after every message); what it adds is its start-up beyond the command's (the terminal set-up and the first frames) "+
		"and one frame per batch. On a shared machine the sizes' medians can come out of order (a larger home faster than a smaller one); "+
		"the per-pair ratios are the reading to trust, and ui's BenchmarkModuleListStream (200, 1600, 3200) is the in-process check that the "+
		"list's own cost per module is flat.")
	home, err := s.warmHome("sleep", "small", maxModules)
	if err != nil {
		return err
	}
	return s.keystrokeBytes(home)
}

// keystrokeBytes presses ↓ on the module list of home and counts what
// the cockpit writes to the terminal after each press.
func (s *suite) keystrokeBytes(home string) error {
	p, err := startPTY(s.exe("modbay"), []string{"--home", home}, s.env, s.tmp, cols, rows)
	if err != nil {
		return err
	}
	defer p.stop("q")
	if _, err := p.waitText("sleep-000", 10*time.Second); err != nil {
		return err
	}
	p.waitIdle(300*time.Millisecond, 5*time.Second)
	presses := s.reps(60, 10)
	var per []int
	var lat []time.Duration
	for range presses {
		pause()
		before := p.total()
		sent := time.Now()
		p.send("\x1b[B") // ↓, as a terminal sends it
		p.waitOutput(before, 60*time.Millisecond, 2*time.Second)
		per = append(per, p.total()-before)
		lat = append(lat, p.firstAfter(before).Sub(sent))
	}
	slices.Sort(per)
	if per[0] == 0 {
		return fmt.Errorf("a ↓ on the module list wrote nothing to the terminal: the key did not arrive, or the cursor did not move")
	}
	sum := 0
	for _, b := range per {
		sum += b
	}
	mean := float64(sum) / float64(len(per))
	s.rep.add(secKeys, row{what: "bytes to the terminal per ↓ (module list, 200 modules, 120×40)", valueText: fmt.Sprintf("%.0f B mean, %d B median, %d B max", mean, per[len(per)/2], per[len(per)-1]),
		budgetText: "≤ 2 KB", verdict: withinF(float64(per[len(per)-1]), 2048, func(f float64) string { return fmt.Sprintf("%.0f B", f) }),
		note: fmt.Sprintf("%d presses through the pty from the top of the list (past the first screenful when more than a screen's rows); verdict on the max", presses)})
	lessLat, err := s.lessKeystroke(home, presses)
	if err != nil {
		s.rep.skip(secKeys, "↓ to first output byte, against `less`", err.Error())
		return nil
	}
	s.rep.note(secKeys, "Why (↓ to the first byte): Bubble Tea's renderer writes a changed frame only on its ticker, at most 120 a second "+
		"(the cockpit's rate: 0–8.3 ms, 4.2 ms on average), while less writes as soon as it has read the key. Each press waits a random pause "+
		"after the answer before it settles: a fixed wait locks the presses to the ticker's phase, so that 60 and 120 frames a second read the same. "+
		"What would close it: a renderer that flushes right after an update caused by input, which Bubble Tea v2 does not offer. Not done.")
	s.rep.add(secKeys, row{what: "module list, 200 modules: ↓ to the first byte on the terminal", value: median(lat),
		base: median(lessLat), baseName: "`less` on the same list (`modbay list` output), ↓", budgetText: "≤ 2× less",
		verdict: withinF(float64(median(lat)), 2*float64(median(lessLat)), func(f float64) string { return ms(time.Duration(f)) }),
		note:    fmt.Sprintf("median of %d presses each, on a %d×%d pty; from writing the key to the first byte of the answer", presses, cols, rows)})
	return nil
}

// lessKeystroke is the time from ↓ to less's first answering byte, per
// press, with less showing `modbay list` of home on the same terminal.
func (s *suite) lessKeystroke(home string, presses int) ([]time.Duration, error) {
	lessExe, err := exec.LookPath("less")
	if err != nil {
		return nil, fmt.Errorf("less is not on PATH")
	}
	out, err := s.cmdIn(nil, s.exe("modbay"), "list", "--home", home).Output()
	if err != nil {
		return nil, fmt.Errorf("modbay list: %v", err)
	}
	file := filepath.Join(s.tmp, "list.txt")
	if err := os.WriteFile(file, out, 0o644); err != nil {
		return nil, err
	}
	p, err := startPTY(lessExe, []string{file}, s.env, s.tmp, cols, rows)
	if err != nil {
		return nil, err
	}
	defer p.stop("q")
	p.waitIdle(300*time.Millisecond, 5*time.Second)
	var lat []time.Duration
	for range presses {
		pause()
		before := p.total()
		sent := time.Now()
		p.send("\x1b[B")
		p.waitOutput(before, 60*time.Millisecond, 2*time.Second)
		if p.total() == before {
			return nil, fmt.Errorf("less wrote nothing after ↓")
		}
		lat = append(lat, p.firstAfter(before).Sub(sent))
	}
	return lat, nil
}
