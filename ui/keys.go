package ui

import (
	"charm.land/bubbles/v2/key"

	"modbay/ui/viewer"
)

// KeyMap is every binding of the cockpit, one nested keymap per screen; the
// form and the dialogs keep their own (formview.KeyMap, dialog.*KeyMap).
type KeyMap struct {
	Global GlobalKeyMap
	List   ListKeyMap
	Run    RunKeyMap
	Result ResultKeyMap
	Viewer viewer.KeyMap
}

// GlobalKeyMap applies on every screen.
type GlobalKeyMap struct {
	// Quit quits from a list (never while typing in a field or filter).
	Quit key.Binding
	// Interrupt cancels the run in progress, and otherwise quits.
	Interrupt key.Binding
	// Help toggles the full help where keys are not text ("?").
	Help key.Binding
	// HelpAnywhere toggles the full help on a key that never types, so it
	// works in a form's text field too (ctrl+g, F1).
	HelpAnywhere key.Binding
	// CloseHelp closes the full help before esc does anything else.
	CloseHelp key.Binding
}

// ListKeyMap is the module and capability lists' bindings.
type ListKeyMap struct {
	Up, Down key.Binding
	// ArrowUp and ArrowDown move while the filter takes j and k as text.
	ArrowUp, ArrowDown key.Binding
	// Top and Bottom jump to the first and last row.
	Top, Bottom key.Binding
	Open        key.Binding
	Filter      key.Binding
	ClearFilter key.Binding
	Rediscover  key.Binding
	Back        key.Binding
	// DetailUp and DetailDown scroll the detail pane from the list.
	DetailUp, DetailDown key.Binding
}

// RunKeyMap is the run view's bindings.
type RunKeyMap struct {
	Cancel key.Binding
}

// ResultKeyMap is the result view's bindings.
type ResultKeyMap struct {
	Up, Down         key.Binding
	PageUp, PageDown key.Binding
	Top, Bottom      key.Binding
	Open             key.Binding
	Stderr           key.Binding
	Rerun            key.Binding
	Back             key.Binding
}

// DefaultKeyMap returns the cockpit's bindings.
func DefaultKeyMap() KeyMap {
	up := key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up"))
	down := key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down"))
	pgup := key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up"))
	pgdown := key.NewBinding(key.WithKeys("pgdown", "ctrl+d", "space"), key.WithHelp("pgdn", "page down"))
	back := key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back"))
	return KeyMap{
		Global: GlobalKeyMap{
			Quit:         key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
			Interrupt:    key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
			Help:         key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "more keys")),
			HelpAnywhere: key.NewBinding(key.WithKeys("ctrl+g", "f1"), key.WithHelp("ctrl+g", "more keys")),
			CloseHelp:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close help")),
		},
		List: ListKeyMap{
			Up: up, Down: down,
			ArrowUp:     key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "up")),
			ArrowDown:   key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "down")),
			Top:         key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home/g", "first")),
			Bottom:      key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end/G", "last")),
			Open:        key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
			Filter:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
			ClearFilter: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter")),
			Rediscover:  key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "rediscover")),
			Back:        back,
			DetailUp:    key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "detail up")),
			DetailDown:  key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "detail down")),
		},
		Run: RunKeyMap{
			Cancel: key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "cancel run")),
		},
		Result: ResultKeyMap{
			Up: up, Down: down, PageUp: pgup, PageDown: pgdown,
			Top:    key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home", "top")),
			Bottom: key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end", "bottom")),
			Open:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open artifact")),
			Stderr: key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "expand stderr")),
			Rerun:  key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "re-run")),
			Back:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to form")),
		},
		Viewer: viewer.DefaultKeyMap(),
	}
}
