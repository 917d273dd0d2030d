package dialog

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/internal/words"
	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
	"modbay/ui/common"
)

// GracePeriod is how long after an approval dialog opens its keys are
// ignored, so a keystroke meant for the form never approves a paid call
// (crush Overlay.OpenDialogWithGrace).
const GracePeriod = 400 * time.Millisecond

// ApprovalKeyMap is the approval dialog's bindings.
type ApprovalKeyMap struct {
	Once    key.Binding
	Session key.Binding
	Deny    key.Binding
	// Up, Down, PageUp and PageDown scroll the dialog's body when it does
	// not fit; they work during the grace period too (they answer nothing).
	Up, Down         key.Binding
	PageUp, PageDown key.Binding
	// Input shows the whole input the call would send, or its first
	// fields again; it answers nothing, so it works during the grace
	// period too.
	Input key.Binding
	// Later, on an agent's question only, closes the dialog unanswered:
	// the question waits in the activity view (A), where enter reopens
	// it. It answers nothing, so it works during the grace period too.
	Later key.Binding
}

// DefaultApprovalKeyMap returns a allow once, s allow for the session, d or
// esc deny.
func DefaultApprovalKeyMap() ApprovalKeyMap {
	return ApprovalKeyMap{
		Once:     key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "allow once")),
		Session:  key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "allow for session")),
		Deny:     key.NewBinding(key.WithKeys("d", "esc"), key.WithHelp("d/esc", "deny")),
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Input:    key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "whole input")),
		Later:    key.NewBinding(key.WithKeys("l", "esc"), key.WithHelp("l/esc", "later (waits in A)"), key.WithDisabled()),
	}
}

// Approval asks a person to approve a planned call (docs/protocol.md §11): it shows
// why, every effect, the provider and cost, the roots, binaries and grants
// the call would receive, and what the host could not supply.
type Approval struct {
	com    *common.Common
	plan   *runner.Plan
	opened time.Time
	keys   ApprovalKeyMap
	// offset is the first body line shown; room is how many body lines
	// the last View had space for and hidden how many it could not show
	// (0: everything fits).
	offset, room, hidden int
	// input is what the call would send, secrets masked; inputOpen is
	// set when the last View showed it whole, inputCut when its collapsed
	// form hides some of it. Until i is pressed (inputChosen) the input
	// shows whole whenever the dialog then fits.
	input       approvalInput
	inputOpen   bool
	inputCut    bool
	inputChosen bool
	// sessionAsked is set by a first s on a destructive tool's plan
	// (runner.Plan.Destructive): the second s allows it for the session.
	sessionAsked bool
	// agent, for a question an agent's call asked through modbay mcp
	// serve, is the agent's declared name (sanitized here) and ask its
	// question's id; "" for the person's own call.
	agent, ask string
	// early is the answer key last pressed in the grace period (not
	// taken), said on the dialog; "" when none.
	early string
}

// NewApproval opens the dialog for plan; the grace period starts now (by
// com.Now).
func NewApproval(com *common.Common, plan *runner.Plan) *Approval {
	return &Approval{com: com, plan: plan, opened: com.Now(), keys: DefaultApprovalKeyMap(), input: newApprovalInput(plan)}
}

// NewAgentApproval opens the dialog for an agent's call that modbay mcp
// serve asks about (docs/gateway.md "Approvals in the cockpit"): plan is
// rebuilt from the question; agent is the agent's declared name and ask
// the question's id.
func NewAgentApproval(com *common.Common, plan *runner.Plan, agent, ask string) *Approval {
	a := NewApproval(com, plan)
	a.agent, a.ask = render.SanitizeLine(agent), ask
	// esc puts the question off rather than deny it: d denies.
	a.keys.Deny = key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "deny"))
	a.keys.Later.SetEnabled(true)
	return a
}

// Ask is the id of the agent's question this dialog answers ("" for the
// person's own call).
func (a *Approval) Ask() string { return a.ask }

// Plan returns the plan being approved.
func (a *Approval) Plan() *runner.Plan { return a.plan }

// InGrace reports whether keys are still being ignored.
func (a *Approval) InGrace() bool { return a.com.Now().Sub(a.opened) < GracePeriod }

