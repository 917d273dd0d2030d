// Command run is modbay's benchmark suite: one command that
// builds what it needs, generates its own inputs in a temporary directory,
// measures each cost beside a baseline taken in the same run, and writes
// bench/RESULTS.md with the ratio and the budget line each cost answers to.
//
//	go run ./bench/run [--quick] [--out bench/RESULTS.md] [--corpus DIR] [--keep] [--load-wait 10m] [--install]
//
// It needs only Go (and Linux: /proc and a pseudo-terminal). Timings are
// the median of repeated runs of real processes started from this program
// (fork/exec included on both sides of every ratio); Go benchmarks
// (`go test -bench`) stand behind the in-process numbers. --quick runs
// every measurement with few repetitions, to check that the suite works;
// its numbers are not for the record.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"modbay/internal/testcorpus"
)

// options are the command line.
type options struct {
	quick  bool
	out    string
	corpus string
	keep   bool
	only   string
	// loadWait bounds the wait for a 1-minute load below idleLoad.
	loadWait time.Duration
	// install lets the suite npm-install the inspector CLI into the
	// repository's own cache (bench/.cache).
	install bool
}

// idleLoad is the 1-minute load average under which the machine counts
// as idle enough to measure.
const idleLoad = 1.0

// suite is one run: where things are and what was measured.
type suite struct {
	opt  options
	root string // the repository
	tmp  string // everything generated
	bin  string // built executables
	env  []string
	rep  *report
	// startup is modbay --help's median (the start-up rows), which the
	// package-init note compares with.
	startup time.Duration
	// pool holds the module executables homes link to, by size.
	pool map[string][]string
}

func main() {
	var o options
	flag.BoolVar(&o.quick, "quick", false, "few repetitions: a smoke test, not numbers for the record")
	flag.StringVar(&o.out, "out", "", "where to write the results (default: bench/RESULTS.md in the repository)")
	flag.StringVar(&o.corpus, "corpus", "", "the shared corpus directory, for the form of the largest schema (default: $MODBAY_CORPUS, else where internal/testcorpus looks)")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directory of generated inputs")
	flag.StringVar(&o.only, "only", "", "run only these steps, comma-separated (start-up, init, discovery, invoke, cockpit, keystrokes, viewers, mcp, gateway), for working on the suite")
	flag.DurationVar(&o.loadWait, "load-wait", 10*time.Minute, "wait up to this long for a 1-minute load below 1.0 before measuring (0: do not wait); RESULTS.md says when it could not")
	flag.BoolVar(&o.install, "install", false, "npm-install the MCP inspector CLI (the MCP rows' baseline) into bench/.cache when it is not found; without it nothing is installed")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench/run:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	began := time.Now()
	root, err := repoRoot()
	if err != nil {
		return err
	}
	if o.out == "" {
		o.out = filepath.Join(root, "bench", "RESULTS.md")
	}
	if o.corpus == "" {
		if o.corpus, err = testcorpus.Root(); err != nil {
			return err
		}
	}
	tmp, err := os.MkdirTemp("", "modbay-bench-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Fprintln(os.Stderr, "inputs kept in", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	s := &suite{opt: o, root: root, tmp: tmp, bin: filepath.Join(tmp, "bin"), rep: newReport(o.quick)}
	s.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(tmp, "userhome"), "TERM=xterm-256color", "LANG=C.UTF-8"}
	s.rep.tree = treeState(root)
	if err := os.MkdirAll(filepath.Join(tmp, "userhome"), 0o755); err != nil {
		return err
	}
	steps := []struct {
		name string
		f    func() error
	}{
		{"build", s.build},
		{"start-up", s.benchStartup},
		{"init", s.benchInit},
		{"discovery", s.benchDiscovery},
		{"invoke", s.benchInvoke},
		{"cockpit", s.benchCockpit},
		{"keystrokes", s.benchKeystrokes},
		{"viewers", s.benchViewers},
		{"mcp", s.benchMCP},
		{"gateway", s.benchGateway},
	}
	for i, st := range steps {
		if i == 1 {
			s.rep.loadWait = waitIdle(o.loadWait)
			s.rep.loadStart = loadavg()
			s.rep.cpuStart = takeCPU()
		}
		if i > 0 && o.only != "" && !slices.Contains(strings.Split(o.only, ","), st.name) {
			continue
		}
		t := time.Now()
		fmt.Fprintf(os.Stderr, "bench/run: %s…\n", st.name)
		if err := st.f(); err != nil {
			// One broken measurement does not hide the others.
			s.rep.failed(st.name, err)
			fmt.Fprintf(os.Stderr, "bench/run: %s failed: %v\n", st.name, err)
		}
		fmt.Fprintf(os.Stderr, "bench/run: %s took %s\n", st.name, time.Since(t).Round(time.Millisecond))
	}
	s.rep.took = time.Since(began)
	if err := os.WriteFile(o.out, []byte(s.rep.markdown()), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "bench/run: wrote %s in %s\n", o.out, s.rep.took.Round(time.Second))
	return nil
}

