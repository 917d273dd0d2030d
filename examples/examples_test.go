package examples

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"modbay/modproto"
)

func TestIDs(t *testing.T) {
	want := []string{"notes", "fetch", "transcode", "render-farm"}
	if got := IDs(); !slices.Equal(got, want) {
		t.Fatalf("IDs() = %q, want %q", got, want)
	}
}

// TestDescribe checks every example's descriptor: valid (docs/protocol.md §9) with
// zero violations, module == id, schemas that compile as JSON Schema
// 2020-12, and skills and overlays whose digests match the embedded bundle.
func TestDescribe(t *testing.T) {
	for _, id := range IDs() {
		t.Run(id, func(t *testing.T) {
			d := describe(t, id)
			if d.Module != id || d.Version != exampleVersion {
				t.Errorf("module %q version %q", d.Module, d.Version)
			}
			if errs := modproto.ValidateDescriptor(d); len(errs) > 0 {
				t.Fatalf("descriptor violations:\n%v", errs)
			}
			for _, c := range d.Capabilities {
				if c.Title == "" || strings.Contains(c.Summary, "\n") {
					t.Errorf("capability %s: title %q, summary must be one line", c.ID, c.Title)
				}
				if c.RequestSchema == "" || c.ResultSchema == "" {
					t.Errorf("capability %s: request and result schemas should be declared", c.ID)
				}
			}
			compileSchemas(t, d)
			for _, s := range d.Skills {
				checkBundleDoc(t, id, s.Path, s.Digest, s.Tokens)
				checkSkillFrontMatter(t, id, s.Path)
			}
			for _, o := range d.AgentOverlays {
				checkBundleDoc(t, id, o.Path, o.Digest, o.Tokens)
			}
			if len(d.Skills) == 0 || len(d.AgentOverlays) == 0 {
				t.Errorf("every example ships a skill and an overlay")
			}
			// Lists are [] and maps {}, never null (docs/protocol.md §9).
			r := runMain(t, id, "module", "describe", "--json")
			if bytes.Contains(r.env.Result, []byte("null")) {
				t.Errorf("descriptor has a null: %s", r.env.Result)
			}
			if r.env.Execution.ActualCost == nil || *r.env.Execution.ActualCost != 0 {
				t.Errorf("describe is local and free: actual cost should be 0")
			}
		})
	}
}

// compileSchemas compiles every schema of d and validates each request
// schema's defaults (an empty input must be acceptable unless fields are
// required).
func compileSchemas(t *testing.T, d *modproto.Descriptor) {
	t.Helper()
	for name, m := range map[string]map[string]json.RawMessage{
		"request": d.RequestSchemas, "result": d.ResultSchemas, "artifact": d.ArtifactSchemas,
	} {
		for key, raw := range m {
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("%s schema %s: %v", name, key, err)
			}
			c := jsonschema.NewCompiler()
			c.AssertFormat()
			url := "mem:///" + key
			if err := c.AddResource(url, doc); err != nil {
				t.Fatalf("%s schema %s: %v", name, key, err)
			}
			if _, err := c.Compile(url); err != nil {
				t.Errorf("%s schema %s does not compile: %v", name, key, err)
			}
		}
	}
}

// validateAgainst validates the JSON value v against schema key of m.
func validateAgainst(t *testing.T, m map[string]json.RawMessage, key string, v []byte) {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(m[key]))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	url := "mem:///" + key
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(v))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("%s does not validate against %s: %v", v, key, err)
	}
}

// checkBundleDoc checks that a descriptor's digest and token estimate match
// the embedded bundle file.
func checkBundleDoc(t *testing.T, id, rel, digest string, tokens int) {
	t.Helper()
	b, err := bundleFS.ReadFile("bundles/" + id + "/" + rel)
	if err != nil {
		t.Fatalf("bundle file %s: %v", rel, err)
	}
	if modproto.Digest(b) != digest {
		t.Errorf("%s: digest %s does not match the embedded file", rel, digest)
	}
	if tokens != len(b)/4 {
		t.Errorf("%s: tokens %d, want %d", rel, tokens, len(b)/4)
	}
}

