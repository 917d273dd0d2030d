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

// defaultKeyOf is the action of KeyActions each default key belongs to.
var defaultKeyOf = map[string]string{"q": "quit", "?": "help", "A": "activity", ":": "jump", "O": "pager", "E": "editor"}

// ScreenKeys are, per action of KeyActions, the keys bound by default on
// the screens the action lives on (its own left out), each with what it
// does: a rebind onto one would hide it. ui's TestConfigKnowsEveryBoundKey
// keeps the table equal to the cockpit's key maps.
var ScreenKeys = map[string]map[string]string{
	"quit":     {"+": "more server log", "-": "less server log", "/": "filter", ":": "jump to…", "?": "more keys", "A": "activity", "G": "last", "H": "history", "R": "resources & prompts", "a": "arguments", "ctrl+c": "quit", "ctrl+g": "more keys", "ctrl+z": "suspend", "down": "down", "end": "last", "enter": "open", "esc": "close help", "f1": "more keys", "g": "first", "home": "first", "j": "down", "k": "up", "n": "don't run", "pgdown": "detail down", "pgup": "detail up", "r": "rediscover", "s": "skills", "space": "load/unload", "up": "up", "w": "what the agent sees", "x": "unload all", "y": "run it"},
	"help":     {"#": "line numbers", "+": "more server log", "-": "less server log", "/": "filter", ":": "jump to…", "A": "activity", "C": "read as CSV/TSV", "D": "delete run", "E": "edit a copy", "F": "follow the job again", "G": "last", "H": "history", "N": "previous match", "O": "open in pager", "R": "resources & prompts", "S": "sort by column", "X": "cancel the job", "a": "arguments", "b": "page up", "c": "copy invoke line", "ctrl+c": "quit", "ctrl+d": "page down", "ctrl+g": "more keys", "ctrl+o": "open URL in browser", "ctrl+s": "accept (send answer)", "ctrl+u": "page up", "ctrl+z": "suspend", "down": "down", "e": "expand stderr", "end": "last", "enter": "open", "esc": "close help", "f": "follow link", "f1": "more keys", "g": "first", "h": "left", "home": "first", "j": "down", "k": "up", "l": "right", "left": "left", "m": "copy module call", "n": "next match", "o": "open", "p": "pin", "pgdown": "detail down", "pgup": "detail up", "q": "quit", "r": "rediscover", "right": "right", "s": "skills", "space": "page down", "t": "send artifact to…", "tab": "expand/collapse", "up": "up", "v": "source/rendered", "w": "wrap", "x": "raw exchange", "y": "copy JSON path"},
	"activity": {"#": "line numbers", "+": "more server log", "-": "less server log", "/": "filter", ":": "jump to…", "?": "more keys", "C": "read as CSV/TSV", "D": "delete run", "E": "edit a copy", "F": "follow the job again", "G": "last", "H": "history", "N": "previous match", "O": "open in pager", "R": "resources & prompts", "S": "sort by column", "X": "cancel the job", "a": "arguments", "b": "page up", "c": "copy invoke line", "ctrl+c": "quit", "ctrl+d": "page down", "ctrl+g": "more keys", "ctrl+o": "open URL in browser", "ctrl+s": "accept (send answer)", "ctrl+u": "page up", "ctrl+z": "suspend", "down": "down", "e": "expand stderr", "end": "last", "enter": "open", "esc": "close help", "f": "follow link", "f1": "more keys", "g": "first", "h": "left", "home": "first", "j": "down", "k": "up", "l": "right", "left": "left", "m": "copy module call", "n": "next match", "o": "open", "p": "pin", "pgdown": "detail down", "pgup": "detail up", "q": "quit", "r": "rediscover", "right": "right", "s": "skills", "space": "page down", "t": "send artifact to…", "tab": "expand/collapse", "up": "up", "v": "source/rendered", "w": "wrap", "x": "raw exchange", "y": "copy JSON path"},
	"jump":     {"#": "line numbers", "+": "more server log", "-": "less server log", "/": "filter", "?": "more keys", "A": "activity", "C": "read as CSV/TSV", "D": "delete run", "E": "edit a copy", "F": "follow the job again", "G": "last", "H": "history", "N": "previous match", "O": "open in pager", "R": "resources & prompts", "S": "sort by column", "X": "cancel the job", "a": "arguments", "b": "page up", "c": "copy invoke line", "ctrl+c": "quit", "ctrl+d": "page down", "ctrl+g": "more keys", "ctrl+o": "open URL in browser", "ctrl+s": "accept (send answer)", "ctrl+u": "page up", "ctrl+z": "suspend", "down": "down", "e": "expand stderr", "end": "last", "enter": "open", "esc": "close help", "f": "follow link", "f1": "more keys", "g": "first", "h": "left", "home": "first", "j": "down", "k": "up", "l": "right", "left": "left", "m": "copy module call", "n": "next match", "o": "open", "p": "pin", "pgdown": "detail down", "pgup": "detail up", "q": "quit", "r": "rediscover", "right": "right", "s": "skills", "space": "page down", "t": "send artifact to…", "tab": "expand/collapse", "up": "up", "v": "source/rendered", "w": "wrap", "x": "raw exchange", "y": "copy JSON path"},
	"pager":    {"#": "line numbers", "/": "search", ":": "jump to…", "?": "more keys", "A": "activity", "C": "read as CSV/TSV", "E": "edit a copy", "F": "follow the job again", "G": "bottom", "N": "previous match", "S": "sort by column", "b": "page up", "c": "collapse all", "ctrl+c": "quit", "ctrl+d": "page down", "ctrl+g": "more keys", "ctrl+u": "page up", "ctrl+z": "suspend", "down": "down", "e": "expand all", "end": "bottom", "enter": "find", "esc": "close help", "f": "page down", "f1": "more keys", "g": "top", "h": "left", "home": "top", "j": "down", "k": "up", "l": "right", "left": "left", "m": "as markdown/text", "n": "next match", "o": "open", "pgdown": "page down", "pgup": "page up", "r": "re-run", "right": "right", "s": "save a copy", "space": "page down", "t": "send artifact to…", "tab": "expand/collapse", "up": "up", "v": "source/rendered", "w": "wrap", "x": "raw exchange", "y": "copy JSON path"},
	"editor":   {"#": "line numbers", "/": "search", ":": "jump to…", "?": "more keys", "A": "activity", "C": "read as CSV/TSV", "F": "follow the job again", "G": "bottom", "N": "previous match", "O": "open in pager", "S": "sort by column", "b": "page up", "c": "collapse all", "ctrl+c": "quit", "ctrl+d": "page down", "ctrl+g": "more keys", "ctrl+u": "page up", "ctrl+z": "suspend", "down": "down", "e": "expand all", "end": "bottom", "enter": "find", "esc": "close help", "f": "page down", "f1": "more keys", "g": "top", "h": "left", "home": "top", "j": "down", "k": "up", "l": "right", "left": "left", "m": "as markdown/text", "n": "next match", "o": "open", "pgdown": "page down", "pgup": "page up", "r": "re-run", "right": "right", "s": "save a copy", "space": "page down", "t": "send artifact to…", "tab": "expand/collapse", "up": "up", "v": "source/rendered", "w": "wrap", "x": "raw exchange", "y": "copy JSON path"},
}

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
		return &atError{[]string{"name"}, fmt.Sprintf("name: %q is not one of %s", t.Name, strings.Join(ThemeNames, ", "))}
	}
	for _, name := range sortedKeys(t.Colors) {
		if !slices.Contains(ThemeColors, name) {
			return &atError{[]string{"colors", name}, fmt.Sprintf("colors: %q is not a colour of the palette (%s)", name, strings.Join(ThemeColors, ", "))}
		}
		if !validColor(t.Colors[name]) {
			return &atError{[]string{"colors", name}, fmt.Sprintf("colors.%s: %q is not a colour (#rrggbb, #rgb or 0–255)", name, t.Colors[name])}
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
			return &atError{[]string{action}, fmt.Sprintf("%q is not an action that can be rebound (%s)", action, strings.Join(KeyActions, ", "))}
		}
		if !validKey(k) {
			return &atError{[]string{action}, fmt.Sprintf("%s: %q is not a key (one character, or a name such as ctrl+o, alt+j, f2)", action, k)}
		}
		if slices.Contains(reservedKeys, k) {
			return &atError{[]string{action}, fmt.Sprintf("%s: %q moves or answers in every list and form; choose another key", action, k)}
		}
		if other, ok := by[k]; ok {
			return &atError{[]string{action}, fmt.Sprintf("%s: %q is already the key of %s", action, k, other)}
		}
		// Another binding of the action's screens, unless it is the
		// default key of an action rebound away from it.
		if what, ok := ScreenKeys[action][k]; ok {
			if other, freed := defaultKeyOf[k]; !freed || keys[other] == "" || keys[other] == k {
				return &atError{[]string{action}, fmt.Sprintf("%s: %q is already the key of %q where %s is bound; choose another key", action, k, what, action)}
			}
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
