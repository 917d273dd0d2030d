// Command secrets is a hostile module for cli/secrets_test.go: it echoes
// the secret it is given (the writeOnly "api_key" of its input) into
// every name the host shows, records or makes a file of: artifact ids,
// paths (file names), titles, media type parameters and presentations,
// a job id, its detail, stderr and warnings, an error's code and
// message, the provider, an unknown envelope key, stderr where the host
// cuts it, and every one of its characters JSON-escaped. Its id is "secrets", so its executable must be named so.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

const id = "secrets"

var request = json.RawMessage(`{"type":"object","properties":{"api_key":{"type":"string","writeOnly":true},"q":{"type":"string"}}}`)

func main() {
	if len(os.Args) >= 3 && os.Args[1] == "module" && os.Args[2] == "describe" {
		describe()
		return
	}
	if len(os.Args) < 6 || os.Args[1] != "module" || os.Args[2] != "invoke" {
		os.Exit(2)
	}
	b, err := os.ReadFile(os.Args[5])
	if err != nil {
		os.Exit(2)
	}
	var req struct {
		RequestID string `json:"request_id"`
		Input     struct {
			Key   string `json:"api_key"`
			JobID string `json:"job_id"`
		} `json:"input"`
		Roots map[string]struct {
			Path string `json:"path"`
		} `json:"roots"`
	}
	if err := json.Unmarshal(b, &req); err != nil {
		os.Exit(2)
	}
	ws := req.Roots["workspace"].Path
	key := req.Input.Key
	fmt.Fprintf(os.Stderr, "debug: key %s\n", key)
	switch os.Args[3] {
	case "s.arts":
		arts := []map[string]any{
			file(ws, "a-"+key, "ok.txt", "text/plain", "", ""),           // id: refused
			file(ws, "b", key+".txt", "text/plain", "", ""),              // path (file name): refused
			file(ws, "c", "ok.txt", "text/plain; charset="+key, "", ""),  // media type parameter: refused
			file(ws, "d", "ok.txt", "text/plain", key, ""),               // presentation: refused
			file(ws, "e", "ok.txt", "text/plain", "", "Report for "+key), // title: masked
		}
		reply(req.RequestID, true, map[string]any{"echo": "key=" + key}, []string{"used " + key}, arts, nil)
	case "s.cut":
		// The host keeps stderr's first 48 KiB and last 16 KiB: the key
		// starts 6 bytes before the head's end (after the debug line
		// above), and again 6 bytes before the tail's start (the tail's
		// first line ending past the 4 KiB searched for one).
		pad := 48<<10 - len("debug: key "+key+"\n") - 6
		os.Stderr.WriteString(strings.Repeat("p", pad) + key + strings.Repeat("q", 30<<10) + "\n")
		os.Stderr.WriteString("rrrr" + key + strings.Repeat("s", 16<<10+10-5-len(key)) + "\n")
		reply(req.RequestID, true, map[string]any{}, nil, nil, nil)
	case "s.fail":
		reply(req.RequestID, false, nil, []string{"w " + key}, nil, map[string]any{"code": "c_" + key, "message": "echo " + key,
			"retryable": false, "details": map[string]any{"in": key, key: 1}})
	case "s.every":
		env := map[string]any{"protocol": "xibodev.module/v1", "module": id, "operation": "invoke", "request_id": req.RequestID, "ok": true,
			"warnings": []string{"used " + key}, "result": map[string]any{"r": key, key: []string{key}}, "extra_" + key: key}
		exec := execution([]map[string]any{file(ws, "e", "ok.txt", "text/plain", "", "Report for "+key)})
		exec["provider"] = "prov-" + key
		env["execution"] = exec
		b, _ := json.Marshal(env)
		os.Stdout.Write(append(b, '\n'))
	case "s.escaped":
		// Every character of the key escaped as \uXXXX (upper-case hex
		// every other one), as a JSON encoder other than Go's may send it:
		// in the result's values and keys, a warning, stderr and a title.
		e := uEscape(key)
		fmt.Fprintf(os.Stderr, "escaped: %s\n", e)
		art := file(ws, "e", "ok.txt", "text/plain", "", "t")
		b, _ := json.Marshal(map[string]any{"protocol": "xibodev.module/v1", "module": id, "operation": "invoke", "request_id": req.RequestID,
			"ok": true, "warnings": []string{"w"}, "result": map[string]any{"r": "r", "k": []string{"k"}}, "execution": execution([]map[string]any{art})})
		out := strings.NewReplacer(`"r":"r"`, `"r":"`+e+`"`, `"k":["k"]`, `"`+e+`":["x `+e+` y"]`, `["w"]`, `["used `+e+`"]`, `"title":"t"`, `"title":"T `+e+`"`).Replace(string(b))
		os.Stdout.WriteString(out + "\n")
	case "s.mistyped":
		// The key where the protocol wants a boolean: the host's verdict
		// quotes the value cut short, inside the key.
		b, _ := json.Marshal(map[string]any{"protocol": "xibodev.module/v1", "module": id, "operation": "invoke", "request_id": req.RequestID,
			"ok": key, "warnings": []any{}, "result": map[string]any{}, "execution": execution(nil)})
		os.Stdout.Write(append(b, '\n'))
	case "s.numbers":
		// A key that reads as a number, sent back as numbers: the costs
		// (kept typed by the host), the result's number and stderr spelt
		// in exponent notation.
		f, err := strconv.ParseFloat(key, 64)
		if err != nil {
			os.Exit(3)
		}
		fmt.Fprintf(os.Stderr, "total %s\n", strconv.FormatFloat(f, 'E', -1, 64))
		exec := execution(nil)
		exec["estimated_cost"], exec["actual_cost"] = f, f
		b, _ := json.Marshal(map[string]any{"protocol": "xibodev.module/v1", "module": id, "operation": "invoke", "request_id": req.RequestID,
			"ok": true, "warnings": []string{}, "result": map[string]any{"n": "N"}, "execution": exec})
		os.Stdout.WriteString(strings.Replace(string(b), `"N"`, strconv.FormatFloat(f, 'e', -1, 64), 1) + "\n")
	case "s.numjob", "s.numpoll":
		// A job whose percent is the key (kept in the workspace for the
		// poll, whose input is the job id alone).
		saved := filepath.Join(ws, "numjob.txt")
		state := "running"
		if os.Args[3] == "s.numpoll" {
			b, _ := os.ReadFile(saved)
			key, state = string(b), "succeeded"
		} else if err := os.WriteFile(saved, []byte(key), 0o600); err != nil {
			os.Exit(3)
		}
		f, _ := strconv.ParseFloat(key, 64)
		reply(req.RequestID, true, map[string]any{"job_id": "nj", "state": state, "percent": f}, nil, nil, nil)
	case "s.module":
		// The key as the envelope's module: the host's verdict quotes it
		// as Go does (%q), whose escapes are not JSON's.
		b, _ := json.Marshal(map[string]any{"protocol": "xibodev.module/v1", "module": key, "operation": "invoke", "request_id": req.RequestID,
			"ok": true, "warnings": []any{}, "result": map[string]any{}, "execution": execution(nil)})
		os.Stdout.Write(append(b, '\n'))
	case "s.job":
		jobID := "J" + key
		if err := os.WriteFile(filepath.Join(ws, "job.txt"), []byte(jobID), 0o600); err != nil {
			os.Exit(3)
		}
		reply(req.RequestID, true, map[string]any{"job_id": jobID, "state": "running", "detail": "started " + jobID}, nil, nil, nil)
	case "s.plainjob", "s.plainpoll":
		// A job whose id holds no secret, its polls echoing the key (kept
		// in the workspace; a poll's input is the job id alone).
		saved := filepath.Join(ws, "plainjob.txt")
		if os.Args[3] == "s.plainjob" {
			if err := os.WriteFile(saved, []byte(key), 0o600); err != nil {
				os.Exit(3)
			}
			reply(req.RequestID, true, map[string]any{"job_id": "pj", "state": "running"}, nil, nil, nil)
			return
		}
		b, _ := os.ReadFile(saved)
		fmt.Fprintf(os.Stderr, "polled with %s\n", b)
		reply(req.RequestID, true, map[string]any{"job_id": "pj", "state": "succeeded", "detail": "done with " + string(b), "echo": string(b)}, nil, nil, nil)
	case "s.poll":
		want, _ := os.ReadFile(filepath.Join(ws, "job.txt"))
		if req.Input.JobID != string(want) {
			reply(req.RequestID, false, nil, nil, nil, map[string]any{"code": "unknown_job", "message": "no such job", "retryable": false, "details": map[string]any{}})
			return
		}
		state := "succeeded"
		if _, err := os.Stat(filepath.Join(ws, "hold")); err == nil {
			state = "running"
		}
		fmt.Fprintf(os.Stderr, "polled %s\n", req.Input.JobID)
		reply(req.RequestID, true, map[string]any{"job_id": req.Input.JobID, "state": state, "percent": 50, "detail": "at " + req.Input.JobID}, nil, nil, nil)
	default:
		os.Exit(2)
	}
}

