package ui

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"modbay/runner"
	"modbay/schema"
	"modbay/ui/internal/uitest"
)

func init() {
	helpStates[screenSendTo] = []helpState{
		{"targets", func(t *testing.T) *Model { return sendToAt(t, 80, 24) }},
		{"fields", func(t *testing.T) *Model {
			m := sendToAt(t, 80, 24)
			press(m, "enter")
			return m
		}},
		{"fields building", func(t *testing.T) *Model {
			m := sendToAt(t, 80, 24)
			gateBuilds(t, m)
			press(m, "enter")
			return m
		}},
	}
}

// sendToAt opens the send-to screen from a result's artifact (the fake
// report's quarterly.json), with the fixture modules listed: echo, a copy
// of fake, declares the read root seed_in.
func sendToAt(t *testing.T, w, h int) *Model {
	t.Helper()
	m := submittedResult(t, "invoke/success-with-artifact.json", w, h)
	m.Update(modulesMsg{gen: m.gen, modules: testModules(t)})
	press(m, "t")
	if m.screen() != screenSendTo {
		t.Fatalf("t opened %v, want the send-to screen", m.screen())
	}
	return m
}

// testModules are the fixture modules (withModules lists them too).
func testModules(t *testing.T) []*runner.Module {
	t.Helper()
	m, _ := newTest(t, nil, 80, 24)
	withModules(t, m)
	return m.modules.modules
}

func TestGoldenSendTo(t *testing.T) {
	m := sendToAt(t, 100, 20)
	golden.RequireEqual(t, []byte(frame(t, m)))
	t.Run("fields", func(t *testing.T) {
		m := sendToAt(t, 100, 20)
		press(m, "enter")
		golden.RequireEqual(t, []byte(frame(t, m)))
	})
}

// planCapture is a backend whose PlanWith records the handoff asked.
type planCapture struct {
	fakeBackend
	mu      sync.Mutex
	handoff []runner.HandoffFile
	input   string
}

func (p *planCapture) PlanWith(m *runner.Module, capID string, input json.RawMessage, opts runner.PlanOptions) (*runner.Plan, error) {
	p.mu.Lock()
	p.handoff, p.input = opts.Handoff, string(input)
	p.mu.Unlock()
	return &runner.Plan{Module: m, Capability: *m.Descriptor.Capability(capID)}, nil
}

// TestSendToPrefillsTheFormAndHandsTheArtifact: t on the artifact, the
// echo module's fake.echo (root seed_in), its field "name": the form
// opens with name = quarterly.json and says what it hands; submitting
// plans with the artifact's staged bytes handed to seed_in; the producer
// itself is not offered; esc goes back a step at a time.
func TestSendToPrefillsTheFormAndHandsTheArtifact(t *testing.T) {
	m := sendToAt(t, 100, 30)
	s := m.top().(*sendToScreen)
	for _, tg := range s.targets {
		if tg.module.ID == "fake" {
			t.Fatalf("the producing module is offered: %+v", tg)
		}
	}
	if !strings.Contains(frame(t, m), "echo › fake.echo") {
		t.Fatalf("no echo target:\n%s", frame(t, m))
	}
	press(m, "enter") // echo › fake.echo → seed_in
	if s.target == nil || s.target.cap.ID != "fake.echo" || s.target.root != "seed_in" {
		t.Fatalf("target %+v", s.target)
	}
	press(m, "esc")
	if m.screen() != screenSendTo || s.target != nil {
		t.Fatal("esc on the fields goes back to the capabilities")
	}
	press(m, "enter", "enter") // the field "name"
	if m.screen() != screenForm {
		t.Fatalf("screen %v, want the form", m.screen())
	}
	out := frame(t, m)
	if !strings.Contains(out, "hands req_0000000000000000000000000000fake:artifact_quarterly to read root seed_in as") {
		t.Fatalf("the form must say what it hands:\n%s", out)
	}
	if v := string(m.form().Value()); !strings.Contains(v, `"name":"quarterly.json"`) {
		t.Fatalf("form value %s", v)
	}
	b := &planCapture{}
	m.backend = b
	h := newHarness(t, m)
	h.key("ctrl+s")
	h.until("the plan", func() bool { b.mu.Lock(); defer b.mu.Unlock(); return b.input != "" })
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.handoff) != 1 {
		t.Fatalf("handoff %+v", b.handoff)
	}
	ho := b.handoff[0]
	if ho.Root != "seed_in" || ho.Name != "quarterly.json" || !strings.HasSuffix(ho.Source, "/artifacts/6ee6c487e431b6d3f0e1b3e575a50a002ebfb422088db8c2f7c357ae5809dd8b") ||
		ho.Digest == "" || ho.Origin != "req_0000000000000000000000000000fake:artifact_quarterly" {
		t.Fatalf("handoff %+v", ho)
	}
	if !strings.Contains(b.input, `"name":"quarterly.json"`) {
		t.Fatalf("input %s", b.input)
	}
}

// TestSendToSaysWhatRootIsNeeded: a module declaring only the workspace
// as a read root cannot take a handed file; the empty list says what is
// needed (a read root other than workspace), and q quits like the other
// lists.
func TestSendToSaysWhatRootIsNeeded(t *testing.T) {
	m := submittedResult(t, "invoke/success-with-artifact.json", 60, 24) // narrow: no pane beside the list
	var mods []*runner.Module
	for _, mod := range testModules(t) {
		if mod.Descriptor == nil {
			continue
		}
		c := *mod
		d := *mod.Descriptor
		d.Permissions.FilesystemRead = []string{"workspace"}
		d.Permissions.FilesystemWrite = nil
		c.Descriptor = &d
		mods = append(mods, &c)
	}
	m.Update(modulesMsg{gen: m.gen, modules: mods})
	press(m, "t")
	if m.screen() != screenSendTo {
		t.Fatalf("t opened %v", m.screen())
	}
	out := frame(t, m)
	if flat := strings.Join(strings.Fields(out), " "); !strings.Contains(flat, "read root other than workspace") || strings.Contains(flat, "No other module declares a read root (") {
		t.Fatalf("the empty send-to list does not say a read root other than workspace is needed:\n%s", out)
	}
	if act, _ := m.top().Update(keyPress("q")); act != (actionQuit{}) {
		t.Fatalf("q on the send-to list: %#v, want quit", act)
	}
}

