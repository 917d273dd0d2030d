package cli

// This file holds "reader", a purpose-built consumer module for the
// handoff tests: it declares the read root "inbox",
// reads the file its input names there, tries to change it, and reports
// what it saw and what was refused. The test binary stands in for it
// through a launcher, as it does for the examples.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"modbay/contain"
	"modbay/modproto"
)

// readerMarker is the test binary's first argument when it runs as the
// reader module.
const readerMarker = "__modbay_reader"

// readerReport is reader.read's result.
type readerReport struct {
	File    string   `json:"file"`
	Bytes   int      `json:"bytes"`
	Digest  string   `json:"digest"`
	Entries []string `json:"entries"`
	// Write, Create, Remove and Chmod say what happened to an attempt to
	// append to the file, create a file beside it, remove it and make it
	// writable: "refused: <error>" or "done".
	Write  string `json:"write"`
	Create string `json:"create"`
	Remove string `json:"remove"`
}

// readerDescriptor declares reader: one capability, one read root.
func readerDescriptor() map[string]any {
	return map[string]any{
		"module": "reader", "name": "Handoff reader", "version": "1.0.0",
		"protocol_versions": []string{modproto.ProtocolID},
		"capabilities": []map[string]any{{
			"id": "reader.read", "title": "Read a handed file", "summary": "Read the file the input names in the inbox root.",
			"request_schema": "reader.read.request/v1", "result_schema": "", "artifact_schemas": []string{},
			"effects": map[string]any{"local": true, "network": false, "external_writes": false, "provider": "local", "cost_known": true},
			"skills":  []string{}, "long_running": false,
		}},
		"request_schemas": map[string]any{"reader.read.request/v1": map[string]any{
			"type": "object", "required": []string{"file"},
			"properties": map[string]any{"file": map[string]any{"type": "string", "minLength": 1, "description": "Path of the file, relative to the inbox root."}},
		}},
		"result_schemas": map[string]any{}, "artifact_schemas": map[string]any{},
		"permissions": map[string]any{"filesystem_read": []string{"inbox"}, "filesystem_write": []string{},
			"network": []string{}, "credentials": []string{}, "paid_providers": []string{}, "publish": false, "subprocess": []string{}},
		"requirements": []map[string]any{},
	}
}

// readerMain is the reader module: `module describe --json` or
// `module invoke reader.read --input FILE`.
func readerMain(args []string) int {
	out := func(v any) int {
		b, _ := json.Marshal(v)
		os.Stdout.Write(append(b, '\n'))
		return 0
	}
	envelope := func(reqID string, ok bool, result any, code, msg string) map[string]any {
		e := map[string]any{"protocol": modproto.ProtocolID, "module": "reader", "operation": "invoke", "request_id": reqID,
			"ok": ok, "warnings": []string{}, "execution": map[string]any{"local": true, "network": false, "external_writes": false,
				"provider": "local", "estimated_cost": 0, "actual_cost": 0, "artifacts": []any{}}}
		if ok {
			e["result"] = result
		} else {
			e["error"] = map[string]any{"code": code, "message": msg, "retryable": false, "details": map[string]any{}}
		}
		return e
	}
	if len(args) >= 2 && args[1] == "describe" {
		d := readerDescriptor()
		d["protocol"], d["operation"], d["ok"] = modproto.ProtocolID, "describe", true
		return out(map[string]any{"protocol": modproto.ProtocolID, "module": "reader", "operation": "describe", "ok": true,
			"result": readerDescriptor(), "warnings": []string{}, "execution": map[string]any{"local": true, "network": false,
				"external_writes": false, "provider": "local", "estimated_cost": 0, "actual_cost": 0, "artifacts": []any{}}})
	}
	if len(args) < 5 || args[1] != "invoke" {
		fmt.Fprintln(os.Stderr, "usage: module invoke reader.read --input FILE")
		return 2
	}
	b, err := os.ReadFile(args[4])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var req modproto.Request
	if err := json.Unmarshal(b, &req); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var in struct {
		File string `json:"file"`
	}
	_ = json.Unmarshal(req.Input, &in)
	root, ok := req.Roots["inbox"]
	if !ok {
		return out(envelope(req.RequestID, false, nil, "missing_root", "the inbox root was not supplied"))
	}
	rel := filepath.Clean(in.File)
	if filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
		return out(envelope(req.RequestID, false, nil, "path_outside_root", in.File+" is not inside the inbox root"))
	}
	p := filepath.Join(root.Path, rel)
	data, err := os.ReadFile(p)
	if err != nil {
		return out(envelope(req.RequestID, false, nil, "invalid_request", err.Error()))
	}
	sum := sha256.Sum256(data)
	rep := readerReport{File: rel, Bytes: len(data), Digest: "sha256:" + hex.EncodeToString(sum[:])}
	entries, _ := os.ReadDir(root.Path)
	for _, e := range entries {
		rep.Entries = append(rep.Entries, e.Name())
	}
	outcome := func(err error) string {
		if err != nil {
			return "refused: " + err.Error()
		}
		return "done"
	}
	// Make it writable first (metadata is not what Landlock confines),
	// then try to change it every way there is.
	_ = os.Chmod(p, 0o644)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err == nil {
		_, err = f.WriteString("changed by the consumer\n")
		f.Close()
	}
	rep.Write = outcome(err)
	rep.Create = outcome(os.WriteFile(filepath.Join(root.Path, "planted"), []byte("x"), 0o644))
	rep.Remove = outcome(os.Remove(p))
	return out(envelope(req.RequestID, true, rep, "", ""))
}