// Update implements Dialog: a, s and d/esc answer, once the grace period
// has passed; ↑/↓, k/j and pgup/pgdn scroll the body and i shows the whole
// input (or its first fields again) at any time; every other key is
// ignored.
func (a *Approval) Update(msg tea.Msg) (Action, tea.Cmd) {
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	page := max(a.room-2, 1)
	switch {
	case key.Matches(kp, a.keys.Up):
		a.offset--
		return nil, nil
	case key.Matches(kp, a.keys.Down):
		a.offset++
		return nil, nil
	case key.Matches(kp, a.keys.PageUp):
		a.offset -= page
		return nil, nil
	case key.Matches(kp, a.keys.PageDown):
		a.offset += page
		return nil, nil
	case key.Matches(kp, a.keys.Input):
		a.inputOpen, a.inputChosen = !a.inputOpen, true
		return nil, nil
	case key.Matches(kp, a.keys.Later):
		return ActionClose{}, nil
	}
	if a.InGrace() {
		if key.Matches(kp, a.keys.Once, a.keys.Session, a.keys.Deny) {
			a.early = kp.String()
		}
		return nil, nil
	}
	a.early = ""
	switch {
	case key.Matches(kp, a.keys.Once):
		return ActionApprove{Scope: ScopeOnce}, nil
	case key.Matches(kp, a.keys.Session) && a.plan.Destructive && !a.sessionAsked:
		// The server says the tool destroys data: allowing every later
		// call unasked takes a second s.
		a.sessionAsked = true
		return nil, nil
	case key.Matches(kp, a.keys.Session):
		return ActionApprove{Scope: ScopeSession}, nil
	case key.Matches(kp, a.keys.Deny):
		return ActionDeny{}, nil
	}
	return nil, nil
}

// ShortHelp implements Dialog.
func (a *Approval) ShortHelp() []key.Binding {
	b := []key.Binding{a.keys.Once, a.keys.Session, a.keys.Deny}
	if a.ask != "" {
		b = append(b, a.keys.Later)
	}
	if a.Scrollable() {
		// First, so a narrow help bar never cuts it off (the choices are
		// in the dialog itself too).
		scroll := key.NewBinding(key.WithKeys("up", "down", "k", "j"), key.WithHelp("↑↓", "scroll"))
		b = append([]key.Binding{scroll}, b...)
	}
	if a.inputCut || a.inputOpen {
		b = append(b, a.inputKey())
	}
	return b
}

// inputKey is the Input binding with help saying what i does now.
func (a *Approval) inputKey() key.Binding {
	k := a.keys.Input
	if a.inputOpen {
		k.SetHelp("i", "input: first fields")
	}
	return k
}

// FullHelp implements Dialog.
func (a *Approval) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{a.keys.Once, a.keys.Session, a.keys.Deny, a.keys.Later},
		{a.keys.Up, a.keys.Down, a.keys.PageUp, a.keys.PageDown, a.inputKey()},
	}
}

// Scrollable reports whether the last View could not show the whole body.
func (a *Approval) Scrollable() bool { return a.hidden > 0 }