// TestSendToWithoutTargetSaysWhyWhole: at 80 columns the reason no module
// is offered is not cut.
func TestSendToWithoutTargetSaysWhyWhole(t *testing.T) {
	m := submittedResult(t, "invoke/success-with-artifact.json", 80, 24)
	var only []*runner.Module
	for _, mod := range m.modules.modules {
		if mod.ID != "echo" {
			only = append(only, mod)
		}
	}
	m.Update(modulesMsg{gen: m.gen, modules: only})
	press(m, "t")
	if m.screen() != screenSendTo {
		t.Fatalf("screen %v", m.screen())
	}
	got := strings.Join(strings.Fields(frame(t, m)), " ")
	if !strings.Contains(got, "to hand this file to.") {
		t.Fatalf("the reason is cut:\n%s", frame(t, m))
	}
}

// TestSendToFieldsBuildOffTheLoop: the field picker reads the target's
// fields from its form, built off the event loop: while it builds the
// picker says so and only esc (back, stopping the build) acts, a stale
// build is dropped; the form the picked field opens may build off the
// loop too, and is prefilled once it is there.
func TestSendToFieldsBuildOffTheLoop(t *testing.T) {
	m := sendToAt(t, 100, 30)
	release := gateBuilds(t, m)
	s := m.top().(*sendToScreen)
	_, cmd := m.Update(uitest.Key("enter")) // echo › fake.echo → seed_in
	building := "Building the form… (esc goes back)"
	if out := frame(t, m); s.target == nil || !strings.Contains(out, building) {
		t.Fatalf("target %v: want the fields still building, said so:\n%s", s.target, out)
	}
	press(m, "enter", "down", "enter")
	if m.screen() != screenSendTo || !strings.Contains(frame(t, m), building) {
		t.Fatalf("keys acted on fields not read yet: screen %v", m.screen())
	}
	press(m, "esc")
	if m.screen() != screenSendTo || s.target != nil {
		t.Fatal("esc while building does not go back to the capabilities")
	}
	stale := msgOf[formBuiltMsg](t, cmd)
	if !errors.Is(stale.err, schema.ErrCancelled) {
		t.Fatalf("esc did not stop the build: %v", stale.err)
	}
	m.Update(stale)
	if s.target != nil || s.list.Len() == 0 {
		t.Fatal("a stale build came back as the fields")
	}

	_, cmd = m.Update(uitest.Key("enter"))
	release()
	m.Update(msgOf[formBuiltMsg](t, cmd))
	if out := frame(t, m); strings.Contains(out, building) || !strings.Contains(out, "name") {
		t.Fatalf("the finished build is not the fields:\n%s", out)
	}
	release = gateBuilds(t, m) // the form screen's own build
	_, cmd = m.Update(uitest.Key("enter"))
	if m.screen() != screenForm || m.form() != nil {
		t.Fatalf("screen %v, form %v: want the form still building", m.screen(), m.form())
	}
	release()
	m.Update(msgOf[formBuiltMsg](t, cmd))
	if m.form() == nil || !strings.Contains(string(m.form().Value()), `"name":"quarterly.json"`) {
		t.Fatalf("the form built off the loop is not prefilled: %v", m.form())
	}
}

// TestSendToCostlySchema: a target whose request schema is too costly
// for a form (deep $ref doubling) offers only "none", naming the bound
// passed; its form then opens as JSON, saying so.
func TestSendToCostlySchema(t *testing.T) {
	m := submittedResult(t, "invoke/success-with-artifact.json", 100, 30)
	hostile := hostileSchema(t, "refs-doubling")
	var mods []*runner.Module
	for _, mod := range testModules(t) {
		if mod.ID == "echo" {
			c, d := *mod, *mod.Descriptor
			d.RequestSchemas = map[string]json.RawMessage{}
			for name := range mod.Descriptor.RequestSchemas {
				d.RequestSchemas[name] = hostile
			}
			c.Descriptor = &d
			mod = &c
		}
		mods = append(mods, mod)
	}
	m.Update(modulesMsg{gen: m.gen, modules: mods})
	press(m, "t", "enter")
	s, ok := m.top().(*sendToScreen)
	if !ok || s.target == nil || s.target.cap.ID != "fake.echo" {
		t.Fatalf("screen %v: want echo's fields", m.screen())
	}
	flat := strings.Join(strings.Fields(frame(t, m)), " ")
	if !strings.Contains(flat, "too costly for a form") || !strings.Contains(flat, "MaxSchemaExpansion") || s.list.Len() != 1 {
		t.Fatalf("the picker does not name the bound, or offers fields (%d):\n%s", s.list.Len(), frame(t, m))
	}
	press(m, "enter")
	if m.screen() != screenForm || m.form() == nil || !m.form().Form().Raw() {
		t.Fatalf("screen %v: want the form in JSON mode", m.screen())
	}
	if n := m.form().Note(); !strings.Contains(n, "too costly for a form") || !strings.Contains(n, "Hands ") {
		t.Fatalf("form note %q", n)
	}
}
