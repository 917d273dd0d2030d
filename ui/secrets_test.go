package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"modbay/config"
	"modbay/modproto"
	"modbay/runner"
	"modbay/runner/runnertest"
	"modbay/ui/internal/uitest"
)

// leakyKey is the writeOnly value TestSecretEchoesMaskedOnScreen gives.
const leakyKey = "sk-live-4242&<x>"

// leakyResult runs, on a real host, an in-memory module that echoes its
// writeOnly api_key into its result, stderr, a job id, and its content
// blocks' ids, titles, media types and a host-written link; the times
// and staged paths are fixed so the screen can be compared.
func leakyResult(t *testing.T) (*runner.Plan, *runner.Result) {
	t.Helper()
	cfg, err := config.Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	host := runner.NewHost(cfg)
	d := &modproto.Descriptor{Module: "leaky", Name: "Leaky", Version: "1.0.0", ProtocolVersions: []string{modproto.ProtocolID},
		Capabilities: []modproto.Capability{{ID: "leak", Title: "Leak", Summary: "Echoes its key.", RequestSchema: "l/v1",
			ArtifactSchemas: []string{"l.block"}, Effects: modproto.Effects{Local: true, CostKnown: true}}},
		RequestSchemas:  map[string]json.RawMessage{"l/v1": json.RawMessage(`{"type":"object","properties":{"api_key":{"type":"string","writeOnly":true}}}`)},
		ArtifactSchemas: map[string]json.RawMessage{"l.block": json.RawMessage(`{}`)},
	}
	drv := runnertest.New(d, func(ctx context.Context, call *runner.Call) *runner.Reply {
		var in struct {
			Key string `json:"api_key"`
		}
		_ = json.Unmarshal(call.Request.Input, &in)
		k := in.Key
		block := func(id, media, title, data string) runner.ContentBlock {
			return runner.ContentBlock{Artifact: modproto.Artifact{ID: id, Kind: "l.block", MediaType: media, Title: title}, Data: []byte(data)}
		}
		link := block("link", "application/json", "Link", `{"type":"resource_link","uri":"test://x/`+k+`","name":"n-`+k+`"}`)
		link.HostWritten = true
		return &runner.Reply{
			Envelope: runnertest.OK(call.Request, "leaky", map[string]any{"echo": "key=" + k, "job": map[string]any{"job_id": "J" + k}}),
			Stderr:   "debug: key " + k + "\n", ExitCode: 0,
			Blocks: []runner.ContentBlock{
				block("a-"+k, "text/plain", "", "refused by its id"),
				block("t", "text/plain", "Report for "+k, "kept, its title masked"),
				block("m", "text/plain; charset="+k, "", "refused by its media type"),
				link,
			},
		}
	})
	host.AddSource(runnertest.Source{Drivers: []*runnertest.Driver{drv}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var mod *runner.Module
	for _, x := range host.Discover(ctx) {
		if x.ID == "leaky" {
			mod = x
		}
	}
	if mod == nil {
		t.Fatal("the in-memory module was not discovered")
	}
	p, err := host.Plan(mod, "leak", json.RawMessage(`{"api_key":"`+strings.ReplaceAll(leakyKey, "&", `\u0026`)+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := host.Run(ctx, p, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Started, res.Duration = uitest.Epoch, 12*time.Millisecond
	for i := range res.Artifacts {
		res.Artifacts[i].Staged = fmt.Sprintf("/home/u/.local/share/modbay/artifacts/sha256/00/%064d", i)
	}
	p.Request.RequestID, res.RequestID = "run-1", "run-1"
	return p, res
}

// TestSecretEchoesMaskedOnScreen: what the result screen shows of a run
// whose module echoed a secret into its artifacts' names holds no byte of
// it, at 80×24 and 200×60: the artifacts named after it are listed
// refused with the rule, the title masked, the rest kept.
func TestSecretEchoesMaskedOnScreen(t *testing.T) {
	p, res := leakyResult(t)
	if len(res.Artifacts) != 2 || len(res.Refused) != 2 {
		t.Fatalf("kept %d, refused %+v; want t and link kept, a- and m refused", len(res.Artifacts), res.Refused)
	}
	if b := res.Artifacts[0].Title; b != "Report for ‹masked: writeOnly /api_key›" {
		t.Errorf("kept title %q", b)
	}
	for _, s := range []struct{ w, h int }{{80, 24}, {200, 60}} {
		t.Run(fmt.Sprintf("%dx%d", s.w, s.h), func(t *testing.T) {
			m, _ := newTest(t, nil, s.w, s.h)
			m.keepRun(&runView{com: m.com, id: "run-1", plan: p, cancel: func() {}, started: uitest.Epoch, done: true, result: res})
			m.open(screenResult, "run-1")
			out := frame(t, m)
			all := ansi.Strip(m.result().content())
			for _, v := range []string{out, all} {
				if strings.Contains(v, "sk-live-4242") {
					t.Fatalf("the screen shows the secret:\n%s", v)
				}
			}
			if !strings.Contains(all, "‹masked: writeOnly /api_key›") || !strings.Contains(strings.Join(strings.Fields(all), " "), "holds a secret of the input") {
				t.Errorf("the result does not show the mask or the rule:\n%s", all)
			}
			golden.RequireEqual(t, []byte(out))
		})
	}
}

// TestSecretSplitAcrossStderrChunksMasked: a secret a module writes to
// stderr in two chunks ("live "+k[:5], then the rest and " tail") is
// masked on the run screen, which joins the chunks into one line: the
// runner holds back a chunk's end that begins a secret.
func TestSecretSplitAcrossStderrChunksMasked(t *testing.T) {
	const k = "KKKKsecKKK"
	cfg, err := config.Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	host := runner.NewHost(cfg)
	d := &modproto.Descriptor{Module: "split", Name: "Split", Version: "1.0.0", ProtocolVersions: []string{modproto.ProtocolID},
		Capabilities: []modproto.Capability{{ID: "say", Title: "Say", Summary: "Writes its key in two chunks.", RequestSchema: "s/v1",
			Effects: modproto.Effects{Local: true, CostKnown: true}}},
		RequestSchemas: map[string]json.RawMessage{"s/v1": json.RawMessage(`{"type":"object","properties":{"k":{"type":"string","writeOnly":true}}}`)},
	}
	drv := runnertest.New(d, func(ctx context.Context, call *runner.Call) *runner.Reply {
		call.Emit(runner.Event{Stderr: []byte("live " + k[:5])})
		call.Emit(runner.Event{Stderr: []byte(k[5:] + " tail\n")})
		call.Emit(runner.Event{Stderr: []byte("end " + k[:3])})
		return &runner.Reply{Envelope: runnertest.OK(call.Request, "split", map[string]any{}), Stderr: "live " + k + " tail\nend " + k[:3]}
	})
	host.AddSource(runnertest.Source{Drivers: []*runnertest.Driver{drv}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var mod *runner.Module
	for _, x := range host.Discover(ctx) {
		if x.ID == "split" {
			mod = x
		}
	}
	if mod == nil {
		t.Fatal("the in-memory module was not discovered")
	}
	p, err := host.Plan(mod, "say", json.RawMessage(`{"k":"`+k+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	var evs []runner.Event
	if _, err := host.Run(ctx, p, true, func(ev runner.Event) { evs = append(evs, ev) }); err != nil {
		t.Fatal(err)
	}
	m, _ := newTest(t, nil, 100, 30)
	rv := newRunView(m.com, p, func() {})
	m.keepRun(rv)
	m.push(&runScreen{com: m.com, keys: m.keys.Run, run: rv, sp: &m.spinner})
	for _, ev := range evs {
		m.Update(runEventMsg{id: rv.id, ev: ev})
	}
	f := frame(t, m)
	if strings.Contains(f, k[:5]) || !strings.Contains(f, "live ‹masked: writeOnly /k› tail") {
		t.Errorf("the run screen shows the split secret:\n%s", f)
	}
	if !strings.Contains(f, "end "+k[:3]) {
		t.Errorf("the held end of the last chunk is not shown:\n%s", f)
	}
}

// TestRefusedArtifactsListedOnce: a run with two refused artifacts (a real
// host's refusals of names holding a secret) lists each refusal once,
// under the artifacts with its reason; the host verdict counts them and
// repeats no reason.
func TestRefusedArtifactsListedOnce(t *testing.T) {
	p, res := leakyResult(t)
	m, _ := newTest(t, nil, 200, 60)
	m.keepRun(&runView{com: m.com, id: "run-1", plan: p, cancel: func() {}, started: uitest.Epoch, done: true, result: res})
	m.open(screenResult, "run-1")
	all := strings.Join(strings.Fields(ansi.Strip(m.result().content())), " ")
	for _, f := range res.Refused {
		if n := strings.Count(all, f.Reason); n != 1 {
			t.Errorf("refusal %q shown %d times, want once:\n%s", f.Reason, n, all)
		}
		if !strings.Contains(all, "✗ refused: "+f.Reason) {
			t.Errorf("refusal %q is not listed under the artifacts:\n%s", f.Reason, all)
		}
	}
	if !strings.Contains(all, "Detail 2 artifacts refused") || strings.Contains(all, "✗ execution.artifacts") {
		t.Errorf("the host verdict does not count the refusals, or lists them:\n%s", all)
	}
}
