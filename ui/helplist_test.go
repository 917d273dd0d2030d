package ui

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"

	"modbay/ui/dialog"
	"modbay/ui/formview"
	"modbay/ui/viewer"
)

// bindingKeys are the keys of every key.Binding in v, a key map struct
// (nested structs walked).
func bindingKeys(v reflect.Value, out map[string]bool) {
	switch v.Kind() {
	case reflect.Struct:
		if b, ok := v.Interface().(key.Binding); ok {
			for _, k := range b.Keys() {
				out[k] = true
			}
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				bindingKeys(v.Field(i), out)
			}
		}
	}
}

// everyKey is every key any key map of the cockpit binds, sorted.
func everyKey() []string {
	set := map[string]bool{}
	for _, km := range []any{DefaultKeyMap(), formview.DefaultKeyMap(), viewer.DefaultKeyMap(), dialog.DefaultApprovalKeyMap()} {
		bindingKeys(reflect.ValueOf(km), set)
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// editingKeys are what a text input does with keys while it has them
// (the cursor and deletion): the input's, not the screen's.
var editingKeys = []string{"space", "backspace", "delete", "left", "right", "home", "end", "up", "down",
	"ctrl+a", "ctrl+e", "ctrl+u", "ctrl+k", "ctrl+w", "ctrl+d", "ctrl+h", "ctrl+b", "ctrl+f",
	"alt+up", "alt+down", "alt+enter", "ctrl+j"}

// TestFullHelpListsEveryKeyThatActs: in every state of every registered
// screen, a key of any key map that does something there is listed by
// the full help ("?", ctrl+g): the help is the screen's whole key map,
// not a part of it. Text typed into a field is not a key.
func TestFullHelpListsEveryKeyThatActs(t *testing.T) {
	all := everyKey()
	// The root's own keys: the full help lists them in its last group,
	// worded for the state (open/close help).
	global := map[string]bool{}
	bindingKeys(reflect.ValueOf(DefaultKeyMap().Global), global)
	for _, kind := range registeredKinds() {
		for _, st := range helpStates[kind] {
			t.Run(string(kind)+"/"+st.name, func(t *testing.T) {
				base := st.reach(t)
				press(base, "f1")
				listed := map[string]bool{}
				for _, b := range shown(base) {
					for _, k := range b.Keys() {
						listed[k] = true
					}
				}
				for _, k := range all {
					if listed[k] || global[k] {
						continue
					}
					m := st.reach(t)
					if m.typing() && (utf8.RuneCountInString(k) == 1 || slices.Contains(editingKeys, k) || strings.HasPrefix(k, "shift+")) {
						continue
					}
					before := m.View().Content
					_, cmd := m.Update(keyPress(k))
					if cmd != nil || m.View().Content != before {
						t.Errorf("%q acts here, and the full help does not list it", k)
					}
				}
			})
		}
	}
}