// installReader writes the reader module's launcher into home.
func installReader(t *testing.T, home string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(home, "modules", "reader")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nexec '" + exe + "' " + readerMarker + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "reader"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// needContainment skips (fails under CI=true) where Landlock cannot make
// a root read-only: the tests run as root here, whom file modes do not stop.
func needContainment(t *testing.T) {
	t.Helper()
	sup := contain.Probe()
	if !sup.PIDNS || sup.LandlockABI < 6 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI floor not met: %v", sup.Lines())
		}
		t.Skipf("containment mechanisms missing: %s", strings.Join(sup.Lines(), "; "))
	}
}

// TestHandoffNotesReportToReader: the notes example writes its report;
// `invoke reader … --artifact inbox=RUN:report` hands it over; the reader
// sees that one file, byte for byte, in its inbox root, and can neither
// change it, remove it nor put anything beside it. The store's copy is
// untouched and the handoff directory is gone after the run.
func TestHandoffNotesReportToReader(t *testing.T) {
	needContainment(t)
	home := demo(t)
	installReader(t, home)
	code, out, stderr := run(t, "--home", home, "invoke", "notes", "notes.report", "--json")
	if code != ExitOK {
		t.Fatalf("notes.report: exit %d\n%s\n%s", code, out, stderr)
	}
	var produced resultOut
	if err := json.Unmarshal([]byte(out), &produced); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(produced.Artifacts, func(a artifactOut) bool { return a.Kind == "notes.report/v1" })
	if i < 0 {
		t.Fatalf("no report among %+v", produced.Artifacts)
	}
	report := produced.Artifacts[i]
	name := filepath.Base(report.Path)

	ref := "inbox=" + produced.RequestID + ":" + report.ID
	code, out, stderr = run(t, "--home", home, "invoke", "reader", "reader.read", "--artifact", ref,
		"--input", `{"file":"`+name+`"}`, "--json")
	if code != ExitOK {
		t.Fatalf("reader.read: exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "to root inbox as "+name+" (") {
		t.Fatalf("invoke must say where it put the file: %q", stderr)
	}
	var consumed resultOut
	if err := json.Unmarshal([]byte(out), &consumed); err != nil {
		t.Fatal(err)
	}
	var rep readerReport
	if err := json.Unmarshal(consumed.Envelope.Result, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Digest != report.Digest || rep.Bytes != int(report.Size) {
		t.Fatalf("the reader got %d bytes %s, the report is %d bytes %s", rep.Bytes, rep.Digest, report.Size, report.Digest)
	}
	t.Logf("reader saw: %+v", rep)
	if !slices.Equal(rep.Entries, []string{name}) {
		t.Fatalf("the inbox must hold only the handed file, it holds %v", rep.Entries)
	}
	for what, got := range map[string]string{"write": rep.Write, "create": rep.Create, "remove": rep.Remove} {
		if !strings.HasPrefix(got, "refused") {
			t.Errorf("the consumer's %s of the handed file was not refused: %s", what, got)
		}
	}
	b, err := os.ReadFile(report.Staged)
	if err != nil || modproto.Digest(b) != report.Digest {
		t.Fatalf("the store's copy changed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, "handoff", consumed.RequestID)); !os.IsNotExist(err) {
		t.Fatalf("the handoff directory outlived the run: %v", err)
	}
	code, out, _ = run(t, "--home", home, "history", "show", consumed.RequestID, "--json")
	if code != ExitOK || !strings.Contains(out, `"origin": "`+produced.RequestID+":"+report.ID+`"`) {
		t.Fatalf("the record must say what was handed (exit %d):\n%s", code, out)
	}
	// A re-run hands the same artifact again, through a fresh directory.
	code, out, stderr = run(t, "--home", home, "rerun", consumed.RequestID, "--json")
	if code != ExitOK || !strings.Contains(stderr, "to root inbox as "+name) {
		t.Fatalf("rerun of a handoff: exit %d\n%s\n%s", code, out, stderr)
	}
	var again resultOut
	if err := json.Unmarshal([]byte(out), &again); err != nil || again.RequestID == consumed.RequestID {
		t.Fatalf("rerun: %v %s", err, out)
	}
	if err := json.Unmarshal(again.Envelope.Result, &rep); err != nil || rep.Digest != report.Digest {
		t.Fatalf("the re-run got %+v", rep)
	}
}

// TestHandoffRefusedArtifactRefs: a bad --artifact is a usage error and
// nothing runs.
func TestHandoffRefusedArtifactRefs(t *testing.T) {
	home := demo(t)
	installReader(t, home)
	for _, ref := range []string{"inbox", "inbox=run", "=r:a", "inbox=nosuchrun:report"} {
		code, _, stderr := run(t, "--home", home, "invoke", "reader", "reader.read", "--artifact", ref, "--input", `{"file":"x"}`)
		if code != ExitUsage {
			t.Errorf("--artifact %s: exit %d (%s)", ref, code, stderr)
		}
	}
}
