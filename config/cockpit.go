package config

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Theme is the config's `theme:` section: the cockpit's palette.
type Theme struct {
	// Name is one of ThemeNames: "auto" (or "") follows the terminal's
	// background, "dark" and "light" fix it, "none" draws no colour,
	// "ascii" no colour and ASCII glyphs only.
	Name string `yaml:"name"`
	// Colors overrides single colours of the palette, by ThemeColors
	// name: "#rrggbb", "#rgb" or an ANSI colour number 0–255.
	Colors map[string]string `yaml:"colors"`
}

// Theme names.
const (
	ThemeAuto  = "auto"
	ThemeDark  = "dark"
	ThemeLight = "light"
	ThemeNone  = "none"
	ThemeASCII = "ascii"
)

// ThemeNames are the palettes `theme.name` selects.
var ThemeNames = []string{ThemeAuto, ThemeDark, ThemeLight, ThemeNone, ThemeASCII}

// ThemeColors are the palette colours `theme.colors` may override.
var ThemeColors = []string{"primary", "secondary", "muted", "success", "warning", "danger"}

// KeyActions are the cockpit actions `keys:` may rebind, each to one key:
// quit (the lists' q), help (?), activity (A), jump (:), pager (O),
// editor (E).
var KeyActions = []string{"quit", "help", "activity", "jump", "pager", "editor"}

// reservedKeys are the keys every list and form moves and answers with:
// no action may take one (the action would shadow it where both apply).
var reservedKeys = []string{"up", "down", "left", "right", "enter", "esc", "tab", "space", "j", "k", "/", "ctrl+c", "ctrl+g", "ctrl+z"}

// namedKey is a key written by name: a modifier and a letter, digit or
// function key ("ctrl+o", "alt+j", "f2").
var namedKey = regexp.MustCompile(`^((ctrl|alt)\+)?([a-z0-9]|f([1-9]|1[0-2])|up|down|left|right|enter|esc|tab|space|home|end|pgup|pgdown)$`)

// hexColor is "#rgb" or "#rrggbb".
var hexColor = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)

// check reports the first value of the theme: section that cannot be
// used, naming it.
func (t Theme) check() error {
	if t.Name != "" && !slices.Contains(ThemeNames, t.Name) {
		return fmt.Errorf("name: %q is not one of %s", t.Name, strings.Join(ThemeNames, ", "))
	}
	for _, name := range sortedKeys(t.Colors) {
		if !slices.Contains(ThemeColors, name) {
			return fmt.Errorf("colors: %q is not a colour of the palette (%s)", name, strings.Join(ThemeColors, ", "))
		}
		if !validColor(t.Colors[name]) {
			return fmt.Errorf("colors.%s: %q is not a colour (#rrggbb, #rgb or 0–255)", name, t.Colors[name])
		}
	}
	return nil
}

// validColor reports whether v is "#rgb", "#rrggbb" or 0–255.
func validColor(v string) bool {
	if hexColor.MatchString(v) {
		return true
	}
	n, err := strconv.Atoi(v)
	return err == nil && n >= 0 && n <= 255 && strconv.Itoa(n) == v
}

// checkKeys reports the first entry of the keys: section that cannot be
// used: an unknown action, a key that is not one, a reserved key or one
// key for two actions.
func checkKeys(keys map[string]string) error {
	by := map[string]string{}
	for _, action := range sortedKeys(keys) {
		k := keys[action]
		if !slices.Contains(KeyActions, action) {
			return fmt.Errorf("%q is not an action that can be rebound (%s)", action, strings.Join(KeyActions, ", "))
		}
		if !validKey(k) {
			return fmt.Errorf("%s: %q is not a key (one character, or a name such as ctrl+o, alt+j, f2)", action, k)
		}
		if slices.Contains(reservedKeys, k) {
			return fmt.Errorf("%s: %q moves or answers in every list and form; choose another key", action, k)
		}
		if other, ok := by[k]; ok {
			return fmt.Errorf("%s: %q is already the key of %s", action, k, other)
		}
		by[k] = action
	}
	return nil
}

// validKey reports whether k is one printable character or a named key.
func validKey(k string) bool {
	if utf8.RuneCountInString(k) == 1 {
		r, _ := utf8.DecodeRuneInString(k)
		return r > ' ' && r != utf8.RuneError && r != 0x7f
	}
	return namedKey.MatchString(k)
}

// sortedKeys is m's keys in order, so the first problem reported is the
// same on every load.
func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
