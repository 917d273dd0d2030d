package modproto

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modbay/internal/testcorpus"
)

// corpusModules returns the shared corpus's real module fixtures (its
// modules/ directory), read in place; without the corpus it skips tb (fails
// it under CI).
func corpusModules(tb testing.TB) string {
	tb.Helper()
	return testcorpus.Dir(tb, "modules")
}

// corpusSeed returns the bytes of corpus module fixture rel for a fuzz
// seed, or nil when the corpus is absent (outside CI).
func corpusSeed(f *testing.F, rel string) []byte {
	f.Helper()
	p, ok := testcorpus.Lookup(f, "modules", filepath.FromSlash(rel))
	if !ok {
		return nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

func readFixture(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpusModules(t), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatalf("fixture %s: %v", rel, err)
	}
	return b
}

func describeFixture(t *testing.T, rel string) (*Envelope, *Descriptor) {
	t.Helper()
	env, err := DecodeEnvelope(readFixture(t, rel))
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	d, err := DecodeDescriptor(env.Result)
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return env, d
}

// hasViolation reports whether errs has an entry at path whose detail
// contains substr.
func hasViolation(errs ValidationErrors, path, substr string) bool {
	for _, e := range errs {
		if e.Path == path && strings.Contains(e.Detail, substr) {
			return true
		}
	}
	return false
}

func TestFixtureDescriptorsValid(t *testing.T) {
	for _, rel := range []string{
		"facet-studio/testdata/fixtures/describe/descriptor-full.json",
		"facet-studio/testdata/fixtures/describe/descriptor-minimal.json",
		"facet/fixtures/module/describe.json",
	} {
		env, d := describeFixture(t, rel)
		if errs := ValidateEnvelope(env, OperationDescribe, "", ""); len(errs) > 0 {
			t.Errorf("%s envelope: %v", rel, errs)
		}
		if errs := ValidateDescriptor(d); len(errs) > 0 {
			t.Errorf("%s descriptor: %v", rel, errs)
		}
	}
}

func TestFacetDescriptorShape(t *testing.T) {
	_, d := describeFixture(t, "facet/fixtures/module/describe.json")
	if len(d.Capabilities) != 7 || len(d.RequestSchemas) != 42 || len(d.ArtifactSchemas) != 20 {
		t.Fatalf("caps %d req %d art %d", len(d.Capabilities), len(d.RequestSchemas), len(d.ArtifactSchemas))
	}
	// facet's requirements omit "available": not probed, never "missing".
	for _, r := range d.Requirements {
		if r.Available != nil {
			t.Fatalf("requirement %s: available should be absent, got %v", r.Name, *r.Available)
		}
	}
	run := d.Capability("creative.tools.run")
	if run == nil || !IsWholeRequestSchema(d.RequestSchemas[run.RequestSchema]) {
		t.Fatal("creative.tools.run should have a whole-request schema")
	}
	if IsWholeRequestSchema(d.RequestSchemas["audio_probe"]) {
		t.Fatal("audio_probe is an input schema")
	}
}

func TestFixtureInvokeEnvelopesValid(t *testing.T) {
	dir := filepath.Join(corpusModules(t), "facet-studio/testdata/fixtures/invoke")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if e.Name() == "request-example.json" {
			continue
		}
		env, err := DecodeEnvelope(readFixture(t, "facet-studio/testdata/fixtures/invoke/"+e.Name()))
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		if errs := ValidateEnvelope(env, OperationInvoke, "req_0000000000000000000000000000fake", "fake"); len(errs) > 0 {
			t.Errorf("%s: %v", e.Name(), errs)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("only %d invoke fixtures checked", n)
	}
}

func TestFacetRunWithArtifactsRefused(t *testing.T) {
	_, d := describeFixture(t, "facet/fixtures/module/describe.json")
	env, err := DecodeEnvelope(readFixture(t, "facet/fixtures/module/run-with-artifacts.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The envelope itself follows §6...
	if errs := ValidateEnvelope(env, OperationInvoke, "req_fixture_artifacts", "xibodev.facet"); len(errs) > 0 {
		t.Fatalf("envelope: %v", errs)
	}
	// ...but §7 refuses it: kind "output" is not declared.
	v, _ := CheckExecutionAgainstDeclared(d, "creative.tools.run", &env.Execution)
	if len(v) != 2 || !hasViolation(v, "execution.artifacts[0].kind", `"output" is not among`) {
		t.Fatalf("violations: %v", v)
	}
}

func TestFacetErrorFixturesKeepTheirCodes(t *testing.T) {
	for file, code := range map[string]string{
		"error-consent-required.json":     "consent_required",
		"error-unknown-job.json":          "unknown_job",
		"error-unknown-field.json":        CodeInvalidRequest,
		"error-provider-not-granted.json": CodePermissionDenied,
	} {
		env, err := DecodeEnvelope(readFixture(t, "facet/fixtures/module/"+file))
		if err != nil {
			t.Fatal(err)
		}
		if errs := ValidateEnvelope(env, OperationInvoke, env.RequestID, "xibodev.facet"); len(errs) > 0 {
			t.Errorf("%s: %v", file, errs)
		}
		if env.Error.Code != code {
			t.Errorf("%s: code %q", file, env.Error.Code)
		}
	}
	env, _ := DecodeEnvelope(readFixture(t, "facet/fixtures/module/error-unknown-field.json"))
	if !strings.Contains(env.Error.Message, "<tool>") {
		t.Fatalf("\\u003c escapes should decode: %q", env.Error.Message)
	}
}

// TestUnknownCostStaysNull: a null cost decodes as unknown and marshals
// back as null; a 0 cost stays 0, not unknown (docs/protocol.md §6).
func TestUnknownCostStaysNull(t *testing.T) {
	env, err := DecodeEnvelope(readTestdata(t, "estimate-unknown-cost.json"))
	if err != nil {
		t.Fatal(err)
	}
	if env.Execution.EstimatedCost != nil || env.Execution.ActualCost != nil {
		t.Fatalf("null costs decoded as %v, %v", env.Execution.EstimatedCost, env.Execution.ActualCost)
	}
	out, _ := json.Marshal(env.Execution)
	if !strings.Contains(string(out), `"estimated_cost":null`) || !strings.Contains(string(out), `"actual_cost":null`) {
		t.Fatalf("null cost not kept: %s", out)
	}
	free, err := DecodeEnvelope(readTestdata(t, "estimate-free.json"))
	if err != nil {
		t.Fatal(err)
	}
	if free.Execution.ActualCost == nil || *free.Execution.ActualCost != 0 || free.Execution.EstimatedCost == nil {
		t.Fatal("0 cost must stay 0, not unknown")
	}
}

// TestCorpusUnknownCostStaysNull: the same for the real modules' envelopes.
func TestCorpusUnknownCostStaysNull(t *testing.T) {
	env, err := DecodeEnvelope(readFixture(t, "facet/fixtures/module/estimate-unknown-cost.json"))
	if err != nil {
		t.Fatal(err)
	}
	if env.Execution.EstimatedCost != nil {
		t.Fatalf("estimated_cost null decoded as %v", *env.Execution.EstimatedCost)
	}
	free, _ := DecodeEnvelope(readFixture(t, "facet-studio/testdata/fixtures/invoke/estimate-known-free.json"))
	if free.Execution.ActualCost == nil || *free.Execution.ActualCost != 0 {
		t.Fatal("0 cost must stay 0, not unknown")
	}
}

// readTestdata reads one of this package's own fixtures under testdata/.
func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// validEnvelope is a minimal envelope that passes §6.
const validEnvelope = `{"protocol":"xibodev.module/v1","module":"m","operation":"invoke","request_id":"req_1","ok":true,"result":{},"warnings":[],"execution":{"local":true,"network":false,"external_writes":false,"provider":"local","estimated_cost":0,"actual_cost":0,"artifacts":[]}}`

func mutate(t *testing.T, f func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(validEnvelope), &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	b, _ := json.Marshal(m)
	return b
}

func TestEnvelopeRules(t *testing.T) {
	art := func() map[string]any {
		return map[string]any{"id": "a", "kind": "k", "root": "workspace", "path": "out/a.md",
			"media_type": "text/markdown", "bytes": 3, "digest": Digest([]byte("abc"))}
	}
	cases := []struct {
		name, path, detail string
		f                  func(m map[string]any)
	}{
		{"protocol exact", "protocol", "must be exactly", func(m map[string]any) { m["protocol"] = "xibodev.module/v2" }},
		{"module non-empty", "module", "non-empty", func(m map[string]any) { m["module"] = "" }},
		{"module matches id", "module", "discovered as", func(m map[string]any) { m["module"] = "other" }},
		{"operation is the verb", "operation", "verb", func(m map[string]any) { m["operation"] = "fake.echo" }},
		{"request id echoed", "request_id", "verbatim", func(m map[string]any) { m["request_id"] = "req_2" }},
		{"ok needs result", "result", "present when ok", func(m map[string]any) { delete(m, "result") }},
		{"ok with null result", "result", "present when ok", func(m map[string]any) { m["result"] = nil }},
		{"ok with error", "error", "absent when ok", func(m map[string]any) {
			m["error"] = map[string]any{"code": "x", "message": "y", "details": map[string]any{}}
		}},
		{"not ok needs error", "error", "present when ok is false", func(m map[string]any) { m["ok"] = false; delete(m, "result") }},
		{"not ok without result", "result", "absent when ok is false", func(m map[string]any) {
			m["ok"] = false
			m["error"] = map[string]any{"code": "x", "message": "y", "details": map[string]any{}}
		}},
		{"error code", "error.code", "non-empty", func(m map[string]any) {
			m["ok"] = false
			delete(m, "result")
			m["error"] = map[string]any{"code": "", "message": "y", "details": map[string]any{}}
		}},
		{"error message", "error.message", "non-empty", func(m map[string]any) {
			m["ok"] = false
			delete(m, "result")
			m["error"] = map[string]any{"code": "x", "message": " ", "details": map[string]any{}}
		}},
		{"error details object", "error.details", "object", func(m map[string]any) {
			m["ok"] = false
			delete(m, "result")
			m["error"] = map[string]any{"code": "x", "message": "y"}
		}},
		{"warnings array", "warnings", "array", func(m map[string]any) { m["warnings"] = nil }},
		{"warnings present", "warnings", "array", func(m map[string]any) { delete(m, "warnings") }},
		{"execution present", "execution", "present", func(m map[string]any) { delete(m, "execution") }},
		{"artifact id", "execution.artifacts[0].id", "non-empty", func(m map[string]any) {
			a := art()
			a["id"] = ""
			m["execution"].(map[string]any)["artifacts"] = []any{a}
		}},
		{"artifact root", "execution.artifacts[0].root", "root", func(m map[string]any) {
			a := art()
			a["root"] = ""
			m["execution"].(map[string]any)["artifacts"] = []any{a}
		}},
		{"artifact digest", "execution.artifacts[0].digest", "sha256", func(m map[string]any) {
			a := art()
			a["digest"] = "sha256:ABC"
			m["execution"].(map[string]any)["artifacts"] = []any{a}
		}},
	}
	for _, p := range []string{"/etc/passwd", `\share\x`, `C:\x`, "C:/x", "c:x", ""} {
		p := p
		cases = append(cases, struct {
			name, path, detail string
			f                  func(m map[string]any)
		}{"artifact path " + p, "execution.artifacts[0].path", "relative", func(m map[string]any) {
			a := art()
			a["path"] = p
			m["execution"].(map[string]any)["artifacts"] = []any{a}
		}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env, err := DecodeEnvelope(mutate(t, c.f))
			if err != nil {
				t.Fatal(err)
			}
			errs := ValidateEnvelope(env, OperationInvoke, "req_1", "m")
			if !hasViolation(errs, c.path, c.detail) {
				t.Fatalf("want %s (%s), got %v", c.path, c.detail, errs)
			}
		})
	}
	env, err := DecodeEnvelope([]byte(validEnvelope))
	if err != nil {
		t.Fatal(err)
	}
	if errs := ValidateEnvelope(env, OperationInvoke, "req_1", "m"); errs != nil {
		t.Fatalf("valid envelope refused: %v", errs)
	}
	// describe: request_id is not checked.
	env.Operation = OperationDescribe
	if errs := ValidateEnvelope(env, OperationDescribe, "", ""); errs != nil {
		t.Fatalf("describe: %v", errs)
	}
}

func TestDecodeEnvelopeExactlyOne(t *testing.T) {
	cases := []struct {
		in   string
		code string
	}{
		{"", CodeHostInvalidJSON},
		{"  \n", CodeHostInvalidJSON},
		{"not json", CodeHostInvalidJSON},
		{"[1,2]", CodeHostInvalidJSON},
		{`{"protocol":`, CodeHostInvalidJSON},
		{validEnvelope + "\n{}", CodeHostProtocolViolation},
		{validEnvelope + " trailing", CodeHostProtocolViolation},
		{`{"ok":"yes"}`, CodeHostProtocolViolation},
	}
	for _, c := range cases {
		_, err := DecodeEnvelope([]byte(c.in))
		var de *DecodeError
		if !errors.As(err, &de) || de.Code != c.code {
			t.Errorf("%q: want %s, got %v", c.in, c.code, err)
		}
	}
	if _, err := DecodeEnvelope([]byte("\n " + validEnvelope + " \n\t")); err != nil {
		t.Fatalf("surrounding whitespace refused: %v", err)
	}
}

func validDescriptor() *Descriptor {
	d := &Descriptor{
		Module: "m", Name: "M", Version: "1", ProtocolVersions: []string{"other/v9", ProtocolID},
		Capabilities: []Capability{
			{ID: "m.a", Summary: "a", RequestSchema: "m.a.request/v1", ArtifactSchemas: []string{"m.out/v1"}, LongRunning: true, PollCapability: "m.poll"},
			{ID: "m.poll", Summary: "poll"},
		},
		RequestSchemas:  map[string]json.RawMessage{"m.a.request/v1": json.RawMessage(`{"$id":"https://x.test/M.A.Request/v2","type":"object"}`)},
		ArtifactSchemas: map[string]json.RawMessage{"m.out/v1": json.RawMessage(`{"type":"object"}`)},
		Skills:          []Skill{{ID: "s", Path: "skills/s/SKILL.md", Digest: Digest(nil)}},
		AgentOverlays:   []Overlay{{ID: "o", Path: "agents/o.md", Digest: Digest(nil)}},
	}
	d.Normalize()
	return d
}

func TestDescriptorRules(t *testing.T) {
	if errs := ValidateDescriptor(validDescriptor()); errs != nil {
		t.Fatalf("valid descriptor refused: %v", errs)
	}
	cases := []struct {
		name, path, detail string
		f                  func(d *Descriptor)
	}{
		{"module", "module", "non-empty", func(d *Descriptor) { d.Module = "" }},
		{"name", "name", "non-empty", func(d *Descriptor) { d.Name = "" }},
		{"version", "version", "non-empty", func(d *Descriptor) { d.Version = "" }},
		{"protocol membership", "protocol_versions", "must contain", func(d *Descriptor) { d.ProtocolVersions = []string{"xibodev.module/v2"} }},
		{"capability id", "capabilities[1].id", "non-empty", func(d *Descriptor) { d.Capabilities[1].ID = "" }},
		{"capability id unique", "capabilities[1].id", "duplicates", func(d *Descriptor) { d.Capabilities[1].ID = "m.a" }},
		{"summary", "capabilities[0].summary", "non-empty", func(d *Descriptor) { d.Capabilities[0].Summary = "" }},
		{"request schema ref", "capabilities[0].request_schema", "not a key", func(d *Descriptor) { d.Capabilities[0].RequestSchema = "nope" }},
		{"result schema ref", "capabilities[0].result_schema", "not a key", func(d *Descriptor) { d.Capabilities[0].ResultSchema = "nope" }},
		{"artifact schema ref", "capabilities[0].artifact_schemas[0]", "not a key", func(d *Descriptor) { d.Capabilities[0].ArtifactSchemas = []string{"nope"} }},
		{"schema object", `artifact_schemas["m.out/v1"]`, "JSON object", func(d *Descriptor) { d.ArtifactSchemas["m.out/v1"] = json.RawMessage(`true`) }},
		{"schema $id suffix", `request_schemas["m.a.request/v1"]`, "does not end", func(d *Descriptor) {
			d.RequestSchemas["m.a.request/v1"] = json.RawMessage(`{"$id":"https://x.test/other/v1"}`)
		}},
		{"long_running needs poll", "capabilities[0].poll_capability", "not set", func(d *Descriptor) { d.Capabilities[0].PollCapability = "" }},
		{"poll needs long_running", "capabilities[0].poll_capability", "long_running is false", func(d *Descriptor) { d.Capabilities[0].LongRunning = false }},
		{"poll declared", "capabilities[0].poll_capability", "not a declared", func(d *Descriptor) { d.Capabilities[0].PollCapability = "m.nope" }},
		{"cancel declared", "capabilities[0].cancel_capability", "not a declared", func(d *Descriptor) { d.Capabilities[0].CancelCapability = "m.nope" }},
		{"cancel needs long_running", "capabilities[1].cancel_capability", "long_running is false", func(d *Descriptor) { d.Capabilities[1].CancelCapability = "m.a" }},
		{"skill path relative", "skills[0].path", "relative", func(d *Descriptor) { d.Skills[0].Path = "/etc/passwd" }},
		{"skill path inside", "skills[0].path", "escapes", func(d *Descriptor) { d.Skills[0].Path = "skills/../../x.md" }},
		{"skill digest", "skills[0].digest", "sha256", func(d *Descriptor) { d.Skills[0].Digest = "md5:x" }},
		{"overlay path", "agent_overlays[0].path", "escapes", func(d *Descriptor) { d.AgentOverlays[0].Path = `..\x.md` }},
		{"overlay digest", "agent_overlays[0].digest", "sha256", func(d *Descriptor) { d.AgentOverlays[0].Digest = "" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := validDescriptor()
			c.f(d)
			if errs := ValidateDescriptor(d); !hasViolation(errs, c.path, c.detail) {
				t.Fatalf("want %s (%s), got %v", c.path, c.detail, errs)
			}
		})
	}
	// Every violation is returned, not just the first.
	d := validDescriptor()
	d.Module, d.Name, d.Version = "", "", ""
	if errs := ValidateDescriptor(d); len(errs) != 3 {
		t.Fatalf("want 3 violations, got %v", errs)
	}
}

func TestNormalize(t *testing.T) {
	var d Descriptor
	if err := json.Unmarshal([]byte(`{"module":"m","capabilities":[{"id":"a","artifact_schemas":null}]}`), &d); err != nil {
		t.Fatal(err)
	}
	d.Normalize()
	out, _ := json.Marshal(d)
	for _, want := range []string{`"protocol_versions":[]`, `"request_schemas":{}`, `"artifact_schemas":[]`, `"skills":[]`, `"filesystem_read":[]`, `"requirements":[]`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("normalized descriptor lacks %s: %s", want, out)
		}
	}
	var x Execution
	x.Normalize()
	out, _ = json.Marshal(x)
	if !strings.Contains(string(out), `"estimated_cost":null`) || !strings.Contains(string(out), `"artifacts":[]`) {
		t.Fatalf("execution normalize: %s", out)
	}
}

func TestEffectsCheck(t *testing.T) {
	zero, one := 0.0, 1.0
	d := &Descriptor{Module: "m", Capabilities: []Capability{
		{ID: "local", ArtifactSchemas: []string{"k"}, Effects: Effects{Local: true, Provider: "local", CostKnown: true}},
		{ID: "net", Effects: Effects{Network: true, Provider: "openai", CostKnown: false}},
		{ID: "varies", Effects: Effects{Network: true, Provider: "varies"}},
	}}
	cases := []struct {
		name      string
		cap       string
		x         Execution
		violation string
		warning   string
	}{
		{"undeclared capability", "nope", Execution{}, "capability", ""},
		{"undeclared kind", "local", Execution{Artifacts: []Artifact{{Kind: "k"}, {Kind: "other"}}}, "execution.artifacts[1].kind", ""},
		{"undeclared network", "local", Execution{Network: true}, "", "execution.network"},
		{"undeclared writes", "local", Execution{ExternalWrites: true}, "", "execution.external_writes"},
		{"provider differs", "net", Execution{Network: true, Provider: "anthropic", ActualCost: &one}, "", "execution.provider"},
		{"local provider exempt", "net", Execution{Network: true, Provider: "local", ActualCost: &one}, "", ""},
		{"empty provider exempt", "net", Execution{Network: true, Provider: "", ActualCost: nil}, "", ""},
		{"varies exempt", "varies", Execution{Network: true, Provider: "fal"}, "", ""},
		{"unknown cost reported free", "net", Execution{Network: true, Provider: "openai", ActualCost: &zero}, "", "execution.actual_cost"},
		{"unknown cost stays unknown", "net", Execution{Network: true, Provider: "openai"}, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, w := CheckExecutionAgainstDeclared(d, c.cap, &c.x)
			if c.violation == "" && len(v) > 0 || c.violation != "" && (len(v) != 1 || v[0].Path != c.violation) {
				t.Fatalf("violations %v, want %q", v, c.violation)
			}
			if c.warning == "" && len(w) > 0 || c.warning != "" && (len(w) != 1 || w[0].Path != c.warning) {
				t.Fatalf("warnings %v, want %q", w, c.warning)
			}
		})
	}
}

func TestRequestMarshalExtraFlattenedHostWins(t *testing.T) {
	r := Request{Capability: "c", RequestID: "req_x", Input: json.RawMessage(`{"a":1}`),
		Extra: map[string]json.RawMessage{
			"tool":        json.RawMessage(`"media_probe"`),
			"protocol":    json.RawMessage(`"evil/v0"`),
			"roots":       json.RawMessage(`{"etc":{"path":"/etc","mode":"rw"}}`),
			"deadline_ms": json.RawMessage(`999999999`),
		}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not one object: %s", b)
	}
	if string(m["tool"]) != `"media_probe"` || string(m["protocol"]) != `"xibodev.module/v1"` ||
		string(m["roots"]) != `{}` || string(m["deadline_ms"]) != "180000" {
		t.Fatalf("host keys must win and extra be flattened: %s", b)
	}
	for _, k := range []string{`"binaries":{}`, `"network":[]`, `"max_output_bytes":1048576`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("missing %s in %s", k, b)
		}
	}
	var back Request
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if string(back.Extra["tool"]) != `"media_probe"` || len(back.Extra) != 1 {
		t.Fatalf("round trip extra: %v", back.Extra)
	}
	r.Extra["bad"] = json.RawMessage(`{`)
	if _, err := json.Marshal(r); err == nil {
		t.Fatal("invalid extra JSON accepted")
	}
}

