package formview

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"

	"modbay/ui/common"
	"modbay/ui/form"
	"modbay/ui/internal/uitest"
)

// secretSchema has a plain field and secrets of each kind the view
// masks: writeOnly, format: password, long text, and a field inside a
// writeOnly object.
const secretSchema = `{"type":"object","properties":{
  "user":{"type":"string"},
  "api_key":{"type":"string","writeOnly":true},
  "pin":{"type":"string","format":"password"},
  "notes":{"type":"string","maxLength":5000,"writeOnly":true},
  "creds":{"type":"object","writeOnly":true,"properties":{"token":{"type":"string"}}}
}}`

// focusField tabs to the field named name.
func focusField(t *testing.T, m *Model, name string) {
	t.Helper()
	for range len(m.rows) + 1 {
		if n := m.FocusedNode(); n != nil && n.Name == name {
			return
		}
		feed(m, uitest.Key("tab"))
	}
	t.Fatalf("no field %q", name)
}

// hasReveal reports whether the help bar offers ctrl+t, and as what.
func hasReveal(m *Model) (string, bool) {
	i := slices.IndexFunc(m.ShortHelp(), func(b key.Binding) bool { return slices.Contains(b.Keys(), "ctrl+t") })
	if i < 0 {
		return "", false
	}
	return m.ShortHelp()[i].Help().Desc, true
}

// TestSecretFieldsMasked: a secret (writeOnly, format: password, inside
// a writeOnly object, long text too) is masked as it is typed; ctrl+t,
// offered only on such a field, shows it while it has the focus, and
// leaving it masks it again; JSON mode shows the input raw.
func TestSecretFieldsMasked(t *testing.T) {
	f, err := form.Build(json.RawMessage(secretSchema))
	if err != nil {
		t.Fatal(err)
	}
	m := New(common.New(true), f, nil)
	m.SetSize(100, 40)
	if _, ok := hasReveal(m); ok {
		t.Fatal("ctrl+t offered on a plain field")
	}
	feed(m, uitest.Type("ada")...)
	typed := map[string]string{"api_key": "sk-live-4242", "pin": "9876", "notes": "hunter2 hunter2", "token": "tok-abcdef"}
	for _, name := range []string{"api_key", "pin", "notes", "token"} {
		if name == "token" {
			focusField(t, m, "creds")
			if n := m.FocusedNode(); n.Collapsed {
				feed(m, uitest.Key("space"))
			}
		}
		focusField(t, m, name)
		feed(m, uitest.Type(typed[name])...)
		if d, ok := hasReveal(m); !ok || d != "show secret" {
			t.Errorf("%s: help offers ctrl+t %t (%q), want show secret", name, ok, d)
		}
	}
	out := m.View()
	for name, v := range typed {
		if strings.Contains(out, v) {
			t.Errorf("%s shown in clear while typed:\n%s", name, out)
		}
	}
	if !strings.Contains(out, "ada") || !strings.Contains(out, strings.Repeat("•", len("sk-live-4242"))) {
		t.Fatalf("the plain field or the mask is missing:\n%s", out)
	}

	focusField(t, m, "api_key")
	feed(m, uitest.Key("ctrl+t"))
	if out := m.View(); !strings.Contains(out, "sk-live-4242") || strings.Contains(out, "9876") {
		t.Fatalf("ctrl+t does not show the focused secret alone:\n%s", out)
	}
	if d, _ := hasReveal(m); d != "hide secret" {
		t.Errorf("while shown the help says %q", d)
	}
	feed(m, uitest.Key("ctrl+t"))
	if strings.Contains(m.View(), "sk-live-4242") {
		t.Fatal("a second ctrl+t does not mask it again")
	}
	feed(m, uitest.Key("ctrl+t"), uitest.Key("tab"), uitest.Key("shift+tab"))
	if strings.Contains(m.View(), "sk-live-4242") {
		t.Fatal("a secret shown stays shown once the field is left")
	}
	focusField(t, m, "notes")
	feed(m, uitest.Key("ctrl+t"))
	if !strings.Contains(m.View(), "hunter2 hunter2") {
		t.Fatalf("ctrl+t does not show the long-text secret:\n%s", m.View())
	}

	feed(m, uitest.Key("ctrl+e"))
	if !strings.Contains(m.View(), "sk-live-4242") {
		t.Fatalf("JSON mode does not show the input raw:\n%s", m.View())
	}
}
