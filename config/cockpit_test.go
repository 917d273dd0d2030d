package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestThemeAndKeys: theme: and keys: load as written, and every value
// that cannot be used is refused with its key named.
func TestThemeAndKeys(t *testing.T) {
	load := func(y string) (*Config, error) {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, FileName), []byte(y), 0o600); err != nil {
			t.Fatal(err)
		}
		return Load(home)
	}
	c, err := load("theme:\n  name: light\n  colors:\n    primary: \"#ff8800\"\n    muted: \"244\"\nkeys:\n  quit: f3\n  jump: ctrl+j\n  pager: f2\n")
	if err != nil {
		t.Fatal(err)
	}
	if c.Theme.Name != ThemeLight || c.Theme.Colors["primary"] != "#ff8800" || c.Keys["jump"] != "ctrl+j" {
		t.Fatalf("loaded %+v %v", c.Theme, c.Keys)
	}
	// A default key an action is rebound away from is free.
	if _, err := load("keys:\n  pager: E\n  editor: f6\n"); err != nil {
		t.Fatalf("E freed by editor's rebind: %v", err)
	}
	for _, tc := range []struct{ yaml, msg string }{
		{"theme:\n  name: solarized\n", `:2:9: theme: name: "solarized" is not one of auto, dark, light, none, ascii`},
		{"theme:\n  colors:\n    accent: \"#fff\"\n", `theme: colors: "accent" is not a colour of the palette`},
		{"theme:\n  colors:\n    danger: red\n", `theme: colors.danger: "red" is not a colour`},
		{"theme:\n  colors:\n    danger: \"256\"\n", `colors.danger: "256" is not a colour`},
		{"theme:\n  font: mono\n", `unknown field "font"`},
		{"keys:\n  launch: x\n", `:2:11: keys: "launch" is not an action that can be rebound (quit, help, activity, jump, pager, editor)`},
		{"keys:\n  quit: xy\n", `keys: quit: "xy" is not a key`},
		{"keys:\n  jump: j\n", `keys: jump: "j" moves or answers in every list and form`},
		{"keys:\n  jump: f4\n  quit: f4\n", `keys: quit: "f4" is already the key of jump`},
		{"keys:\n  pager: E\n", `keys: pager: "E" is already the key of "edit a copy" where pager is bound`},
		{"keys:\n  activity: H\n", `keys: activity: "H" is already the key of "history" where activity is bound`},
	} {
		_, err := load(tc.yaml)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: err %v, want …%s", tc.yaml, err, tc.msg)
		}
	}
}
