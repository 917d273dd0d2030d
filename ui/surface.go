package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/internal/words"
	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
	"modbay/ui/common"
	"modbay/ui/dialog"
	"modbay/ui/list"
)

// surfaceDriver is a driver whose module offers resources and prompts
// beside its capabilities (an MCP server; mcp.Driver): resources listed
// live, read by URI through its ReadCapability (a hidden capability, so a
// read is a run like any other), resource templates and prompts as
// hidden capabilities (SurfaceKind), subscriptions. Resources, Subscribe
// and Unsubscribe do I/O (run them in a tea.Cmd); the rest do none.
type surfaceDriver interface {
	ReadCapability() string
	LinkKind() string
	SurfaceKind(capID string) string
	Resources(ctx context.Context) ([]runner.Resource, bool, error)
	CanSubscribe() bool
	Subscribe(ctx context.Context, uri string) error
	Unsubscribe(ctx context.Context, uri string) error
	Subscribed(uri string) (on bool, updates int, last time.Time)
}

// templateNamer is a surface driver that knows the URI template a
// template's capability expands (no I/O; "" when unknown).
type templateNamer interface {
	TemplateURI(capID string) string
}

// changeWatcher is a driver whose server announces changes (list_changed,
// resource updates); f is called from its goroutines.
type changeWatcher interface {
	Watch(f func(runner.Change)) (stop func())
}

// screenSurface is an MCP server's resources, templates and prompts.
const screenSurface screenKind = "resources"

func init() { register(screenSurface, openSurfaceScreen) }

// SurfaceKeyMap is the resources view's own bindings, beside the list's
// (enter reads a resource, or opens a template's or prompt's form).
type SurfaceKeyMap struct {
	// Subscribe subscribes to the selected resource's updates, or ends
	// the subscription.
	Subscribe key.Binding
	// Reload lists the resources again.
	Reload key.Binding
	Back   key.Binding
}

func defaultSurfaceKeys() SurfaceKeyMap {
	return SurfaceKeyMap{
		Subscribe: key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "subscribe/unsubscribe")),
		Reload:    key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "list again")),
		Back:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
	}
}

// surfaceTimeout bounds one listing or subscription request.
const surfaceTimeout = 30 * time.Second

// surfaceView lists one server's resources (live), resource templates
// and prompts (its hidden capabilities) with the selected one's detail.
type surfaceView struct {
	com    *common.Common
	keys   SurfaceKeyMap
	ctx    context.Context
	module *runner.Module
	drv    surfaceDriver
	list   *list.Model
	// resources are the last listing's; loading is set while one is on
	// its way (seq names it), more when the server had more.
	resources []runner.Resource
	loading   bool
	more      bool
	seq       int
	// note says what the last action did (a refusal, a failure).
	note string
}

// surfaceOf is mod's surface driver, nil when it has none.
func surfaceOf(mod *runner.Module) surfaceDriver {
	if mod == nil {
		return nil
	}
	sd, _ := mod.Driver.(surfaceDriver)
	return sd
}

// openSurfaceScreen shows the resources view of module arg
// (*runner.Module) and starts listing its resources.
func openSurfaceScreen(m *Model, arg any) (Screen, tea.Cmd) {
	mod, _ := arg.(*runner.Module)
	sd := surfaceOf(mod)
	if sd == nil {
		return nil, nil
	}
	v := &surfaceView{com: m.com, keys: m.keys.Surface, ctx: m.ctx, module: mod, drv: sd,
		list: list.New(m.com, m.keys.List, "filter by name or URI", "No resource, template or prompt matches the filter.")}
	v.setItems()
	return v, v.load()
}

// load lists the resources in a command.
func (v *surfaceView) load() tea.Cmd {
	v.seq++
	v.loading = true
	seq, ctx, sd, id := v.seq, v.ctx, v.drv, v.module.ID
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, surfaceTimeout)
		defer cancel()
		res, more, err := sd.Resources(ctx)
		return surfaceListedMsg{module: id, seq: seq, resources: res, more: more, err: err}
	}
}

