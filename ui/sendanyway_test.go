package ui

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"modbay/config"
	"modbay/modproto"
	"modbay/runner"
	"modbay/runner/runnertest"
)

// TestSendAnywaySendsANumberNoReaderCanHold: on a real host, 1e999 typed
// in a plain number field is marked on the first ctrl+s; the second
// ctrl+s sends it exactly as typed, like any other finding ("send
// anyway"), and the run reaches the module.
func TestSendAnywaySendsANumberNoReaderCanHold(t *testing.T) {
	d := &modproto.Descriptor{Module: "num", Name: "Num", Version: "1", ProtocolVersions: []string{modproto.ProtocolID},
		Capabilities: []modproto.Capability{{ID: "num.go", Summary: "takes a number", RequestSchema: "n/v1",
			Effects: modproto.Effects{CostKnown: true}}},
		RequestSchemas: map[string]json.RawMessage{"n/v1": json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}}}`)}}
	d.Normalize()
	var mu sync.Mutex
	var got []byte
	drv := runnertest.New(d, func(ctx context.Context, call *runner.Call) *runner.Reply {
		mu.Lock()
		got = append([]byte(nil), call.Request.Input...)
		mu.Unlock()
		return &runner.Reply{Envelope: runnertest.OK(call.Request, "num", map[string]any{"ok": true}), ExitCode: -1}
	})
	cfg, err := config.Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	host := runner.NewHost(cfg)
	host.AddSource(runnertest.Source{Drivers: []*runnertest.Driver{drv}})
	m := New(host, Options{NoColor: true})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	m.ctx = ctx
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	h := newHarness(t, m)
	h.do(m.Init())
	h.untilWithin(devWait, "the module list", func() bool {
		if m.modules.discovering {
			return false
		}
		for _, mod := range m.modules.modules {
			if mod.ID == "num" {
				return true
			}
		}
		return false
	})
	for range m.modules.modules {
		if sel := m.modules.Selected(); sel != nil && sel.ID == "num" {
			break
		}
		h.key("down")
	}
	h.key("enter")
	h.key("enter")
	if m.screen() != screenForm || m.flow.module.ID != "num" {
		t.Fatalf("screen %v, want num's form", m.screen())
	}
	typeText(m, "1e999")
	h.key("ctrl+s")
	if note := m.form().Note(); !strings.Contains(note, "again sends it anyway") {
		t.Fatalf("first ctrl+s: note %q", note)
	}
	h.key("ctrl+s")
	h.untilWithin(devWait, "the result or a refusal", func() bool {
		return m.screen() == screenResult || strings.Contains(m.form().Note(), "refused")
	})
	if m.screen() != screenResult {
		t.Fatalf("send anyway did not run: %q", m.form().Note())
	}
	// The result says the input was sent unchecked (its repeat through
	// invoke would be refused).
	if v := m.View().Content; !strings.Contains(v, "sent anyway, with the problems the form found (not checked when sent)") {
		t.Errorf("the result does not say the input was sent anyway:\n%s", v)
	}
	mu.Lock()
	defer mu.Unlock()
	if string(got) != `{"n":1e999}` {
		t.Fatalf("the module got %s, want the input exactly as typed", got)
	}
}
