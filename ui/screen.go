package ui

import (
	"slices"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
)

// Screen is the one contract every page of the cockpit meets (after
// soft-serve pkg/ui/common/component.go): the root sizes it, hands it the
// keys and messages it routes, draws it, and shows its key map as the help
// bar. A screen never changes what is on screen by itself: it answers with
// an Action and the root, the only router, carries it out.
type Screen interface {
	// Kind names the screen in the registry.
	Kind() screenKind
	// SetSize gives the screen its area: w cells by h lines between the
	// header line and the help bar.
	SetSize(w, h int)
	// Update handles a key or a message and says what it asks of the root
	// (nil: nothing) with the command to run.
	Update(msg tea.Msg) (Action, tea.Cmd)
	// View draws the screen in its area.
	View() string
	// KeyMap is the screen's bindings that apply now: the single source of
	// its help. The root adds only the global keys (help, ctrl+c) and fits
	// the bar to the width; every binding shown must do something.
	help.KeyMap
	// Typing reports whether keys are text (a field, a filter), so global
	// keys that type ("?", "q") stay out of the way.
	Typing() bool
	// Crumb is the screen's part of the header's breadcrumb ("" for none);
	// top says whether the screen has the focus (a screen may say more
	// about itself then).
	Crumb(top bool) string
}

// textScreen is a screen where "?" may be text at any moment (a form: the
// focus moves between fields and text), so its help bar offers the full
// help on a key that never types.
type textScreen interface{ questionIsText() }

// reflower is a screen whose content depends on the terminal's width and
// colors beyond SetSize (the artifact viewer re-renders).
type reflower interface{ Reflow() tea.Cmd }

// screenKind names a kind of screen in the registry.
type screenKind string

// The cockpit's screens.
const (
	screenModules screenKind = "modules"
	screenCaps    screenKind = "capabilities"
	screenForm    screenKind = "form"
	screenRun     screenKind = "run"
	screenResult  screenKind = "result"
	screenViewer  screenKind = "viewer"
	// screenExchange is a run's raw exchange.
	screenExchange screenKind = "exchange"
)

// opener builds a screen of its kind for arg, what the action that opens
// it carries (a module, a capability, a run id…), with a command to start
// it. It returns a nil Screen when arg does not lead anywhere.
type opener func(m *Model, arg any) (Screen, tea.Cmd)

// registry is every screen the router can open, by kind. Registering a
// screen is one line here (or one register call).
var registry = map[screenKind]opener{
	screenModules:  openModulesScreen,
	screenCaps:     openCapsScreen,
	screenForm:     openFormScreen,
	screenRun:      openRunScreen,
	screenResult:   openResultScreen,
	screenViewer:   openViewerScreen,
	screenExchange: openExchangeScreen,
}

// register adds a screen kind to the registry.
func register(k screenKind, open opener) { registry[k] = open }

// registeredKinds lists the registry's kinds in a stable order.
func registeredKinds() []screenKind {
	var ks []screenKind
	for k := range registry {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// Action is what a screen asks of the root model.
type Action interface{ isAction() }

// Actions every screen may answer with.
type (
	// actionOpen pushes a screen of kind Kind built for Arg.
	actionOpen struct {
		kind screenKind
		arg  any
	}
	// actionPop leaves the screen for the one under it (esc).
	actionPop struct{}
	// actionQuit quits the cockpit.
	actionQuit struct{}
)

func (actionOpen) isAction() {}
func (actionPop) isAction()  {}
func (actionQuit) isAction() {}

// top returns the screen with the focus.
func (m *Model) top() Screen { return m.stack[len(m.stack)-1] }

// screen is the kind of the screen with the focus.
func (m *Model) screen() screenKind { return m.top().Kind() }

// find returns the top-most screen of type T on the stack.
func find[T Screen](m *Model) (T, bool) {
	for i := len(m.stack) - 1; i >= 0; i-- {
		if s, ok := m.stack[i].(T); ok {
			return s, true
		}
	}
	var zero T
	return zero, false
}

// open builds a screen of kind k for arg and pushes it.
func (m *Model) open(k screenKind, arg any) tea.Cmd {
	o, ok := registry[k]
	if !ok {
		return nil
	}
	s, cmd := o(m, arg)
	if s == nil {
		return cmd
	}
	m.push(s)
	return cmd
}

// push gives s the focus, sized.
func (m *Model) push(s Screen) {
	m.stack = append(m.stack, s)
	m.layout()
}

// pop leaves the top screen; the bottom one (the module list) stays.
func (m *Model) pop() {
	if len(m.stack) > 1 {
		closeScreens(m.stack[len(m.stack)-1:])
		m.stack = m.stack[:len(m.stack)-1]
		m.layout()
	}
}

// screenCloser is a screen with work to stop once it leaves the stack
// (a viewer's renders).
type screenCloser interface{ Close() }

// closeScreens closes the screens of ss that have work to stop.
func closeScreens(ss []Screen) {
	for _, s := range ss {
		if c, ok := s.(screenCloser); ok {
			c.Close()
		}
	}
}

// popTo pops until a screen of kind k has the focus; false (and nothing
// popped) when none is on the stack.
func (m *Model) popTo(k screenKind) bool {
	for i := len(m.stack) - 1; i >= 0; i-- {
		if m.stack[i].Kind() == k {
			closeScreens(m.stack[i+1:])
			m.stack = m.stack[:i+1]
			m.layout()
			return true
		}
	}
	return false
}

// replace puts a screen of kind k built for arg where old is on the stack
// (a run's screen becomes its result); when old is no longer on the stack
// (the person left it) nothing is opened.
func (m *Model) replace(old Screen, k screenKind, arg any) tea.Cmd {
	i := slices.Index(m.stack, old)
	if i < 0 {
		return nil
	}
	s, cmd := registry[k](m, arg)
	if s == nil {
		return cmd
	}
	closeScreens(m.stack[i : i+1])
	m.stack[i] = s
	m.layout()
	return cmd
}