// waitIdle waits until the 1-minute load average is below idleLoad, at
// most bound, and says how that went.
func waitIdle(bound time.Duration) string {
	began := time.Now()
	for {
		l := load1(loadavg())
		if l < idleLoad {
			return fmt.Sprintf("1-minute load %.2f < %.1f after waiting %s", l, idleLoad, time.Since(began).Round(time.Second))
		}
		if time.Since(began) >= bound {
			return fmt.Sprintf("**the 1-minute load never fell below %.1f** within %s (it was %.2f when measuring began): other work shared the machine", idleLoad, bound, l)
		}
		fmt.Fprintf(os.Stderr, "bench/run: 1-minute load %.2f, waiting for < %.1f (up to %s)\n", l, idleLoad, bound-time.Since(began).Round(time.Second))
		time.Sleep(min(15*time.Second, max(bound-time.Since(began), time.Second)))
	}
}

// repoRoot is the directory of the go.mod of the module "modbay" that
// holds the working directory.
func repoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run from inside the modbay repository")
	}
	b, err := os.ReadFile(mod)
	if err != nil || !bytes.HasPrefix(b, []byte("module modbay\n")) {
		return "", fmt.Errorf("%s is not modbay's go.mod", mod)
	}
	return filepath.Dir(mod), nil
}

// treeState is the commit of the repository and whether the tree has
// changes beside it ("" without git).
func treeState(root string) string {
	cmd := exec.Command("git", "rev-parse", "--short", "HEAD")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	st := exec.Command("git", "status", "--porcelain", "--untracked-files=no")
	st.Dir = root
	if changes, err := st.Output(); err == nil && len(bytes.TrimSpace(changes)) > 0 {
		return strings.TrimSpace(string(out)) + " with uncommitted changes"
	}
	return strings.TrimSpace(string(out))
}

// build compiles modbay, the hello-world baseline, the bench module and
// the viewer probe into s.bin, with the default build flags.
func (s *suite) build() error {
	for _, b := range []struct{ out, pkg string }{
		{"modbay", "."},
		{"hello", "./bench/internal/hello"},
		{"benchmod", "./bench/internal/benchmod"},
		{"viewerpeak", "./bench/internal/viewerpeak"},
		{"viewerkey", "./bench/internal/viewerkey"},
	} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(s.bin, b.out), b.pkg)
		cmd.Dir = s.root
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", b.pkg, err, out)
		}
	}
	return nil
}

// exe is the path of a built executable.
func (s *suite) exe(name string) string { return filepath.Join(s.bin, name) }

// reps picks a repetition count: full for the record, quick for --quick.
func (s *suite) reps(full, quick int) int {
	if s.opt.quick {
		return quick
	}
	return full
}

// cores is the CPU count the floor divides by.
func cores() int { return runtime.NumCPU() }
