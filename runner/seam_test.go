package runner_test

// These tests prove the driver seam from outside the package: an
// in-memory module (runnertest) goes through Host's discovery, planning,
// approval and grants, envelope and artifact checks and staging, with the
// same results a process module gets.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"modbay/config"
	"modbay/modproto"
	"modbay/runner"
	"modbay/runner/runnertest"
)

const memID = "mem"

// memDescriptor declares "greet" (local, schema-checked, produces
// "greeting" artifacts) and "fetch" (network: needs approval).
func memDescriptor() *modproto.Descriptor {
	return &modproto.Descriptor{
		Module: memID, Name: "In-memory", Version: "1.0.0",
		ProtocolVersions: []string{modproto.ProtocolID},
		Capabilities: []modproto.Capability{
			{ID: "greet", Title: "Greet", Summary: "Says hello.", RequestSchema: "greet.req",
				ArtifactSchemas: []string{"greeting"}, Effects: modproto.Effects{Local: true, CostKnown: true}},
			{ID: "fetch", Title: "Fetch", Summary: "Reaches the network.",
				Effects: modproto.Effects{Network: true, CostKnown: true}},
		},
		RequestSchemas: map[string]json.RawMessage{"greet.req": json.RawMessage(
			`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}`)},
		ResultSchemas:   map[string]json.RawMessage{},
		ArtifactSchemas: map[string]json.RawMessage{"greeting": json.RawMessage(`{"type":"object"}`)},
		Permissions:     modproto.Permissions{Network: []string{"example.org"}},
	}
}

// shoutSchema is what the module asks the person mid-call.
var shoutSchema = json.RawMessage(`{"type":"object","properties":{"shout":{"type":"boolean"}},"required":["shout"]}`)

// seam is a host in a temporary home serving one in-memory module.
type seam struct {
	t    *testing.T
	cfg  *config.Config
	host *runner.Host
	drv  *runnertest.Driver
	ctx  context.Context
}