// uEscape spells every character of s as a JSON \uXXXX escape, the hex
// digits upper-case for every other character.
func uEscape(s string) string {
	var b strings.Builder
	for i, r := range s {
		f := "\\u%04x"
		if i%2 == 1 {
			f = "\\u%04X"
		}
		fmt.Fprintf(&b, f, r)
	}
	return b.String()
}

// file writes name in the workspace (its text the same for every name)
// and returns the artifact that reports it.
func file(ws, artID, name, media, presentation, title string) map[string]any {
	data := []byte("the report\n")
	if err := os.WriteFile(filepath.Join(ws, name), data, 0o600); err != nil {
		os.Exit(3)
	}
	sum := sha256.Sum256(data)
	a := map[string]any{"id": artID, "kind": "s.file", "root": "workspace", "path": name, "media_type": media,
		"bytes": len(data), "digest": "sha256:" + hex.EncodeToString(sum[:])}
	if presentation != "" {
		a["presentation"] = presentation
	}
	if title != "" {
		a["title"] = title
	}
	return a
}

func reply(rid string, ok bool, result any, warnings []string, arts []map[string]any, fail map[string]any) {
	if warnings == nil {
		warnings = []string{}
	}
	if arts == nil {
		arts = []map[string]any{}
	}
	env := map[string]any{"protocol": "xibodev.module/v1", "module": id, "operation": "invoke", "request_id": rid, "ok": ok,
		"warnings": warnings, "execution": execution(arts)}
	if ok {
		env["result"] = result
	} else {
		env["error"] = fail
	}
	b, _ := json.Marshal(env)
	os.Stdout.Write(append(b, '\n'))
}

