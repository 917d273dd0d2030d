package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"modbay/config"
	"modbay/modproto"
	"modbay/runner"
)

// devWait is the generous bound on one wait for the watcher and a
// describe: it only fails a test that would otherwise hang.
const devWait = 30 * time.Second

// untilWithin is harness.until with its own bound.
func (h *harness) untilWithin(d time.Duration, what string, cond func() bool) {
	h.t.Helper()
	deadline := time.After(d)
	for !cond() {
		select {
		case msg := <-h.msgs:
			switch msg := msg.(type) {
			case tea.BatchMsg:
				for _, c := range msg {
					h.do(c)
				}
			case spinner.TickMsg, runTickMsg:
			default:
				_, cmd := h.m.Update(msg)
				h.do(cmd)
			}
		case <-deadline:
			h.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// launcherModule writes a module directory parent/<id> whose executable is a
// launcher (exec /bin/sh impl.sh "$@", as an author's exec python3
// impl.py "$@") and returns the executable's path; writeImpl rewrites
// impl.sh.
func launcherModule(t *testing.T, parent, id string) (exe string, writeImpl func(caps, schemas string)) {
	t.Helper()
	dir := filepath.Join(parent, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe = filepath.Join(dir, id)
	if err := os.WriteFile(exe, []byte("#!/bin/sh\nexec /bin/sh \"${0%/*}/impl.sh\" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeImpl = func(caps, schemas string) {
		t.Helper()
		desc := `{"protocol":"xibodev.module/v1","module":"` + id + `","operation":"describe","request_id":"","ok":true,"warnings":[],` +
			`"execution":{"local":true,"network":false,"external_writes":false,"provider":"local","estimated_cost":0,"actual_cost":0,"artifacts":[]},` +
			`"result":{"module":"` + id + `","name":"Dev","version":"1","protocol_versions":["xibodev.module/v1"],"capabilities":[` + caps + `],"request_schemas":{` + schemas + `}}}`
		if caps == "" {
			desc = "not json at all"
		}
		invoke := `id=$(/usr/bin/sed -n 's/.*"request_id":"\([^"]*\)".*/\1/p' "$5")
printf '{"protocol":"xibodev.module/v1","module":"` + id + `","operation":"invoke","request_id":"%s","ok":true,"result":{},"warnings":[],"execution":{"local":true,"network":false,"external_writes":false,"provider":"local","estimated_cost":0,"actual_cost":0,"artifacts":[]}}' "$id"`
		script := fmt.Sprintf("if [ \"$2\" = describe ]; then cat <<'JSON'\n%s\nJSON\nexit 0\nfi\n%s\n", desc, invoke)
		// Written aside and renamed, as editors save: the launcher never
		// reads a half-written file.
		tmp := filepath.Join(dir, ".impl.sh.tmp")
		if err := os.WriteFile(tmp, []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, "impl.sh")); err != nil {
			t.Fatal(err)
		}
	}
	return exe, writeImpl
}

func devCap(id, schema, effects string) string {
	return `{"id":"` + id + `","title":"` + id + `","summary":"s","request_schema":"` + schema + `","effects":` + effects + `}`
}

const (
	localEffects = `{"local":true,"network":false,"external_writes":false,"provider":"local","cost_known":true}`
	netEffects   = `{"local":true,"network":true,"external_writes":false,"provider":"local","cost_known":true}`
	schemaV1     = `"s":{"type":"object","properties":{"name":{"type":"string"}}}`
	schemaV2     = `"s":{"type":"object","properties":{"name":{"type":"string"},"n":{"type":"integer"}},"required":["n"]}`
)

// devCockpit opens the cockpit in dev mode on exe over a real host and
// waits until the module is listed and watched.
func devCockpit(t *testing.T, exe string) (*Model, *harness, *runner.Host) {
	t.Helper()
	if _, err := os.Stat("/usr/bin/sed"); err != nil {
		t.Skip("needs /usr/bin/sed for the test module")
	}
	cfg, err := config.Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	host := runner.NewHost(cfg)
	m := New(host, Options{NoColor: true, Dev: exe})
	ctx, cancel := context.WithCancel(context.Background())
	m.ctx = ctx
	t.Cleanup(func() { cancel(); m.closeDev() })
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	h := newHarness(t, m)
	h.do(m.Init())
	h.untilWithin(devWait, "the dev module, watched", func() bool {
		return len(m.modules.modules) == 1 && m.dev.watch != nil
	})
	return m, h, host
}

// TestDevRedescribesWhenImplChanges: editing the file a launcher runs
// makes the cockpit describe the module again (the describe cache
// bypassed) and say what changed in the descriptor: a capability added,
// a request schema and effects changed. A descriptor made invalid gives
// the verdict and leaves the screens as they were.
func TestDevRedescribesWhenImplChanges(t *testing.T) {
	exe, writeImpl := launcherModule(t, t.TempDir(), "devmod")
	writeImpl(devCap("devmod.a", "s", localEffects), schemaV1)
	m, h, _ := devCockpit(t, exe)
	if mod := m.modules.modules[0]; mod.Status != runner.StatusReady || len(mod.Descriptor.Capabilities) != 1 {
		t.Fatalf("dev module %s %q, %d capabilities", mod.Status, mod.Reason, len(mod.Descriptor.Capabilities))
	}
	// Open the capability list, as a person would while editing.
	h.key("enter")
	if m.screen() != screenCaps {
		t.Fatalf("screen %v, want capabilities", m.screen())
	}

	writeImpl(devCap("devmod.a", "s", netEffects)+","+devCap("devmod.b", "s", localEffects), schemaV2)
	h.untilWithin(devWait, "the re-described module", func() bool { return len(m.dev.changes) > 0 })
	mod := m.modules.modules[0]
	if len(mod.Descriptor.Capabilities) != 2 || mod.Cached {
		t.Fatalf("re-described module: %d capabilities, cached %v", len(mod.Descriptor.Capabilities), mod.Cached)
	}
	got := strings.Join(m.dev.changes, "; ")
	for _, want := range []string{"capability devmod.b added", "devmod.a: request schema changed", "devmod.a: effects changed"} {
		if !strings.Contains(got, want) {
			t.Errorf("changes %q lack %q", got, want)
		}
	}
	if c, ok := m.top().(*capList); !ok || c.module != mod || len(c.list.Items()) != 2 {
		t.Errorf("the capability list does not show the new descriptor")
	}
	if hdr := ansi.Strip(m.header()); !strings.Contains(hdr, "dev: 3 descriptor changes in the last describe") {
		t.Errorf("header %q", hdr)
	}

	// Broken on purpose: the verdict, the screens as they were.
	stack := len(m.stack)
	writeImpl("", "")
	h.untilWithin(devWait, "the invalid describe", func() bool { return m.dev.invalid })
	if len(m.stack) != stack || m.screen() != screenCaps || m.modules.modules[0] != mod {
		t.Fatalf("an invalid describe changed the screens: %d screens, top %v", len(m.stack), m.screen())
	}
	if !strings.Contains(m.dev.notice, "the descriptor is now invalid") || !strings.Contains(m.dev.notice, "impl.sh") {
		t.Errorf("notice %q", m.dev.notice)
	}

	// Fixed again: the same descriptor as before the break.
	writeImpl(devCap("devmod.a", "s", netEffects)+","+devCap("devmod.b", "s", localEffects), schemaV2)
	h.untilWithin(devWait, "the fixed describe", func() bool { return !m.dev.invalid })
	if !strings.Contains(m.dev.notice, "the descriptor is valid again (ready), the same as the last valid one") {
		t.Errorf("notice %q", m.dev.notice)
	}
}

// TestDevBrokenAtStartBecomesValid: a module refused since dev started
// and then fixed is said to be valid now, with its status, not "the same".
func TestDevBrokenAtStartBecomesValid(t *testing.T) {
	exe, writeImpl := launcherModule(t, t.TempDir(), "devmod")
	writeImpl("", "")
	m, h, _ := devCockpit(t, exe)
	if mod := m.modules.modules[0]; mod.Status != runner.StatusBroken {
		t.Fatalf("dev module %s, want broken", mod.Status)
	}
	writeImpl(devCap("devmod.a", "s", localEffects), schemaV1)
	h.untilWithin(devWait, "the fixed describe", func() bool { return m.modules.modules[0].Status == runner.StatusReady })
	if !strings.Contains(m.dev.notice, "the descriptor is now valid (ready).") || len(m.dev.changes) != 0 {
		t.Errorf("notice %q, changes %q", m.dev.notice, m.dev.changes)
	}
}

// TestDevShowsSchemaLint: the dev module's detail lists its request
// schemas' lint findings, as validate does, and again after each edit.
func TestDevShowsSchemaLint(t *testing.T) {
	exe, writeImpl := launcherModule(t, t.TempDir(), "devmod")
	writeImpl(devCap("devmod.a", "s", localEffects), `"s":{"type":"object","properties":{"n":{"type":"integer","minimun":1}}}`)
	m, h, _ := devCockpit(t, exe)
	lint := func() string { return strings.Join(m.modules.modules[0].Warnings, "\n") }
	if !strings.Contains(lint(), `request schema: warning s /properties/n/minimun: "minimun" is not a JSON Schema keyword, so validators ignore it; did you mean "minimum"?`) {
		t.Fatalf("warnings %q", lint())
	}
	if d := ansi.Strip(m.View().Content); !strings.Contains(d, "Warnings (1)") || !strings.Contains(d, "minimun") {
		t.Errorf("the detail pane does not show the finding:\n%s", d)
	}
	writeImpl(devCap("devmod.a", "s", localEffects), `"s":{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`)
	h.untilWithin(devWait, "the fixed describe", func() bool { return len(m.dev.changes) > 0 })
	if w := lint(); w != "" {
		t.Errorf("warnings after the fix: %q", w)
	}
}

// TestDescriptorChanges: the diff names what changed, sanitized and
// bounded.
func TestDescriptorChanges(t *testing.T) {
	a := &modproto.Descriptor{Version: "1", Capabilities: []modproto.Capability{{ID: "x"}, {ID: "gone"}}}
	b := &modproto.Descriptor{Version: "2\x1b[31m", Capabilities: []modproto.Capability{{ID: "x", Title: "T"}, {ID: "new"}}}
	got := strings.Join(descriptorChanges(a, b), "; ")
	if got != "capability new added; capability gone removed; x: title or summary changed; version 1 → 2␛[31m" {
		t.Fatalf("changes %q", got)
	}
	// Name, skills, agent overlays and cancel_capability count too.
	c := &modproto.Descriptor{Name: "A", Version: "1", Capabilities: []modproto.Capability{{ID: "x"}}}
	d := &modproto.Descriptor{Name: "B\x1b[2J", Version: "1",
		Capabilities:  []modproto.Capability{{ID: "x", CancelCapability: "x.cancel", Skills: []string{"s"}}},
		Skills:        []modproto.Skill{{ID: "s", Path: "s/SKILL.md"}},
		AgentOverlays: []modproto.Overlay{{ID: "o", Path: "o.md"}}}
	got = strings.Join(descriptorChanges(c, d), "; ")
	if got != "x: cancel_capability changed; x: skills changed; name A → B␛[2J; skills changed; agent overlays changed" {
		t.Fatalf("changes %q", got)
	}
	var many []modproto.Capability
	for i := range 20 {
		many = append(many, modproto.Capability{ID: fmt.Sprint("c", i)})
	}
	if n := len(descriptorChanges(a, &modproto.Descriptor{Version: "1", Capabilities: many})); n != maxDevChanges {
		t.Fatalf("%d changes, want at most %d", n, maxDevChanges)
	}
}

// TestDevRefreshesOpenForm: an open form follows a request schema edit:
// the new field is there, the value that still fits is kept, the one the
// schema no longer has is dropped and named.
func TestDevRefreshesOpenForm(t *testing.T) {
	exe, writeImpl := launcherModule(t, t.TempDir(), "devform")
	writeImpl(devCap("devform.a", "s", localEffects),
		`"s":{"type":"object","properties":{"name":{"type":"string"},"old":{"type":"string"}}}`)
	m, h, _ := devCockpit(t, exe)
	h.key("enter") // the capability list
	h.key("enter") // the form
	f, ok := m.top().(*formScreen)
	if !ok {
		t.Fatalf("screen %v, want the form", m.screen())
	}
	if _, err := f.form.LoadInput([]byte(`{"name":"kept","old":"gone"}`), ""); err != nil {
		t.Fatal(err)
	}
	writeImpl(devCap("devform.a", "s", localEffects), schemaV2)
	h.untilWithin(devWait, "the re-described module", func() bool { return len(m.dev.changes) > 0 })
	nf, ok := m.top().(*formScreen)
	if !ok || nf == f {
		t.Fatalf("the form was not rebuilt for the new schema (top %v)", m.screen())
	}
	if got := string(nf.form.Value()); !strings.Contains(got, `"name":"kept"`) || strings.Contains(got, "gone") {
		t.Errorf("value %s: want name kept and old dropped", got)
	}
	out := ansi.Strip(nf.View())
	for _, w := range []string{"The request schema changed", "Dropped (no longer in the schema): old", "n"} {
		if !strings.Contains(out, w) {
			t.Errorf("no %q in the form:\n%s", w, out)
		}
	}
}
