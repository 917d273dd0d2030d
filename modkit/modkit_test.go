package modkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// invoke runs m for capability capID with input, an output root in a
// temporary directory, and returns the decoded envelope and the root.
func invoke(t *testing.T, m Module, capID, input string) (map[string]any, string) {
	t.Helper()
	out := t.TempDir()
	req := `{"protocol":"xibodev.module/v1","capability":"` + capID + `","request_id":"req_1","input":` + input +
		`,"roots":{"output":{"path":"` + out + `","mode":"rw"}}}`
	f := filepath.Join(t.TempDir(), "request.json")
	if err := os.WriteFile(f, []byte(req), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := m.Run([]string{"module", "invoke", capID, "--input", f}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var env map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &env); err != nil {
		t.Fatalf("not one envelope: %v\n%s", err, stdout.String())
	}
	return env, out
}

// TestModuleWritesTheProtocol: describe, an ok call with an artifact
// whose digest is of the bytes written, an *Error sent as is, another
// error sent as internal, an unknown capability, and usage.
func TestModuleWritesTheProtocol(t *testing.T) {
	m := Module{ID: "k", Descriptor: json.RawMessage(`{"module":"k"}`), Capabilities: map[string]Handler{
		"k.write": func(r *Request) (*Result, error) {
			var in struct{ Text string }
			if err := r.Decode(&in); err != nil {
				return nil, err
			}
			a, err := r.WriteArtifact("output", "sub/"+r.RequestID+".txt", "t", "k.text/v1", "text/plain", []byte(in.Text))
			return &Result{Value: map[string]any{"n": len(in.Text)}, Artifacts: []Artifact{a}}, err
		},
		"k.fail": func(*Request) (*Result, error) { return nil, errors.New("disk on fire") },
		"k.climb": func(r *Request) (*Result, error) {
			_, err := r.WriteArtifact("output", "../x", "x", "k", "text/plain", nil)
			return nil, err
		},
	}}
	var stdout bytes.Buffer
	m.Run([]string{"module", "describe", "--json"}, &stdout, &bytes.Buffer{})
	if !strings.Contains(stdout.String(), `"operation":"describe"`) || !strings.Contains(stdout.String(), `"result":{"module":"k"}`) {
		t.Errorf("describe: %s", stdout.String())
	}
	env, out := invoke(t, m, "k.write", `{"Text":"hi"}`)
	b, err := os.ReadFile(filepath.Join(out, "sub", "req_1.txt"))
	arts := env["execution"].(map[string]any)["artifacts"].([]any)
	if err != nil || env["ok"] != true || env["request_id"] != "req_1" || len(arts) != 1 || arts[0].(map[string]any)["digest"] != Digest(b) {
		t.Errorf("write: %v %v", err, env)
	}
	if env, _ := invoke(t, m, "k.write", `{"Nope":1}`); env["ok"] != false || env["error"].(map[string]any)["code"] != "invalid_request" {
		t.Errorf("bad input: %v", env)
	}
	if env, _ := invoke(t, m, "k.fail", `{}`); env["error"].(map[string]any)["code"] != "internal" {
		t.Errorf("fail: %v", env)
	}
	if env, _ := invoke(t, m, "k.climb", `{}`); env["error"].(map[string]any)["code"] != "internal" {
		t.Errorf("climb: %v", env)
	}
	if env, _ := invoke(t, m, "k.none", `{}`); env["error"].(map[string]any)["code"] != "unknown_capability" {
		t.Errorf("unknown: %v", env)
	}
	if code := m.Run([]string{"hello"}, &bytes.Buffer{}, &bytes.Buffer{}); code != 2 {
		t.Errorf("usage: exit %d", code)
	}
}

// TestNewJobRefusesUnknownStates: only the documented states make a job.
func TestNewJobRefusesUnknownStates(t *testing.T) {
	if j := NewJob("j", JobRunning, 10, "x"); j.State != "running" || *j.Percent != 10 {
		t.Errorf("%+v", j)
	}
	defer func() {
		if recover() == nil {
			t.Error(`NewJob accepted "done"`)
		}
	}()
	NewJob("j", "done", -1, "")
}

// TestSourceIsTheFile: Source is modkit.go as it is.
func TestSourceIsTheFile(t *testing.T) {
	b, err := os.ReadFile("modkit.go")
	if err != nil || string(b) != Source {
		t.Fatal("Source is not modkit.go")
	}
}
