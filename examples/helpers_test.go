package examples

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"modbay/modproto"
)

// TestMain lets the test binary stand in for modbay: run as
// `<test binary> example-module <id> ...` (as the launchers written by
// InstallDemoHome do), it is an example module. Otherwise it runs the
// tests, with progress pauses off so they stay fast.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == ExampleModuleCommand && filepath.Base(os.Args[2]) == envProbeID {
		// Not an example: reports the environment a launcher gave it.
		b, _ := json.Marshal(os.Environ())
		os.Stdout.Write(b)
		os.Exit(0)
	}
	if len(os.Args) > 1 && os.Args[1] == ExampleModuleCommand {
		os.Exit(Main(os.Args[2:], os.Stdout, os.Stderr))
	}
	progressBudget = 0
	os.Exit(m.Run())
}

// envProbeID is the id TestMain answers with its environment as a JSON
// list of KEY=value (TestLauncherEnvironmentExact).
const envProbeID = "env-probe"

// mainResult is what one call of Main produced.
type mainResult struct {
	env    *modproto.Envelope
	stdout string
	stderr string
	code   int
}

// runMain calls Main with args and decodes stdout as exactly one envelope
// (docs/protocol.md §5 outcomes 5–6).
func runMain(t *testing.T, args ...string) mainResult {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	env, err := modproto.DecodeEnvelope(out.Bytes())
	if err != nil {
		t.Fatalf("Main(%q): stdout is not one envelope: %v\n%s", args, err, out.String())
	}
	if !strings.HasSuffix(out.String(), "}\n") || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("Main(%q): stdout should be one JSON line, got %q", args, out.String())
	}
	if (code == ExitOK) != env.OK {
		t.Errorf("Main(%q): exit %d but ok %v", args, code, env.OK)
	}
	return mainResult{env: env, stdout: out.String(), stderr: errb.String(), code: code}
}

// describe runs `<id> module describe --json`, checks the envelope and the
// descriptor, and returns the descriptor.
func describe(t *testing.T, id string) *modproto.Descriptor {
	t.Helper()
	r := runMain(t, id, "module", "describe", "--json")
	if errs := modproto.ValidateEnvelope(r.env, modproto.OperationDescribe, "", id); len(errs) > 0 {
		t.Fatalf("describe %s: envelope violations:\n%v", id, errs)
	}
	if !r.env.OK {
		t.Fatalf("describe %s failed: %+v", id, r.env.Error)
	}
	d, err := modproto.DecodeDescriptor(r.env.Result)
	if err != nil {
		t.Fatalf("describe %s: %v", id, err)
	}
	return d
}

// fixture is a request under construction with real roots in a temp dir.
type fixture struct {
	t   *testing.T
	id  string
	dir string
	req modproto.Request
}

// newFixture prepares a request for capability capID of example id with a
// fresh workspace root (rw).
func newFixture(t *testing.T, id, capID string, input any) *fixture {
	t.Helper()
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspace")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, id: id, dir: dir, req: modproto.Request{
		Protocol: modproto.ProtocolID, Capability: capID, RequestID: modproto.NewRequestID(),
		Roots: map[string]modproto.Root{"workspace": {Path: ws, Mode: modproto.RootReadWrite}},
	}}
	f.setInput(input)
	return f
}

// setInput replaces the request's input.
func (f *fixture) setInput(input any) {
	f.t.Helper()
	b, err := json.Marshal(input)
	if err != nil {
		f.t.Fatal(err)
	}
	f.req.Input = b
}

// workspace is the fixture's workspace root path.
func (f *fixture) workspace() string { return f.req.Roots["workspace"].Path }

// addRoot supplies a rw root name at <dir>/state/<name>, created.
func (f *fixture) addRoot(name string) string {
	f.t.Helper()
	p := filepath.Join(f.dir, "state", name)
	if err := os.MkdirAll(p, 0o755); err != nil {
		f.t.Fatal(err)
	}
	f.req.Roots[name] = modproto.Root{Path: p, Mode: modproto.RootReadWrite}
	return p
}

