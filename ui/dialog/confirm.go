package dialog

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/render"
	"modbay/ui/common"
)

// ConfirmKeyMap is the confirmation dialog's bindings.
type ConfirmKeyMap struct {
	Yes key.Binding
	No  key.Binding
}

// DefaultConfirmKeyMap returns y to go ahead, n or esc to keep things as
// they are.
func DefaultConfirmKeyMap() ConfirmKeyMap {
	return ConfirmKeyMap{
		Yes: key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "yes")),
		No:  key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n/esc", "no")),
	}
}

// Confirm asks yes or no before an action that cannot be taken back
// (cancelling a job, deleting a pinned run): y answers ActionApprove
// (ScopeOnce), n or esc ActionDeny. Its lines are sanitized when drawn.
type Confirm struct {
	com   *common.Common
	title string
	lines []string
	yes   string
	keys  ConfirmKeyMap
}

// NewConfirm asks title, explained by lines, with yes saying what y does
// ("cancel the job").
func NewConfirm(com *common.Common, title, yes string, lines ...string) *Confirm {
	k := DefaultConfirmKeyMap()
	k.Yes.SetHelp("y", yes)
	return &Confirm{com: com, title: title, lines: lines, yes: yes, keys: k}
}

// Update implements Dialog.
func (c *Confirm) Update(msg tea.Msg) (Action, tea.Cmd) {
	if kp, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(kp, c.keys.Yes):
			return ActionApprove{Scope: ScopeOnce}, nil
		case key.Matches(kp, c.keys.No):
			return ActionDeny{}, nil
		}
	}
	return nil, nil
}

// ShortHelp implements Dialog.
func (c *Confirm) ShortHelp() []key.Binding { return []key.Binding{c.keys.Yes, c.keys.No} }

// FullHelp implements Dialog.
func (c *Confirm) FullHelp() [][]key.Binding { return [][]key.Binding{c.ShortHelp()} }

// View implements Dialog.
func (c *Confirm) View(width, _ int) string {
	inner := boxWidth(c.com, width)
	st := c.com.Styles
	var b strings.Builder
	b.WriteString(st.Title.Render(common.Wrap(render.SanitizeLine(c.title), inner)))
	if len(c.lines) > 0 {
		b.WriteString("\n")
	}
	for _, l := range c.lines {
		b.WriteString("\n" + common.Wrap(render.SanitizeLine(l), inner))
	}
	b.WriteString("\n\n" + st.Selected.Render("y") + " " + render.SanitizeLine(c.yes) + "   " + st.Selected.Render("n") + " no")
	return box(c.com, b.String(), inner)
}
