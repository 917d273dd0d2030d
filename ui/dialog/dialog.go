package dialog

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"modbay/ui/common"
)

// Action is a dialog's answer to the root model.
type Action interface{ isAction() }

// Scope is how far an approval reaches.
type Scope int

// Approval scopes (docs/protocol.md §11).
const (
	// ScopeOnce approves this one call.
	ScopeOnce Scope = iota
	// ScopeSession approves this module + capability + effects for the
	// rest of the session.
	ScopeSession
)

// String names the scope.
func (s Scope) String() string {
	if s == ScopeSession {
		return "session"
	}
	return "once"
}

// ActionApprove allows the call, once or for the session.
type ActionApprove struct{ Scope Scope }

// ActionDeny refuses the call: nothing runs.
type ActionDeny struct{}

// ActionSubmitText answers a prompt with the text typed.
type ActionSubmitText struct{ Value string }

// ActionClose closes a dialog without an answer.
type ActionClose struct{}

func (ActionApprove) isAction()    {}
func (ActionDeny) isAction()       {}
func (ActionSubmitText) isAction() {}
func (ActionClose) isAction()      {}

// Dialog is one dialog on the stack.
type Dialog interface {
	// Update handles a message while the dialog is on top.
	Update(msg tea.Msg) (Action, tea.Cmd)
	// View draws the dialog's box to fit in width × height cells.
	View(width, height int) string
	// ShortHelp and FullHelp give the dialog's bindings for the help bar.
	ShortHelp() []key.Binding
	FullHelp() [][]key.Binding
}

// maxDialogWidth is the widest a dialog box gets, in cells: wide enough for
// a path, narrow enough to read.
const maxDialogWidth = 84

// boxWidth is the inner width of a dialog box in a width-cell screen.
func boxWidth(com *common.Common, width int) int {
	frame := com.Styles.Dialog.GetHorizontalFrameSize()
	return max(min(width, maxDialogWidth)-frame, 10)
}

// InnerWidth is the width of a dialog's text in a width-cell area: lines
// a caller wraps to it are shown as wrapped.
func InnerWidth(com *common.Common, width int) int { return boxWidth(com, width) }

// box draws content in the dialog frame.
func box(com *common.Common, content string, inner int) string {
	return com.Styles.Dialog.Width(inner + com.Styles.Dialog.GetHorizontalFrameSize()).Render(content)
}

// Place centers a dialog box in a width × height area.
func Place(width, height int, box string) string {
	return lipgloss.Place(width, height, lipgloss.Center, lipgloss.Center, box)
}
