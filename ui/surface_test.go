package ui

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"modbay/modproto"
	"modbay/runner"
	"modbay/ui/internal/uitest"
)

// surfaceFake is a driver with resources, templates, prompts,
// completions and announced changes, as an MCP server's (mcp.Driver).
type surfaceFake struct {
	runner.Driver
	mu      sync.Mutex
	subs    map[string]bool
	updates map[string]int
	watch   func(runner.Change)
	// asked are the completion questions: "field=value others".
	asked []string
}

var surfaceResources = []runner.Resource{
	{URI: "test://a", Name: "hello", Title: "Hello text", MIMEType: "text/plain", Size: 16,
		Audience: []string{"user"}, Priority: 0.8, LastModified: "2026-01-12T15:00:58Z",
		Icons: []runner.Icon{{Source: "https://icons.example.org/h.png\x1b[2J", MIMEType: "image/png", Sizes: []string{"48x48"}}, {Source: "data: URI (60 B), not shown", Theme: "dark"}}},
	{URI: "test://evil", Name: "evil\x1b]0;pwned\x07\x1b[2J"},
}

func (f *surfaceFake) ReadCapability() string   { return "mcp.resources.read" }
func (f *surfaceFake) ConversationKind() string { return "mcp.prompt" }
func (f *surfaceFake) LinkKind() string         { return "mcp.resource_link" }
func (f *surfaceFake) SurfaceKind(id string) string {
	switch {
	case strings.HasPrefix(id, "mcp.resources.template."):
		return "template"
	case strings.HasPrefix(id, "mcp.prompts.get."):
		return "prompt"
	}
	return ""
}
func (f *surfaceFake) Resources(context.Context) ([]runner.Resource, bool, error) {
	return surfaceResources, false, nil
}
func (f *surfaceFake) CanSubscribe() bool { return true }
func (f *surfaceFake) Subscribe(_ context.Context, uri string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.subs[uri] = true
	return nil
}
func (f *surfaceFake) Unsubscribe(_ context.Context, uri string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.subs, uri)
	return nil
}
func (f *surfaceFake) Subscribed(uri string) (bool, int, time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.subs[uri], f.updates[uri], uitest.Epoch
}
func (f *surfaceFake) Watch(w func(runner.Change)) func() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.watch = w
	return func() {}
}
func (f *surfaceFake) announce(c runner.Change) {
	f.mu.Lock()
	w := f.watch
	if c.Kind == runner.ChangeResource {
		f.updates[c.URI]++
	}
	f.mu.Unlock()
	if w != nil {
		w(c)
	}
}
func (f *surfaceFake) Completes(id string) bool { return f.SurfaceKind(id) != "" }
func (f *surfaceFake) Complete(_ context.Context, _, arg, value string, others map[string]string) ([]string, bool, error) {
	f.mu.Lock()
	f.asked = append(f.asked, arg+"="+value+" "+strings.Join(slices.Sorted(maps.Keys(others)), ","))
	f.mu.Unlock()
	var out []string
	for _, n := range []string{"Ada", "Alan", "Alonzo", "Grace"} {
		if strings.HasPrefix(n, value) {
			out = append(out, n)
		}
	}
	return out, false, nil
}