// View implements Dialog.
func (a *Approval) View(width, height int) string {
	st := a.com.Styles
	inner := boxWidth(a.com, width)
	p := a.plan
	c := p.Capability
	const keyW = 13
	var body []string
	kv := func(k, v string) {
		lines := strings.Split(common.Wrap(v, max(inner-keyW, 10)), "\n")
		for i, l := range lines {
			lab := strings.Repeat(" ", keyW)
			if i == 0 {
				lab = st.Label.Render(fmt.Sprintf("%-*s", keyW, k))
			}
			body = append(body, common.Trunc(lab+l, inner))
		}
	}
	list := func(k string, items []string) {
		for i, it := range items {
			if i == 0 {
				kv(k, it)
			} else {
				kv("", it)
			}
		}
	}
	name, id := "", ""
	if p.Module != nil {
		id = p.Module.ID
		if p.Module.Descriptor != nil {
			name = p.Module.Descriptor.Name
		}
	}
	if a.ask != "" {
		agent := a.agent
		if agent == "" {
			agent = "an agent"
		}
		kv("Agent", agent+" (through modbay mcp serve)")
	}
	kv("Module", label(name, id))
	kv("Capability", label(c.Title, c.ID))
	head := body
	body = nil
	reasons := make([]string, 0, len(p.Approval)+1)
	if p.AskedAgain != "" {
		reasons = append(reasons, "• "+render.SanitizeLine(p.AskedAgain))
	}
	for _, r := range p.Approval {
		reasons = append(reasons, "• "+render.SanitizeLine(r))
	}
	list("Why", reasons)
	kv("Effects", strings.Join(render.EffectBadges(c.Effects, c.LongRunning), " · "))
	prov := render.SanitizeLine(c.Effects.Provider)
	if prov == "" {
		prov = "(none declared)"
	}
	kv("Provider", prov)
	kv("Est. cost", CostEstimate(c.Effects))
	var roots []string
	for _, n := range slices.Sorted(maps.Keys(p.Request.Roots)) {
		r := p.Request.Roots[n]
		line := fmt.Sprintf("%s %s %s", render.SanitizeLine(n), render.SanitizeLine(r.Mode), render.SanitizeLine(r.Path))
		if n == WorkspaceRoot {
			// Said as describe and the permissions pane say it: not
			// requested, supplied to every run (docs/protocol.md §4).
			line += " (always supplied)"
		}
		roots = append(roots, line)
	}
	if len(roots) == 0 {
		roots = []string{"(none)"}
	}
	if p.ServerRoots != nil {
		// An MCP server is one process across calls: what it may touch
		// is its config entry's, fixed when it started, not this call's
		// request roots (which it never receives).
		roots = nil
		for _, n := range slices.Sorted(maps.Keys(p.ServerRoots)) {
			r := p.ServerRoots[n]
			roots = append(roots, render.SanitizeLine(r.Mode)+" "+render.SanitizeLine(r.Path))
		}
		if len(roots) == 0 {
			roots = []string{"none"}
		}
		roots = append(roots, "(the server's, from its config entry, fixed when it started)")
	}
	list("Roots", roots)
	var bins []string
	for _, n := range slices.Sorted(maps.Keys(p.Request.Binaries)) {
		bins = append(bins, render.SanitizeLine(n)+" → "+render.SanitizeLine(p.Request.Binaries[n]))
	}
	if len(bins) > 0 {
		list("Binaries", bins)
	}
	g := p.Request.Grants
	grant := func(k string, v []string) {
		if len(v) > 0 {
			kv(k, render.SanitizeLine(strings.Join(v, ", ")))
		}
	}
	grant("Network", g.Network)
	if p.NoNetwork != "" {
		kv("Network", render.SanitizeLine(p.NoNetwork))
	}
	grant("Credentials", g.Credentials)
	grant("Paid", g.PaidProviders)
	grant("Subprocess", g.Subprocess)
	if g.Publish {
		kv("Publish", "yes")
	}
	if len(p.Missing) > 0 {
		miss := make([]string, len(p.Missing))
		for i, m := range p.Missing {
			miss[i] = "✗ " + render.SanitizeLine(m)
		}
		list("Not supplied", miss)
	}

	tail := body

	// What the call would send: a person allows this input, not just
	// this capability (secrets masked, schema.Redact). Cut to its first
	// fields, it shows whole instead whenever the dialog then fits, until
	// i chooses.
	frame := a.com.Styles.Dialog.GetVerticalFrameSize()
	room := max(height-frame-4, 1)
	if a.early != "" {
		room = max(room-1, 1) // the "pressed too soon" line
	}
	whole, _ := a.input.lines(inner-keyW, true)
	short, cut := a.input.lines(inner-keyW, false)
	a.inputCut = cut
	if !a.inputChosen {
		masked := min(a.input.masked, 1) // its "N secret values masked" line
		a.inputOpen = cut && len(head)+len(whole)+masked+len(tail) <= room
	}
	in := short
	if a.inputOpen {
		in = whole
	}
	if cut && !a.inputOpen {
		in = append(in, st.Muted.Render(common.Trunc(fmt.Sprintf("i shows the whole input (%d %s)", len(whole), words.Plural(len(whole), "line", "lines")), inner-keyW)))
	}
	if a.input.masked > 0 {
		in = append(in, st.Muted.Render(common.Trunc(fmt.Sprintf("%d secret %s masked", a.input.masked, words.Plural(a.input.masked, "value", "values")), inner-keyW)))
	}
	body = head
	for i, l := range in {
		lab := strings.Repeat(" ", keyW)
		if i == 0 {
			lab = st.Label.Render(fmt.Sprintf("%-*s", keyW, "Input"))
		}
		body = append(body, lab+l)
	}
	body = append(body, tail...)

	title := st.Title.Render("Approve this call?")
	if a.ask != "" {
		title = st.Title.Render("Approve this agent's call?") + st.Muted.Render(" "+a.ask)
	}
	if a.sessionAsked {
		body = append(body, "", st.Warning.Render(common.Trunc("The server says this tool destroys data: press s again to allow", inner)),
			st.Warning.Render(common.Trunc("every call of it this session without asking.", inner)))
	}
	later, laterShort := "", ""
	if a.ask != "" {
		later, laterShort = "   "+st.Selected.Render("l")+" later (waits in A)", "  "+st.Selected.Render("l")+" later"
	}
	choices := st.Selected.Render("a") + " allow once   " + st.Selected.Render("s") + " allow for this session   " + st.Selected.Render("d") + " deny" + later
	if a.InGrace() {
		choices += st.Muted.Render("  (wait…)")
	}
	if common.Width(choices) > inner {
		// Narrow: the same keys in fewer words, so none is cut off.
		choices = st.Selected.Render("a") + " allow once  " + st.Selected.Render("s") + " session  " + st.Selected.Render("d") + " deny" + laterShort
		if a.InGrace() {
			choices += st.Muted.Render(" (wait…)")
		}
	}
	if a.early != "" {
		early := render.SanitizeLine(a.early) + " ignored: pressed too soon; press it again."
		if common.Width(early) > inner {
			early = render.SanitizeLine(a.early) + " ignored: too soon"
		}
		choices = st.Warning.Render(common.Trunc(early, inner)) + "\n" + common.Trunc(choices, inner)
	}
	// The title, the choices and the blank lines around the body always
	// show; the body scrolls in what is left.
	content := a.scroll(body, room, inner)
	return box(a.com, title+"\n\n"+content+"\n\n"+truncLines(choices, inner), inner)
}