func execution(arts []map[string]any) map[string]any {
	return map[string]any{"local": true, "network": false, "external_writes": false, "provider": "local",
		"estimated_cost": 0, "actual_cost": 0, "artifacts": arts}
}

func describe() {
	effects := map[string]any{"local": true, "network": false, "external_writes": false, "provider": "local", "cost_known": true}
	capability := func(capID, summary string, extra map[string]any) map[string]any {
		c := map[string]any{"id": capID, "title": strings.TrimPrefix(capID, "s."), "summary": summary, "effects": effects,
			"request_schema": "s.request/v1", "artifact_schemas": []string{"s.file"}}
		for k, v := range extra {
			c[k] = v
		}
		return c
	}
	d := map[string]any{
		"module": id, "name": "Secrets", "version": "1.0.0", "protocol_versions": []string{"xibodev.module/v1"},
		"capabilities": []any{
			capability("s.arts", "Echoes the key into its artifacts.", nil),
			capability("s.cut", "Writes the key across the stderr cut.", nil),
			capability("s.fail", "Fails with the key in its code.", nil),
			capability("s.every", "Echoes the key into every string of its envelope.", nil),
			capability("s.escaped", "Echoes the key with every character escaped.", nil),
			capability("s.mistyped", "Sends the key as its ok field.", nil),
			capability("s.job", "Starts a job named after the key.", map[string]any{"long_running": true, "poll_capability": "s.poll"}),
			capability("s.poll", "Polls the job.", map[string]any{"request_schema": "s.poll/v1"}),
			capability("s.numbers", "Sends a numeric key back as its costs and in exponent notation.", nil),
			capability("s.plainjob", "Starts a job whose polls echo the key.", map[string]any{"long_running": true, "poll_capability": "s.plainpoll"}),
			capability("s.plainpoll", "Polls it, echoing the key.", nil),
			capability("s.numjob", "Starts a job whose percent is the key.", map[string]any{"long_running": true, "poll_capability": "s.numpoll"}),
			capability("s.numpoll", "Polls the job, its percent the key.", nil),
			capability("s.module", "Sends the key as its module.", nil),
		},
		"request_schemas":  map[string]any{"s.request/v1": request, "s.poll/v1": json.RawMessage(`{"type":"object","properties":{"job_id":{"type":"string"}},"required":["job_id"]}`)},
		"artifact_schemas": map[string]any{"s.file": map[string]any{"type": "object"}},
		"permissions":      map[string]any{"filesystem_read": []string{"workspace"}, "filesystem_write": []string{"workspace"}, "network": []string{}, "subprocess": []string{}},
	}
	b, _ := json.Marshal(map[string]any{"protocol": "xibodev.module/v1", "module": id, "operation": "describe", "request_id": "", "ok": true,
		"result": d, "warnings": []string{}, "execution": execution(nil)})
	os.Stdout.Write(append(b, '\n'))
}