// checkSkillFrontMatter checks a SKILL.md's front matter (docs/skills.md "SKILL.md"): name
// equal to its folder, lowercase letters, digits and -, and a description.
func checkSkillFrontMatter(t *testing.T, id, rel string) {
	t.Helper()
	b := mustBundleFile(id, rel)
	s, ok := strings.CutPrefix(string(b), "---\n")
	fm, body, ok2 := strings.Cut(s, "\n---\n")
	if !ok || !ok2 {
		t.Fatalf("%s: no front matter", rel)
	}
	var meta struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
	}
	if err := yaml.Unmarshal([]byte(fm), &meta); err != nil {
		t.Fatalf("%s: front matter: %v", rel, err)
	}
	if meta.Name != filepath.Base(filepath.Dir(rel)) {
		t.Errorf("%s: name %q should equal its folder", rel, meta.Name)
	}
	for _, r := range meta.Name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			t.Errorf("%s: name %q has %q", rel, meta.Name, r)
		}
	}
	if meta.Description == "" || len(meta.Description) > 1024 {
		t.Errorf("%s: description must be 1–1024 characters", rel)
	}
	if !strings.Contains(body, "\n## ") {
		t.Errorf("%s: the body should give real guidance in sections", rel)
	}
}

// TestArgv checks that bad command lines still print one envelope with the
// right error code (docs/protocol.md §3, §5).
func TestArgv(t *testing.T) {
	req := modproto.Request{Protocol: modproto.ProtocolID, Capability: "notes.echo", RequestID: "req_0000000000000000000000000000fake"}
	b, _ := json.Marshal(req)
	reqPath := filepath.Join(t.TempDir(), "request.json")
	if err := os.WriteFile(reqPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		code   string
		module string
		op     string
	}{
		{"no args", nil, modproto.CodeInvalidRequest, "example-module", modproto.OperationInvoke},
		{"no verb", []string{"notes"}, modproto.CodeInvalidRequest, "notes", modproto.OperationInvoke},
		{"not module", []string{"notes", "modules", "describe", "--json"}, modproto.CodeInvalidRequest, "notes", modproto.OperationDescribe},
		{"describe extra flag", []string{"notes", "module", "describe", "--yaml"}, modproto.CodeInvalidRequest, "notes", modproto.OperationDescribe},
		{"unknown verb", []string{"notes", "module", "explain"}, modproto.CodeInvalidRequest, "notes", modproto.OperationInvoke},
		{"unknown id", []string{"nope", "module", "describe", "--json"}, modproto.CodeInvalidRequest, "nope", modproto.OperationDescribe},
		{"invoke no capability", []string{"notes", "module", "invoke", "--input", reqPath}, modproto.CodeInvalidRequest, "notes", modproto.OperationInvoke},
		{"invoke no input", []string{"notes", "module", "invoke", "notes.echo"}, modproto.CodeInvalidRequest, "notes", modproto.OperationInvoke},
		{"relative input", []string{"notes", "module", "invoke", "notes.echo", "--input", "request.json"}, modproto.CodeInvalidRequest, "notes", modproto.OperationInvoke},
		{"missing file", []string{"notes", "module", "invoke", "notes.echo", "--input", reqPath + ".gone"}, modproto.CodeInvalidRequest, "notes", modproto.OperationInvoke},
		{"unknown capability", []string{"notes", "module", "invoke", "notes.nope", "--input", reqPath}, modproto.CodeUnknownCapability, "notes", modproto.OperationInvoke},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runMain(t, tc.args...)
			wantError(t, r, tc.code, "")
			if r.env.Module != tc.module || r.env.Operation != tc.op {
				t.Errorf("module %q operation %q, want %q %q", r.env.Module, r.env.Operation, tc.module, tc.op)
			}
			if errs := modproto.ValidateEnvelope(r.env, tc.op, r.env.RequestID, ""); len(errs) > 0 {
				t.Errorf("violations: %v", errs)
			}
			if r.code != ExitError {
				t.Errorf("exit %d", r.code)
			}
		})
	}
	// --input=path works too, and the request id is echoed verbatim even
	// when it is not the host's req_+hex shape.
	r := runMain(t, "notes", "module", "invoke", "notes.echo", "--input="+reqPath)
	if !r.env.OK || r.env.RequestID != req.RequestID {
		t.Fatalf("--input=: %s", r.stdout)
	}
}

