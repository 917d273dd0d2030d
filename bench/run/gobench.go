package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// goBench runs `go test -run '^$' -bench pattern -benchtime t pkg` in the
// repository and returns each benchmark's metrics by unit ("ns/op",
// "heapMB", ...), keyed by name without the -N suffix.
func (s *suite) goBench(pkg, pattern, benchtime string, env []string) (map[string]map[string]float64, error) {
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", pattern, "-benchtime", benchtime, pkg)
	cmd.Dir = s.root
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("go test -bench %s %s: %v\n%s", pattern, pkg, err, out)
	}
	res := map[string]map[string]float64{}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i]
		}
		m := map[string]float64{}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			m[f[i+1]] = v
		}
		res[name] = m
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("go test -bench %s %s: no benchmark ran\n%s", pattern, pkg, out)
	}
	return res, nil
}

// nsop is a benchmark's ns/op as a duration.
func nsop(m map[string]float64) time.Duration { return time.Duration(m["ns/op"]) }

// benchKeystrokes: Update + View per keystroke, through Go benchmarks.
func (s *suite) benchKeystrokes() error {
	bt := map[bool]string{true: "200x", false: "2s"}[s.opt.quick]
	budget := func(what, bench, note string, m map[string]float64) {
		s.rep.add(secKeys, row{what: what, value: nsop(m), budget: 4 * time.Millisecond, budgetText: "≤ 4 ms (Update + View)",
			note: fmt.Sprintf("`go test -bench '^%s$'`; %s", bench, note)})
	}
	var errs []string
	if r, err := s.goBench("./ui/", "^BenchmarkModuleList200Keystroke$", bt, nil); err != nil {
		errs = append(errs, err.Error())
	} else {
		budget("module list, 200 modules: ↓ / ↑", "BenchmarkModuleList200Keystroke", "ui/modlist_bench_test.go, 120×40, colored", r["BenchmarkModuleList200Keystroke"])
	}
	if schema, size, err := s.largestSchema(); err != nil {
		s.rep.note(secKeys, "Form keystroke: not measured — "+err.Error()+" (pass --corpus DIR or set MODBAY_CORPUS).")
	} else if r, err := s.goBench("./bench/uibench/", "^BenchmarkFormKeystrokeView$", bt, []string{"MODBAY_BENCH_SCHEMA=" + schema}); err != nil {
		errs = append(errs, err.Error())
	} else {
		budget("form of the largest corpus schema: type a / backspace", "BenchmarkFormKeystrokeView",
			fmt.Sprintf("bench/uibench; %s (%d bytes), 120×40", filepath.Base(schema), size), r["BenchmarkFormKeystrokeView"])
	}
	vt := map[bool]string{true: "20x", false: "200x"}[s.opt.quick]
	if r, err := s.goBench("./ui/viewer/", "^BenchmarkScrollCSV100kRows$", vt, nil); err != nil {
		errs = append(errs, err.Error())
	} else {
		budget("table viewer, 100 000 rows: ↓", "BenchmarkScrollCSV100kRows", "ui/viewer/bench_test.go, 120×40", r["BenchmarkScrollCSV100kRows"])
	}
	if r, err := s.goBench("./ui/", "^BenchmarkHistory(Open|Filter)10000$", vt, nil); err != nil {
		errs = append(errs, err.Error())
	} else {
		budget("history screen, 10 000 runs: open (first frame)", "BenchmarkHistoryOpen10000", "ui/history_bench_test.go, 120×40 (open and filter under 100 ms)", r["BenchmarkHistoryOpen10000"])
		budget("history screen, 10 000 runs: one filter keystroke", "BenchmarkHistoryFilter10000", "ui/history_bench_test.go, every press refilters all 10 000", r["BenchmarkHistoryFilter10000"])
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// largestSchema is the largest JSON Schema of the corpus's schemas/
// directory.
func (s *suite) largestSchema() (string, int64, error) {
	files, _ := filepath.Glob(filepath.Join(s.opt.corpus, "schemas", "*.json"))
	best, size := "", int64(0)
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && fi.Size() > size {
			best, size = f, fi.Size()
		}
	}
	if best == "" {
		return "", 0, fmt.Errorf("no corpus schemas in %s", s.opt.corpus)
	}
	return best, size, nil
}

// benchViewers: first frame and one scroll step of a 100 000-row CSV, a
// 20 MB JSON file and a 1 MB markdown file (the viewer package's own Go
// benchmarks, which generate these inputs), and the peak resident memory
// of opening each, as a multiple of its size (viewerpeak, one fresh
// process per file, on inputs of the same shape generated here).
func (s *suite) benchViewers() error {
	bt := map[bool]string{true: "2x", false: "5x"}[s.opt.quick]
	r, err := s.goBench("./ui/viewer/", "^Benchmark(Open|Scroll)(CSV100kRows|JSON20MB|Markdown1MB)$", bt, nil)
	if err != nil {
		return err
	}
	files, err := s.viewerInputs()
	if err != nil {
		return err
	}
	for _, v := range []struct {
		what, bench, file, mt string
	}{
		{"CSV, 100 000 rows", "CSV100kRows", files[0], "text/csv"},
		{"JSON, 20 MB", "JSON20MB", files[1], "application/json"},
		{"markdown, 1 MB", "Markdown1MB", files[2], "text/markdown"},
	} {
		open, scroll := r["BenchmarkOpen"+v.bench], r["BenchmarkScroll"+v.bench]
		s.rep.add(secViewers, row{what: v.what + ": first frame", value: nsop(open), budget: 500 * time.Millisecond, budgetText: "< 500 ms",
			note: "`BenchmarkOpen" + v.bench + "`: read, parse/index, first frame"})
		s.rep.add(secViewers, row{what: v.what + ": one scroll step", value: nsop(scroll), budget: 4 * time.Millisecond, budgetText: "≤ 4 ms (Update + View)",
			note: "`BenchmarkScroll" + v.bench + "`: ↓ and the redraw"})
		cmd := exec.Command(s.exe("viewerpeak"), v.file, v.mt)
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("viewerpeak %s: %v", v.file, err)
		}
		var pk struct {
			File       int64 `json:"file_bytes"`
			Before     int64 `json:"rss_before"`
			Peak       int64 `json:"rss_peak"`
			HeapBefore int64 `json:"heap_before"`
			HeapHeld   int64 `json:"heap_held"`
		}
		if err := json.Unmarshal(out, &pk); err != nil {
			return fmt.Errorf("viewerpeak: %v: %s", err, out)
		}
		if pk.HeapHeld <= pk.HeapBefore {
			return fmt.Errorf("viewerpeak %s: the open viewer holds no heap (%d bytes before, %d with it open): not measured", v.file, pk.HeapBefore, pk.HeapHeld)
		}
		h := float64(pk.HeapHeld-pk.HeapBefore) / float64(pk.File)
		s.rep.add(secViewers, row{what: v.what + ": live heap held", valueText: fmt.Sprintf("%.1f× the file (%.1f MB)", h, float64(pk.HeapHeld-pk.HeapBefore)/(1<<20)),
			budgetText: "< 5×", verdict: withinF(h, 5, func(f float64) string { return fmt.Sprintf("%.1f file sizes", f) }),
			note: "bench/internal/viewerpeak: Go heap after a collection with the viewer open (after first frame + scroll) − before the file was touched, in a fresh process"})
		x := float64(pk.Peak-pk.Before) / float64(pk.File)
		// Tables and JSON answer to the issue's ≤ 3× right after opening;
		// markdown keeps the older bound.
		limit, limitText := 3.0, "≤ 3×"
		if v.mt == "text/markdown" {
			limit, limitText = 5, "< 5×"
		}
		s.rep.add(secViewers, row{what: v.what + ": peak memory (RSS)", valueText: fmt.Sprintf("%.1f× the file (%.1f MB over a %.1f MB file)", x, float64(pk.Peak-pk.Before)/(1<<20), float64(pk.File)/(1<<20)),
			budgetText: limitText, verdict: withinF(x, limit, func(f float64) string { return fmt.Sprintf("%.1f file sizes", f) }),
			note: "bench/internal/viewerpeak: VmHWM after first frame + scroll − VmRSS before, in a fresh process"})
	}
	if err := s.viewerPeaks(); err != nil {
		return err
	}
	return s.viewerKeystrokes([]viewerFile{
		{"JSON, 20 MB", files[1], "application/json"},
		{"CSV, 100 000 rows", files[0], "text/csv"},
	})
}

