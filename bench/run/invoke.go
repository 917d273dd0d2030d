package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// benchInvoke: one `modbay invoke` of the bench module's trivial
// capability, with containment off and on, against running the same
// module directly with the same request file and against modbay's own
// start-up (`modbay --help`). The four commands are run in interleaved
// rounds, so a machine whose load changes during the step shifts them
// alike. Host overhead: invoke (containment off) − direct − start-up;
// containment cost: invoke (on) − invoke (off). Both are also given in
// CPU time (the process and its waited-for children), which a busy
// machine inflates less than the wall clock.
func (s *suite) benchInvoke() error {
	homes := map[string]string{}
	for _, h := range []struct{ name, config string }{
		{"off", "sandbox: off\n"},
		{"on", ""}, // the default: sandbox: auto, as far as the machine allows
	} {
		home := filepath.Join(s.tmp, "homes", "invoke-"+h.name)
		dir := filepath.Join(home, "modules", "echo")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := copyFile(s.exe("benchmod"), filepath.Join(dir, "echo")); err != nil {
			return err
		}
		if h.config != "" {
			if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(h.config), 0o644); err != nil {
				return err
			}
		}
		homes[h.name] = home
	}
	exe := filepath.Join(homes["off"], "modules", "echo", "echo")
	ws := filepath.Join(s.tmp, "invoke-workspace")
	scratch := filepath.Join(s.tmp, "invoke-scratch")
	for _, d := range []string{ws, scratch} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	input := `{"text":"hello"}`
	// The request modbay would write (docs/protocol.md §4), for the direct run.
	req, _ := json.Marshal(map[string]any{
		"protocol": "xibodev.module/v1", "capability": "bench.echo", "request_id": "req_00000000000000000000000000000001",
		"input": json.RawMessage(input), "roots": map[string]any{"workspace": map[string]string{"path": ws, "mode": "rw"}},
		"grants": map[string]any{}, "binaries": map[string]any{}, "deadline_ms": 180000, "max_output_bytes": 1 << 20,
	})
	reqPath := filepath.Join(s.tmp, "request.json")
	if err := os.WriteFile(reqPath, req, 0o600); err != nil {
		return err
	}
	invoke := func(home string) func() *exec.Cmd {
		return func() *exec.Cmd {
			return s.cmdIn(nil, s.exe("modbay"), "invoke", "--home", home, "--workspace", ws, "echo", "bench.echo", "--input", input)
		}
	}
	direct := func() *exec.Cmd {
		cmd := exec.Command(exe, "module", "invoke", "bench.echo", "--input", reqPath)
		cmd.Env, cmd.Dir = []string{"TMPDIR=" + scratch}, scratch
		return cmd
	}
	help := func() *exec.Cmd { return s.cmdIn(nil, s.exe("modbay"), "--help") }
	// Warm: the describe caches filled, the executables in the page cache.
	for _, h := range []string{"off", "on"} {
		if _, err := runOnce(invoke(homes[h])()); err != nil {
			return err
		}
		if out, err := invoke(homes[h])().Output(); err != nil || len(out) == 0 {
			return fmt.Errorf("modbay invoke (containment %s) printed nothing: %v", h, err)
		}
	}
	n := s.reps(30, 5)
	kinds := []struct {
		name string
		mk   func() *exec.Cmd
	}{{"off", invoke(homes["off"])}, {"on", invoke(homes["on"])}, {"direct", direct}, {"help", help}}
	got := map[string][]sample{}
	for range n {
		for _, k := range kinds {
			sm, err := runOnce(k.mk())
			if err != nil {
				return err
			}
			got[k.name] = append(got[k.name], sm)
		}
	}
	wall := func(k string) time.Duration { return medianWall(got[k]) }
	cpu := func(k string) time.Duration { return medianCPU(got[k]) }
	off, on, d, up := wall("off"), wall("on"), wall("direct"), wall("help")
	how := fmt.Sprintf("median of %d, interleaved with the rows below; a home of one module, describe cached", n)
	s.rep.add(secInvoke, row{what: "`modbay invoke echo bench.echo`, containment off (whole command)", value: off, base: d, baseName: "module run directly", pairRatio: pairRatio(got["off"], got["direct"]),
		note: how + "; CPU " + ms(cpu("off")) + " against " + ms(cpu("direct"))})
	s.rep.add(secInvoke, row{what: "modbay start-up (`modbay --help`, interleaved)", value: up,
		note: "CPU " + ms(cpu("help"))})
	s.rep.add(secInvoke, row{what: "host overhead per invoke (start-up and containment excluded)", value: off - d - up, budget: 5_000_000, budgetText: "≤ 5 ms",
		note: "invoke (off) − direct − start-up, wall; in CPU " + ms(cpu("off")-cpu("direct")-cpu("help")) +
			". What it holds: discovery of the home (describe cached), plan and input validation, the history record (its fsyncs), request file and run directory, spawn, envelope checks, the exit check for left-behind processes"})
	s.rep.add(secInvoke, row{what: "`modbay invoke echo bench.echo`, containment on (whole command)", value: on, base: off, baseName: "the same, containment off",
		pairRatio: pairRatio(got["on"], got["off"]), note: how + "; CPU " + ms(cpu("on"))})
	s.rep.add(secInvoke, row{what: "one-shot contained invoke over start-up", value: pairDiff(got["on"], got["help"]), budget: 5 * time.Millisecond,
		budgetText: "≤ `modbay --help` + 5 ms", base: up, baseName: "`modbay --help`", pairRatio: pairRatio(got["on"], got["help"]),
		note: "invoke (on) − `modbay --help`, the median of the differences of each round; containment, discovery of the home, plan, history record and run included"})
	s.rep.add(secInvoke, row{what: "containment cost per invoke", value: on - off, budget: 5_000_000, budgetText: "≤ 5 ms",
		note: "invoke (on) − invoke (off), wall; in CPU " + ms(cpu("on")-cpu("off")) + ". The kernel's namespaces, Landlock, seccomp and limits, as far as this machine allows (`modbay doctor`)"})
	s.rep.note(secInvoke, fmt.Sprintf("Why: the host overhead is what a one-shot command does besides starting: the history record "+
		"(its running and final records renamed into place unsynced; the final record's fsync and its directory's run on a background worker "+
		"after the answer and before exit, docs/internals.md \"History\"; the run's lock is a byte lock in one shared file, no file per run), "+
		"discovery of the home, planning, the per-run directory (made in the background while the module is planned, reused by later runs "+
		"of the same process; docs/internals.md \"Run directories\"), the request file (one inode: on this machine's ext4, mounted without "+
		"a journal, each new inode scans the inodes deleted in the last minutes), the Landlock rules (a path opened per rule) and the envelope "+
		"checks (in CPU %s). The containment row compares two whole commands: the support probe's answer is kept per boot "+
		"(<home>/cache/contain-probe.json, docs/containment.md \"What it costs\") and the shared network namespace is made while the module is planned, "+
		"so what is left is the contained spawn itself. A one-shot command still pays, before it exits, the history's two fsyncs "+
		"(durability: docs/internals.md) and the run directory's removal. "+
		"What would close the rest: less start-up work shared by every command (library init, `modbay --help` itself), the Landlock rules "+
		"built from descriptors opened once per process, and on this machine a file system whose inode creation does not scan deleted inodes.",
		ms(cpu("off")-cpu("direct")-cpu("help"))))
	return nil
}

// medianCPU is the median CPU time of ss.
func medianCPU(ss []sample) time.Duration {
	d := make([]time.Duration, len(ss))
	for i, s := range ss {
		d[i] = s.cpu
	}
	return median(d)
}