func newSeam(t *testing.T, h runnertest.Handler) *seam {
	t.Helper()
	cfg, err := config.Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	host := runner.NewHost(cfg)
	d := runnertest.New(memDescriptor(), h)
	host.AddSource(runnertest.Source{Drivers: []*runnertest.Driver{d}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return &seam{t: t, cfg: cfg, host: host, drv: d, ctx: ctx}
}

// module discovers the in-memory module.
func (s *seam) module() *runner.Module {
	s.t.Helper()
	for _, m := range s.host.Discover(s.ctx) {
		if m.ID == memID {
			return m
		}
	}
	s.t.Fatal("the in-memory module was not discovered")
	return nil
}

func (s *seam) plan(m *runner.Module, capID, input string) *runner.Plan {
	s.t.Helper()
	p, err := s.host.Plan(m, capID, json.RawMessage(input))
	if err != nil {
		s.t.Fatal(err)
	}
	return p
}

// greet answers greet: it reports progress and a log line, asks whether
// to shout, and returns the greeting as a content block.
func greet(ctx context.Context, call *runner.Call) *runner.Reply {
	var in struct{ Name string }
	_ = json.Unmarshal(call.Request.Input, &in)
	half := 50.0
	call.Emit(runner.Event{Progress: &runner.Progress{Percent: &half, Message: "half way"}})
	call.Emit(runner.Event{Log: &runner.LogLine{Level: "info", Text: "asking"}})
	ans, err := call.Elicit(ctx, runner.Elicitation{Message: "Shout?", Schema: shoutSchema})
	if err != nil {
		return &runner.Reply{Envelope: runnertest.Fail(call.Request, memID, "elicitation", err.Error())}
	}
	text := "hello " + in.Name
	var a struct{ Shout bool }
	if ans.Action == runner.ElicitAccept && json.Unmarshal(ans.Content, &a) == nil && a.Shout {
		text = strings.ToUpper(text)
	}
	return &runner.Reply{
		Envelope: runnertest.OK(call.Request, memID, map[string]string{"said": text, "action": string(ans.Action)}),
		Blocks: []runner.ContentBlock{{
			Artifact: modproto.Artifact{ID: "greeting", Kind: "greeting", MediaType: "text/plain", Path: "greeting.txt"},
			Data:     []byte(text),
		}},
	}
}

func TestSeamDiscoverPlanRunStage(t *testing.T) {
	t.Parallel()
	s := newSeam(t, greet)
	m := s.module()
	if m.Key != "mem:mem" || m.Origin != runnertest.Origin || m.Status != runner.StatusReady || m.Driver != s.drv || m.Exe != "" {
		t.Fatalf("module: key %q origin %q status %s (%s) exe %q", m.Key, m.Origin, m.Status, m.Reason, m.Exe)
	}

	// Planning validates the input before any driver is reached.
	_, err := s.host.Plan(m, "greet", json.RawMessage(`{"name":3}`))
	var ie *runner.InputError
	if !errors.As(err, &ie) || s.drv.Invokes() != 0 {
		t.Fatalf("invalid input: %v (invokes %d)", err, s.drv.Invokes())
	}
	p := s.plan(m, "greet", `{"name":"ada"}`)
	if p.NeedsApproval() {
		t.Fatalf("a local call needs approval: %v", p.Approval)
	}

	var mu sync.Mutex
	var events []runner.Event
	var frames []runner.Frame
	var asked []runner.Elicitation
	res, err := s.host.RunWith(s.ctx, p, runner.RunOptions{
		Events: func(e runner.Event) { mu.Lock(); events = append(events, e); mu.Unlock() },
		Record: func(f runner.Frame) { mu.Lock(); frames = append(frames, f); mu.Unlock() },
		Elicit: func(_ context.Context, e runner.Elicitation) (runner.ElicitAnswer, error) {
			asked = append(asked, e)
			return runner.ElicitAnswer{Action: runner.ElicitAccept, Content: json.RawMessage(`{"shout":true}`)}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() {
		t.Fatalf("not ok: %s %+v", res.Code(), res.Host)
	}
	var out struct{ Said, Action string }
	if err := json.Unmarshal(res.Envelope.Result, &out); err != nil || out.Said != "HELLO ADA" || out.Action != "accept" {
		t.Fatalf("result %s (%v)", res.Envelope.Result, err)
	}

	// The elicitation reached the person with the call's id.
	if len(asked) != 1 || asked[0].RequestID != p.Request.RequestID || asked[0].Message != "Shout?" {
		t.Errorf("asked %+v", asked)
	}

	// The content block was written, verified and staged by the host.
	if len(res.Artifacts) != 1 {
		t.Fatalf("artifacts %+v", res.Artifacts)
	}
	a := res.Artifacts[0]
	sum := sha256.Sum256([]byte("HELLO ADA"))
	wantDigest := "sha256:" + hex.EncodeToString(sum[:])
	if a.Root != runner.ContentRoot || a.Digest != wantDigest || a.Size != 9 || a.Source != "" ||
		a.Presentation != modproto.ResolvePresentation("", "text/plain") {
		t.Errorf("artifact %+v", a)
	}
	if !strings.HasPrefix(a.Staged, s.cfg.ArtifactsDir()+string(filepath.Separator)) {
		t.Errorf("staged at %s, outside %s", a.Staged, s.cfg.ArtifactsDir())
	}
	if b, err := os.ReadFile(a.Staged); err != nil || string(b) != "HELLO ADA" {
		t.Errorf("staged content %q (%v)", b, err)
	}
	if fi, err := os.Stat(a.Staged); err != nil || fi.Mode().Perm() != 0o444 {
		t.Errorf("staged mode %v (%v)", fi, err)
	}

	// Live events carry the request id.
	mu.Lock()
	defer mu.Unlock()
	var sawProgress, sawLog, sawStaging bool
	for _, e := range events {
		if e.RequestID != p.Request.RequestID {
			t.Errorf("event under %q, want %q", e.RequestID, p.Request.RequestID)
		}
		sawProgress = sawProgress || (e.Progress != nil && *e.Progress.Percent == 50 && e.Progress.Message == "half way")
		sawLog = sawLog || (e.Log != nil && e.Log.Text == "asking")
		// The last event says the host checks the one artifact.
		sawStaging = e.Staging != nil && *e.Staging == 1
	}
	if !sawProgress || !sawLog || !sawStaging {
		t.Errorf("events %+v", events)
	}

	// The raw exchange was recorded: the request as sent, the envelope as
	// received, then the host's verify and stage phases.
	if len(frames) != 4 || frames[2].Kind != runner.FramePhase || frames[3].Kind != runner.FramePhase || frames[0].Direction != runner.FrameSent || frames[1].Direction != runner.FrameReceived {
		t.Fatalf("frames %+v", frames)
	}
	var sent modproto.Request
	if err := json.Unmarshal(frames[0].Data, &sent); err != nil || sent.RequestID != p.Request.RequestID || string(sent.Input) != `{"name":"ada"}` {
		t.Errorf("recorded request %s (%v)", frames[0].Data, err)
	}
	if string(frames[1].Data) != string(res.Stdout) || frames[1].RequestID != p.Request.RequestID || frames[1].At.IsZero() {
		t.Errorf("recorded reply %+v", frames[1])
	}
}

func TestSeamApprovalAndGrants(t *testing.T) {
	t.Parallel()
	var granted modproto.Grants
	s := newSeam(t, func(_ context.Context, call *runner.Call) *runner.Reply {
		granted = call.Request.Grants
		return &runner.Reply{Envelope: runnertest.OK(call.Request, memID, map[string]bool{"fetched": true})}
	})
	m := s.module()
	p := s.plan(m, "fetch", `{}`)
	if !p.NeedsApproval() || !slices.Contains(p.Approval, "reaches the network") {
		t.Fatalf("approval %v", p.Approval)
	}
	if !slices.Equal(p.Request.Grants.Network, []string{"example.org"}) {
		t.Fatalf("grants %+v", p.Request.Grants)
	}
	if _, err := s.host.Run(s.ctx, p, false, nil); !errors.Is(err, runner.ErrApprovalRequired) || s.drv.Invokes() != 0 {
		t.Fatalf("unapproved: %v, invokes %d", err, s.drv.Invokes())
	}
	res, err := s.host.Run(s.ctx, p, true, nil)
	if err != nil || !res.OK() || !slices.Equal(granted.Network, []string{"example.org"}) {
		t.Fatalf("approved: %v %+v, granted %+v", err, res, granted)
	}

	// Policy caps the grants and pre-approves, whatever the driver.
	s.cfg.Policy.DenyNetwork = true
	s.cfg.Policy.PreApproved = []config.PreApproval{{Module: memID, Capability: "fetch"}}
	p = s.plan(m, "fetch", `{}`)
	if p.NeedsApproval() || len(p.Request.Grants.Network) != 0 {
		t.Fatalf("under policy: approval %v, grants %+v", p.Approval, p.Request.Grants)
	}
	if res, err := s.host.Run(s.ctx, p, false, nil); err != nil || !res.OK() || len(granted.Network) != 0 {
		t.Fatalf("pre-approved: %v %+v, granted %+v", err, res, granted)
	}
}

func TestSeamElicitationRules(t *testing.T) {
	t.Parallel()
	type outcome struct {
		ans runner.ElicitAnswer
		err error
	}
	var got outcome
	var ask runner.Elicitation
	s := newSeam(t, func(ctx context.Context, call *runner.Call) *runner.Reply {
		got.ans, got.err = call.Elicit(ctx, ask)
		return &runner.Reply{Envelope: runnertest.OK(call.Request, memID, map[string]bool{})}
	})
	m := s.module()
	run := func(e runner.Elicitation, answer runner.Elicitor) outcome {
		t.Helper()
		ask, got = e, outcome{}
		res, err := s.host.RunWith(s.ctx, s.plan(m, "greet", `{"name":"x"}`), runner.RunOptions{Elicit: answer})
		if err != nil || !res.OK() {
			t.Fatalf("run: %v %+v", err, res)
		}
		return got
	}
	answer := func(a runner.ElicitAnswer) runner.Elicitor {
		return func(context.Context, runner.Elicitation) (runner.ElicitAnswer, error) { return a, nil }
	}
	shout := runner.Elicitation{Message: "Shout?", Schema: shoutSchema}

	if o := run(shout, nil); o.ans.Action != runner.ElicitDecline || !errors.Is(o.err, runner.ErrNoOneToAsk) {
		t.Errorf("no one to ask: %+v", o)
	}
	o := run(shout, answer(runner.ElicitAnswer{Action: runner.ElicitAccept, Content: json.RawMessage(`{"shout":"yes"}`)}))
	var ie *runner.InputError
	if o.ans.Action != runner.ElicitCancel || !errors.As(o.err, &ie) || len(o.ans.Content) != 0 {
		t.Errorf("an answer against the schema reached the module: %+v", o)
	}
	if o := run(shout, answer(runner.ElicitAnswer{Action: "maybe"})); o.ans.Action != runner.ElicitCancel || o.err == nil {
		t.Errorf("unknown action: %+v", o)
	}
	called := false
	huge := runner.Elicitation{Message: strings.Repeat("x", runner.MaxElicitationBytes+1)}
	o = run(huge, func(context.Context, runner.Elicitation) (runner.ElicitAnswer, error) {
		called = true
		return runner.ElicitAnswer{Action: runner.ElicitAccept}, nil
	})
	if called || o.ans.Action != runner.ElicitDecline || o.err == nil {
		t.Errorf("an oversized question reached the person (%v): %+v", called, o)
	}
	if o := run(shout, answer(runner.ElicitAnswer{Action: runner.ElicitDecline, Content: json.RawMessage(`{"shout":true}`)})); o.ans.Action != runner.ElicitDecline || o.ans.Content != nil {
		t.Errorf("decline: %+v", o)
	}
}

func TestSeamCancellation(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	var sawCtx error
	s := newSeam(t, func(ctx context.Context, call *runner.Call) *runner.Reply {
		close(started)
		<-ctx.Done()
		sawCtx = ctx.Err()
		return &runner.Reply{Failure: &runner.HostError{Code: modproto.CodeCancelled, Detail: "cancelled"},
			Envelope: runnertest.OK(call.Request, memID, map[string]bool{})}
	})
	m := s.module()
	p := s.plan(m, "greet", `{"name":"x"}`)
	ctx, cancel := context.WithCancel(s.ctx)
	go func() { <-started; cancel() }()
	res, err := s.host.Run(ctx, p, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Code() != modproto.CodeCancelled || res.Envelope != nil || len(res.Artifacts) != 0 || !errors.Is(sawCtx, context.Canceled) {
		t.Fatalf("cancelled run: code %q envelope %v ctx %v", res.Code(), res.Envelope, sawCtx)
	}
}

func TestSeamBrokenLifecycle(t *testing.T) {
	t.Parallel()
	s := newSeam(t, greet)
	m := s.module()
	p := s.plan(m, "greet", `{"name":"x"}`)

	s.drv.SetStatus(runner.Lifecycle{State: runner.LifecycleBroken, Reason: "server exited (status 2)", StderrTail: "panic: boom\n"})
	res, err := s.host.Run(s.ctx, p, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Code() != modproto.CodeHostSpawnFailed || !strings.Contains(res.Host.Detail, "server exited (status 2)") ||
		res.Stderr != "panic: boom\n" || s.drv.Invokes() != 0 {
		t.Fatalf("broken driver: %+v stderr %q invokes %d", res.Host, res.Stderr, s.drv.Invokes())
	}
	describes := s.drv.Describes()
	if b := s.module(); b.Status != runner.StatusBroken || !strings.Contains(b.Reason, "broken: server exited") ||
		b.Stderr != "panic: boom\n" || s.drv.Describes() != describes {
		t.Fatalf("rediscovered: %s %q stderr %q", b.Status, b.Reason, b.Stderr)
	}
	if _, err := s.host.Plan(s.module(), "greet", json.RawMessage(`{"name":"x"}`)); !errors.Is(err, runner.ErrBroken) {
		t.Errorf("plan of a broken module: %v", err)
	}

	_ = s.drv.Close()
	if res, _ := s.host.Run(s.ctx, p, false, nil); res == nil || res.Code() != modproto.CodeHostSpawnFailed || !strings.Contains(res.Host.Detail, "closed") {
		t.Fatalf("closed driver: %+v", res)
	}
}

// TestSeamContentBlockChecks: a content block is judged by the same rules
// as a file: declared kinds, relative paths, digest, size, the output
// ceiling; and a module's own artifact cannot reach the content root.
func TestSeamContentBlockChecks(t *testing.T) {
	t.Parallel()
	block := func(mod func(*runner.ContentBlock)) runner.ContentBlock {
		b := runner.ContentBlock{Artifact: modproto.Artifact{ID: "g", Kind: "greeting", MediaType: "text/plain"}, Data: []byte("hi")}
		if mod != nil {
			mod(&b)
		}
		return b
	}
	cases := []struct {
		name   string
		blocks []runner.ContentBlock
		file   *modproto.Artifact
		max    int
		code   string
		detail string
		good   string // the id verified beside a refused one
		whole  bool   // refused before any artifact is judged
	}{
		{name: "fine", blocks: []runner.ContentBlock{block(nil), block(func(b *runner.ContentBlock) { b.Artifact.ID = "h" })}},
		{name: "undeclared kind", blocks: []runner.ContentBlock{block(func(b *runner.ContentBlock) { b.Artifact.Kind = "other" })},
			code: modproto.CodeHostProtocolViolation, detail: "artifact_schemas", whole: true},
		{name: "wrong digest", blocks: []runner.ContentBlock{block(func(b *runner.ContentBlock) {
			b.Artifact.Digest = "sha256:" + strings.Repeat("0", 64)
		})}, code: modproto.CodeHostProtocolViolation, detail: "hashes to"},
		{name: "one wrong digest among good", blocks: []runner.ContentBlock{block(nil), block(func(b *runner.ContentBlock) {
			b.Artifact.ID, b.Data, b.Artifact.Digest = "h", []byte("ho"), "sha256:"+strings.Repeat("0", 64)
		})}, code: modproto.CodeHostProtocolViolation, detail: "hashes to", good: "g"},
		{name: "wrong size", blocks: []runner.ContentBlock{block(func(b *runner.ContentBlock) { b.Artifact.Bytes = 7 })},
			code: modproto.CodeHostProtocolViolation, detail: "bytes is 7"},
		{name: "escaping path", blocks: []runner.ContentBlock{block(func(b *runner.ContentBlock) { b.Artifact.Path = "../out.txt" })},
			code: modproto.CodePathOutsideRoot, detail: `path "../out.txt" escapes root "content"`},
		{name: "duplicate path", blocks: []runner.ContentBlock{
			block(func(b *runner.ContentBlock) { b.Artifact.Path = "same" }),
			block(func(b *runner.ContentBlock) { b.Artifact.ID, b.Artifact.Path = "h", "same" })},
			code: modproto.CodeHostProtocolViolation, detail: "already has path"},
		{name: "over the ceiling", blocks: []runner.ContentBlock{block(func(b *runner.ContentBlock) { b.Data = make([]byte, 4096) })},
			max: 2048, code: modproto.CodeHostOutputTooLarge, detail: "max_output_bytes", whole: true},
		{name: "file naming the content root", file: &modproto.Artifact{ID: "f", Kind: "greeting", Root: runner.ContentRoot,
			Path: "block-0", MediaType: "text/plain", Digest: "sha256:" + strings.Repeat("a", 64)},
			blocks: []runner.ContentBlock{block(nil)}, code: modproto.CodePathOutsideRoot, detail: "execution.artifacts[0]: artifact \"f\": root \"content\" was not supplied", good: "g"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newSeam(t, func(_ context.Context, call *runner.Call) *runner.Reply {
				var files []modproto.Artifact
				if tc.file != nil {
					files = append(files, *tc.file)
				}
				return &runner.Reply{Envelope: runnertest.OK(call.Request, memID, map[string]bool{}, files...), Blocks: tc.blocks}
			})
			p := s.plan(s.module(), "greet", `{"name":"x"}`)
			if tc.max > 0 {
				p.Request.MaxOutputBytes = tc.max
			}
			res, err := s.host.Run(s.ctx, p, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Code() != tc.code {
				t.Fatalf("code %q, want %q (%+v)", res.Code(), tc.code, res.Host)
			}
			if tc.code == "" {
				if len(res.Artifacts) != len(tc.blocks) || res.Artifacts[1].Path != "block-1" {
					t.Fatalf("artifacts %+v", res.Artifacts)
				}
				return
			}
			if !strings.Contains(res.Host.Detail, tc.detail) {
				t.Errorf("detail %q, want it to say %q", res.Host.Detail, tc.detail)
			}
			// One bad artifact does not hide the good ones: the refused are
			// listed with their reason, the verified still staged.
			if !tc.whole && (len(res.Refused) == 0 || res.Refused[0].Reason == "") {
				t.Errorf("refused %+v, want the failed artifact listed with its reason", res.Refused)
			}
			for _, a := range res.Artifacts {
				for _, f := range res.Refused {
					if a.ID == f.ID {
						t.Errorf("artifact %q is both verified and refused", a.ID)
					}
				}
			}
			if tc.good != "" && (len(res.Artifacts) != 1 || res.Artifacts[0].ID != tc.good) {
				t.Errorf("artifacts %+v, want %q verified beside the refused", res.Artifacts, tc.good)
			}
			if entries, _ := os.ReadDir(filepath.Join(s.cfg.ArtifactsDir(), "sha256")); len(entries) != len(res.Artifacts) {
				t.Errorf("staged %v, want only the verified %v", entries, res.Artifacts)
			}
		})
	}
}

// TestLoadDescribesOnlyItsSource: loading a module by id describes the
// candidates that claim that id (or claim none), never a neighbour that
// claims another: one broken server costs nothing to an invoke of another.
func TestLoadDescribesOnlyItsSource(t *testing.T) {
	cfg, err := config.Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	host := runner.NewHost(cfg)
	mine := runnertest.New(memDescriptor(), nil)
	other := memDescriptor()
	other.Module, other.Name = "neighbour", "neighbour"
	neighbour := runnertest.New(other, nil)
	host.AddSource(runnertest.Source{Drivers: []*runnertest.Driver{neighbour, mine}})
	m, err := host.Load(context.Background(), memID)
	if err != nil || m.ID != memID {
		t.Fatalf("load %s: %v %+v", memID, err, m)
	}
	if n := neighbour.Describes(); n != 0 {
		t.Errorf("loading %s described its neighbour %d times", memID, n)
	}
}
