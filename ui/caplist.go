package ui

import (
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
	"modbay/ui/common"
	"modbay/ui/form"
)

// capAction is what the capability list asks of the root model.
type capAction interface{ isCapAction() }

// capOpen opens the form of a capability.
type capOpen struct{ cap modproto.Capability }

// capBack returns to the module list.
type capBack struct{}

func (capOpen) isCapAction() {}
func (capBack) isCapAction() {}

// capList lists one module's capabilities with the selected one's detail.
type capList struct {
	com    *common.Common
	keys   ListKeyMap
	module *runner.Module
	cursor int
	width  int
	height int
	detail detailScroll
}

func newCapList(com *common.Common, keys ListKeyMap, m *runner.Module) *capList {
	return &capList{com: com, keys: keys, module: m}
}

func (c *capList) caps() []modproto.Capability {
	if c.module.Descriptor == nil {
		return nil
	}
	return c.module.Descriptor.Capabilities
}

// SetSize sets the screen area.
func (c *capList) SetSize(w, h int) { c.width, c.height = w, h }

// Update handles a key.
func (c *capList) Update(msg tea.Msg) (capAction, tea.Cmd) {
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	caps := c.caps()
	prev := c.cursor
	switch {
	case key.Matches(kp, c.keys.Up):
		c.cursor = max(0, c.cursor-1)
	case key.Matches(kp, c.keys.Down):
		c.cursor = min(max(len(caps)-1, 0), c.cursor+1)
	case c.detail.Update(kp, c.keys):
	case key.Matches(kp, c.keys.Back):
		return capBack{}, nil
	case key.Matches(kp, c.keys.Open):
		if c.cursor < len(caps) {
			return capOpen{cap: caps[c.cursor]}, nil
		}
	}
	if c.cursor != prev {
		c.detail.off = 0
	}
	return nil, nil
}

// ShortHelp returns the bindings that apply.
func (c *capList) ShortHelp() []key.Binding {
	b := []key.Binding{c.keys.Up, c.keys.Down, c.keys.Open, c.keys.Back}
	if c.detail.above+c.detail.below > 0 {
		b = append(b, c.keys.DetailDown)
	}
	return b
}

// View draws the list and the selected capability's detail.
func (c *capList) View() string {
	st := c.com.Styles
	caps := c.caps()
	if len(caps) == 0 {
		return st.Muted.Render("This module declares no capabilities.")
	}
	var status string
	switch c.module.Status {
	case runner.StatusDisabled, runner.StatusBroken:
		status = st.Warning.Render(common.Trunc(fmt.Sprintf("This module is %s: its capabilities cannot be run.", c.module.Status), c.width))
	}
	h := c.height
	if status != "" {
		h--
	}
	rows := func(w, h int) []string {
		start := scrollStart(c.cursor, len(caps), h)
		var out []string
		for i := start; i < len(caps) && len(out) < h; i++ {
			cp := caps[i]
			sel := i == c.cursor
			t := render.SanitizeLine(titleOr(cp.Title, cp.ID))
			if sel {
				t = st.Selected.Render(t)
			}
			out = append(out, common.Trunc(st.Cursor(sel)+t+" "+st.ID.Render(render.SanitizeLine(cp.ID)), w))
		}
		return out
	}
	detail := capDetail(c.com, c.module, caps[min(c.cursor, len(caps)-1)], detailWidth(c.com, c.width))
	out := splitPane(c.com, c.width, h, rows, detail, len(caps), &c.detail)
	if status != "" {
		out = status + "\n" + out
	}
	return out
}

// capDetail describes one capability: summary, effects, inputs, artifacts.
func capDetail(com *common.Common, m *runner.Module, cp modproto.Capability, w int) string {
	st := com.Styles
	b := detailBuilder{com: com, w: w}
	b.line(st.Title.Render(render.SanitizeLine(titleOr(cp.Title, cp.ID))))
	b.kv("ID", cp.ID)
	b.kv("Summary", cp.Summary)
	b.kv("Effects", strings.Join(render.EffectBadges(cp.Effects, cp.LongRunning), " · "))
	if cp.LongRunning {
		b.kv("Polled by", cp.PollCapability)
	}
	if len(cp.ArtifactSchemas) > 0 {
		b.kv("Artifacts", strings.Join(cp.ArtifactSchemas, ", "))
	}
	if len(cp.Skills) > 0 {
		b.kv("Skills", strings.Join(cp.Skills, ", "))
	}
	b.heading("Input")
	var schema json.RawMessage
	if cp.RequestSchema != "" && m.Descriptor != nil {
		schema = m.Descriptor.RequestSchemas[cp.RequestSchema]
		b.kv("Schema", cp.RequestSchema)
		if modproto.IsWholeRequestSchema(schema) {
			b.indented("describes the whole request; the host places the values")
		}
	}
	f, err := form.Build(schema)
	switch {
	case err != nil:
		b.line(st.Error.Render("✗ " + render.SanitizeLine(err.Error())))
	case f.Raw():
		b.indented("one JSON value")
	default:
		for _, fd := range f.Fields() {
			req := ""
			if fd.Required {
				req = " *"
			}
			b.line("• " + render.SanitizeLine(fd.Name) + req + " " + st.Muted.Render(fd.Kind.String()))
		}
	}
	b.line("")
	b.line(st.Muted.Render("enter opens the form"))
	return b.String()
}
