package ui

import (
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/internal/words"
	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
	"modbay/ui/common"
	"modbay/ui/list"
)

// CapsKeyMap is the capability list's own bindings, beside the list's.
type CapsKeyMap struct {
	// Back returns to the module list.
	Back key.Binding
	// Quit quits (never while the filter takes the keys).
	Quit key.Binding
	// Surface opens an MCP server's resources and prompts (offered only
	// for a server that has some).
	Surface key.Binding
}

// capList lists one module's capabilities with the selected one's detail,
// and a filter by title or id ("/", as in the module list).
type capList struct {
	// m holds the summaries of the request schemas (m.capSums), built
	// off the event loop.
	m      *Model
	com    *common.Common
	keys   CapsKeyMap
	module *runner.Module
	list   *list.Model
}

// openCapsScreen builds the capability list of module arg (*runner.Module).
func openCapsScreen(m *Model, arg any) (Screen, tea.Cmd) {
	mod, ok := arg.(*runner.Module)
	if !ok || mod == nil {
		return nil, nil
	}
	c := &capList{m: m, com: m.com, keys: m.keys.Caps, module: mod,
		list: list.New(m.com, m.keys.List, "filter by title or id", "No capability matches the filter.")}
	c.setItems()
	return c, nil
}

// summarize starts the build of the selected capability's input summary
// when it is neither cached nor building (capSummaries.ensure): the detail
// pane never builds a form while it draws. The root runs it after every
// message while the list is on top (Model.Update).
func (c *capList) summarize() tea.Cmd {
	it, ok := c.list.Selected().(*capItem)
	if !ok {
		return nil
	}
	k, raw, ok := summaryOf(c.module, *it.cap)
	if !ok {
		return nil
	}
	return c.m.capSums.ensure(c.m, k, raw)
}

// summaryOf names the request schema of cp in m's descriptor and returns
// it; false when cp has none (the pane then says "one JSON value").
func summaryOf(m *runner.Module, cp modproto.Capability) (capSummaryKey, json.RawMessage, bool) {
	if cp.RequestSchema == "" || m.Descriptor == nil {
		return capSummaryKey{}, nil, false
	}
	return capSummaryKey{desc: m.Descriptor, schema: cp.RequestSchema}, m.Descriptor.RequestSchemas[cp.RequestSchema], true
}

// setItems lists the module's capabilities, keeping the selected one.
func (c *capList) setItems() {
	var items []list.Item
	if d := c.module.Descriptor; d != nil {
		// Hidden capabilities (a job's poll and cancel, an MCP server's
		// resources and prompts) are no form here; the host still invokes
		// them (docs/protocol.md §17).
		for i := range d.Capabilities {
			if !d.Capabilities[i].Hidden {
				items = append(items, &capItem{c: c, cap: &d.Capabilities[i]})
			}
		}
	}
	c.list.SetItems(items, func(a, b list.Item) bool { return a.(*capItem).cap.ID == b.(*capItem).cap.ID })
}

// capItem is one capability as a list item.
type capItem struct {
	c   *capList
	cap *modproto.Capability
}

// FilterValue matches the capability's id and title.
func (it *capItem) FilterValue() string { return it.cap.ID + "\x00" + it.cap.Title }

// Row draws the capability's title and id.
func (it *capItem) Row(sel bool, w int) string {
	st := it.c.com.Styles
	t := render.SanitizeLine(common.TitleOr(it.cap.Title, it.cap.ID))
	if sel {
		t = st.Selected.Render(t)
	}
	row := st.Cursor(sel) + t + " " + st.ID.Render(render.SanitizeLine(it.cap.ID))
	if _, refused := it.c.module.Refused[it.cap.ID]; refused {
		row += " " + st.Error.Render("refused")
	}
	return row
}

// Detail describes the capability.
func (it *capItem) Detail(w int) string {
	sum := &capSummary{raw: true}
	if k, _, ok := summaryOf(it.c.module, *it.cap); ok {
		sum = it.c.m.capSums.get(k)
	}
	return capDetail(it.c.com, it.c.module, *it.cap, sum, w)
}

// Selected returns the capability under the cursor, or nil.
func (c *capList) Selected() *modproto.Capability {
	if it, ok := c.list.Selected().(*capItem); ok {
		return it.cap
	}
	return nil
}

// Kind implements Screen.
func (c *capList) Kind() screenKind { return screenCaps }

// SetSize implements Screen.
func (c *capList) SetSize(w, h int) { c.list.SetSize(w, h) }

// Typing implements Screen: keys go to the filter.
func (c *capList) Typing() bool { return c.list.Typing() }

// Crumb implements Screen: the module's name.
func (c *capList) Crumb(bool) string { return render.SanitizeLine(moduleName(c.module)) }

