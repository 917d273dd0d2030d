// Package modkit writes the protocol side of a modbay module
// (xibodev.module/v1, docs/protocol.md in the modbay repository) so a
// module's code is its capabilities: the argv, the request file, the one
// envelope on stdout, artifacts written beneath a root with their digests,
// and long-running job handles. Standard library only: `modbay new --lang
// go` copies this file beside a module as a package of its own.
package modkit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Protocol is the protocol id every envelope names.
const Protocol = "xibodev.module/v1"

// maxRequestBytes bounds the request file read (the host bounds it too).
const maxRequestBytes = 64 << 20

// Root is a directory the host supplies: an absolute path and "ro" or "rw".
type Root struct {
	Path string `json:"path"`
	Mode string `json:"mode"`
}

// Request is the request file (docs/protocol.md §4).
type Request struct {
	Protocol   string          `json:"protocol"`
	Capability string          `json:"capability"`
	RequestID  string          `json:"request_id"`
	Input      json.RawMessage `json:"input"`
	Roots      map[string]Root `json:"roots"`
	DeadlineMS int             `json:"deadline_ms"`
}

// Decode decodes the input into v, refusing unknown fields: an
// invalid_request *Error on failure.
func (r *Request) Decode(v any) error {
	dec := json.NewDecoder(strings.NewReader(string(r.Input)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return Errorf("invalid_request", "", "input: %v", err)
	}
	return nil
}

// Root returns the root name, which must be supplied and, when write is
// set, writable: a missing_requirement *Error otherwise.
func (r *Request) Root(name string, write bool) (Root, error) {
	rt, ok := r.Roots[name]
	if !ok || rt.Path == "" {
		return Root{}, Errorf("missing_requirement", "", "the host supplied no %s root: declare it in permissions", name)
	}
	if write && rt.Mode != "rw" {
		return Root{}, Errorf("missing_requirement", "", "the %s root is not writable: declare it in permissions.filesystem_write", name)
	}
	return rt, nil
}

// Error is an error envelope's error (docs/protocol.md §5): route on Code.
type Error struct {
	Code      string         `json:"code"`
	Message   string         `json:"message"`
	Retryable bool           `json:"retryable"`
	Details   map[string]any `json:"details"`
}

// Error implements error.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf makes an *Error with code; field, when not empty, goes into
// details as {"field": field}.
func Errorf(code, field, format string, a ...any) *Error {
	d := map[string]any{}
	if field != "" {
		d["field"] = field
	}
	return &Error{Code: code, Message: fmt.Sprintf(format, a...), Details: d}
}

// Artifact is one file a capability reports (docs/protocol.md §8).
type Artifact struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`
	Root      string `json:"root"`
	Path      string `json:"path"`
	MediaType string `json:"media_type"`
	Digest    string `json:"digest"`
	Bytes     int64  `json:"bytes"`
	Title     string `json:"title,omitempty"`
}

// WriteArtifact writes data beneath root name's path at rel (a relative,
// slash-separated path; its folders made) and returns the artifact with
// its digest. rel may not be absolute or climb out with "..".
func (r *Request) WriteArtifact(root, rel, id, kind, mediaType string, data []byte) (Artifact, error) {
	rt, err := r.Root(root, true)
	if err != nil {
		return Artifact{}, err
	}
	clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel)))
	if rel == "" || filepath.IsAbs(rel) || clean == ".." || strings.HasPrefix(clean, "../") {
		return Artifact{}, Errorf("internal", "", "artifact path %q is not beneath the %s root", rel, root)
	}
	full := filepath.Join(rt.Path, filepath.FromSlash(clean))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return Artifact{}, err
	}
	if err := os.WriteFile(full, data, 0o644); err != nil {
		return Artifact{}, err
	}
	return Artifact{ID: id, Kind: kind, Root: root, Path: clean, MediaType: mediaType, Digest: Digest(data), Bytes: int64(len(data))}, nil
}

// Digest is "sha256:<hex>" of data, as artifacts carry it.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// The job states (docs/protocol.md §12): JobQueued and JobRunning while a
// job works, the others when it ends. Any other state is refused.
const (
	JobQueued    = "queued"
	JobRunning   = "running"
	JobSucceeded = "succeeded"
	JobFailed    = "failed"
	JobCancelled = "cancelled"
)

// Job is a job handle or status, a long-running capability's result.
type Job struct {
	ID      string   `json:"job_id"`
	State   string   `json:"state"`
	Percent *float64 `json:"percent,omitempty"`
	Detail  string   `json:"detail,omitempty"`
}

// NewJob is a job status; percent below 0 leaves it out. A state that is
// not one of the Job* constants panics: it is a bug of the module.
func NewJob(id, state string, percent float64, detail string) Job {
	switch state {
	case JobQueued, JobRunning, JobSucceeded, JobFailed, JobCancelled:
	default:
		panic(fmt.Sprintf("modkit: %q is not a job state", state))
	}
	j := Job{ID: id, State: state, Detail: detail}
	if percent >= 0 {
		j.Percent = &percent
	}
	return j
}

// JobID reads the {"job_id": "..."} input of a poll or cancel capability.
func (r *Request) JobID() (string, error) {
	var in struct {
		JobID string `json:"job_id"`
	}
	if err := r.Decode(&in); err != nil || in.JobID == "" {
		return "", Errorf("invalid_request", "job_id", "job_id: a non-empty string is required")
	}
	return in.JobID, nil
}

// Execution is what a call reports it did (docs/protocol.md §7); the zero
// value is a local call of provider "local" that cost nothing.
type Execution struct {
	Network        bool
	ExternalWrites bool
	Provider       string
	Cost           float64
}

// Result is what a capability returns: the result value, its artifacts,
// warnings for the person, and what it did.
type Result struct {
	Value     any
	Artifacts []Artifact
	Warnings  []string
	Execution Execution
}

// Handler runs one capability. An *Error it returns is sent as is; any
// other error is sent as internal (its text on stderr too).
type Handler func(*Request) (*Result, error)

// Module is a module: its id, its descriptor (describe's result) and a
// handler per capability id.
type Module struct {
	ID           string
	Descriptor   json.RawMessage
	Capabilities map[string]Handler
}

// Main runs m for os.Args and exits: `module describe --json` prints the
// descriptor's envelope; `module invoke CAPABILITY --input FILE` reads the
// request, runs the handler and prints its envelope; anything else is
// usage on stderr, exit 2.
func Main(m Module) {
	os.Exit(m.Run(os.Args[1:], os.Stdout, os.Stderr))
}

// Run is Main for args, writing to stdout and stderr; it returns the exit
// status.
func (m Module) Run(args []string, stdout, stderr io.Writer) int {
	if len(args) >= 2 && args[0] == "module" && args[1] == "describe" {
		m.write(stdout, "describe", "", &Result{Value: m.Descriptor}, nil)
		return 0
	}
	if len(args) != 5 || args[0] != "module" || args[1] != "invoke" || args[3] != "--input" {
		fmt.Fprintf(stderr, "usage: %s module describe --json | module invoke CAPABILITY --input FILE\n", m.ID)
		return 2
	}
	var req Request
	b, err := readBounded(args[4])
	if err == nil {
		err = json.Unmarshal(b, &req)
	}
	if err != nil {
		m.write(stdout, "invoke", req.RequestID, nil, Errorf("internal", "", "reading the request: %v", err))
		return 0
	}
	h, ok := m.Capabilities[args[2]]
	if !ok {
		m.write(stdout, "invoke", req.RequestID, nil, Errorf("unknown_capability", "", "no capability %s", args[2]))
		return 0
	}
	res, err := h(&req)
	var e *Error
	switch {
	case err == nil && res == nil:
		res = &Result{Value: map[string]any{}}
	case errors.As(err, &e):
	case err != nil:
		fmt.Fprintf(stderr, "%s %s: %v\n", m.ID, args[2], err)
		e = Errorf("internal", "", "%v", err)
	}
	m.write(stdout, "invoke", req.RequestID, res, e)
	return 0
}

// write prints the one envelope; ok exactly when e is nil.
func (m Module) write(w io.Writer, operation, requestID string, res *Result, e *Error) {
	if res == nil {
		res = &Result{}
	}
	arts := res.Artifacts
	if arts == nil {
		arts = []Artifact{}
	}
	warnings := res.Warnings
	if warnings == nil {
		warnings = []string{}
	}
	x := res.Execution
	if x.Provider == "" {
		x.Provider = "local"
	}
	env := map[string]any{
		"protocol": Protocol, "module": m.ID, "operation": operation, "request_id": requestID,
		"ok": e == nil, "warnings": warnings,
		"execution": map[string]any{"local": !x.Network, "network": x.Network, "external_writes": x.ExternalWrites,
			"provider": x.Provider, "estimated_cost": x.Cost, "actual_cost": x.Cost, "artifacts": arts},
	}
	if e == nil {
		env["result"] = res.Value
		if env["result"] == nil {
			env["result"] = map[string]any{}
		}
	} else {
		if e.Details == nil {
			e.Details = map[string]any{}
		}
		env["error"] = e
	}
	_ = json.NewEncoder(w).Encode(env)
}

// readBounded reads path, at most maxRequestBytes.
func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRequestBytes+1))
	if err == nil && len(b) > maxRequestBytes {
		err = fmt.Errorf("the request file is larger than %d bytes", maxRequestBytes)
	}
	return b, err
}