// surfaceModule is the fixture module "fake" as an MCP server with f as
// its driver: its descriptor gains the hidden read, template and prompt
// capabilities.
func surfaceModule(t *testing.T, f *surfaceFake) *runner.Module {
	mod := *uitest.Modules(t)[1]
	d := *mod.Descriptor
	d.RequestSchemas = maps.Clone(d.RequestSchemas)
	args := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"style":{"type":"string"}},"required":["name"]}`)
	d.RequestSchemas["read.input"] = json.RawMessage(`{"type":"object","properties":{"uri":{"type":"string"}},"required":["uri"]}`)
	d.RequestSchemas["args.input"] = args
	d.Capabilities = append(slices.Clone(d.Capabilities),
		modproto.Capability{ID: "mcp.resources.read", Summary: "read", RequestSchema: "read.input", Hidden: true},
		modproto.Capability{ID: "mcp.resources.template.greeting", Title: "A greeting", Summary: "a template", RequestSchema: "args.input", Hidden: true},
		modproto.Capability{ID: "mcp.prompts.get.greet", Title: "Greet someone", Summary: "a prompt", RequestSchema: "args.input", Hidden: true})
	mod.Descriptor, mod.Driver, mod.EffectsAreHints = &d, f, true
	f.subs, f.updates = map[string]bool{}, map[string]int{}
	return &mod
}

// openSurface shows mod's resources view, listed.
func openSurface(t *testing.T, m *Model, h *harness, mod *runner.Module) {
	t.Helper()
	m.Update(modulesMsg{gen: m.gen, modules: []*runner.Module{mod}})
	press(m, "enter")
	if m.screen() != screenCaps {
		t.Fatalf("screen %v, want capabilities", m.screen())
	}
	h.key("R")
	if m.screen() != screenSurface {
		t.Fatalf("screen %v, want resources", m.screen())
	}
	h.until("the resources", func() bool { v, _ := find[*surfaceView](m); return !v.loading })
}

func init() {
	helpStates[screenSurface] = []helpState{
		{"resources", func(t *testing.T) *Model {
			m, _ := newTest(t, nil, 100, 30)
			openSurface(t, m, newHarness(t, m), surfaceModule(t, &surfaceFake{}))
			return m
		}},
		{"prompt", func(t *testing.T) *Model {
			m, _ := newTest(t, nil, 100, 30)
			openSurface(t, m, newHarness(t, m), surfaceModule(t, &surfaceFake{}))
			press(m, "end")
			return m
		}},
	}
}

// TestSurfaceView: the resources view lists resources (sanitized), then
// templates and prompts; s subscribes and an update is counted on the
// row; enter reads a resource through the read capability.
func TestSurfaceView(t *testing.T) {
	fb := &fakeBackend{plan: func(m *runner.Module, capID string, input json.RawMessage) (*runner.Plan, error) {
		p := uitest.Plan(t, m)
		p.Capability.ID, p.Request.Capability, p.Request.Input, p.Approval = capID, capID, input, nil
		return p, nil
	}}
	fb.result = uitest.Result(t, uitest.Plan(t, uitest.Module(t)), "invoke/success-with-artifact.json")
	m, _ := newTest(t, fb, 100, 30)
	h := newHarness(t, m)
	f := &surfaceFake{}
	openSurface(t, m, h, surfaceModule(t, f))
	out := frame(t, m)
	if strings.ContainsAny(out, "\x07") || strings.Contains(out, "\x1b]0;") {
		t.Errorf("a server's escape reached the screen:\n%q", out)
	}
	plain := ansi.Strip(out)
	for _, want := range []string{"resource Hello text", "template A greeting", "prompt   Greet someone", "test://a",
		"Audience    user", "Priority    0.80 (1 is most important)", "Modified    2026-01-12T15:00:58Z",
		"Icon 1      https://icons.example.org/h.png␛[2J", "(image/png, 48x48) · not fetched", "Icon 2      data: URI (60 B), not shown (dark)"} {
		if !strings.Contains(plain, want) {
			t.Errorf("view lacks %q:\n%s", want, plain)
		}
	}
	h.key("s")
	h.until("the subscription", func() bool {
		on, _, _ := f.Subscribed("test://a")
		return on && strings.Contains(ansi.Strip(frame(t, m)), "Subscribed")
	})
	f.announce(runner.Change{Kind: runner.ChangeResource, URI: "test://a"})
	h.until("the update counted", func() bool { return strings.Contains(ansi.Strip(frame(t, m)), "● 1 update") })
	h.key("enter")
	// The read's one artifact opens over its result.
	h.until("the read's artifact", func() bool { return m.screen() == screenViewer })
	h.key("esc")
	if m.screen() != screenResult {
		t.Errorf("esc from the read's artifact: %v, want its result", m.screen())
	}
	if _, _, inputs := fb.snapshot(); len(inputs) != 1 || inputs[0] != `{"uri":"test://a"}` {
		t.Errorf("read planned with %q", inputs)
	}
}

// TestSurfaceListChanged: a list_changed the server announces
// rediscovers the modules.
func TestSurfaceListChanged(t *testing.T) {
	m, _ := newTest(t, &fakeBackend{}, 100, 30)
	h := newHarness(t, m)
	f := &surfaceFake{}
	m.Update(modulesMsg{gen: m.gen, modules: []*runner.Module{surfaceModule(t, f)}})
	gen := m.gen
	f.announce(runner.Change{Kind: runner.ChangeTools})
	h.until("a rediscovery", func() bool { return m.gen > gen })
}

// TestFormCompletions: ctrl+space in a prompt's form asks the server for
// the focused field's values with the other fields set, fills the first,
// and cycles through the rest.
func TestFormCompletions(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	h := newHarness(t, m)
	f := &surfaceFake{}
	openSurface(t, m, h, surfaceModule(t, f))
	press(m, "end", "enter")
	if m.screen() != screenForm || m.flow.cap.ID != "mcp.prompts.get.greet" {
		t.Fatalf("screen %v capability %q", m.screen(), m.flow.cap.ID)
	}
	press(m, "tab")
	typeText(m, "x")
	press(m, "shift+tab")
	typeText(m, "A")
	ctrlSpace := tea.KeyPressMsg{Code: tea.KeySpace, Mod: tea.ModCtrl}
	_, cmd := m.Update(ctrlSpace)
	h.do(cmd)
	name := func() string { return m.form().Form().Fields()[0].Text }
	h.until("the first completion", func() bool { return name() == "Ada" })
	if !strings.Contains(m.form().Note(), "Completion 1 of 3") || !strings.Contains(ansi.Strip(frame(t, m)), "ctrl+space") {
		t.Errorf("note %q", m.form().Note())
	}
	m.Update(ctrlSpace)
	if name() != "Alan" {
		t.Errorf("the second press gives %q, want Alan", name())
	}
	if f.asked[0] != "name=A style" {
		t.Errorf("asked %q, want the field, its text and the other field set", f.asked)
	}
	if len(f.asked) != 1 {
		t.Errorf("cycling asked the server again: %q", f.asked)
	}
}

// TestFollowLink: f on a result's resource link reads the URI its staged
// record names; other artifacts offer no f.
func TestFollowLink(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	f := &surfaceFake{}
	mod := surfaceModule(t, f)
	p := uitest.Plan(t, mod)
	res := uitest.Result(t, p, "invoke/success-with-artifact.json")
	rec := filepath.Join(t.TempDir(), "link.json")
	if err := os.WriteFile(rec, []byte(`{"uri":"test://a","name":"hello"}`), 0o444); err != nil {
		t.Fatal(err)
	}
	link := res.Artifacts[0]
	link.ID, link.Kind, link.Staged = "content-1", "mcp.resource_link", rec
	res.Artifacts = append(res.Artifacts, link)
	r := newResultView(m.com, m.keys.Result, p, res, "")
	if r.followable() {
		t.Error("the first artifact is no link, yet f is offered")
	}
	r.Update(uitest.Key("down"))
	if !r.followable() || !strings.Contains(ansi.Strip(r.content()), "f reads the resource it links to") {
		t.Fatal("a link artifact offers no f")
	}
	act, _ := r.Update(uitest.Key("f"))
	cmd, ok := m.surfaceAct(act)
	if !ok || cmd == nil {
		t.Fatalf("f answered %#v", act)
	}
	if msg, _ := cmd().(linkMsg); msg.uri != "test://a" || msg.err != nil {
		t.Errorf("link read %+v", msg)
	}
}

// TestRefreshOpenScreens: a discovery that ends while a module's
// capability list and resources view are open gives them the module as
// described now (a prompt the server added appears), keeping the
// selection.
func TestRefreshOpenScreens(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	h := newHarness(t, m)
	f := &surfaceFake{}
	mod := surfaceModule(t, f)
	openSurface(t, m, h, mod)
	press(m, "down")
	nu := *mod
	d := *mod.Descriptor
	d.Capabilities = append(slices.Clone(d.Capabilities), modproto.Capability{ID: "mcp.prompts.get.added", Title: "Added prompt", Summary: "new", Hidden: true})
	nu.Descriptor = &d
	m.Update(modulesMsg{gen: m.gen, modules: []*runner.Module{&nu}})
	v, _ := find[*surfaceView](m)
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "Added prompt") {
		t.Errorf("the resources view lacks the added prompt:\n%s", out)
	}
	if it := v.selected(); it == nil || it.res == nil || it.res.URI != "test://evil" {
		t.Errorf("the selection moved: %+v", it)
	}
	if c := caps(m); c == nil || c.module != &nu {
		t.Error("the capability list beneath keeps the old module")
	}
}

// TestModuleListOpensSurface: R on an MCP server in the module list opens
// its resources and prompts, and its help says so; a module without them
// offers no R.
func TestModuleListOpensSurface(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	mod := surfaceModule(t, &surfaceFake{})
	m.Update(modulesMsg{gen: m.gen, modules: []*runner.Module{mod, uitest.Modules(t)[0]}})
	has := func() bool {
		return slices.ContainsFunc(m.modules.ShortHelp(), func(b key.Binding) bool { return b.Help().Key == "R" })
	}
	sel := m.modules.Selected()
	if hasSurface(sel) != has() {
		t.Fatalf("%s: R shown %v", sel.ID, has())
	}
	for m.modules.Selected() != mod {
		press(m, "down")
	}
	if !has() {
		t.Error("R is not offered on the server")
	}
	press(m, "R")
	if m.screen() != screenSurface {
		t.Errorf("R opens %v", m.screen())
	}
}

// TestPromptOpensConversation: a prompt's result that ends while its run
// is shown opens its conversation (the artifact of the driver's
// conversation kind, wherever it is among the artifacts) in the viewer,
// over the result; esc goes back to the result.
func TestPromptOpensConversation(t *testing.T) {
	fb := &fakeBackend{plan: func(m *runner.Module, capID string, input json.RawMessage) (*runner.Plan, error) {
		p := uitest.Plan(t, m)
		p.Capability.ID, p.Request.Capability, p.Request.Input, p.Approval = capID, capID, input, nil
		return p, nil
	}}
	res := uitest.Result(t, uitest.Plan(t, uitest.Module(t)), "invoke/success-with-artifact.json")
	conv := res.Artifacts[0]
	conv.ID, conv.Kind, conv.Title = "conversation", "mcp.prompt", "Prompt greet"
	res.Artifacts = append(res.Artifacts, conv)
	fb.result = res
	m, _ := newTest(t, fb, 100, 30)
	h := newHarness(t, m)
	openSurface(t, m, h, surfaceModule(t, &surfaceFake{}))
	press(m, "end", "enter")
	if m.screen() != screenForm || m.flow.cap.ID != "mcp.prompts.get.greet" {
		t.Fatalf("screen %v capability %q", m.screen(), m.flow.cap.ID)
	}
	typeText(m, "Ada")
	h.key("ctrl+s")
	h.until("the conversation", func() bool { return m.screen() == screenViewer })
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "Prompt greet") {
		t.Errorf("the viewer does not show the conversation:\n%s", out)
	}
	h.key("esc")
	if m.screen() != screenResult {
		t.Errorf("esc from the conversation: %v, want its result", m.screen())
	}
}
