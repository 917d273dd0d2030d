package mcp

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"modbay/config"
	"modbay/runner"
)

// TestServerEverythingSurface: server-everything's resources, templates,
// resource links, prompts with completions and subscriptions, end to
// end; its task-based tool is not offered.
func TestServerEverythingSurface(t *testing.T) {
	srv := everythingServer(t)
	f := newFixture(t, config.SandboxAuto, map[string]config.MCPServer{"everything": srv})
	m := f.module("everything")
	if m.Status != runner.StatusReady {
		t.Fatalf("server-everything: %s: %s\n%s", m.Status, m.Reason, m.Stderr)
	}
	d := f.src.Driver("everything")
	// The tools it adds once initialized (a list_changed before its first
	// tools/list answer) are in that answer: the list stays cached.
	if again := f.module("everything"); !again.Cached {
		t.Error("a list_changed sent while starting made the cached list stale")
	}
	if m.Descriptor.Capability("simulate-research-query") != nil ||
		!slices.ContainsFunc(m.Warnings, func(w string) bool { return strings.Contains(w, "simulate-research-query "+NeedsTasks) }) {
		t.Errorf("the task tool is offered or not named: %q", m.Warnings)
	}
	l, _, err := d.List(f.ctx)
	if err != nil || len(l.Resources) == 0 || len(l.Templates) < 2 || len(l.Prompts) < 4 {
		t.Fatalf("list: %+v, %v", l, err)
	}
	first := l.Resources[0]
	res := f.run(m, CapRead, `{"uri":`+quote(first.URI)+`}`, runner.RunOptions{})
	if !res.OK() || len(res.Artifacts) != 1 || res.Artifacts[0].Size == 0 {
		t.Fatalf("read %s: %+v %+v", first.URI, res.Host, res.Envelope)
	}
	// A template with its variable; a blob comes back as its bytes.
	res = f.run(m, TemplatePrefix+"Dynamic-Blob-Resource", `{"resourceId":"2"}`, runner.RunOptions{})
	if !res.OK() || len(res.Artifacts) != 1 {
		t.Fatalf("blob template: %+v %+v", res.Host, res.Envelope)
	}
	// A resource link of a tool result is followed by reading its URI.
	res = f.run(m, "get-resource-links", `{"count":2}`, runner.RunOptions{})
	var link *runner.VerifiedArtifact
	for i := range res.Artifacts {
		if res.Artifacts[i].Kind == KindLink {
			link = &res.Artifacts[i]
		}
	}
	if link == nil {
		t.Fatalf("no resource link: %+v", res.Artifacts)
	}
	b, _ := os.ReadFile(link.Staged)
	var rec struct {
		URI string `json:"uri"`
	}
	if json.Unmarshal(b, &rec) != nil || rec.URI == "" {
		t.Fatalf("link record %s", b)
	}
	if res := f.run(m, CapRead, `{"uri":`+quote(rec.URI)+`}`, runner.RunOptions{}); !res.OK() || len(res.Artifacts) == 0 {
		t.Errorf("following %s: %+v %+v", rec.URI, res.Host, res.Envelope)
	}
	// Completions narrow the second argument by the first.
	deps, _, err := d.Complete(f.ctx, PromptPrefix+"completable-prompt", "department", "E", nil)
	if err != nil || !slices.Equal(deps, []string{"Engineering"}) {
		t.Errorf("department completions %q, %v", deps, err)
	}
	people, _, err := d.Complete(f.ctx, PromptPrefix+"completable-prompt", "name", "", map[string]string{"department": "Sales"})
	if err != nil || !slices.Contains(people, "Eve") {
		t.Errorf("name completions %q, %v", people, err)
	}
	res = f.run(m, PromptPrefix+"completable-prompt", `{"department":"Sales","name":"Eve"}`, runner.RunOptions{})
	// The conversation, then the one message's text.
	if !res.OK() || len(res.Artifacts) != 2 || res.Artifacts[0].Kind != KindPrompt {
		t.Fatalf("prompt: %+v %+v", res.Host, res.Envelope)
	}
	for _, a := range res.Artifacts {
		if b, _ := os.ReadFile(a.Staged); !strings.Contains(string(b), "Eve") {
			t.Errorf("prompt %s text %q", a.ID, b)
		}
	}
	// A subscription's updates arrive once the server sends them.
	changes := make(chan runner.Change, 8)
	defer d.Watch(func(c runner.Change) {
		if c.Kind == runner.ChangeResource {
			select {
			case changes <- c:
			default:
			}
		}
	})()
	if err := d.Subscribe(f.ctx, first.URI); err != nil {
		t.Fatal(err)
	}
	f.run(m, "toggle-subscriber-updates", `{}`, runner.RunOptions{})
	select {
	case c := <-changes:
		if on, n, _ := d.Subscribed(c.URI); !on || n == 0 {
			t.Errorf("update of %s: subscribed %v, %d updates", c.URI, on, n)
		}
	case <-time.After(15 * time.Second):
		t.Error("no resource update within 15 s")
	}
}
