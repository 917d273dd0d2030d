package ui

import (
	"charm.land/bubbles/v2/key"

	"modbay/ui/list"
	"modbay/ui/viewer"
)

// KeyMap is every binding of the cockpit, one nested keymap per screen; the
// form and the dialogs keep their own (formview.KeyMap, dialog.*KeyMap).
type KeyMap struct {
	Global GlobalKeyMap
	// List is the bindings every list shares (ui/list).
	List    list.KeyMap
	Modules ModulesKeyMap
	Caps    CapsKeyMap
	Run     RunKeyMap
	Result  ResultKeyMap
	// Exchange is the raw exchange's (x on a result).
	Exchange ExchangeKeyMap
	Viewer   viewer.KeyMap
	History  HistoryKeyMap
	// Activity is the activity view's (A from every list).
	Activity ActivityKeyMap
	SendTo   SendToKeyMap
	// Elicit is a module's question mid-run (MCP elicitation).
	Elicit ElicitKeyMap
	// Surface is an MCP server's resources and prompts (surface.go).
	Surface SurfaceKeyMap
	// Skills is the skills screens' (s on the module list).
	Skills SkillsKeyMap
}

// GlobalKeyMap applies on every screen; the root shows each where it does
// what it says.
type GlobalKeyMap struct {
	// Interrupt quits, unless what has focus binds ctrl+c (a run in
	// flight cancels instead).
	Interrupt key.Binding
	// Help toggles the full help where keys are not text ("?").
	Help key.Binding
	// HelpAnywhere toggles the full help on a key that never types, so it
	// works in a form's text field too (ctrl+g, F1).
	HelpAnywhere key.Binding
	// CloseHelp closes the full help before esc does anything else.
	CloseHelp key.Binding
	// Suspend hands the terminal back to the shell (ctrl+z; fg resumes),
	// as a shell job does.
	Suspend key.Binding
	// Activity opens the activity view and Jump the jump prompt, from
	// every list.
	Activity, Jump key.Binding
}

// ResultKeyMap is the result view's bindings.
type ResultKeyMap struct {
	Up, Down         key.Binding
	PageUp, PageDown key.Binding
	Top, Bottom      key.Binding
	Open             key.Binding
	Stderr           key.Binding
	// Exchange opens the run's raw exchange (shown when it was recorded).
	Exchange key.Binding
	Rerun    key.Binding
	// SendTo hands the selected artifact to a capability of another
	// module (the send-to screen).
	SendTo key.Binding
	// Follow reads the resource the selected resource link names (an MCP
	// server's resources/read); enter still opens the link's record.
	Follow key.Binding
	// Pager and Editor open a sanitized copy of the selected artifact in
	// $PAGER or $EDITOR (the viewer's bindings).
	Pager, Editor key.Binding
	// FollowJob polls again a job whose polling stopped (followjob.go).
	FollowJob key.Binding
	Back      key.Binding
}

// DefaultKeyMap returns the cockpit's bindings.
func DefaultKeyMap() KeyMap {
	up := key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up"))
	down := key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down"))
	pgup := key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up"))
	pgdown := key.NewBinding(key.WithKeys("pgdown", "ctrl+d", "space"), key.WithHelp("pgdn", "page down"))
	back := key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back"))
	quit := key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit"))
	km := KeyMap{
		Global: GlobalKeyMap{
			Interrupt:    key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
			Help:         key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "more keys")),
			HelpAnywhere: key.NewBinding(key.WithKeys("ctrl+g", "f1"), key.WithHelp("ctrl+g", "more keys")),
			CloseHelp:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close help")),
			Suspend:      key.NewBinding(key.WithKeys("ctrl+z"), key.WithHelp("ctrl+z", "suspend")),
			Activity:     key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "activity")),
			Jump:         key.NewBinding(key.WithKeys(":"), key.WithHelp(":", "jump to…")),
		},
		List: list.DefaultKeyMap(),
		Modules: ModulesKeyMap{
			Rediscover: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "rediscover")),
			LogMore:    key.NewBinding(key.WithKeys("+"), key.WithHelp("+", "more server log")),
			LogLess:    key.NewBinding(key.WithKeys("-"), key.WithHelp("-", "less server log")),
			Surface:    key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "resources & prompts")),
			Skills:     key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "skills")),
			Quit:       quit,
		},
		Caps: CapsKeyMap{Back: back, Quit: quit,
			Surface: key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "resources & prompts"))},
		Run: RunKeyMap{
			Cancel:     key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "cancel run")),
			Background: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "run in background")),
			CancelJob:  cancelJobKey,
		},
		Result: ResultKeyMap{
			Up: up, Down: down, PageUp: pgup, PageDown: pgdown,
			Top:       key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home", "top")),
			Bottom:    key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end", "bottom")),
			Open:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open artifact")),
			Stderr:    key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "expand stderr")),
			Exchange:  key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "raw exchange")),
			Rerun:     key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "re-run")),
			SendTo:    key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "send artifact to…")),
			Follow:    key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "follow link")),
			FollowJob: followJobKey,
			Back:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to form")),
		},
		Viewer:   viewer.DefaultKeyMap(),
		History:  defaultHistoryKeys(),
		Activity: defaultActivityKeys(),
		SendTo:   defaultSendToKeys(),
		Elicit:   defaultElicitKeys(),
		Surface:  defaultSurfaceKeys(),
		Skills:   defaultSkillsKeys(),
	}
	km.Result.Pager, km.Result.Editor = km.Viewer.Artifact.Pager, km.Viewer.Artifact.Editor
	km.Exchange = defaultExchangeKeys(km.Result)
	return km
}

// Rebind gives the actions of config.KeyActions the keys configured
// (config.yaml's keys:, validated on load): each binding of the action,
// on every screen that has it, takes the new key and shows it in the help.
func (k *KeyMap) Rebind(keys map[string]string) {
	set := func(k string, bs ...*key.Binding) {
		for _, b := range bs {
			b.SetKeys(k)
			b.SetHelp(k, b.Help().Desc)
		}
	}
	for action, kk := range keys {
		switch action {
		case "quit":
			set(kk, &k.Modules.Quit, &k.Caps.Quit, &k.SendTo.Quit, &k.Skills.Quit)
		case "help":
			set(kk, &k.Global.Help)
		case "activity":
			set(kk, &k.Global.Activity)
		case "jump":
			set(kk, &k.Global.Jump)
		case "pager":
			set(kk, &k.Viewer.Artifact.Pager, &k.Result.Pager)
		case "editor":
			set(kk, &k.Viewer.Artifact.Editor, &k.Result.Editor)
		}
	}
}

// keyMapFor is the default bindings with keys rebound.
func keyMapFor(keys map[string]string) KeyMap {
	k := DefaultKeyMap()
	k.Rebind(keys)
	return k
}
