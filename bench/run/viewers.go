package main

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"time"
)

// viewerFile is one file the viewer rows open.
type viewerFile struct{ what, path, media string }

// viewerPeakSizes are the sizes, in MiB, the viewers' peak heap is
// measured at (the viewer loads at most 64 MiB).
var viewerPeakSizes = []int{2, 20, 60}

// viewerPeaks: the peak heap of opening a table and a JSON document at
// three sizes, and of expand all on the JSON document, through the viewer
// package's Go benchmarks (the heap's objects sampled while it runs:
// runtime/metrics, not the bytes allocated).
func (s *suite) viewerPeaks() error {
	r, err := s.goBench("./ui/viewer/", "^Benchmark(OpenPeak|ExpandAllPeak)$", "1x", nil)
	if err != nil {
		return err
	}
	x := func(f float64) string { return fmt.Sprintf("%.2f×", f) }
	for _, k := range []struct{ name, what string }{{"table", "table (CSV)"}, {"json", "JSON"}} {
		for _, mb := range viewerPeakSizes {
			name := fmt.Sprintf("BenchmarkOpenPeak/%s/%dMB", k.name, mb)
			m, ok := r[name]
			if !ok {
				return fmt.Errorf("go test -bench: %s did not run", name)
			}
			s.rep.add(secViewers, row{what: fmt.Sprintf("%s, %d MB: peak heap right after opening", k.what, mb),
				valueText:  fmt.Sprintf("%.2f× the file (%.1f MB); held %.2f×", m["peak-x"], m["peakMB"], m["held-x"]),
				budgetText: "≤ 3×", verdict: withinF(m["peak-x"], 3, x),
				note: fmt.Sprintf("`%s`: the heap's objects (runtime/metrics) sampled every 200 µs while the file is read, parsed or indexed and its first frame drawn, above the heap before; held: the live heap after a collection", name)})
		}
	}
	for _, mb := range viewerPeakSizes {
		name := fmt.Sprintf("BenchmarkExpandAllPeak/%dMB", mb)
		m, ok := r[name]
		if !ok {
			return fmt.Errorf("go test -bench: %s did not run", name)
		}
		// The bound is on what expand all adds: rows shown from the start
		// (an open root's members) are shown however many there are.
		bound := max(200_000, m["rows-open"])
		s.rep.add(secViewers, row{what: fmt.Sprintf("JSON, %d MB: expand all", mb),
			valueText:  fmt.Sprintf("%.0f rows (%.0f before); peak %.2f× the file, held %.2f×", m["rows"], m["rows-open"], m["peak-x"], m["held-x"]),
			budgetText: "≤ 200 000 rows or the rows shown before, said on screen",
			verdict:    withinF(m["rows"], bound, func(f float64) string { return fmt.Sprintf("%.0f rows", f) }),
			note:       fmt.Sprintf("`%s`: e on the open document; the rows the root shows from the start count toward the bound, and the footer says \"expanded N of M nodes (the bound is 200000 rows)\" when it stops (ui/viewer's TestTreeExpandAllBound)", name)})
	}
	return nil
}

// pressPause is the most a press waits, at random, after the answer to
// the one before has settled: a fixed wait would lock the presses to the
// renderer's ticker and read one phase of it, not the average.
const pressPause = 20 * time.Millisecond

// pause waits a random part of pressPause before the next press.
func pause() { time.Sleep(rand.N(pressPause)) }

// pressLatency presses key on p and returns the time from writing it to
// the first byte of the answer, after waiting for the answer to settle.
func pressLatency(p *ptyProc, key string) (time.Duration, error) {
	pause()
	before := p.total()
	sent := time.Now()
	p.send(key)
	p.waitOutput(before, 60*time.Millisecond, 2*time.Second)
	if p.total() == before {
		return 0, fmt.Errorf("%s wrote nothing after a key", p.cmd.Path)
	}
	return p.firstAfter(before).Sub(sent), nil
}

// viewerKeystrokes: ↓ in the artifact viewer (bench/internal/viewerkey:
// the viewer in a Bubble Tea program of its own, the cockpit's renderer
// and frame rate) on each file, to the first byte on the terminal, each
// press interleaved with the same press in less on the same file.
func (s *suite) viewerKeystrokes(files []viewerFile) error {
	lessExe, err := exec.LookPath("less")
	if err != nil {
		s.rep.skip(secKeys, "viewer: ↓ to the first byte, against `less`", "less is not on PATH")
		return nil
	}
	presses := s.reps(60, 10)
	for _, f := range files {
		v, err := startPTY(s.exe("viewerkey"), []string{"-fps", "120", f.path, f.media}, s.env, s.tmp, cols, rows)
		if err != nil {
			return err
		}
		l, err := startPTY(lessExe, []string{f.path}, s.env, s.tmp, cols, rows)
		if err != nil {
			v.stop("q")
			return err
		}
		v.waitIdle(500*time.Millisecond, 20*time.Second)
		l.waitIdle(300*time.Millisecond, 5*time.Second)
		var vl, ll []time.Duration
		var ratios []float64
		for range presses {
			a, err := pressLatency(v, "\x1b[B")
			if err == nil {
				var b time.Duration
				if b, err = pressLatency(l, "\x1b[B"); err == nil {
					vl, ll = append(vl, a), append(ll, b)
					ratios = append(ratios, float64(a)/float64(max(b, time.Microsecond)))
				}
			}
			if err != nil {
				v.stop("q")
				l.stop("q")
				return err
			}
		}
		v.stop("q")
		l.stop("q")
		mv, ml := median(vl), median(ll)
		s.rep.add(secKeys, row{what: f.what + ": ↓ in the viewer to the first byte on the terminal", value: mv,
			base: ml, baseName: "`less` on the same file, ↓", pairRatio: medianF(ratios), budgetText: "≤ 2× less",
			verdict: withinF(float64(mv), 2*float64(ml), func(x float64) string { return ms(time.Duration(x)) }),
			note:    fmt.Sprintf("median of %d presses each, interleaved, on a %d×%d pty, a random pause of up to %s before each; bench/internal/viewerkey at the cockpit's 120 frames a second", presses, cols, rows, ms(pressPause))})
	}
	s.rep.note(secKeys, "Why (↓ in the viewer): the key reaches the viewer's Update about 0.2 ms after it is written and the frame is drawn 0.5 ms later "+
		"(measured with monotonic timestamps on both sides of the pty); the rest is Bubble Tea's renderer, which writes a changed frame only on its ticker, "+
		"at most 120 a second (0–8.3 ms, 4.2 on average, plus the diff of the frame). less writes as soon as it has read the key. "+
		"What would close it: a renderer that flushes right after an update caused by input, which Bubble Tea v2 does not offer (its renderer is not pluggable); "+
		"a fork or an upstream change. Not done.")
	return nil
}