// TestRequestFixtureRoundTrip: a request decodes with its roots and
// deadline and no Extra; a whole request's module-specific keys (tool,
// consent) land in Extra and marshal back at the root.
func TestRequestFixtureRoundTrip(t *testing.T) {
	var r Request
	if err := json.Unmarshal(readTestdata(t, "request.json"), &r); err != nil {
		t.Fatal(err)
	}
	if r.Roots["seed_in"].Mode != RootReadOnly || r.Roots["workspace"].Mode != RootReadWrite || r.DeadlineMS != 30000 || len(r.Extra) != 0 {
		t.Fatalf("%+v", r)
	}
	var w Request
	if err := json.Unmarshal(readTestdata(t, "request-whole.json"), &w); err != nil {
		t.Fatal(err)
	}
	if string(w.Extra["tool"]) != `"tile_fetch"` || len(w.Extra) != 2 || w.Extra["consent"] == nil {
		t.Fatalf("extra %v", w.Extra)
	}
	out, _ := json.Marshal(w)
	var m map[string]json.RawMessage
	if err := json.Unmarshal(out, &m); err != nil || string(m["tool"]) != `"tile_fetch"` || string(m["request_id"]) != `"req_atlas_tools_0001"` {
		t.Fatalf("round trip %s: %v", out, err)
	}
}

