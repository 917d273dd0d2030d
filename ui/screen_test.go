package ui

import (
	"fmt"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// screenProbe is a screen only the tests register, in one line (init
// below), to prove that a new screen needs nothing else: the router
// reaches it, sizes it, shows its help and pops it like the others.
const screenProbe screenKind = "probe"

func init() { register(screenProbe, openProbeScreen) }

// probeKeyMap is the probe screen's bindings.
type probeKeyMap struct{ Bump, Back key.Binding }

// probeScreen counts bumps and draws its size.
type probeScreen struct {
	keys  probeKeyMap
	w, h  int
	bumps int
}

func openProbeScreen(*Model, any) (Screen, tea.Cmd) {
	return &probeScreen{keys: probeKeyMap{
		Bump: key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "bump")),
		Back: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
	}}, nil
}

func (p *probeScreen) Kind() screenKind  { return screenProbe }
func (p *probeScreen) SetSize(w, h int)  { p.w, p.h = w, h }
func (p *probeScreen) Typing() bool      { return false }
func (p *probeScreen) Crumb(bool) string { return "probe" }
func (p *probeScreen) View() string      { return fmt.Sprintf("probe %d×%d, %d bumps", p.w, p.h, p.bumps) }
func (p *probeScreen) ShortHelp() []key.Binding {
	return []key.Binding{p.keys.Bump, p.keys.Back}
}
func (p *probeScreen) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }
func (p *probeScreen) Update(msg tea.Msg) (Action, tea.Cmd) {
	if kp, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(kp, p.keys.Bump):
			p.bumps++
		case key.Matches(kp, p.keys.Back):
			return actionPop{}, nil
		}
	}
	return nil, nil
}

func TestARegisteredScreenIsRoutedSizedHelpedAndPopped(t *testing.T) {
	m, _ := newTest(t, nil, 80, 24)
	withModules(t, m)
	m.Update(nil) // nothing routed: still the list
	m.act(actionOpen{kind: screenProbe})
	if m.screen() != screenProbe {
		t.Fatalf("screen %v, want probe", m.screen())
	}
	p := m.top().(*probeScreen)
	if p.w != 80 || p.h != m.bodyHeight() {
		t.Fatalf("probe sized %d×%d, want 80×%d", p.w, p.h, m.bodyHeight())
	}
	press(m, "b", "b")
	out := ansi.Strip(frame(t, m))
	for _, want := range []string{"probe 80×22, 2 bumps", "modbay › probe", "b bump", "esc back", "? more keys"} {
		if !strings.Contains(out, want) {
			t.Errorf("probe frame lacks %q:\n%s", want, out)
		}
	}
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	if p.w != 100 || p.h != m.bodyHeight() {
		t.Fatalf("after resize: probe sized %d×%d", p.w, p.h)
	}
	press(m, "?")
	if h := strings.Join(strings.Fields(ansi.Strip(m.helpView())), " "); !strings.Contains(h, "b bump") || !strings.Contains(h, "esc close help") {
		t.Fatalf("full help on the probe: %q", h)
	}
	press(m, "esc", "esc")
	if m.screen() != screenModules {
		t.Fatalf("esc: screen %v, want the module list back", m.screen())
	}
	press(m, "esc")
	if m.screen() != screenModules || len(m.stack) != 1 {
		t.Fatalf("esc on the module list left it: %v (%d screens)", m.screen(), len(m.stack))
	}
}