// scroll shows room lines of body from a.offset (clamped). When the body
// does not fit, a line says what is hidden above and below, so nothing a
// person needs to approve is cut off silently.
func (a *Approval) scroll(body []string, room, inner int) string {
	st := a.com.Styles
	a.room = room
	if len(body) <= room {
		a.offset, a.hidden = 0, 0
		return strings.Join(body, "\n")
	}
	// One line is the position marker; the rest show the body.
	show := max(room-1, 1)
	a.offset = max(0, min(a.offset, len(body)-show))
	a.hidden = len(body) - show
	below := len(body) - a.offset - show
	var marker string
	switch {
	case below > 0 && a.offset > 0:
		marker = fmt.Sprintf("↓ %d more below, ↑ %d above (j/k, pgdn/pgup scroll)", below, a.offset)
	case below > 0:
		marker = fmt.Sprintf("↓ %d more %s (j/↓ scrolls)", below, words.Plural(below, "line", "lines"))
	default:
		marker = fmt.Sprintf("↑ %d more above (end of details; k/↑ scrolls back)", a.offset)
	}
	lines := append(slices.Clone(body[a.offset:a.offset+show]), st.Warning.Render(common.Trunc(marker, inner)))
	return strings.Join(lines, "\n")
}

// label is "Title (id)", sanitized, or just the id.
func label(title, id string) string {
	t, i := render.SanitizeLine(title), render.SanitizeLine(id)
	if t == "" || t == i {
		return i
	}
	return t + " (" + i + ")"
}

// WorkspaceRoot is the root every module run gets read-write whether or
// not the module requests it (docs/protocol.md §4, roots).
const WorkspaceRoot = "workspace"

// CostEstimate says what is known of a call's cost before it runs. The
// protocol only says whether a numeric cost will be known; an unknown cost
// is "unknown", never "0" or "free" (docs/protocol.md §6).
func CostEstimate(e modproto.Effects) string {
	if e.CostKnown {
		return "known (the module reports it with the result)"
	}
	return "unknown (the module cannot state a cost)"
}

// truncLines cuts each line of s to w cells.
func truncLines(s string, w int) string {
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		ls[i] = common.Trunc(l, w)
	}
	return strings.Join(ls, "\n")
}