// TestCorpusRequestsRoundTrip: the real modules' requests decode the same way.
func TestCorpusRequestsRoundTrip(t *testing.T) {
	var r Request
	if err := json.Unmarshal(readFixture(t, "facet-studio/testdata/fixtures/invoke/request-example.json"), &r); err != nil {
		t.Fatal(err)
	}
	if r.Roots["seed_in"].Mode != RootReadOnly || r.DeadlineMS != 30000 || len(r.Extra) != 0 {
		t.Fatalf("%+v", r)
	}
	for _, rel := range []string{"facet/fixtures/module/requests/run-paid-with-consent.json", "facet/fixtures/module/requests/run-from-seed.json"} {
		var r Request
		if err := json.Unmarshal(readFixture(t, rel), &r); err != nil {
			t.Fatal(err)
		}
		if _, ok := r.Extra["tool"]; !ok {
			t.Fatalf("%s: tool should be extra", rel)
		}
	}
}

func TestSplitWholeRequest(t *testing.T) {
	in, extra, err := SplitWholeRequest(json.RawMessage(`{"tool":"media_probe","input":{"input":"a.mp4"},"request_id":"evil","binaries":{"x":"/bin/sh"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(in) != `{"input":"a.mp4"}` || len(extra) != 1 || string(extra["tool"]) != `"media_probe"` {
		t.Fatalf("input %s extra %v", in, extra)
	}
}

func TestDigestsAndIDs(t *testing.T) {
	if Digest([]byte("")) != "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Fatal("empty digest")
	}
	if ValidDigest("sha256:E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855") || ValidDigest("e3b0") {
		t.Fatal("uppercase / bare digest accepted")
	}
	id := NewRequestID()
	if !ValidRequestID(id) || id == NewRequestID() {
		t.Fatalf("request id %q", id)
	}
	d, n, err := DigestReader(strings.NewReader("abc"))
	if err != nil || n != 3 || d != Digest([]byte("abc")) {
		t.Fatal("DigestReader")
	}
}

func FuzzDecodeEnvelope(f *testing.F) {
	seedCorpus(f)
	f.Add([]byte(validEnvelope))
	f.Add([]byte(validEnvelope + "x"))
	// Duplicate and case-variant keys, top level and nested (refused).
	f.Add(withExtra("", `"OK":false`))
	f.Add(withExtra("", `"ok":false`))
	f.Add(withExtra("execution", `"Network":true`))
	f.Add(withExtra("result", `"a":1,"A":2`))
	f.Add([]byte(strings.Replace(validEnvelope, `"ok":true`, `"ok":true,"o\u212a":false`, 1)))
	for _, rel := range []string{"facet/fixtures/module/error-unknown-field.json", "facet-studio/testdata/fixtures/invoke/success-with-artifact.json"} {
		if b := corpusSeed(f, rel); b != nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sameAsLegacy(t, b)
		env, err := DecodeEnvelope(b)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error is not a DecodeError: %v", err)
			}
			return
		}
		if !topLevelKeysUnique(b) {
			t.Fatalf("an envelope with case-variant or duplicate top-level keys decoded: %q", b)
		}
		_ = ValidateEnvelope(env, OperationInvoke, "req_1", "m")
		if d, err := DecodeDescriptor(env.Result); err == nil {
			_ = ValidateDescriptor(d)
		}
	})
}

// FuzzRequestJSON: a request decodes or fails; one that decodes marshals
// back to one JSON object in which the host-owned keys are the request's own
// and never an Extra's.
func FuzzRequestJSON(f *testing.F) {
	f.Add([]byte(`{"protocol":"xibodev.module/v1","capability":"c","request_id":"req_1","input":{},"tool":"x"}`))
	for _, rel := range []string{"facet-studio/testdata/fixtures/invoke/request-example.json", "facet/fixtures/module/requests/run-paid-with-consent.json"} {
		if b := corpusSeed(f, rel); b != nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var r Request
		if json.Unmarshal(b, &r) != nil {
			return
		}
		if len(r.Input) > 0 && !json.Valid(r.Input) {
			return
		}
		out, err := json.Marshal(r)
		if err != nil {
			return // an Extra value that is not valid JSON is refused
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("marshalled request is not one object: %v\n%s", err, out)
		}
		for k := range r.Extra {
			if IsHostOwnedKey(k) {
				t.Fatalf("extra kept host-owned key %q", k)
			}
		}
		if string(m["protocol"]) != `"`+ProtocolID+`"` && r.Protocol == "" {
			t.Fatalf("protocol not defaulted: %s", out)
		}
	})
}

// TestNormalizeHidesJobCapabilities: the capabilities another names as its
// poll or cancel capability are hidden; Listed leaves them out.
func TestNormalizeHidesJobCapabilities(t *testing.T) {
	d := &Descriptor{Capabilities: []Capability{
		{ID: "a.start", LongRunning: true, PollCapability: "a.poll", CancelCapability: "a.cancel"},
		{ID: "a.poll"}, {ID: "a.cancel"}, {ID: "a.other"}, {ID: "a.secret", Hidden: true},
	}}
	d.Normalize()
	var listed []string
	for _, c := range d.Listed() {
		listed = append(listed, c.ID)
	}
	if !d.Capabilities[1].Hidden || !d.Capabilities[2].Hidden || d.Capabilities[0].Hidden ||
		strings.Join(listed, " ") != "a.start a.other" {
		t.Fatalf("hidden %+v, listed %q", d.Capabilities, listed)
	}
}
