package dialog

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"modbay/render"
	"modbay/ui/common"
)

// PromptKeyMap is the prompt dialog's bindings.
type PromptKeyMap struct {
	Confirm key.Binding
	Cancel  key.Binding
}

// DefaultPromptKeyMap returns enter to confirm, esc to cancel.
func DefaultPromptKeyMap() PromptKeyMap {
	return PromptKeyMap{
		Confirm: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "confirm")),
		Cancel:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}

// Prompt asks for one line of text (e.g. the directory to save an artifact
// copy into), starting from a default.
type Prompt struct {
	com   *common.Common
	title string
	// hint is a muted line under the input saying how the answer is read
	// ("~ is your home; a relative path starts in …"); empty for none.
	hint  string
	input textinput.Model
	keys  PromptKeyMap
}

// NewPrompt opens a prompt titled title with value prefilled.
func NewPrompt(com *common.Common, title, value string) *Prompt {
	in := textinput.New()
	in.Prompt = "> "
	in.SetStyles(com.Styles.TextInput)
	in.SetValue(value)
	in.CursorEnd()
	in.Focus()
	return &Prompt{com: com, title: title, input: in, keys: DefaultPromptKeyMap()}
}

// SetHint sets the muted line shown under the input, which says how the
// answer is read; it returns p for chaining.
func (p *Prompt) SetHint(hint string) *Prompt {
	p.hint = hint
	return p
}

// Update implements Dialog.
func (p *Prompt) Update(msg tea.Msg) (Action, tea.Cmd) {
	if kp, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(kp, p.keys.Confirm):
			return ActionSubmitText{Value: p.input.Value()}, nil
		case key.Matches(kp, p.keys.Cancel):
			return ActionClose{}, nil
		}
	}
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	return nil, cmd
}

// ShortHelp implements Dialog.
func (p *Prompt) ShortHelp() []key.Binding { return []key.Binding{p.keys.Confirm, p.keys.Cancel} }

// FullHelp implements Dialog.
func (p *Prompt) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// View implements Dialog.
func (p *Prompt) View(width, _ int) string {
	inner := boxWidth(p.com, width)
	p.input.SetWidth(max(inner-3, 5))
	st := p.com.Styles
	content := st.Title.Render(common.Wrap(render.SanitizeLine(p.title), inner)) + "\n\n" + p.input.View()
	if p.hint != "" {
		content += "\n\n" + st.Muted.Render(ansi.Wrap(render.SanitizeLine(p.hint), inner, "/ "))
	}
	return box(p.com, content, inner)
}