// write creates a workspace file.
func (f *fixture) write(rel, content string) {
	f.t.Helper()
	p := filepath.Join(f.workspace(), filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// invoke writes the request file (mode 0600, as the host does) and runs
// Main. It checks what the host checks: the envelope rules (docs/protocol.md §6),
// the declared-effects hard failures (§7) and every artifact against the
// files on disk (§8).
func (f *fixture) invoke() mainResult {
	f.t.Helper()
	return f.invokeCap(f.req.Capability)
}

// invokeCap is invoke with argv naming capID (which may differ from the
// request file's capability).
func (f *fixture) invokeCap(capID string) mainResult {
	f.t.Helper()
	b, err := json.Marshal(f.req)
	if err != nil {
		f.t.Fatal(err)
	}
	reqPath := filepath.Join(f.dir, "request.json")
	if err := os.WriteFile(reqPath, b, 0o600); err != nil {
		f.t.Fatal(err)
	}
	r := runMain(f.t, f.id, "module", "invoke", capID, "--input", reqPath)
	if errs := modproto.ValidateEnvelope(r.env, modproto.OperationInvoke, f.req.RequestID, f.id); len(errs) > 0 {
		f.t.Fatalf("invoke %s: envelope violations:\n%v\n%s", capID, errs, r.stdout)
	}
	d := describe(f.t, f.id)
	if d.Capability(capID) != nil {
		if v, _ := modproto.CheckExecutionAgainstDeclared(d, capID, &r.env.Execution); len(v) > 0 {
			f.t.Fatalf("invoke %s: declared-effects violations:\n%v", capID, v)
		}
	}
	for _, a := range r.env.Execution.Artifacts {
		f.checkArtifact(a)
	}
	return r
}

// checkArtifact verifies one artifact as the host does (docs/protocol.md §8): its
// root was supplied rw, its path stays inside it (after symlinks), the
// file is regular, and bytes and digest match.
func (f *fixture) checkArtifact(a modproto.Artifact) {
	f.t.Helper()
	root, ok := f.req.Roots[a.Root]
	if !ok || root.Mode != modproto.RootReadWrite {
		f.t.Fatalf("artifact %s: root %q not supplied rw", a.ID, a.Root)
	}
	p := filepath.Join(root.Path, filepath.FromSlash(a.Path))
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		f.t.Fatalf("artifact %s: %v", a.ID, err)
	}
	realRoot, _ := filepath.EvalSymlinks(root.Path)
	if !within(realRoot, real) {
		f.t.Fatalf("artifact %s: %s escapes root %s", a.ID, real, realRoot)
	}
	st, err := os.Lstat(real)
	if err != nil || !st.Mode().IsRegular() {
		f.t.Fatalf("artifact %s: not a regular file: %v", a.ID, err)
	}
	b, err := os.ReadFile(real)
	if err != nil {
		f.t.Fatal(err)
	}
	if a.Bytes != int64(len(b)) {
		f.t.Errorf("artifact %s: bytes %d, file has %d", a.ID, a.Bytes, len(b))
	}
	if a.Digest != modproto.Digest(b) {
		f.t.Errorf("artifact %s: digest %s does not match the file", a.ID, a.Digest)
	}
	if a.MediaType == "" || a.Title == "" || a.Kind == "" {
		f.t.Errorf("artifact %s: media type, title and kind should be set: %+v", a.ID, a)
	}
}

// artifactData returns the bytes of the artifact with id.
func (f *fixture) artifactData(env *modproto.Envelope, id string) []byte {
	f.t.Helper()
	for _, a := range env.Execution.Artifacts {
		if a.ID == id {
			b, err := os.ReadFile(filepath.Join(f.req.Roots[a.Root].Path, filepath.FromSlash(a.Path)))
			if err != nil {
				f.t.Fatal(err)
			}
			return b
		}
	}
	f.t.Fatalf("no artifact %q in %+v", id, env.Execution.Artifacts)
	return nil
}

// wantError asserts a failed envelope with code and, when field is
// non-empty, details.field == field.
func wantError(t *testing.T, r mainResult, code, field string) {
	t.Helper()
	if r.env.OK || r.env.Error == nil {
		t.Fatalf("want error %s, got ok: %s", code, r.stdout)
	}
	if r.env.Error.Code != code {
		t.Fatalf("want error code %s, got %s: %s", code, r.env.Error.Code, r.env.Error.Message)
	}
	if field != "" && r.env.Error.Details["field"] != field {
		t.Errorf("want details.field %q, got %v", field, r.env.Error.Details)
	}
	if r.env.Result != nil {
		t.Errorf("a failed envelope carries a result: %s", r.env.Result)
	}
}

// result decodes an ok envelope's result.
func result(t *testing.T, r mainResult) map[string]any {
	t.Helper()
	if !r.env.OK {
		t.Fatalf("want ok, got error %+v", r.env.Error)
	}
	var m map[string]any
	if err := json.Unmarshal(r.env.Result, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// artifactIDs lists the ids of an envelope's artifacts.
func artifactIDs(env *modproto.Envelope) []string {
	var ids []string
	for _, a := range env.Execution.Artifacts {
		ids = append(ids, a.ID)
	}
	slices.Sort(ids)
	return ids
}