// surfaceItem is one row: a resource, or a template's or prompt's
// capability.
type surfaceItem struct {
	v   *surfaceView
	res *runner.Resource
	cap *modproto.Capability
	// kind is "resource", "template" or "prompt".
	kind string
}

// setItems lists the resources, then the templates and prompts of the
// module's descriptor, keeping the selection.
func (v *surfaceView) setItems() {
	var items []list.Item
	for i := range v.resources {
		items = append(items, &surfaceItem{v: v, res: &v.resources[i], kind: "resource"})
	}
	if d := v.module.Descriptor; d != nil {
		for _, kind := range []string{"template", "prompt"} {
			for i := range d.Capabilities {
				if c := &d.Capabilities[i]; v.drv.SurfaceKind(c.ID) == kind {
					items = append(items, &surfaceItem{v: v, cap: c, kind: kind})
				}
			}
		}
	}
	v.list.SetItems(items, func(a, b list.Item) bool {
		x, y := a.(*surfaceItem), b.(*surfaceItem)
		return x.kind == y.kind && (x.res != nil && y.res != nil && x.res.URI == y.res.URI || x.cap != nil && y.cap != nil && x.cap.ID == y.cap.ID)
	})
}

// FilterValue matches the name, title and URI or capability id.
func (it *surfaceItem) FilterValue() string {
	if it.res != nil {
		return it.res.Name + "\x00" + it.res.Title + "\x00" + it.res.URI
	}
	return it.cap.ID + "\x00" + it.cap.Title
}

// Row draws the kind, the title and the URI (or id).
func (it *surfaceItem) Row(sel bool, w int) string {
	st := it.v.com.Styles
	var title, id string
	if it.res != nil {
		title, id = common.TitleOr(it.res.Title, it.res.Name), it.res.URI
	} else {
		title, id = common.TitleOr(it.cap.Title, it.cap.ID), it.cap.ID
	}
	title = render.SanitizeLine(title)
	if sel {
		title = st.Selected.Render(title)
	}
	row := st.Cursor(sel) + st.Muted.Render(fmt.Sprintf("%-8s ", it.kind)) + title + " "
	if it.res != nil {
		if on, n, _ := it.v.drv.Subscribed(it.res.URI); on {
			row += st.Success.Render("● "+words.Count(n, "update", "updates")) + " "
		}
	}
	return row + st.ID.Render(render.SanitizeLine(id))
}

