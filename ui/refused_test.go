package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestRefusedCapabilityShowsWhy: a capability whose request schema admits
// no input is marked refused in the capability list, its detail gives the
// finding with its JSON pointer, and its form says it is refused.
func TestRefusedCapabilityShowsWhy(t *testing.T) {
	m, _ := newTest(t, nil, 120, 40)
	withModules(t, m)
	mod := m.modules.Selected()
	capID := mod.Descriptor.Capabilities[0].ID
	mod.Refused = map[string]string{capID: `at /allOf/0/required: requires "b", which additionalProperties: false forbids`}
	press(m, "enter")
	out := ansi.Strip(frame(t, m))
	for _, want := range []string{"refused", "Refused", "/allOf/0/required: requires \"b\"", "its schema admits no input to send"} {
		if !strings.Contains(out, want) {
			t.Errorf("the capability list lacks %q:\n%s", want, out)
		}
	}
	press(m, "enter")
	if m.screen() != screenForm || !strings.Contains(m.form().Note(), "This capability is refused") {
		t.Fatalf("screen %v, note %q", m.screen(), m.form().Note())
	}
}
