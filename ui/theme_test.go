package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"modbay/config"
	"modbay/ui/viewer"
)

// TestKeysRebound: config.yaml's keys: move the actions, and the help
// shows the key as rebound: x quits, ctrl+o jumps, F opens the activity.
func TestKeysRebound(t *testing.T) {
	m := newModel(nil, "", Options{NoColor: true, Keys: map[string]string{"quit": "x", "jump": "ctrl+o", "activity": "F", "help": "H"}})
	m.viewerEnv = viewer.Env{}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	withModules(t, m)
	press(m, "H")
	v := ansi.Strip(frame(t, m))
	for _, want := range []string{"x quit", "ctrl+o jump to…", "F      activity", "H      more keys"} {
		if !strings.Contains(v, want) {
			t.Errorf("full help lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "q quit") || strings.Contains(v, ": jump") {
		t.Errorf("the old keys are still shown:\n%s", v)
	}
	press(m, "H", ":")
	if len(m.dialogs) != 0 {
		t.Fatal(": still opens the jump prompt")
	}
	press(m, "ctrl+o")
	if len(m.dialogs) != 1 || !isJump(m.dialogs[0]) {
		t.Fatal("ctrl+o does not open the jump prompt")
	}
	press(m, "esc", "F")
	if m.screen() != screenActivity {
		t.Fatalf("F opened %v, want the activity view", m.screen())
	}
}

// TestThemeNames: none draws no colour, ascii no colour and ASCII glyphs,
// light keeps a light palette whatever the terminal reports, and a colour
// override reaches the styles.
func TestThemeNames(t *testing.T) {
	none := newModel(nil, "", Options{Theme: config.Theme{Name: config.ThemeNone}})
	if !none.com.NoColor || none.com.ASCII {
		t.Errorf("none: NoColor %v ASCII %v", none.com.NoColor, none.com.ASCII)
	}
	ascii := newModel(nil, "", Options{Theme: config.Theme{Name: config.ThemeASCII}})
	if !ascii.com.NoColor || !ascii.com.ASCII {
		t.Errorf("ascii: NoColor %v ASCII %v", ascii.com.NoColor, ascii.com.ASCII)
	}
	light := newModel(nil, "", Options{Theme: config.Theme{Name: config.ThemeLight, Colors: map[string]string{"primary": "#ff0000"}}})
	light.Update(tea.BackgroundColorMsg{Color: nil})
	if light.com.Dark || light.com.Styles.Dark {
		t.Error("light: the terminal's report turned it dark")
	}
	if r, g, b, _ := light.com.Styles.Title.GetForeground().RGBA(); r>>8 != 0xff || g != 0 || b != 0 {
		t.Errorf("title colour %v, want #ff0000", light.com.Styles.Title.GetForeground())
	}
}
