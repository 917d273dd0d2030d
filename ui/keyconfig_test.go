package ui

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"

	"modbay/config"
)

// bindingsIn is every key.Binding reachable in v's fields (nested key maps
// included), skipping those in own.
func bindingsIn(v reflect.Value, own map[*key.Binding]bool, out *[]*key.Binding) {
	if b, ok := v.Addr().Interface().(*key.Binding); ok {
		if !own[b] {
			*out = append(*out, b)
		}
		return
	}
	if v.Kind() != reflect.Struct {
		return
	}
	for i := range v.NumField() {
		if f := v.Field(i); f.CanAddr() && v.Type().Field(i).IsExported() {
			bindingsIn(f, own, out)
		}
	}
}

// actionScreenKeys is, per rebindable action, the default keys of the
// screens it lives on (its own bindings left out), each with its help.
func actionScreenKeys() map[string]map[string]string {
	k := DefaultKeyMap()
	own := map[string][]*key.Binding{
		"quit":     {&k.Modules.Quit, &k.Caps.Quit, &k.SendTo.Quit, &k.Skills.Quit},
		"help":     {&k.Global.Help},
		"activity": {&k.Global.Activity},
		"jump":     {&k.Global.Jump},
		"pager":    {&k.Viewer.Artifact.Pager, &k.Result.Pager},
		"editor":   {&k.Viewer.Artifact.Editor, &k.Result.Editor},
	}
	// Where each action lives: the global ones on every screen.
	every := []any{&k}
	screens := map[string][]any{
		"quit":     {&k.Global, &k.List, &k.Modules, &k.Caps, &k.SendTo, &k.Skills},
		"help":     every,
		"activity": every,
		"jump":     every,
		"pager":    {&k.Global, &k.Viewer, &k.Result},
		"editor":   {&k.Global, &k.Viewer, &k.Result},
	}
	out := map[string]map[string]string{}
	for _, action := range config.KeyActions {
		mine := map[*key.Binding]bool{}
		for _, b := range own[action] {
			mine[b] = true
		}
		var bs []*key.Binding
		for _, s := range screens[action] {
			bindingsIn(reflect.ValueOf(s).Elem(), mine, &bs)
		}
		if action != "pager" && action != "editor" {
			h := openHistoryKey // opens the history from every list
			bs = append(bs, &h)
		}
		out[action] = map[string]string{}
		for _, b := range bs {
			for _, kk := range b.Keys() {
				if _, ok := out[action][kk]; !ok {
					out[action][kk] = b.Help().Desc
				}
			}
		}
	}
	return out
}

// TestConfigKnowsEveryBoundKey: the keys config.yaml's keys: is checked
// against (config.ScreenKeys) are the keys the cockpit binds by default on
// the screens of each action, so a rebind never hides another action.
func TestConfigKnowsEveryBoundKey(t *testing.T) {
	want := actionScreenKeys()
	for _, action := range config.KeyActions {
		got := config.ScreenKeys[action]
		for _, kk := range slices.Sorted(maps.Keys(want[action])) {
			if _, ok := got[kk]; !ok {
				var b strings.Builder
				for _, a := range config.KeyActions {
					fmt.Fprintf(&b, "\t%q: {", a)
					for _, x := range slices.Sorted(maps.Keys(want[a])) {
						fmt.Fprintf(&b, "%q: %q, ", x, want[a][x])
					}
					b.WriteString("},\n")
				}
				t.Fatalf("config.ScreenKeys[%q] lacks %q (%s); the table is:\n%s", action, kk, want[action][kk], b.String())
			}
		}
	}
}
