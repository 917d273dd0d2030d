// Command gateway measures `modbay mcp serve` (docs/gateway.md): the host
// overhead of one tool call through one serve session against running the
// same trivial module directly with the same request, and a burst of 100
// concurrent calls in which every call must get an answer (a result or
// "busy"). Run from the repository root:
//
//	go run ./bench/gateway [-n 40] [-modbay BIN] [-against BIN]
//
// It builds modbay and bench/internal/benchmod, installs the module in a
// fresh home (containment as the machine allows: sandbox auto), and
// prints the medians. Calls and direct runs alternate, so a change of the
// machine's load shifts both alike.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	n := flag.Int("n", 40, "calls (and direct runs) to take the median of")
	sandbox := flag.String("sandbox", "auto", "config.yaml sandbox: for the serve process (auto, off), to split containment's share")
	wrap := flag.String("wrap", "", "a command the serve process runs under, split at spaces (e.g. \"strace -c -f -o /tmp/s.txt\"), to profile it")
	modbay := flag.String("modbay", "", "a modbay binary to measure instead of building this tree's (to compare two builds)")
	against := flag.String("against", "", "a second modbay binary served beside the first on the same home, its calls interleaved call by call with the first's (to compare two builds on a busy machine)")
	bursts := flag.Bool("burst", true, "measure the bursts of 100 concurrent calls after the per-call median")
	flag.Parse()
	serveWrap, modbayBin, againstBin = strings.Fields(*wrap), *modbay, *against
	if err := run(*n, *sandbox, *bursts); err != nil {
		fmt.Fprintln(os.Stderr, "bench/gateway:", err)
		os.Exit(1)
	}
}

// serveWrap is -wrap: argv put before the serve command; modbayBin is
// -modbay, againstBin -against.
var (
	serveWrap  []string
	modbayBin  string
	againstBin string
)