// viewerInputs writes the viewer inputs, in the shapes of
// ui/viewer/bench_test.go: a 100 000-row CSV (a quoted newline in every
// row), a 20 MiB JSON array of nested records, a 1 MiB markdown file.
func (s *suite) viewerInputs() ([3]string, error) {
	dir := filepath.Join(s.tmp, "viewer")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return [3]string{}, err
	}
	var sb strings.Builder
	sb.WriteString("id,name,city,amount,note\n")
	for i := range 100_000 {
		fmt.Fprintf(&sb, "%d,name %d,\"City, %d\",%d.%02d,\"a note\nwith a newline\"\n", i, i, i%97, i*7, i%100)
	}
	csv := sb.String()
	sb.Reset()
	sb.WriteString("[")
	for i := 0; sb.Len() < 20<<20; i++ {
		if i > 0 {
			sb.WriteString(",\n")
		}
		fmt.Fprintf(&sb, `{"id":%d,"name":"item %d","tags":["a","b","c"],"price":%d.5,"ok":true,"nested":{"x":%d,"y":[1,2,3],"note":"some text to make the record longer, like real data"}}`, i, i, i, i)
	}
	sb.WriteString("]")
	js := sb.String()
	sb.Reset()
	section := "## Section %d\n\nSome *emphasis*, **strong** text, `code` and a [link](https://example.com/path).\n" +
		"A second sentence that is long enough to wrap at eighty columns, to exercise the word wrapper.\n\n" +
		"- item one\n- item two\n  - nested item\n\n" +
		"```go\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n```\n\n" +
		"| name | value |\n|------|-------|\n| a    | 1     |\n| b    | 2     |\n\n"
	for i := 0; sb.Len() < 1<<20; i++ {
		fmt.Fprintf(&sb, section, i)
	}
	md := sb.String()
	var paths [3]string
	for i, f := range []struct{ name, body string }{{"rows.csv", csv}, {"big.json", js}, {"big.md", md}} {
		paths[i] = filepath.Join(dir, f.name)
		if err := os.WriteFile(paths[i], []byte(f.body), 0o444); err != nil {
			return paths, err
		}
	}
	return paths, nil
}