// Update implements Screen.
func (c *capList) Update(msg tea.Msg) (Action, tea.Cmd) {
	act, cmd, handled := c.list.Update(msg)
	if a, ok := act.(list.ActionOpen); ok {
		return actionOpen{kind: screenForm, arg: formArg{module: c.module, cap: *a.Item.(*capItem).cap}}, cmd
	}
	kp, isKey := msg.(tea.KeyPressMsg)
	if handled || !isKey {
		return nil, cmd
	}
	switch {
	case key.Matches(kp, c.keys.Back):
		return actionPop{}, nil
	case key.Matches(kp, c.keys.Quit):
		return actionQuit{}, nil
	case key.Matches(kp, c.keys.Surface) && hasSurface(c.module):
		return actionOpen{kind: screenSurface, arg: c.module}, nil
	}
	return nil, nil
}

// ShortHelp implements help.KeyMap.
func (c *capList) ShortHelp() []key.Binding {
	b := c.list.ShortHelp()
	if c.list.Typing() {
		return b
	}
	if c.list.FilterValue() == "" {
		b = append(b, c.keys.Back)
	}
	if c.list.DetailScrolls() {
		b = append(b, c.list.KeyMap().DetailDown)
	}
	if hasSurface(c.module) {
		b = append(b, c.keys.Surface)
	}
	return append(b, c.keys.Quit)
}

// EssentialHelp is what the help bar keeps at any width: open (esc and
// the help key are always kept).
func (c *capList) EssentialHelp() []key.Binding { return c.list.EssentialHelp() }

// FullHelp implements help.KeyMap.
func (c *capList) FullHelp() [][]key.Binding {
	g := c.list.FullHelp()
	if c.list.Typing() {
		return g
	}
	var own []key.Binding
	if c.list.FilterValue() == "" {
		own = append(own, c.keys.Back)
	}
	if hasSurface(c.module) {
		own = append(own, c.keys.Surface)
	}
	return append(g, append(own, c.keys.Quit))
}

// View implements Screen: a warning when the module cannot run, the
// filter, then the list and the selected capability's detail.
func (c *capList) View() string {
	st := c.com.Styles
	if len(c.list.Items()) == 0 {
		if hasSurface(c.module) {
			return st.Muted.Render("This server offers no tools: " + c.keys.Surface.Help().Key + " opens its resources and prompts.")
		}
		if d := c.module.Descriptor; d != nil && len(d.Capabilities) > 0 {
			// None is offered (docs/protocol.md §17): say so, not "none".
			return st.Muted.Render(fmt.Sprintf("This module's %s hidden (docs/protocol.md §17: hidden: true, or named as a poll or cancel capability), so none has a form; modbay invoke runs one by id.",
				words.Plural(len(d.Capabilities), "one capability is", fmt.Sprintf("%d capabilities are all", len(d.Capabilities)))))
		}
		return st.Muted.Render("This module declares no capabilities.")
	}
	w := c.list.Width()
	var top []string
	switch c.module.Status {
	case runner.StatusDisabled, runner.StatusBroken:
		top = append(top, strings.Split(st.Warning.Render(common.Note(fmt.Sprintf("This module is %s: its capabilities cannot be run.", c.module.Status), w)), "\n")...)
	}
	if f := c.list.FilterView(); f != "" {
		top = append(top, f)
	}
	return strings.Join(append(top, c.list.PaneView(c.list.Height()-len(top))), "\n")
}

// capDetail describes one capability: summary, effects, inputs (sum, its
// request schema's summary; nil while it builds), artifacts.
func capDetail(com *common.Common, m *runner.Module, cp modproto.Capability, sum *capSummary, w int) string {
	st := com.Styles
	b := detailBuilder{com: com, w: w}
	b.line(st.Title.Render(render.SanitizeLine(common.TitleOr(cp.Title, cp.ID))))
	b.kv("ID", cp.ID)
	if why, ok := m.Refused[cp.ID]; ok {
		b.kv("Refused", "its request schema admits no input, "+why)
	}
	b.kv("Summary", cp.Summary)
	b.kv("Effects", strings.Join(render.EffectBadges(cp.Effects, cp.LongRunning), " · "))
	if m.EffectsAreHints {
		b.kv("Approval", hintsApproval(cp.Effects))
	}
	if cp.LongRunning {
		b.kv("Polled by", cp.PollCapability)
		if cp.CancelCapability != "" {
			b.kv("Cancel with", cp.CancelCapability)
		}
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
	b.inputLines(sum)
	b.line("")
	_, refused := m.Refused[cp.ID]
	switch {
	case refused:
		b.line(st.Muted.Render("enter opens the form to read; its schema admits no input to send"))
	case m.Status == runner.StatusDisabled || m.Status == runner.StatusBroken:
		// The form can be read and filled, never sent.
		b.line(st.Muted.Render(fmt.Sprintf("enter opens the form to read; it cannot be sent while the module is %s", m.Status)))
	default:
		b.line(st.Muted.Render("enter opens the form"))
	}
	return b.String()
}

// hintsApproval says whether a call of an MCP tool asks before it runs,
// by docs/protocol.md §11's rule for MCP tools: its annotations (e, with MCP's
// defaults for absent ones) decide, and its unknown cost alone never
// asks (docs/mcp.md).
func hintsApproval(e modproto.Effects) string {
	const why = "the server's annotations decide; an MCP tool's unknown cost alone does not ask"
	if e.Network || e.ExternalWrites {
		return "asks before it runs (" + why + ")"
	}
	return "runs at once: read-only, closed world (" + why + ")"
}