func run(n int, sandbox string, bursts bool) error {
	tmp, err := os.MkdirTemp("", "modbay-bench-gateway-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, b := range []struct{ out, pkg string }{{"modbay", "."}, {"benchmod", "./bench/internal/benchmod"}} {
		if b.out == "modbay" && modbayBin != "" {
			bin, err := os.ReadFile(modbayBin)
			if err == nil {
				err = os.WriteFile(filepath.Join(tmp, "modbay"), bin, 0o755)
			}
			if err != nil {
				return err
			}
			continue
		}
		if out, err := exec.Command("go", "build", "-o", filepath.Join(tmp, b.out), b.pkg).CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", b.pkg, err, out)
		}
	}
	home := filepath.Join(tmp, "home")
	dir := filepath.Join(home, "modules", "echo")
	ws := filepath.Join(tmp, "ws")
	scratch := filepath.Join(tmp, "scratch")
	for _, d := range []string{dir, ws, scratch} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	mod := filepath.Join(dir, "echo")
	b, err := os.ReadFile(filepath.Join(tmp, "benchmod"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(mod, b, 0o755); err != nil {
		return err
	}
	// A bound above the burst, so the burst measures answers, not refusals;
	// the second session's bound of 4 shows "busy" answers.
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("sandbox: "+sandbox+"\nmcp_serve:\n  max_concurrent: 128\n"), 0o644); err != nil {
		return err
	}
	input := map[string]any{"text": "hello"}
	req, _ := json.Marshal(map[string]any{
		"protocol": "xibodev.module/v1", "capability": "bench.echo", "request_id": "req_00000000000000000000000000000001",
		"input": input, "roots": map[string]any{"workspace": map[string]string{"path": ws, "mode": "rw"}},
		"grants": map[string]any{}, "binaries": map[string]any{}, "deadline_ms": 180000, "max_output_bytes": 1 << 20,
	})
	reqPath := filepath.Join(tmp, "request.json")
	if err := os.WriteFile(reqPath, req, 0o600); err != nil {
		return err
	}
	ctx := context.Background()
	cs, serve, err := connect(ctx, filepath.Join(tmp, "modbay"), home, ws)
	if err != nil {
		return err
	}
	defer cs.Close()
	callOn := func(cs *mcp.ClientSession) func() error {
		return func() error {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "bench_echo", Arguments: input})
			if err == nil && res.IsError {
				err = fmt.Errorf("bench_echo failed: %v", res.Content)
			}
			return err
		}
	}
	call := callOn(cs)
	// -against: a second serve session of another build, on the same
	// home, called between the first's calls.
	call2 := func() error { return nil }
	if againstBin != "" {
		cs2, _, err := connect(ctx, againstBin, home, ws)
		if err != nil {
			return err
		}
		defer cs2.Close()
		call2 = callOn(cs2)
	}
	direct := func() error {
		cmd := exec.Command(mod, "module", "invoke", "bench.echo", "--input", reqPath)
		cmd.Env, cmd.Dir = []string{"TMPDIR=" + scratch}, scratch
		return cmd.Run()
	}
	for range 3 { // warm: describe cache, page cache
		if err := call(); err != nil {
			return err
		}
		if err := call2(); err != nil {
			return err
		}
		if err := direct(); err != nil {
			return err
		}
	}
	var calls, calls2, directs []time.Duration
	cpu0 := procCPU(serve)
	for i := range n {
		steps := []struct {
			f   func() error
			out *[]time.Duration
		}{{call, &calls}, {call2, &calls2}, {direct, &directs}}
		if i%2 == 1 { // -against: each build goes first in every other round
			steps[0], steps[1] = steps[1], steps[0]
		}
		for _, m := range steps {
			t0 := time.Now()
			if err := m.f(); err != nil {
				return err
			}
			*m.out = append(*m.out, time.Since(t0))
		}
	}
	cpu1 := procCPU(serve)
	mc, md := median(calls), median(directs)
	fmt.Printf("per call (median of %d, sandbox: %s):\n", n, sandbox)
	fmt.Printf("  through one serve session: %s\n  module run directly:       %s\n  host overhead added:       %s (target ≤ 5 ms)\n",
		ms(mc), ms(md), ms(mc-md))
	if cpu0 >= 0 && cpu1 >= 0 {
		fmt.Printf("  serve process CPU per call: %s (user + system, its own threads; /proc/%d/stat)\n", ms((cpu1-cpu0)/time.Duration(n)), serve)
	}
	if againstBin != "" {
		diffs := make([]time.Duration, n)
		for i := range n {
			diffs[i] = calls[i] - calls2[i]
		}
		fmt.Printf("  -against %s: %s per call, host overhead added %s; this build − that one, median of the call-by-call differences: %s\n",
			againstBin, ms(median(calls2)), ms(median(calls2)-md), ms(median(diffs)))
	}
	if !bursts {
		return nil
	}
	for _, bound := range []int{128, 4} {
		if bound == 4 {
			if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("sandbox: "+sandbox+"\nmcp_serve:\n  max_concurrent: 4\n"), 0o644); err != nil {
				return err
			}
			cs.Close()
			if cs, _, err = connect(ctx, filepath.Join(tmp, "modbay"), home, ws); err != nil {
				return err
			}
		}
		ok, busy, other, took := burst(ctx, cs, input, 100)
		fmt.Printf("burst of 100 concurrent calls, max_concurrent %d: %d results, %d busy, %d other errors, %d unanswered; all answered in %s\n",
			bound, ok, busy, other, 100-ok-busy-other, took.Round(time.Millisecond))
	}
	return nil
}

// connect starts `modbay mcp serve` (the binary bin) in home and connects
// a client; the pid is the serve process's (or -wrap's).
func connect(ctx context.Context, bin, home, ws string) (*mcp.ClientSession, int, error) {
	argv := append(slices.Clone(serveWrap), bin, "--home", home, "--workspace", ws, "mcp", "serve")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, 0, err
	}
	return cs, cmd.Process.Pid, nil
}

// procCPU is pid's user + system time so far (its own threads, not its
// children's), or -1 when /proc cannot say.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return -1
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	return time.Duration(ut+st) * time.Second / clockTicks
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's times (100 on
// every Linux architecture Go supports).
const clockTicks = 100

// burst makes k calls at once and counts how each was answered.
func burst(ctx context.Context, cs *mcp.ClientSession, input any, k int) (ok, busy, other int, took time.Duration) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	t0 := time.Now()
	for range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "bench_echo", Arguments: input})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				other++
			case !res.IsError:
				ok++
			case res.Meta["modbay/code"] == "busy":
				busy++
			default:
				other++
			}
		}()
	}
	wg.Wait()
	return ok, busy, other, time.Since(t0)
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", float64(d)/float64(time.Millisecond)), "0"), ".") + " ms"
}