// TestRequestChecks covers request-file errors that still echo the id.
func TestRequestChecks(t *testing.T) {
	t.Run("unknown capability keeps request id", func(t *testing.T) {
		f := newFixture(t, "notes", "notes.nope", map[string]any{})
		r := f.invoke()
		wantError(t, r, modproto.CodeUnknownCapability, "")
		if got := r.env.Error.Details["available"]; got == nil {
			t.Errorf("details should list available capabilities: %v", r.env.Error.Details)
		}
	})
	t.Run("protocol", func(t *testing.T) {
		f := newFixture(t, "notes", "notes.echo", map[string]any{})
		f.req.Protocol = "xibodev.module/v2"
		wantError(t, f.invoke(), modproto.CodeUnsupportedProtocol, "")
	})
	t.Run("capability mismatch", func(t *testing.T) {
		f := newFixture(t, "notes", "notes.report", map[string]any{})
		wantError(t, f.invokeCap("notes.echo"), modproto.CodeInvalidRequest, "capability")
	})
	t.Run("not json", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "request.json")
		if err := os.WriteFile(p, []byte(`{"request_id":"req_x", "roots": 7}`), 0o600); err != nil {
			t.Fatal(err)
		}
		r := runMain(t, "notes", "module", "invoke", "notes.echo", "--input", p)
		wantError(t, r, modproto.CodeInvalidRequest, "--input")
		if r.env.RequestID != "req_x" {
			t.Errorf("request id %q should be echoed even from a broken request", r.env.RequestID)
		}
	})
	t.Run("output ceiling", func(t *testing.T) {
		f := newFixture(t, "notes", "notes.echo", map[string]any{"message": strings.Repeat("x", 4096)})
		f.req.MaxOutputBytes = 2048
		r := f.invoke()
		wantError(t, r, modproto.CodeInternal, "")
		if len(r.stdout) > 2048 {
			t.Errorf("stdout %d bytes over the ceiling", len(r.stdout))
		}
	})
}

func TestRunSuffix(t *testing.T) {
	for id, want := range map[string]string{
		"req_0123456789abcdef0123456789abcdef": "456789abcdef",
		"req_0000000000000000000000000000fake": "00000000fake",
		"req_../../etc":                        "etc",
		"short":                                "short",
	} {
		c := &call{req: &modproto.Request{RequestID: id}}
		if got := c.runSuffix(); got != want {
			t.Errorf("runSuffix(%q) = %q, want %q", id, got, want)
		}
	}
	c := &call{req: &modproto.Request{RequestID: "///"}}
	if got := c.runSuffix(); got == "" || strings.Contains(got, "/") {
		t.Errorf("runSuffix of an unusable id = %q", got)
	}
}

// TestNoExampleSchemaLooksWholeRequest: a request schema with a property
// named like a host-owned key or "input" is taken for a whole-request
// schema (docs/protocol.md §4) and its values are placed at the request root; the
// examples describe Input only, so none may look like that.
func TestNoExampleSchemaLooksWholeRequest(t *testing.T) {
	for _, id := range IDs() {
		d := describe(t, id)
		for _, c := range d.Capabilities {
			if modproto.IsWholeRequestSchema(d.RequestSchemas[c.RequestSchema]) {
				t.Errorf("%s %s: request schema %s looks whole-request", id, c.ID, c.RequestSchema)
			}
		}
	}
}
