package main

import (
	"fmt"
	"slices"
	"time"
)

// cols and rows are the terminal the cockpit is measured in.
const cols, rows = 120, 40

// benchCockpit: the real modbay binary on a 120×40 pseudo-terminal that
// bench/run reads, against hello world on the same terminal: the time
// from starting the process until the module list shows a module id (the
// first frame with content), warm (the describe cache filled); then the
// bytes written to the terminal per ↓ on a list of 200 modules.
func (s *suite) benchCockpit() error {
	n := s.reps(10, 2)
	var hello []time.Duration
	for range n {
		p, err := startPTY(s.exe("hello"), nil, s.env, s.tmp, cols, rows)
		if err != nil {
			return err
		}
		d, err := p.waitText("hello, world", 5*time.Second)
		p.stop("")
		if err != nil {
			return err
		}
		hello = append(hello, d)
	}
	base := median(hello)
	for _, h := range []struct {
		name, kind string
		n          int
	}{{"sleep-small-10", "sleep", 10}, {"sleep-small-200", "sleep", 200}} {
		home, err := s.warmHome(h.kind, "small", h.n)
		if err != nil {
			return err
		}
		var frames, firsts []time.Duration
		for range n {
			p, err := startPTY(s.exe("modbay"), []string{"--home", home}, s.env, s.tmp, cols, rows)
			if err != nil {
				return err
			}
			d, err := p.waitText(h.kind+"-000", 10*time.Second)
			p.stop("q")
			if err != nil {
				return err
			}
			frames = append(frames, d)
			firsts = append(firsts, p.firstOutput())
		}
		s.rep.add(secCockpit, row{what: fmt.Sprintf("cockpit, %d modules (warm): start → list shown", h.n), value: median(frames),
			base: base, baseName: "hello world on the same pty", budget: 100 * time.Millisecond, budgetText: "≤ 100 ms warm",
			note: fmt.Sprintf("median of %d; the real binary on a %d×%d pty read by bench/run, until a module id appears in its output (escape sequences stripped); its first byte came at %s", n, cols, rows, ms(median(firsts)))})
	}
	s.rep.note(secCockpit, "Why: the first byte comes after the process has started, and start-up alone (see Start-up: `modbay --help`, "+
		"mostly the libraries' package init, chroma's lexers and styles above all, which glamour links and no option leaves out; "+
		"bench/STARTUP.md) is most of it; the list follows the first byte within a few ms. Not done: a second, smaller binary.")
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
	for range presses {
		before := p.total()
		p.send("\x1b[B") // ↓, as a terminal sends it
		p.waitOutput(before, 60*time.Millisecond, 2*time.Second)
		per = append(per, p.total()-before)
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
	return nil
}