// Detail describes the item and what enter does.
func (it *surfaceItem) Detail(w int) string {
	st := it.v.com.Styles
	b := detailBuilder{com: it.v.com, w: w}
	if it.cap != nil {
		if it.kind == "template" {
			b.line(st.Title.Render(render.SanitizeLine(common.TitleOr(it.cap.Title, it.cap.ID))) + " " + st.Muted.Render("resource template"))
		} else {
			b.line(st.Title.Render(render.SanitizeLine(common.TitleOr(it.cap.Title, it.cap.ID))) + " " + st.Muted.Render("prompt"))
		}
		b.kv("Capability", it.cap.ID)
		if tn, ok := it.v.drv.(templateNamer); ok && it.kind == "template" {
			if u := tn.TemplateURI(it.cap.ID); u != "" {
				b.kv("URI template", u)
			}
		}
		b.kv("Summary", it.cap.Summary)
		b.line("")
		b.line(st.Muted.Render("enter opens its form: its arguments, with the server's completions on ctrl+space"))
		return b.String()
	}
	r := it.res
	b.line(st.Title.Render(render.SanitizeLine(common.TitleOr(r.Title, r.Name))) + " " + st.Muted.Render("resource"))
	b.kv("URI", r.URI)
	if r.Name != "" {
		b.kv("Name", r.Name)
	}
	if r.MIMEType != "" {
		b.kv("Media type", r.MIMEType)
	}
	if r.Size > 0 {
		b.kv("Size", render.HumanBytes(r.Size))
	}
	if r.Description != "" {
		b.kv("Description", r.Description)
	}
	if len(r.Audience) > 0 {
		b.kv("Audience", strings.Join(r.Audience, ", "))
	}
	if r.Priority > 0 {
		b.kv("Priority", fmt.Sprintf("%.2f (1 is most important)", r.Priority))
	}
	if r.LastModified != "" {
		b.kv("Modified", r.LastModified)
	}
	for i, ic := range r.Icons {
		var about []string
		for _, s := range []string{ic.MIMEType, strings.Join(ic.Sizes, " "), ic.Theme} {
			if s != "" {
				about = append(about, s)
			}
		}
		label := "Icon"
		if len(r.Icons) > 1 {
			label = fmt.Sprintf("Icon %d", i+1)
		}
		line := ic.Source
		if len(about) > 0 {
			line += " (" + strings.Join(about, ", ") + ")"
		}
		b.kv(label, line+" · not fetched")
	}
	switch on, n, last := it.v.drv.Subscribed(r.URI); {
	case on && n > 0:
		b.kv("Updates", fmt.Sprintf("subscribed: %s, the last %s", words.Count(n, "update", "updates"), words.Ago(it.v.com.Now(), last)))
	case on:
		b.kv("Updates", "subscribed: none yet")
	case it.v.drv.CanSubscribe():
		b.kv("Updates", "not subscribed (s subscribes)")
	default:
		b.kv("Updates", "the server offers no subscriptions")
	}
	b.line("")
	b.line(st.Muted.Render("enter reads it: its contents become verified artifacts"))
	return b.String()
}

// Kind implements Screen.
func (v *surfaceView) Kind() screenKind { return screenSurface }

// SetSize implements Screen.
func (v *surfaceView) SetSize(w, h int) { v.list.SetSize(w, h) }

// Typing implements Screen: keys go to the filter.
func (v *surfaceView) Typing() bool { return v.list.Typing() }

// Crumb implements Screen.
func (v *surfaceView) Crumb(bool) string { return "resources & prompts" }

// selected is the item under the cursor, or nil.
func (v *surfaceView) selected() *surfaceItem {
	it, _ := v.list.Selected().(*surfaceItem)
	return it
}

// canSubscribe reports whether s acts on the selection.
func (v *surfaceView) canSubscribe() bool {
	it := v.selected()
	return it != nil && it.res != nil && v.drv.CanSubscribe()
}

// Update implements Screen.
func (v *surfaceView) Update(msg tea.Msg) (Action, tea.Cmd) {
	act, cmd, handled := v.list.Update(msg)
	if a, ok := act.(list.ActionOpen); ok {
		it := a.Item.(*surfaceItem)
		if it.res != nil {
			v.note = ""
			return actionReadURI{module: v.module, uri: it.res.URI}, cmd
		}
		return actionOpen{kind: screenForm, arg: formArg{module: v.module, cap: *it.cap}}, cmd
	}
	kp, isKey := msg.(tea.KeyPressMsg)
	if handled || !isKey {
		return nil, cmd
	}
	switch {
	case key.Matches(kp, v.keys.Back):
		return actionPop{}, nil
	case key.Matches(kp, v.keys.Reload):
		return nil, v.load()
	case key.Matches(kp, v.keys.Subscribe) && v.canSubscribe():
		uri, sd, ctx := v.selected().res.URI, v.drv, v.ctx
		on, _, _ := sd.Subscribed(uri)
		v.note = "Subscribing…"
		if on {
			v.note = "Ending the subscription…"
		}
		return nil, func() tea.Msg {
			ctx, cancel := context.WithTimeout(ctx, surfaceTimeout)
			defer cancel()
			var err error
			if on {
				err = sd.Unsubscribe(ctx, uri)
			} else {
				err = sd.Subscribe(ctx, uri)
			}
			return surfaceSubMsg{uri: uri, on: !on, err: err}
		}
	}
	return nil, nil
}

