package runner

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"modbay/config"
	"modbay/modproto"
	"modbay/schema"
)

// stubModule is a described module without an executable, for plans.
func stubModule(t *testing.T, id string, d *modproto.Descriptor) *Module {
	return &Module{ID: id, StateKey: id, Exe: "/nonexistent/" + id, Dir: t.TempDir(), Origin: OriginHome, Descriptor: d, Status: StatusReady}
}

func TestPlanRootsAndBinaries(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	corpusDir := t.TempDir()
	f.cfg.Roots = map[string]string{"corpus": corpusDir}
	f.cfg.Binaries = map[string]string{"mapped": "/bin/sh"}
	f.addModule("planner", "good")
	m := f.load("planner")
	p, err := f.host.Plan(m, "t.echo", json.RawMessage(`{"name":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	r := p.Request.Roots
	want := map[string]modproto.Root{
		"workspace": {Path: f.cfg.Workspace, Mode: "rw"},
		"bundle":    {Path: m.Dir, Mode: "ro"},
		"t_bundle":  {Path: m.Dir, Mode: "ro"},
		"corpus":    {Path: corpusDir, Mode: "ro"},
		"out":       {Path: f.stateDir("planner", "out"), Mode: "rw"},
		"jobs":      {Path: f.stateDir("planner", "jobs"), Mode: "rw"},
		"shared":    {Path: f.stateDir("planner", "shared"), Mode: "rw"}, // read and write: rw
	}
	if len(r) != len(want) {
		t.Errorf("roots %v", r)
	}
	for name, w := range want {
		if r[name] != w {
			t.Errorf("root %s = %+v, want %+v", name, r[name], w)
		}
		if fi, err := os.Stat(w.Path); err != nil || !fi.IsDir() {
			t.Errorf("root %s: %s does not exist", name, w.Path)
		}
		if !filepath.IsAbs(r[name].Path) || filepath.Clean(r[name].Path) != r[name].Path {
			t.Errorf("root %s path %q is not absolute and clean", name, r[name].Path)
		}
	}
	if _, ok := r["nothere"]; ok {
		t.Error("an unmapped read root was supplied")
	}
	sh, _ := exec.LookPath("sh")
	sh, _ = filepath.Abs(sh)
	if p.Request.Binaries["mapped"] != "/bin/sh" || p.Request.Binaries["sh"] != sh {
		t.Errorf("binaries %v", p.Request.Binaries)
	}
	if _, ok := p.Request.Binaries["nosuchbinary-modbay-xyz"]; ok {
		t.Error("an unresolved binary is present")
	}
	missing := strings.Join(p.Missing, "\n")
	if !strings.Contains(missing, "nothere") || !strings.Contains(missing, "nosuchbinary-modbay-xyz") || len(p.Missing) != 2 {
		t.Errorf("missing %q", p.Missing)
	}
	if got := p.Request.Grants.Subprocess; !slices.Equal(got, []string{"sh", "mapped"}) {
		t.Errorf("subprocess grants %v", got)
	}
	if p.Request.DeadlineMS != modproto.DefaultDeadlineMS || p.Request.MaxOutputBytes != modproto.DefaultMaxOutputBytes {
		t.Errorf("bounds %d %d", p.Request.DeadlineMS, p.Request.MaxOutputBytes)
	}
	b, _ := json.Marshal(p.Request)
	if !strings.Contains(string(b), `"network":[]`) || strings.Contains(string(b), "null") {
		t.Errorf("request JSON %s", b)
	}
}

func TestPlanInputValidation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("val", "good")
	m := f.load("val")
	_, err := f.host.Plan(m, "t.echo", json.RawMessage(`{"name":3,"count":0,"extra":true}`))
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("err %v", err)
	}
	if ie.Schema != "t.echo.request/v1" {
		t.Errorf("schema %q", ie.Schema)
	}
	paths := map[string]bool{}
	for _, v := range ie.Violations {
		paths[v.Path] = true
	}
	for _, p := range []string{"", "/name", "/count"} {
		if !paths[p] {
			t.Errorf("no violation at %q: %v", p, ie.Violations)
		}
	}
	if _, err := f.host.Plan(m, "t.nope", nil); !errors.Is(err, ErrUnknownCapability) {
		t.Errorf("unknown capability: %v", err)
	}
	if _, err := f.host.Plan(m, "t.echo", json.RawMessage(`{"name":`)); err == nil {
		t.Error("invalid JSON input was planned")
	}
}

func TestPlanApproval(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("app", "good")
	f.addModule("pub", "publisher")
	m := f.load("app")

	p, err := f.host.Plan(m, "t.echo", json.RawMessage(`{"name":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.NeedsApproval() {
		t.Errorf("a local free call needs approval: %q", p.Approval)
	}
	p, err = f.host.Plan(m, "t.net", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"reaches the network", "writes outside (external_writes)", "uses paid provider openai", "cost unknown before running"}
	if !slices.Equal(p.Approval, want) {
		t.Errorf("approval %q, want %q", p.Approval, want)
	}
	g := p.Request.Grants
	if !slices.Equal(g.Network, []string{"api.example"}) || !slices.Equal(g.PaidProviders, []string{"openai"}) || len(g.Credentials) != 0 || g.Publish {
		t.Errorf("grants %+v", g)
	}
	// Not approved: nothing runs.
	res, err := f.host.Run(ctxGuard(t), p, false, nil)
	if !errors.Is(err, ErrApprovalRequired) || res != nil {
		t.Fatalf("unapproved run: %v %+v", err, res)
	}
	if f.describeCount("app") != 1 {
		t.Error("something ran")
	}
	// Approved: the module receives the grants.
	res, err = f.host.Run(ctxGuard(t), p, true, nil)
	if err != nil || !res.OK() {
		t.Fatalf("approved run: %v %+v", err, res)
	}
	if !strings.Contains(string(res.Envelope.Result), `"network":["api.example"]`) {
		t.Errorf("the module saw %s", res.Envelope.Result)
	}

	// Credentials, when policy allows them, are granted and need approval.
	f.cfg.Policy.Credentials = []string{"API_KEY", "NOT_DECLARED"}
	p, _ = f.host.Plan(m, "t.echo", json.RawMessage(`{"name":"x"}`))
	if !slices.Equal(p.Approval, []string{"would be granted credentials API_KEY"}) || !slices.Equal(p.Request.Grants.Credentials, []string{"API_KEY"}) {
		t.Errorf("credentials: %q %v", p.Approval, p.Request.Grants.Credentials)
	}
	f.cfg.Policy.Credentials = nil

	// Policy ceilings withhold grants.
	f.cfg.Policy.DenyNetwork, f.cfg.Policy.DenyPaidProviders = true, true
	p, _ = f.host.Plan(m, "t.net", nil)
	if len(p.Request.Grants.Network) != 0 || len(p.Request.Grants.PaidProviders) != 0 {
		t.Errorf("denied grants given: %+v", p.Request.Grants)
	}
	f.cfg.Policy.DenyNetwork, f.cfg.Policy.DenyPaidProviders = false, false

	// Publish.
	pub := f.load("pub")
	p, _ = f.host.Plan(pub, "t.echo", json.RawMessage(`{"name":"x"}`))
	if !slices.Equal(p.Approval, []string{"may publish"}) || p.Request.Grants.Publish {
		t.Errorf("publish: %q %v", p.Approval, p.Request.Grants.Publish)
	}
	f.cfg.Policy.Publish = true
	if p, _ = f.host.Plan(pub, "t.echo", json.RawMessage(`{"name":"x"}`)); !p.Request.Grants.Publish {
		t.Error("publish allowed by policy was not granted")
	}

	// Policy pre-approval.
	f.cfg.Policy.PreApproved = []config.PreApproval{{Module: "app", Capability: "t.net"}}
	p, _ = f.host.Plan(m, "t.net", nil)
	if p.NeedsApproval() {
		t.Errorf("pre-approved call needs approval: %q", p.Approval)
	}
	if len(p.Request.Grants.Network) != 1 {
		t.Error("pre-approval lost the grants")
	}
}

func TestSessionApprovals(t *testing.T) {
	t.Parallel()
	d := &modproto.Descriptor{Module: "m", Capabilities: []modproto.Capability{
		{ID: "c", Summary: "s", Effects: modproto.Effects{Network: true, CostKnown: true}},
	}}
	d.Normalize()
	plan := func() *Plan {
		return &Plan{Module: &Module{ID: "m", Descriptor: d}, Capability: d.Capabilities[0], Approval: []string{"reaches the network"}}
	}
	var s SessionApprovals
	p := plan()
	if s.Covers(p) {
		t.Fatal("covered before allow")
	}
	s.Allow(p)
	if !s.Covers(plan()) {
		t.Error("the same call is not covered")
	}
	changed := plan()
	changed.Capability.Effects.ExternalWrites = true
	if s.Covers(changed) || ApprovalKey(changed) == ApprovalKey(p) {
		t.Error("a changed effect is still covered")
	}
	other := plan()
	other.Module = &Module{ID: "n"}
	if s.Covers(other) {
		t.Error("another module is covered")
	}
	if w := s.Why(changed); !strings.Contains(w, "effects changed") {
		t.Errorf("why for changed effects: %q", w)
	}
	// Another executable claiming the same id is asked again, saying so.
	impostor := plan()
	impostor.Module = &Module{ID: "m", Key: "/tmp/m/m", Exe: "/tmp/m/m", Descriptor: d}
	if s.Covers(impostor) || !strings.Contains(s.Why(impostor), "another executable claims m") {
		t.Errorf("an impostor: covered %v, why %q", s.Covers(impostor), s.Why(impostor))
	}
	if w := s.Why(plan()); w != "" {
		t.Errorf("a covered call says %q", w)
	}
}

// TestPlanWholeRequest: a capability whose request schema is the whole
// request (docs/protocol.md §4) gets its input and extra keys split, host-owned keys
// dropped, approval reasons for every effect, grants from the permissions
// and its root mapped; its schemas compile offline whatever their draft.
func TestPlanWholeRequest(t *testing.T) {
	t.Parallel()
	d := kitchenDescriptor(t)
	if v := modproto.ValidateDescriptor(d); len(v) > 0 {
		t.Fatalf("the kitchen fixture breaks docs/protocol.md §9: %v", v)
	}
	cfg, _ := config.Load(t.TempDir())
	h := NewHost(cfg)
	m := stubModule(t, "kitchen", d)
	p, err := h.Plan(m, "kitchen.tools.run", json.RawMessage(
		`{"tool":"plate_photo","input":{"dish":"tarte tatin"},"request_id":"req_evil","roots":{"x":{}},"async":false}`))
	if err != nil {
		t.Fatal(err)
	}
	if !p.WholeRequest {
		t.Fatal("kitchen.tools.run's schema is whole-request")
	}
	if string(p.Request.Input) != `{"dish":"tarte tatin"}` {
		t.Errorf("input %s", p.Request.Input)
	}
	if string(p.Request.Extra["tool"]) != `"plate_photo"` || string(p.Request.Extra["async"]) != "false" {
		t.Errorf("extra %v", p.Request.Extra)
	}
	for _, k := range []string{"request_id", "roots", "input"} {
		if _, ok := p.Request.Extra[k]; ok {
			t.Errorf("host-owned %s in Extra", k)
		}
	}
	var sent map[string]json.RawMessage
	b, _ := json.Marshal(p.Request)
	_ = json.Unmarshal(b, &sent)
	if string(sent["request_id"]) != `"`+p.Request.RequestID+`"` || string(sent["tool"]) != `"plate_photo"` {
		t.Errorf("request on the wire %s", b)
	}
	want := []string{"reaches the network", "writes outside (external_writes)",
		"may use paid providers photo_lab, voice_box, stock_house", "cost unknown before running"}
	if !slices.Equal(p.Approval, want) {
		t.Errorf("approval %q", p.Approval)
	}
	if len(p.Request.Grants.PaidProviders) != 3 || len(p.Request.Grants.Network) != 4 {
		t.Errorf("grants %+v", p.Request.Grants)
	}
	if p.Request.Roots["project_root"].Mode != "rw" {
		t.Errorf("project_root %+v", p.Request.Roots["project_root"])
	}
	// A missing required property of the whole request.
	_, err = h.Plan(m, "kitchen.tools.run", json.RawMessage(`{"input":{}}`))
	var ie *InputError
	if !errors.As(err, &ie) || ie.Violations[0].Path != "" || !strings.Contains(ie.Violations[0].Detail, "tool") {
		t.Errorf("missing tool: %v", err)
	}
	// A $ref into draft-07 definitions is followed.
	_, err = h.Plan(m, "kitchen.tools.run", json.RawMessage(`{"tool":"t","input":{},"seed":{"path":"a","digest":"md5:x"}}`))
	if !errors.As(err, &ie) || ie.Violations[0].Path != "/seed/digest" {
		t.Errorf("seed digest through $ref: %v", err)
	}
	// "required": null is read as no requirement.
	if p, err := h.Plan(m, "kitchen.tools.list", nil); err != nil || !p.WholeRequest {
		t.Errorf("kitchen.tools.list: %v", err)
	}
	// Every schema compiles (draft from $schema, null keywords, local
	// $refs), offline.
	checkSchemasCompile(t, d)
	// The poll capability is whole-request too: job_id goes to the root.
	p, err = h.Plan(m, "kitchen.jobs.status", json.RawMessage(`{"job_id":"job_1"}`))
	if err != nil || string(p.Request.Extra["job_id"]) != `"job_1"` {
		t.Errorf("poll plan: %v %v", err, p)
	}
}

// checkSchemasCompile fails t for each request, result or artifact schema
// of d that does not compile offline.
func checkSchemasCompile(t *testing.T, d *modproto.Descriptor) {
	t.Helper()
	for _, set := range []map[string]json.RawMessage{d.RequestSchemas, d.ResultSchemas, d.ArtifactSchemas} {
		for id, s := range set {
			if _, err := schema.ValidateInput(s, json.RawMessage(`{}`)); err != nil {
				t.Errorf("schema %s: %v", id, err)
			}
		}
	}
}

// TestCorpusFacetDescriptorPlans: the real facet descriptor keeps §9, its
// run capability plans as a whole request, and every one of its schemas
// compiles offline.
func TestCorpusFacetDescriptorPlans(t *testing.T) {
	t.Parallel()
	d := corpusFacetDescriptor(t)
	if v := modproto.ValidateDescriptor(d); len(v) > 0 {
		t.Fatalf("the facet fixture breaks docs/protocol.md §9: %v", v)
	}
	cfg, _ := config.Load(t.TempDir())
	m := stubModule(t, "xibodev.facet", d)
	p, err := NewHost(cfg).Plan(m, "creative.tools.run", json.RawMessage(`{"tool":"media_probe","input":{"path":"renders/final.mp4"}}`))
	if err != nil || !p.WholeRequest || string(p.Request.Input) != `{"path":"renders/final.mp4"}` {
		t.Fatalf("plan %v: %v", p, err)
	}
	checkSchemasCompile(t, d)
}

func TestPlanSchemaThatDoesNotCompile(t *testing.T) {
	t.Parallel()
	d := &modproto.Descriptor{Module: "m", Name: "M", Version: "1", ProtocolVersions: []string{modproto.ProtocolID},
		Capabilities:   []modproto.Capability{{ID: "c", Summary: "s", RequestSchema: "bad/v1", Effects: modproto.Effects{CostKnown: true}}},
		RequestSchemas: map[string]json.RawMessage{"bad/v1": json.RawMessage(`{"$ref":"https://example.com/x"}`)}}
	d.Normalize()
	cfg, _ := config.Load(t.TempDir())
	_, err := NewHost(cfg).Plan(stubModule(t, "m", d), "c", nil)
	if err == nil || !strings.Contains(err.Error(), `"bad/v1"`) {
		t.Errorf("err %v, want it to name the schema", err)
	}
}

func TestRunRequiresADescribedPlan(t *testing.T) {
	t.Parallel()
	cfg, _ := config.Load(t.TempDir())
	if _, err := NewHost(cfg).Run(context.Background(), &Plan{}, true, nil); err == nil {
		t.Error("a plan without a module ran")
	}
}
