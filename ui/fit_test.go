package ui

import (
	"slices"

	"strings"
	"testing"

	"charm.land/bubbles/v2/key"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// small is the smallest terminal the cockpit is drawn for in the goldens.
const smallW, smallH = 40, 12

// atSmall reaches a state and shrinks the terminal to 40×12.
func atSmall(t *testing.T, st helpState) *Model {
	m := st.reach(t)
	m.Update(tea.WindowSizeMsg{Width: smallW, Height: smallH})
	return m
}

// TestGoldenSmall draws every registered screen, in each of its help
// states, at 40×12, with the help bar and with the full help open: a
// screen added to the registry later is drawn here too.
func TestGoldenSmall(t *testing.T) {
	for _, kind := range registeredKinds() {
		states, ok := helpStates[kind]
		if !ok {
			t.Errorf("screen %q is registered but has no states: add them to helpStates", kind)
			continue
		}
		for _, st := range states {
			t.Run(string(kind)+"/"+st.name, func(t *testing.T) {
				m := atSmall(t, st)
				out := frame(t, m)
				golden.RequireEqual(t, []byte(out))
				assertBarKeeps(t, m, out)
				press(m, "f1")
				full := frame(t, m)
				help := strings.Join(strings.Fields(tailLines(full, m.helpHeight())), " ")
				if !strings.Contains(help, "esc close help") {
					t.Errorf("full help at 40×12 cuts esc:\n%s", help)
				}
				for _, b := range shownEssentials(m) {
					if h := b.Help(); !strings.Contains(help, h.Key+" "+h.Desc) {
						t.Errorf("full help at 40×12 lacks the essential %q %q:\n%s", h.Key, h.Desc, help)
					}
				}
			})
		}
	}
}

// assertBarKeeps checks the help bar of frame out keeps the screen's
// essential keys, its esc and the way to the full help, uncut.
func assertBarKeeps(t *testing.T, m *Model, out string) {
	t.Helper()
	bar := tailLines(out, 1)
	if strings.Contains(bar, "…") {
		t.Errorf("help bar cut: %q", bar)
	}
	var want []string
	for _, b := range shownEssentials(m) {
		want = append(want, b.Help().Key)
	}
	short := m.ShortHelp()
	for _, b := range short {
		if slices.Contains(b.Keys(), "esc") {
			want = append(want, b.Help().Key)
		}
	}
	if m.moreKeys(short) {
		want = append(want, m.helpToggle().Help().Key)
	}
	for _, k := range want {
		if !slices.Contains(strings.Fields(bar), k) {
			t.Errorf("help bar lacks %q: %q", k, bar)
		}
	}
}

// shownEssentials is the focused screen's essential bindings that its help
// offers now (open only while there is something to open).
func shownEssentials(m *Model) []key.Binding {
	var out []key.Binding
	for _, e := range m.essentialHelp() {
		if slices.ContainsFunc(m.ShortHelp(), func(b key.Binding) bool { return b.Help() == e.Help() }) {
			out = append(out, e)
		}
	}
	return out
}

// The module list at 40×12 shows three of its four modules: the rule
// under them counts the one out of view, and moving to it counts the
// other end.
func TestModuleListCountsRowsOutOfView(t *testing.T) {
	m, _ := newTest(t, nil, smallW, smallH)
	withModules(t, m) // the cursor on the third of four
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "── ↑ 1 more ──") {
		t.Errorf("no mark for the row above:\n%s", out)
	}
	press(m, "home")
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "── ↓ 1 more ──") {
		t.Errorf("no mark for the row below:\n%s", out)
	}
	// The wide layout has no rule: a line takes the mark.
	m, _ = newTest(t, nil, 120, 6)
	withModules(t, m)
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "↑ 1 more") && !strings.Contains(out, "↓ 1 more") {
		t.Errorf("wide layout: no mark for the rows out of view:\n%s", out)
	}
}

// At 60 columns a result's artifact row keeps its verdict: what is cut is
// the media type and the digest, never "verified".
func TestGoldenResult60(t *testing.T) {
	m, _ := newTest(t, nil, 60, 24)
	resultFor(t, m, "invoke/success-with-artifact.json")
	out := frame(t, m)
	if !strings.Contains(ansi.Strip(out), "✓ verified, staged") {
		t.Errorf("the artifact row lost its verification status at 60 columns:\n%s", ansi.Strip(out))
	}
	golden.RequireEqual(t, []byte(out))
}

// The form's help bar keeps ctrl+s at 40 columns, in each kind of field.
func TestFormBarKeepsSubmitAtForty(t *testing.T) {
	m, _ := newTest(t, nil, smallW, smallH)
	openForm(t, m, 0)
	for range 3 {
		bar := tailLines(frame(t, m), 1)
		for _, want := range []string{"ctrl+s", "esc", "ctrl+g"} {
			if !strings.Contains(bar, want) {
				t.Errorf("help bar lacks %s: %q", want, bar)
			}
		}
		press(m, "tab")
	}
}

// A long hint wraps instead of being cut: the run screen's cancelling
// note and the form's summary are read whole at 40 columns.
func TestLongHintsWrap(t *testing.T) {
	m := runInFlight(t, true)
	m.Update(tea.WindowSizeMsg{Width: smallW, Height: smallH})
	out := strings.Join(strings.Fields(ansi.Strip(frame(t, m))), " ")
	if !strings.Contains(out, "Cancelling: the module's process tree is being stopped.") {
		t.Errorf("cancel note cut:\n%s", out)
	}
	m, _ = newTest(t, nil, smallW, smallH)
	openForm(t, m, 0)
	out = strings.Join(strings.Fields(ansi.Strip(frame(t, m))), " ")
	if !strings.Contains(out, m.flow.cap.Summary) {
		t.Errorf("summary %q cut:\n%s", m.flow.cap.Summary, out)
	}
}

// fitShortHelp drops what is not essential first, then shortens the
// descriptions, and keeps esc and the last binding to the end.
func TestFitShortHelpOrder(t *testing.T) {
	m, _ := newTest(t, nil, smallW, smallH)
	openForm(t, m, 0)
	b := m.fitShortHelp(m.ShortHelp())
	var keys []string
	for _, x := range b {
		keys = append(keys, x.Help().Key+" "+x.Help().Desc)
	}
	want := []string{"ctrl+s submit", "esc back", "ctrl+g more"}
	if !slices.Equal(keys, want) {
		t.Errorf("fitted bar %q, want %q", keys, want)
	}
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 30})
	if got := m.fitShortHelp(m.ShortHelp()); len(got) != len(m.ShortHelp()) {
		t.Errorf("a wide bar drops bindings: %d of %d", len(got), len(m.ShortHelp()))
	}
}