// ShortHelp implements help.KeyMap.
func (v *surfaceView) ShortHelp() []key.Binding {
	b := v.list.ShortHelp()
	if v.list.Typing() {
		return b
	}
	if v.canSubscribe() {
		b = append(b, v.keys.Subscribe)
	}
	return append(b, v.keys.Reload, v.keys.Back)
}

// FullHelp implements help.KeyMap.
func (v *surfaceView) FullHelp() [][]key.Binding {
	g := v.list.FullHelp()
	if v.list.Typing() {
		return g
	}
	own := []key.Binding{}
	if v.canSubscribe() {
		own = append(own, v.keys.Subscribe)
	}
	return append(g, append(own, v.keys.Reload, v.keys.Back))
}

// View implements Screen: the listing's state, the filter, then the list
// and the detail pane.
func (v *surfaceView) View() string {
	st := v.com.Styles
	w := v.list.Width()
	var top []string
	switch {
	case v.loading:
		top = append(top, st.Muted.Render("Listing the resources…"))
	case v.more:
		top = append(top, st.Warning.Render(common.Trunc("The server lists more resources than are kept: the first ones are shown.", w)))
	}
	if v.note != "" {
		top = append(top, st.Warning.Render(common.FitWidth(common.Wrap(render.SanitizeLine(v.note), max(w, 1)), w)))
	}
	if f := v.list.FilterView(); f != "" {
		top = append(top, f)
	}
	if len(v.list.Items()) == 0 && !v.loading {
		return strings.Join(append(top, st.Muted.Render("This server offers no resources, resource templates or prompts.")), "\n")
	}
	body := strings.Join(top, "\n")
	n := common.Lines(body)
	if body == "" {
		n = 0
	} else {
		body += "\n"
	}
	return body + v.list.PaneView(v.list.Height()-n)
}

// The resources view's messages, routed by the root (surfaceEvent).
type (
	// surfaceListedMsg is a listing of module's resources (seq names it).
	surfaceListedMsg struct {
		module    string
		seq       int
		resources []runner.Resource
		more      bool
		err       error
	}
	// surfaceSubMsg is a subscription's (on) or its end's answer.
	surfaceSubMsg struct {
		uri string
		on  bool
		err error
	}
	// surfaceChangedMsg is a change module's server announced.
	surfaceChangedMsg struct {
		module string
		change runner.Change
	}
	// directPlanMsg is the plan of a read that opens no form (a resource,
	// a followed link).
	directPlanMsg struct {
		plan *runner.Plan
		err  error
	}
	// linkMsg is a followed link's URI read from its staged record.
	linkMsg struct {
		module *runner.Module
		uri    string
		err    error
	}
)

// surfaceEvent is one of the messages above.
type surfaceEvent interface{ surfaceEvent() }

func (surfaceListedMsg) surfaceEvent()  {}
func (surfaceSubMsg) surfaceEvent()     {}
func (surfaceChangedMsg) surfaceEvent() {}
func (directPlanMsg) surfaceEvent()     {}
func (linkMsg) surfaceEvent()           {}

// Actions that read a resource without a form.
type (
	// actionReadURI reads uri through module's read capability.
	actionReadURI struct {
		module *runner.Module
		uri    string
	}
	// actionFollowLink reads the resource a result's link artifact
	// names.
	actionFollowLink struct {
		module *runner.Module
		art    runner.VerifiedArtifact
	}
)

func (actionReadURI) isAction()    {}
func (actionFollowLink) isAction() {}

// surfaceAct carries out a resources action; nil for another action.
func (m *Model) surfaceAct(a Action) (tea.Cmd, bool) {
	switch a := a.(type) {
	case actionReadURI:
		return m.readURI(a.module, a.uri), true
	case actionFollowLink:
		staged, mod := a.art.Staged, a.module
		return func() tea.Msg {
			uri, err := linkURI(staged)
			return linkMsg{module: mod, uri: uri, err: err}
		}, true
	}
	return nil, false
}

