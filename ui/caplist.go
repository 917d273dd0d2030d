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

// capList lists one module's capabilities with the selected one's detail,
// and a filter by title or id ("/", as in the module list).
type capList struct {
	com    *common.Common
	keys   ListKeyMap
	module *runner.Module
	// shown are the indexes of the capabilities the filter keeps; cursor
	// is a row of shown.
	shown  []int
	cursor int
	filter listFilter
	width  int
	height int
	detail detailScroll
	// shownDetail is the selected capability's detail as last built.
	shownDetail detailCache
}

func newCapList(com *common.Common, keys ListKeyMap, m *runner.Module) *capList {
	c := &capList{com: com, keys: keys, module: m, filter: newFilter(com, "filter by title or id")}
	c.refilter()
	return c
}

func (c *capList) caps() []modproto.Capability {
	if c.module.Descriptor == nil {
		return nil
	}
	return c.module.Descriptor.Capabilities
}

// Selected returns the capability under the cursor, or nil.
func (c *capList) Selected() *modproto.Capability {
	if c.cursor < 0 || c.cursor >= len(c.shown) {
		return nil
	}
	return &c.caps()[c.shown[c.cursor]]
}

// Typing reports whether keys go to the filter.
func (c *capList) Typing() bool { return c.filter.active }

// refilter keeps the capabilities whose title or id contain the filter
// text, case aside.
func (c *capList) refilter() {
	q := strings.ToLower(strings.TrimSpace(c.filter.Value()))
	c.shown = c.shown[:0]
	for i, cp := range c.caps() {
		if q == "" || strings.Contains(strings.ToLower(cp.ID), q) || strings.Contains(strings.ToLower(cp.Title), q) {
			c.shown = append(c.shown, i)
		}
	}
	c.move(c.cursor)
}

// move puts the cursor on shown row i (clamped); a new selection shows
// its detail from the top.
func (c *capList) move(i int) {
	i = min(max(len(c.shown)-1, 0), max(0, i))
	if i != c.cursor {
		c.detail.off = 0
	}
	c.cursor = i
}

// SetSize sets the screen area.
func (c *capList) SetSize(w, h int) {
	c.width, c.height = w, h
	c.filter.SetWidth(max(w-4, 10))
}

// Update handles a key.
func (c *capList) Update(msg tea.Msg) (capAction, tea.Cmd) {
	if c.filter.active {
		if handled, changed, cmd := c.filter.Update(msg, c.keys); handled {
			if changed {
				c.refilter()
			}
			return nil, cmd
		}
	}
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	switch {
	case key.Matches(kp, c.keys.Up):
		c.move(c.cursor - 1)
	case key.Matches(kp, c.keys.Down):
		c.move(c.cursor + 1)
	case key.Matches(kp, c.keys.Top):
		c.move(0)
	case key.Matches(kp, c.keys.Bottom):
		c.move(len(c.shown) - 1)
	case c.detail.Update(kp, c.keys):
	case key.Matches(kp, c.keys.Filter):
		return nil, c.filter.Focus()
	case key.Matches(kp, c.keys.ClearFilter) && c.filter.Value() != "":
		c.filter.Clear()
		c.refilter()
	case key.Matches(kp, c.keys.Back):
		return capBack{}, nil
	case key.Matches(kp, c.keys.Open):
		if cp := c.Selected(); cp != nil {
			return capOpen{cap: *cp}, nil
		}
	}
	return nil, nil
}

// ShortHelp returns the bindings that apply.
func (c *capList) ShortHelp() []key.Binding {
	if c.filter.active {
		return []key.Binding{c.keys.Open, c.keys.ClearFilter}
	}
	b := []key.Binding{c.keys.Up, c.keys.Down, c.keys.Open, c.keys.Filter}
	if c.filter.Value() != "" {
		b = append(b, c.keys.ClearFilter)
	}
	b = append(b, c.keys.Back)
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
	var top []string
	switch c.module.Status {
	case runner.StatusDisabled, runner.StatusBroken:
		top = append(top, st.Warning.Render(common.Trunc(fmt.Sprintf("This module is %s: its capabilities cannot be run.", c.module.Status), c.width)))
	}
	if c.filter.Shown() {
		top = append(top, common.Trunc(c.filter.View(), c.width))
	}
	h := c.height - len(top)
	rows := func(w, h int) []string {
		start := scrollStart(c.cursor, len(c.shown), h)
		var out []string
		for i := start; i < len(c.shown) && len(out) < h; i++ {
			cp := caps[c.shown[i]]
			sel := i == c.cursor
			t := render.SanitizeLine(common.TitleOr(cp.Title, cp.ID))
			if sel {
				t = st.Selected.Render(t)
			}
			out = append(out, common.Trunc(st.Cursor(sel)+t+" "+st.ID.Render(render.SanitizeLine(cp.ID)), w))
		}
		if len(c.shown) == 0 {
			out = append(out, st.Muted.Render("No capability matches the filter."))
		}
		return out
	}
	var detail string
	if cp := c.Selected(); cp != nil {
		dw := detailWidth(c.com, c.width)
		detail = c.shownDetail.get(detailKey{item: c.shown[c.cursor], width: dw, styles: c.com.Styles}, func() string {
			return capDetail(c.com, c.module, *cp, dw)
		})
	}
	return strings.Join(append(top, splitPane(c.com, c.width, h, rows, detail, len(c.shown), &c.detail)), "\n")
}

// capDetail describes one capability: summary, effects, inputs, artifacts.
func capDetail(com *common.Common, m *runner.Module, cp modproto.Capability, w int) string {
	st := com.Styles
	b := detailBuilder{com: com, w: w}
	b.line(st.Title.Render(render.SanitizeLine(common.TitleOr(cp.Title, cp.ID))))
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
