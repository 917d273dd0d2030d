package main

import (
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// gatewayBudget is the host overhead one call through `modbay mcp serve`
// may add to running the module directly (docs/gateway.md).
const gatewayBudget = 5 * time.Millisecond

// benchGateway runs bench/gateway against this run's modbay build: the
// per-call overhead through one serve session and the bursts of 100.
func (s *suite) benchGateway() error {
	bin := s.exe("gateway")
	build := exec.Command("go", "build", "-o", bin, "./bench/gateway")
	build.Dir = s.root
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build bench/gateway: %v\n%s", err, out)
	}
	n := s.reps(60, 10)
	cmd := exec.Command(bin, "-n", strconv.Itoa(n), "-modbay", s.exe("modbay"))
	cmd.Dir = s.root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("bench/gateway: %v\n%s", err, out)
	}
	text := string(out)
	through, ok1 := msAfter(text, "through one serve session:")
	direct, ok2 := msAfter(text, "module run directly:")
	if !ok1 || !ok2 {
		return fmt.Errorf("bench/gateway printed no medians:\n%s", out)
	}
	cpu := ""
	if c, ok := msAfter(text, "serve process CPU per call:"); ok {
		cpu = "; serve's CPU per call " + ms(c)
	}
	s.rep.add(secGateway, row{what: "one tool call through one serve session", value: through, base: direct, baseName: "the module run directly", note: fmt.Sprintf("median of %d, calls and direct runs alternating; bench/gateway, the trivial bench module, containment as `modbay doctor` reports", n)})
	s.rep.add(secGateway, row{what: "host overhead added per call", value: through - direct, budget: gatewayBudget, budgetText: "≤ 5 ms", note: "through − direct, containment included" + cpu})
	for _, m := range burstLine.FindAllStringSubmatch(text, -1) {
		verdict := "met"
		if m[5] != "0" {
			verdict = "**missed**: " + m[5] + " calls unanswered"
		}
		s.rep.add(secGateway, row{what: "burst of 100 concurrent calls, max_concurrent " + m[1], valueText: fmt.Sprintf("%s results, %s busy, %s other errors", m[2], m[3], m[4]), budgetText: "every call answered (a result or busy)", verdict: verdict, note: "all answered in " + m[6] + "; bench/gateway"})
	}
	s.rep.note(secGateway, "Why: what a call adds to the module's own run is the gateway's JSON-RPC round trip, planning and input validation, the history record (begin, events, finish; its fsync runs in the background, docs/internals.md \"History\"), a run directory (made ahead and reused after a run in a PID namespace, docs/internals.md \"Run directories\") and the contained spawn (namespaces, Landlock with the system paths' descriptors opened once per process, seccomp), which is most of what is left (about 2 ms over a plain fork and exec). What would close more: reusing mount and PID namespaces across calls, which would let one run reach another's directory, and was not done.")
	return nil
}

// burstLine is bench/gateway's burst result; sub-matches: the bound,
// results, busy, other errors, unanswered, and the time all took.
var burstLine = regexp.MustCompile(`max_concurrent (\d+): (\d+) results, (\d+) busy, (\d+) other errors, (\d+) unanswered; all answered in (\S+)`)

// msAfter reads the "12.3 ms" that follows label in text.
func msAfter(text, label string) (time.Duration, bool) {
	_, rest, ok := strings.Cut(text, label)
	if !ok {
		return 0, false
	}
	f := strings.Fields(rest)
	if len(f) < 2 || f[1] != "ms" {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0, false
	}
	return time.Duration(v * float64(time.Millisecond)), true
}