// maxLinkRecord bounds the staged link record read for its URI.
const maxLinkRecord = 64 << 10

// linkURI is the "uri" of the resource link record staged at path.
func linkURI(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxLinkRecord+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxLinkRecord {
		return "", errors.New("the link record is larger than a link")
	}
	var rec struct {
		URI string `json:"uri"`
	}
	if json.Unmarshal(b, &rec) != nil || rec.URI == "" {
		return "", errors.New("the link record names no URI")
	}
	return rec.URI, nil
}

// readURI plans a read of uri by mod's read capability in a command; the
// plan comes back as a directPlanMsg.
func (m *Model) readURI(mod *runner.Module, uri string) tea.Cmd {
	sd, b := surfaceOf(mod), m.backend
	if sd == nil || b == nil {
		return nil
	}
	input, _ := json.Marshal(map[string]string{"uri": uri})
	capID := sd.ReadCapability()
	return func() tea.Msg {
		p, err := b.Plan(mod, capID, input)
		return directPlanMsg{plan: p, err: err}
	}
}

// surfaceEvent handles the resources view's messages.
func (m *Model) surfaceEvent(msg surfaceEvent) tea.Cmd {
	v, _ := find[*surfaceView](m)
	switch msg := msg.(type) {
	case surfaceListedMsg:
		if v == nil || v.module.ID != msg.module || v.seq != msg.seq {
			return nil
		}
		v.loading = false
		if msg.err != nil {
			v.note = "Cannot list the resources: " + msg.err.Error()
			return nil
		}
		v.resources, v.more = msg.resources, msg.more
		v.setItems()
	case surfaceSubMsg:
		if v == nil {
			return nil
		}
		switch {
		case msg.err != nil:
			v.note = msg.err.Error()
		case msg.on:
			v.note = "Subscribed: updates of " + msg.uri + " are counted here."
		default:
			v.note = "Unsubscribed from " + msg.uri + "."
		}
		v.setItems() // the rows and the detail say it
	case surfaceChangedMsg:
		return m.surfaceChanged(v, msg)
	case linkMsg:
		if msg.err != nil {
			if r := m.result(); r != nil {
				r.linkNote = "Cannot follow the link: " + msg.err.Error()
				r.rebuild()
			}
			return nil
		}
		return m.readURI(msg.module, msg.uri)
	case directPlanMsg:
		if msg.err != nil {
			note := "Cannot read it: " + msg.err.Error()
			if v != nil && m.top() == Screen(v) {
				v.note = note
			} else if r := m.result(); r != nil {
				r.linkNote = note
				r.rebuild()
			}
			return nil
		}
		if m.reads == nil || len(m.reads) > maxKeptRuns {
			m.reads = map[string]bool{}
		}
		m.reads[msg.plan.Request.RequestID] = true
		if msg.plan.NeedsApproval() && !m.approvals.Covers(msg.plan) {
			m.dialogs = append(m.dialogs, dialog.NewApproval(m.com, msg.plan))
			return graceEnds()
		}
		return m.startRun(msg.plan, msg.plan.NeedsApproval()) // covered by the session
	}
	return nil
}

// surfaceChanged follows what a server announced: a tool, prompt or
// resource list that changed is listed again (its cached list is already
// stale), a resource update is counted on the resources view, and log
// messages between calls redraw the module's detail pane (its log).
func (m *Model) surfaceChanged(v *surfaceView, msg surfaceChangedMsg) tea.Cmd {
	var cmds []tea.Cmd
	switch msg.change.Kind {
	case runner.ChangeLog:
		m.modules.list.InvalidateDetail()
		return nil
	case runner.ChangeResource:
		if v != nil && v.module.ID == msg.module {
			v.note = "Updated: " + msg.change.URI
			v.setItems()
		}
		return nil
	case runner.ChangeResources:
		if v != nil && v.module.ID == msg.module {
			cmds = append(cmds, v.load())
		}
	}
	if !m.modules.discovering {
		cmds = append(cmds, m.discover())
	}
	return tea.Batch(cmds...)
}

