package runner

// This file turns the test binary into the fake modules the runner tests
// drive. A module gets no environment but TMPDIR, so its behaviour is
// chosen by argv: a launcher script runs
//
//	<test binary> __modbay_testmodule <behaviour> <id> <aux dir> module ...
//
// and a module installed as a symlink to the test binary reads its
// behaviour from the file "behaviour" beside the symlink.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"modbay/modproto"
)

const (
	fakeMarker    = "__modbay_testmodule"
	sleeperMarker = "__modbay_sleeper"
	spawnerMarker = "__modbay_spawner"
	parentMarker  = "__modbay_parent"
	// slowDescribe is how long the "slow_describe" fake takes to answer.
	slowDescribe = 1500 * time.Millisecond
	// skillContent is what the fake's declared skill digest covers.
	skillContent = "# skill\nUse the echo.\n"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case fakeMarker:
			fakeExit(fakeModule(os.Args[2], os.Args[3], os.Args[4], os.Args[5:]))
		case "module":
			dir := filepath.Dir(os.Args[0])
			b, _ := os.ReadFile(filepath.Join(dir, "behaviour"))
			fakeExit(fakeModule(strings.TrimSpace(string(b)), filepath.Base(os.Args[0]), dir, os.Args[1:]))
		case sleeperMarker:
			for {
				time.Sleep(time.Hour)
			}
		case parentMarker:
			// Start a setsid'd sleeper with an empty environment (no
			// TMPDIR marker), write its pid to os.Args[2], sleep: only the
			// ppid chain leads to it.
			c := exec.Command("/proc/self/exe", sleeperMarker)
			c.Env = []string{}
			c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			if c.Start() != nil {
				fakeExit(2)
			}
			_ = os.WriteFile(os.Args[2]+".tmp", []byte(strconv.Itoa(c.Process.Pid)), 0o644)
			_ = os.Rename(os.Args[2]+".tmp", os.Args[2])
			for {
				time.Sleep(time.Hour)
			}
		case spawnerMarker:
			// Start a setsid'd sleeper, write its pid to os.Args[2], exit:
			// the sleeper is orphaned, in its own session, off the ppid
			// chain of the module.
			c := exec.Command("/proc/self/exe", sleeperMarker)
			c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			if len(os.Args) > 3 && os.Args[3] == "noenv" {
				// No TMPDIR marker either: only the host's subreaper
				// adoption still leads to it.
				c.Env = []string{}
			}
			if c.Start() != nil {
				os.Exit(2)
			}
			_ = os.WriteFile(os.Args[2], []byte(strconv.Itoa(c.Process.Pid)), 0o644)
			fakeExit(0)
		}
	}
	os.Exit(m.Run())
}

// fakeExit exits without the race detector's one-second exit pause
// (os.Exit(0) runs racefini, which sleeps; syscall.Exit does not).
func fakeExit(code int) {
	syscall.Exit(code)
}

// fakeModule is one fake module process; args start at "module".
func fakeModule(behaviour, id, aux string, args []string) int {
	if len(args) >= 2 && args[0] == "module" && args[1] == "describe" {
		return fakeDescribe(behaviour, id, aux)
	}
	if len(args) == 5 && args[0] == "module" && args[1] == "invoke" && args[3] == "--input" {
		return fakeInvoke(behaviour, id, args[2], args[4])
	}
	fmt.Fprintln(os.Stderr, "fake module: bad argv", args)
	return 2
}

