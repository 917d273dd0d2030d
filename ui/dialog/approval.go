package dialog

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

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
}

// DefaultApprovalKeyMap returns a allow once, s allow for the session, d or
// esc deny.
func DefaultApprovalKeyMap() ApprovalKeyMap {
	return ApprovalKeyMap{
		Once:    key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "allow once")),
		Session: key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "allow for session")),
		Deny:    key.NewBinding(key.WithKeys("d", "esc"), key.WithHelp("d/esc", "deny")),
	}
}

// Approval asks a person to approve a planned call (WIRE.md §11): it shows
// why, every effect, the provider and cost, the roots, binaries and grants
// the call would receive, and what the host could not supply.
type Approval struct {
	com    *common.Common
	plan   *runner.Plan
	opened time.Time
	keys   ApprovalKeyMap
}

// NewApproval opens the dialog for plan; the grace period starts now (by
// com.Now).
func NewApproval(com *common.Common, plan *runner.Plan) *Approval {
	return &Approval{com: com, plan: plan, opened: com.Now(), keys: DefaultApprovalKeyMap()}
}

// ID implements Dialog.
func (a *Approval) ID() string { return "approval" }

// Plan returns the plan being approved.
func (a *Approval) Plan() *runner.Plan { return a.plan }

// InGrace reports whether keys are still being ignored.
func (a *Approval) InGrace() bool { return a.com.Now().Sub(a.opened) < GracePeriod }

// Update implements Dialog: a, s and d/esc answer, once the grace period
// has passed; every other key is ignored.
func (a *Approval) Update(msg tea.Msg) (Action, tea.Cmd) {
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok || a.InGrace() {
		return nil, nil
	}
	switch {
	case key.Matches(kp, a.keys.Once):
		return ActionApprove{Scope: ScopeOnce}, nil
	case key.Matches(kp, a.keys.Session):
		return ActionApprove{Scope: ScopeSession}, nil
	case key.Matches(kp, a.keys.Deny):
		return ActionDeny{}, nil
	}
	return nil, nil
}

// ShortHelp implements Dialog.
func (a *Approval) ShortHelp() []key.Binding {
	return []key.Binding{a.keys.Once, a.keys.Session, a.keys.Deny}
}

// FullHelp implements Dialog.
func (a *Approval) FullHelp() [][]key.Binding { return [][]key.Binding{a.ShortHelp()} }

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
	kv("Module", label(name, id))
	kv("Capability", label(c.Title, c.ID))
	reasons := make([]string, len(p.Approval))
	for i, r := range p.Approval {
		reasons[i] = "• " + render.SanitizeLine(r)
	}
	list("Why", reasons)
	kv("Effects", strings.Join(EffectBadges(c.Effects, c.LongRunning), " · "))
	prov := render.SanitizeLine(c.Effects.Provider)
	if prov == "" {
		prov = "(none declared)"
	}
	kv("Provider", prov)
	kv("Est. cost", CostEstimate(c.Effects))
	var roots []string
	for _, n := range sortedKeys(p.Request.Roots) {
		r := p.Request.Roots[n]
		roots = append(roots, fmt.Sprintf("%s %s %s", render.SanitizeLine(n), r.Mode, render.SanitizeLine(r.Path)))
	}
	if len(roots) == 0 {
		roots = []string{"(none)"}
	}
	list("Roots", roots)
	var bins []string
	for _, n := range sortedKeys(p.Request.Binaries) {
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

	title := st.Title.Render("Approve this call?")
	choices := st.Selected.Render("a") + " allow once   " + st.Selected.Render("s") + " allow for this session   " + st.Selected.Render("d") + " deny"
	if a.InGrace() {
		choices += st.Muted.Render("  (wait…)")
	}
	frame := a.com.Styles.Dialog.GetVerticalFrameSize()
	room := max(height-frame-4, 1)
	content := common.FitHeight(strings.Join(body, "\n"), room, func(n int) string {
		return st.Muted.Render(fmt.Sprintf("… %d more lines", n))
	})
	return box(a.com, title+"\n\n"+content+"\n\n"+common.Trunc(choices, inner), inner)
}

// label is "Title (id)", sanitized, or just the id.
func label(title, id string) string {
	t, i := render.SanitizeLine(title), render.SanitizeLine(id)
	if t == "" || t == i {
		return i
	}
	return t + " (" + i + ")"
}

// EffectBadges lists a capability's declared effects as short words:
// local, network, writes, provider:<p>, cost known / cost unknown,
// long-running.
func EffectBadges(e modproto.Effects, longRunning bool) []string {
	var out []string
	if e.Local {
		out = append(out, "local")
	}
	if e.Network {
		out = append(out, "network")
	}
	if e.ExternalWrites {
		out = append(out, "writes")
	}
	if e.Provider != "" {
		out = append(out, "provider:"+render.SanitizeLine(e.Provider))
	}
	if e.CostKnown {
		out = append(out, "cost known")
	} else {
		out = append(out, "cost unknown")
	}
	if longRunning {
		out = append(out, "long-running")
	}
	return out
}

// CostEstimate says what is known of a call's cost before it runs. The
// protocol only says whether a numeric cost will be known; an unknown cost
// is "unknown", never "0" or "free" (WIRE.md §6).
func CostEstimate(e modproto.Effects) string {
	if e.CostKnown {
		return "known (the module reports it with the result)"
	}
	return "unknown (the module cannot state a cost)"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