// watchChanges watches every module whose server announces changes,
// once per driver: each change comes back as a surfaceChangedMsg.
func (m *Model) watchChanges(mods []*runner.Module) {
	for _, mod := range mods {
		w, ok := mod.Driver.(changeWatcher)
		if !ok {
			continue
		}
		if m.watched == nil {
			m.watched = map[changeWatcher]bool{}
		}
		if m.watched[w] {
			continue
		}
		m.watched[w] = true
		id := mod.ID
		w.Watch(func(c runner.Change) {
			if send := m.send.Load(); send != nil {
				(*send)(surfaceChangedMsg{module: id, change: c})
			}
		})
	}
}

// hasSurface reports whether mod offers a resources view: its driver has
// one and its server offers resources, templates or prompts.
func hasSurface(mod *runner.Module) bool {
	sd := surfaceOf(mod)
	if sd == nil || mod.Descriptor == nil {
		return false
	}
	for _, c := range mod.Descriptor.Capabilities {
		if c.ID == sd.ReadCapability() || sd.SurfaceKind(c.ID) != "" {
			return true
		}
	}
	return false
}

// isLink reports whether a is a resource link mod's driver can follow.
func isLink(mod *runner.Module, a runner.VerifiedArtifact) bool {
	sd := surfaceOf(mod)
	return sd != nil && a.Kind == sd.LinkKind() && a.Staged != ""
}

// refreshOpen gives the open capability lists and resources views their
// module as the discovery that just ended described it (same id, same
// source), so a tool, template or prompt a server added or removed shows
// there too; the selection is kept.
func (m *Model) refreshOpen(mods []*runner.Module) {
	byID := map[string]*runner.Module{}
	for _, mod := range mods {
		byID[mod.ID] = mod
	}
	for _, s := range m.stack {
		switch s := s.(type) {
		case *capList:
			if nu := byID[s.module.ID]; nu != nil && nu.Key == s.module.Key && nu != s.module {
				s.module = nu
				s.setItems()
			}
		case *surfaceView:
			if nu := byID[s.module.ID]; nu != nil && nu.Key == s.module.Key && nu != s.module && surfaceOf(nu) != nil {
				s.module, s.drv = nu, surfaceOf(nu)
				s.setItems()
			}
		}
	}
}

// conversationDriver is a driver whose prompts' results hold their
// messages as one conversation artifact of a kind of its own
// (mcp.Driver). No I/O.
type conversationDriver interface {
	ConversationKind() string
}

// showRead opens, over its result, the one artifact of a resource read
// (readURI), or the conversation of a prompt's result, that ended ok
// while its run screen was shown, so reading a resource or getting a
// prompt shows it as the Inspector does; esc goes back to the result.
func (m *Model) showRead(id string, plan *runner.Plan, res *runner.Result) tea.Cmd {
	if !res.OK() {
		delete(m.reads, id)
		return nil
	}
	if m.reads[id] {
		delete(m.reads, id)
		if len(res.Artifacts) != 1 {
			return nil
		}
		return m.open(screenViewer, viewerArg{reqID: id, module: res.Module, art: res.Artifacts[0], siblings: res.Artifacts})
	}
	if plan == nil || plan.Module == nil {
		return nil
	}
	cd, ok := plan.Module.Driver.(conversationDriver)
	if sd := surfaceOf(plan.Module); !ok || sd == nil || sd.SurfaceKind(plan.Capability.ID) != "prompt" {
		return nil
	}
	for _, a := range res.Artifacts {
		if a.Kind == cd.ConversationKind() {
			return m.open(screenViewer, viewerArg{reqID: id, module: res.Module, art: a, siblings: res.Artifacts})
		}
	}
	return nil
}