func fakeDescribe(behaviour, id, aux string) int {
	_ = os.MkdirAll(aux, 0o755)
	if f, err := os.OpenFile(filepath.Join(aux, "describe.count"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		f.WriteString("x")
		f.Close()
	}
	envJSON, _ := json.Marshal(os.Environ())
	_ = os.WriteFile(filepath.Join(aux, "describe.env"), envJSON, 0o644)
	if _, err := os.Stat(filepath.Join(aux, "fail")); err == nil || behaviour == "broken" {
		fmt.Fprintln(os.Stderr, "describe: something went wrong")
		fmt.Println("this is not an envelope")
		return 1
	}
	if behaviour == "describe_daemon" {
		// Leaves a daemon in a new session and a double-forked one with an
		// empty environment; their pids go to the aux dir.
		var pids []string
		c := exec.Command("/proc/self/exe", sleeperMarker)
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if c.Start() == nil {
			pids = append(pids, strconv.Itoa(c.Process.Pid))
		}
		pidFile := filepath.Join(aux, "orphan.pid")
		if exec.Command("/proc/self/exe", spawnerMarker, pidFile, "noenv").Run() == nil {
			if b, err := os.ReadFile(pidFile); err == nil {
				pids = append(pids, string(b))
			}
		}
		_ = os.WriteFile(filepath.Join(aux, "pids"), []byte(strings.Join(pids, " ")), 0o644)
	}
	if behaviour == "slow_describe" {
		// A describe that takes its time (well within DescribeTimeout).
		time.Sleep(slowDescribe)
	}
	d := fakeDescriptor(id)
	switch behaviour {
	case "wrong_id":
		d["module"] = id + "-other"
	case "invalid":
		d["version"] = ""
		d["protocol_versions"] = []string{"xibodev.module/v0"}
	case "needs_setup":
		d["requirements"] = []map[string]any{
			{"kind": "binary", "name": "ffmpeg", "available": false, "detail": "install ffmpeg 6 or later"},
			{"kind": "binary", "name": "sh", "available": true},
		}
	case "unprobed":
		d["requirements"] = []map[string]any{{"kind": "env", "name": "API_KEY"}}
	case "mapped_binary":
		// Declared binaries the module cannot see (it gets no PATH): the
		// host's resolution decides, whatever the probe said (docs/protocol.md §9).
		d["requirements"] = []map[string]any{
			{"kind": "binary", "name": "mapped", "available": false, "detail": "map it under binaries:"},
			{"kind": "binary", "name": "nosuchbinary-modbay-xyz", "available": true},
			{"kind": "config", "name": "profile"},
		}
	case "bad_schema":
		d["request_schemas"].(map[string]any)["t.job.request/v1"] = map[string]any{"type": 12}
	case "publisher":
		d["permissions"].(map[string]any)["publish"] = true
	}
	writeEnvelope(map[string]any{
		"protocol": modproto.ProtocolID, "module": d["module"], "operation": "describe",
		"request_id": "", "ok": true, "result": d, "warnings": []string{},
		"execution": execution(nil),
	})
	return 0
}

func fakeDescriptor(id string) map[string]any {
	local := map[string]any{"local": true, "network": false, "external_writes": false, "provider": "local", "cost_known": true}
	capability := func(cid, title, req string, kinds []string, extra map[string]any) map[string]any {
		c := map[string]any{"id": cid, "title": title, "summary": title + ".", "request_schema": req,
			"result_schema": "", "artifact_schemas": kinds, "effects": local, "skills": []string{}, "long_running": false}
		for k, v := range extra {
			c[k] = v
		}
		return c
	}
	return map[string]any{
		"module": id, "name": "Fake " + id, "version": "1.0.0",
		"protocol_versions": []string{modproto.ProtocolID},
		"capabilities": []map[string]any{
			capability("t.echo", "Echo \x1b[1mbold\x1b[0m", "t.echo.request/v1", []string{}, nil),
			capability("t.art", "Artifacts", "", []string{"t.report"}, nil),
			capability("t.hostile", "Hostile", "", []string{"t.report"}, nil),
			capability("t.net", "Network", "", []string{}, map[string]any{"effects": map[string]any{
				"local": false, "network": true, "external_writes": true, "provider": "openai", "cost_known": false}}),
			capability("t.job", "Job", "t.job.request/v1", []string{"t.report"}, map[string]any{"long_running": true, "poll_capability": "t.status"}),
			capability("t.status", "Status", "t.status.request/v1", []string{}, nil),
		},
		"request_schemas": map[string]any{
			"t.echo.request/v1": map[string]any{
				"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
				"properties": map[string]any{
					"name":  map[string]any{"type": "string", "minLength": 1},
					"count": map[string]any{"type": "integer", "minimum": 1},
				},
				"required": []string{"name"}, "additionalProperties": false,
			},
			"t.job.request/v1": map[string]any{"type": "object", "properties": map[string]any{
				"polls": map[string]any{"type": "integer"}, "lost": map[string]any{"type": "boolean"}}},
			// Whole-request style, as facet's creative.jobs.status.
			"t.status.request/v1": map[string]any{"type": "object", "properties": map[string]any{
				"request_id": map[string]any{"type": "string"}, "job_id": map[string]any{"type": "string", "minLength": 1}},
				"required": []string{"job_id"}},
		},
		"result_schemas":   map[string]any{},
		"artifact_schemas": map[string]any{"t.report": map[string]any{"type": "object"}},
		"agent_overlays": []map[string]any{{"id": "o1", "title": "Overlay", "path": "agents/o1.md",
			"digest": modproto.Digest([]byte(skillContent)), "tokens": 10}},
		"skills": []map[string]any{{"id": "s1", "title": "Skill", "summary": "A skill.", "path": "skills/s1/SKILL.md",
			"digest": modproto.Digest([]byte(skillContent)), "tokens": 10}},
		"permissions": map[string]any{
			"filesystem_read":  []string{"workspace", "bundle", "t_bundle", "corpus", "nothere", "shared"},
			"filesystem_write": []string{"workspace", "out", "jobs", "shared"},
			"network":          []string{"api.example"},
			"credentials":      []string{"API_KEY", "OTHER_KEY"},
			"paid_providers":   []string{"openai"},
			"publish":          false,
			"subprocess":       []string{"sh", "mapped", "nosuchbinary-modbay-xyz"},
		},
		"requirements": []map[string]any{},
	}
}

func execution(arts []map[string]any) map[string]any {
	if arts == nil {
		arts = []map[string]any{}
	}
	return map[string]any{"local": true, "network": false, "external_writes": false, "provider": "local",
		"estimated_cost": 0, "actual_cost": 0, "artifacts": arts}
}

func writeEnvelope(env map[string]any) {
	b, _ := json.Marshal(env)
	os.Stdout.Write(append(b, '\n'))
}

// fakeInvoke answers one invoke; t.hostile and t.art pick their misdeed
// from input.mode.
func fakeInvoke(behaviour, id, capID, reqPath string) int {
	b, err := os.ReadFile(reqPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cannot read request:", err)
		return 2
	}
	var req modproto.Request
	if err := json.Unmarshal(b, &req); err != nil {
		fmt.Fprintln(os.Stderr, "bad request:", err)
		return 2
	}
	var in map[string]any
	_ = json.Unmarshal(req.Input, &in)
	mode, _ := in["mode"].(string)
	ws := req.Roots["workspace"].Path
	ok := func(result any, arts []map[string]any) int {
		writeEnvelope(map[string]any{"protocol": modproto.ProtocolID, "module": id, "operation": "invoke",
			"request_id": req.RequestID, "ok": true, "result": result, "warnings": []string{}, "execution": execution(arts)})
		return 0
	}
	fail := func(code, msg string) int {
		writeEnvelope(map[string]any{"protocol": modproto.ProtocolID, "module": id, "operation": "invoke",
			"request_id": req.RequestID, "ok": false, "error": map[string]any{"code": code, "message": msg, "retryable": false, "details": map[string]any{}},
			"warnings": []string{}, "execution": execution(nil)})
		return 0
	}
	switch capID {
	case "t.echo":
		return ok(map[string]any{"echo": in}, nil)
	case "t.net":
		return ok(map[string]any{"grants": req.Grants}, nil)
	case "t.art":
		return fakeArtifact(mode, ws, req, ok)
	case "t.job":
		jobs := req.Roots["jobs"].Path
		if lost, _ := in["lost"].(bool); lost {
			return ok(map[string]any{"job_id": "job_lost", "state": "queued"}, nil)
		}
		polls, _ := in["polls"].(float64)
		jobID := "job_" + req.RequestID[4:12]
		_ = os.WriteFile(filepath.Join(jobs, jobID), []byte(strconv.Itoa(int(polls))), 0o644)
		return ok(map[string]any{"job": map[string]any{"job_id": jobID, "state": "running", "percent": 0}}, nil)
	case "t.status":
		var jobID string
		_ = json.Unmarshal(req.Extra["job_id"], &jobID)
		jobs := req.Roots["jobs"].Path
		nb, err := os.ReadFile(filepath.Join(jobs, jobID))
		if err != nil || jobID == "" {
			return fail("unknown_job", fmt.Sprintf("job %q is not known", jobID))
		}
		n, _ := strconv.Atoi(string(nb))
		if n > 1 {
			_ = os.WriteFile(filepath.Join(jobs, jobID), []byte(strconv.Itoa(n-1)), 0o644)
			return ok(map[string]any{"job": map[string]any{"job_id": jobID, "state": "running", "percent": 50, "detail": "rendering"}}, nil)
		}
		content := []byte(`{"title":"job report"}`)
		_ = os.WriteFile(filepath.Join(ws, jobID+".json"), content, 0o644)
		return ok(map[string]any{"job": map[string]any{"job_id": jobID, "state": "succeeded", "percent": 100}},
			[]map[string]any{artifactOf("r", "t.report", "workspace", jobID+".json", content)})
	case "t.hostile":
		return fakeHostile(mode, id, ws, reqPath, req, ok, fail)
	}
	return fail("unknown_capability", "no capability "+capID)
}

func artifactOf(id, kind, root, path string, content []byte) map[string]any {
	return map[string]any{"id": id, "kind": kind, "root": root, "path": path, "media_type": "application/json",
		"bytes": len(content), "digest": modproto.Digest(content), "title": "Report " + id}
}

func fakeArtifact(mode, ws string, req modproto.Request, ok func(any, []map[string]any) int) int {
	content := []byte(`{"title":"report","rows":[1,2,3]}`)
	write := func(p string) { _ = os.WriteFile(p, content, 0o644) }
	a := artifactOf("a1", "t.report", "workspace", "report.json", content)
	switch mode {
	case "ok":
		write(filepath.Join(ws, "report.json"))
	case "state":
		write(filepath.Join(req.Roots["out"].Path, "report.json"))
		a["root"] = "out"
	case "kind":
		write(filepath.Join(ws, "report.json"))
		a["kind"] = "t.undeclared"
	case "dotdot":
		write(filepath.Join(ws, "..", "escape.json"))
		a["path"] = "../escape.json"
	case "symlink":
		outside := filepath.Join(ws, "..", "secret.json")
		write(outside)
		_ = os.Symlink(outside, filepath.Join(ws, "link.json"))
		a["path"] = "link.json"
	case "fifo":
		_ = syscall.Mkfifo(filepath.Join(ws, "fifo.json"), 0o644)
		a["path"] = "fifo.json"
	case "digest":
		write(filepath.Join(ws, "report.json"))
		a["digest"] = modproto.Digest([]byte("something else"))
	case "size":
		write(filepath.Join(ws, "report.json"))
		a["bytes"] = len(content) + 1
	case "missing":
		a["path"] = "nothing-here.json"
	case "ro":
		a["root"] = "bundle"
		a["path"] = "behaviour"
	case "noroot":
		a["root"] = "nosuch"
	case "dir":
		_ = os.Mkdir(filepath.Join(ws, "adir"), 0o755)
		a["path"] = "adir"
	default:
		if misdeed, found := hardenModes[mode]; found {
			return misdeed(ws, req, content, a, ok)
		}
	}
	return ok(map[string]any{"report": "done"}, []map[string]any{a})
}

func fakeHostile(mode, id, ws, reqPath string, req modproto.Request, ok func(any, []map[string]any) int, fail func(string, string) int) int {
	pids := []int{os.Getpid()}
	writePids := func() {
		var s []string
		for _, p := range pids {
			s = append(s, strconv.Itoa(p))
		}
		_ = os.WriteFile(filepath.Join(ws, "pids.tmp"), []byte(strings.Join(s, "\n")), 0o644)
		_ = os.Rename(filepath.Join(ws, "pids.tmp"), filepath.Join(ws, "pids"))
	}
	spawn := func(setsid bool) {
		c := exec.Command("/proc/self/exe", sleeperMarker)
		c.Stdout = os.Stdout // holds the stdout pipe
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: setsid}
		if c.Start() == nil {
			pids = append(pids, c.Process.Pid)
		}
	}
	hang := func() int {
		writePids()
		for {
			time.Sleep(time.Hour)
		}
	}
	switch mode {
	case "leave":
		// What an earlier run left is in view: list the cwd, TMPDIR and
		// the run directory, then leave files, a mode and a link behind.
		cwd, _ := os.Getwd()
		tmp := os.Getenv("TMPDIR")
		list := func(d string) []string {
			ents, _ := os.ReadDir(d)
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			return names
		}
		found := map[string]any{"cwd": list(cwd), "tmp": list(tmp), "run": list(filepath.Dir(cwd)), "run_dir": filepath.Dir(cwd)}
		req, _ := os.ReadFile(reqPath)
		found["request_is_this_run"] = strings.Contains(string(req), `"t.hostile"`)
		_ = os.WriteFile(filepath.Join(cwd, "left"), []byte("secret of the last run"), 0o644)
		_ = os.MkdirAll(filepath.Join(tmp, "deep", "er"), 0o755)
		_ = os.WriteFile(filepath.Join(tmp, "deep", "er", "left"), []byte("x"), 0o644)
		_ = os.Chmod(cwd, 0o777)
		return ok(found, nil)
	case "hang":
		spawn(false)
		return hang()
	case "hang_setsid":
		spawn(true)
		return hang()
	case "hang_orphan", "hang_orphan_noenv", "exit_orphan_noenv":
		pidFile := filepath.Join(ws, "orphan.pid")
		envMode := "env"
		if strings.HasSuffix(mode, "_noenv") {
			envMode = "noenv"
		}
		if exec.Command("/proc/self/exe", spawnerMarker, pidFile, envMode).Run() == nil {
			b, _ := os.ReadFile(pidFile)
			if p, err := strconv.Atoi(string(b)); err == nil {
				pids = append(pids, p)
			}
		}
		if mode == "exit_orphan_noenv" {
			writePids()
			return ok(map[string]any{"left": "a double-forked daemon"}, nil)
		}
		return hang()
	case "exit_daemon":
		spawn(true)
		writePids()
		return ok(map[string]any{"left": "a daemon"}, nil)
	case "ignore_term":
		signal.Ignore(syscall.SIGTERM) // only SIGKILL ends it
		spawn(false)
		return hang()
	case "spew":
		chunk := make([]byte, 64<<10)
		for i := range chunk {
			chunk[i] = 'x'
		}
		for i := 0; i < 160; i++ { // 10 MiB
			if _, err := os.Stdout.Write(chunk); err != nil {
				break
			}
		}
		return hang()
	case "trailing":
		ok(map[string]any{}, nil)
		fmt.Println("garbage after the envelope")
		return 0
	case "empty":
		return 0
	case "not_json":
		fmt.Println("{this is not json")
		return 0
	case "wrong_id":
		writeEnvelope(map[string]any{"protocol": modproto.ProtocolID, "module": id, "operation": "invoke",
			"request_id": "req_00000000000000000000000000000000", "ok": true, "result": map[string]any{},
			"warnings": []string{}, "execution": execution(nil)})
		return 0
	case "ok_with_error":
		writeEnvelope(map[string]any{"protocol": modproto.ProtocolID, "module": id, "operation": "invoke",
			"request_id": req.RequestID, "ok": true, "result": map[string]any{},
			"error":    map[string]any{"code": "internal", "message": "both", "details": map[string]any{}},
			"warnings": []string{}, "execution": execution(nil)})
		return 0
	case "wrong_module":
		writeEnvelope(map[string]any{"protocol": modproto.ProtocolID, "module": "someone-else", "operation": "invoke",
			"request_id": req.RequestID, "ok": true, "result": map[string]any{}, "warnings": []string{}, "execution": execution(nil)})
		return 0
	case "ansi":
		return ok(map[string]any{"title": ansiTitle}, []map[string]any{})
	case "ansi_error":
		return fail("internal", ansiTitle)
	case "env":
		cwd, _ := os.Getwd()
		fi, _ := os.Stat(reqPath)
		tmpOK := false
		if st, err := os.Stat(os.Getenv("TMPDIR")); err == nil && st.IsDir() {
			tmpOK = true
		}
		return ok(map[string]any{"env": os.Environ(), "cwd": cwd, "tmpdir_is_dir": tmpOK,
			"request_path": reqPath, "request_mode": fmt.Sprintf("%o", fi.Mode().Perm())}, nil)
	case "exit3":
		ok(map[string]any{}, nil)
		return 3
	case "crash":
		fmt.Fprintln(os.Stderr, "panic: boom")
		return 2
	case "stderr_flood":
		line := strings.Repeat("e", 1023) + "\n"
		for i := 0; i < 100; i++ { // 100 KiB
			os.Stderr.WriteString(line)
		}
		return ok(map[string]any{}, nil)
	case "effects":
		writeEnvelope(map[string]any{"protocol": modproto.ProtocolID, "module": id, "operation": "invoke",
			"request_id": req.RequestID, "ok": true, "result": map[string]any{}, "warnings": []string{},
			"execution": map[string]any{"local": false, "network": true, "external_writes": false, "provider": "openai",
				"estimated_cost": nil, "actual_cost": nil, "artifacts": []any{}}})
		return 0
	}
	return fail("invalid_request", "unknown mode "+mode)
}

// ansiTitle carries a color, an OSC title change and a screen clear.
const ansiTitle = "\x1b[31mred\x1b[0m \x1b]0;pwned\x07 \x1b[2J"
