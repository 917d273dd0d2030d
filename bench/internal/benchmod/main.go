// Command benchmod is the module bench/run installs by the hundred: a real
// executable speaking xibodev.module/v1 (docs/protocol.md §3) whose describe costs
// what its id says. A module gets no environment but TMPDIR and a fixed
// argv (docs/protocol.md §3), so the behaviour is read from the executable's own
// name, which is the module id (docs/protocol.md §2: <home>/modules/<id>/<id>):
//
//	sleep-NNN  describe sleeps 20 ms (a describe that mostly waits)
//	burn-NNN   describe burns 20 ms of CPU time (user + system, this process)
//	anything   describe answers at once
//
// Every module has one capability, bench.echo: local, free, no effects,
// whose result is the request's input (the trivial call of the invoke
// measurement). It uses only the standard library, so its start-up is that
// of a small Go program.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// protocolID is docs/protocol.md §1's ProtocolID.
const protocolID = "xibodev.module/v1"

// describeCost is how long a sleeper sleeps and a burner burns.
const describeCost = 20 * time.Millisecond

func main() {
	id := filepath.Base(os.Args[0])
	args := os.Args[1:]
	switch {
	case len(args) >= 2 && args[0] == "module" && args[1] == "describe":
		behave(id)
		write(envelope(id, "describe", "", map[string]any{"ok": true, "result": descriptor(id)}))
	case len(args) == 5 && args[0] == "module" && args[1] == "invoke" && args[3] == "--input":
		os.Exit(invoke(id, args[2], args[4]))
	default:
		fmt.Fprintln(os.Stderr, "benchmod: usage: module describe --json | module invoke CAPABILITY --input FILE")
		os.Exit(2)
	}
}

// behave spends describeCost as the id asks: sleeping or burning CPU.
func behave(id string) {
	switch {
	case strings.HasPrefix(id, "sleep-"):
		time.Sleep(describeCost)
	case strings.HasPrefix(id, "burn-"):
		x := uint64(1)
		for cpuTime() < describeCost {
			for range 100_000 {
				x = x*6364136223846793005 + 1442695040888963407
			}
		}
		if x == 0 { // keep the loop's work observable
			fmt.Fprintln(os.Stderr, x)
		}
	}
}

// cpuTime is the user + system CPU time this process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return describeCost // cannot tell: stop burning
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// invoke answers one invoke of bench.echo with the request's input.
func invoke(id, capability, requestPath string) int {
	b, err := os.ReadFile(requestPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchmod: cannot read the request:", err)
		return 2
	}
	var req struct {
		RequestID string          `json:"request_id"`
		Input     json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(b, &req); err != nil {
		fmt.Fprintln(os.Stderr, "benchmod: bad request:", err)
		return 2
	}
	if capability != "bench.echo" {
		write(envelope(id, "invoke", req.RequestID, map[string]any{"ok": false, "error": map[string]any{
			"code": "unknown_capability", "message": "no capability " + capability, "retryable": false, "details": map[string]any{}}}))
		return 0
	}
	in := req.Input
	if len(in) == 0 {
		in = json.RawMessage("null")
	}
	write(envelope(id, "invoke", req.RequestID, map[string]any{"ok": true, "result": map[string]any{"echo": in}}))
	return 0
}

// envelope is a docs/protocol.md §6 envelope with the fields of outcome merged in.
func envelope(id, operation, requestID string, outcome map[string]any) map[string]any {
	env := map[string]any{
		"protocol": protocolID, "module": id, "operation": operation, "request_id": requestID,
		"warnings": []string{},
		"execution": map[string]any{"local": true, "network": false, "external_writes": false, "provider": "local",
			"estimated_cost": 0, "actual_cost": 0, "artifacts": []any{}},
	}
	for k, v := range outcome {
		env[k] = v
	}
	return env
}

// descriptor is the module's descriptor (docs/protocol.md §9): one local, free
// capability.
func descriptor(id string) map[string]any {
	return map[string]any{
		"module": id, "name": "Bench " + id, "version": "1.0.0",
		"protocol_versions": []string{protocolID},
		"capabilities": []map[string]any{{
			"id": "bench.echo", "title": "Echo", "summary": "Returns the input as the result.",
			"request_schema": "bench.echo.request/v1", "result_schema": "", "artifact_schemas": []string{},
			"effects":      map[string]any{"local": true, "network": false, "external_writes": false, "provider": "local", "cost_known": true},
			"skills":       []string{},
			"long_running": false,
		}},
		"request_schemas": map[string]any{"bench.echo.request/v1": map[string]any{
			"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}},
		}},
		"result_schemas":   map[string]any{},
		"artifact_schemas": map[string]any{},
		"agent_overlays":   []any{},
		"skills":           []any{},
		"permissions": map[string]any{
			"filesystem_read": []string{}, "filesystem_write": []string{}, "network": []string{},
			"credentials": []string{}, "paid_providers": []string{}, "publish": false, "subprocess": []string{},
		},
		"requirements": []any{},
	}
}

// write prints v as one line of JSON on stdout.
func write(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchmod:", err)
		os.Exit(1)
	}
	os.Stdout.Write(append(b, '\n'))
}
