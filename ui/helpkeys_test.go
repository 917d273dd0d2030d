package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/modproto"
	"modbay/runner"
	"modbay/ui/internal/uitest"
	"modbay/ui/viewer"
)

// helpState drives a fresh root to one state of a screen.
type helpState struct {
	name  string
	reach func(t *testing.T) *Model
}

// helpStates are the states the help test checks, by screen kind. Every
// kind in the router's registry must have at least one: a screen added
// later fails TestEveryHelpKeyActs until its states are listed here.
var helpStates = map[screenKind][]helpState{
	screenModules: {
		{"discovering", func(t *testing.T) *Model { m, _ := newTest(t, nil, 80, 24); return m }},
		{"list", func(t *testing.T) *Model { m, _ := newTest(t, nil, 80, 24); withModules(t, m); return m }},
		{"wide list", func(t *testing.T) *Model { m, _ := newTest(t, nil, 120, 40); withModules(t, m); return m }},
		{"filter typing", func(t *testing.T) *Model {
			m, _ := newTest(t, nil, 80, 24)
			withModules(t, m)
			press(m, "/")
			typeText(m, "e")
			return m
		}},
		{"filter kept", func(t *testing.T) *Model {
			m, _ := newTest(t, nil, 80, 24)
			withModules(t, m)
			press(m, "/")
			typeText(m, "e")
			press(m, "enter")
			return m
		}},
	},
	screenCaps: {
		{"list", func(t *testing.T) *Model { m, _ := newTest(t, nil, 80, 24); openCaps(t, m); press(m, "down"); return m }},
		{"filter typing", func(t *testing.T) *Model {
			m, _ := newTest(t, nil, 80, 24)
			openCaps(t, m)
			press(m, "/")
			typeText(m, "s")
			return m
		}},
		{"filter kept", func(t *testing.T) *Model {
			m, _ := newTest(t, nil, 80, 24)
			openCaps(t, m)
			press(m, "/")
			typeText(m, "s")
			press(m, "enter")
			return m
		}},
	},
	screenForm: {
		{"text field", func(t *testing.T) *Model {
			m, _ := newTest(t, nil, 100, 30)
			openForm(t, m, 0)
			typeText(m, "hi")
			return m
		}},
		{"second field", func(t *testing.T) *Model {
			m, _ := newTest(t, nil, 100, 30)
			openForm(t, m, 0)
			typeText(m, "hi")
			press(m, "tab")
			return m
		}},
		{"json", func(t *testing.T) *Model {
			m, _ := newTest(t, nil, 100, 30)
			openForm(t, m, 0)
			press(m, "ctrl+e")
			return m
		}},
	},
	screenRun: {
		{"in flight", func(t *testing.T) *Model { return runInFlight(t, false) }},
		{"cancelling", func(t *testing.T) *Model { return runInFlight(t, true) }},
	},
	screenResult: {
		{"artifact", func(t *testing.T) *Model { return submittedResult(t, "invoke/success-with-artifact.json", 80, 24) }},
		{"error, fits", func(t *testing.T) *Model {
			return submittedResult(t, "invoke/error-provider-failure-unknown-cost.json", 120, 40)
		}},
	},
	screenViewer: {
		{"json", func(t *testing.T) *Model { return viewerOf(t, "application/json", `{"title":"Q1","rows":[1,2,3]}`) }},
		{"text", func(t *testing.T) *Model { return viewerOf(t, "text/plain", "line one\nline two\n") }},
		{"csv", func(t *testing.T) *Model { return viewerOf(t, "text/csv", "a,b\n1,2\n3,4\n") }},
		{"markdown", func(t *testing.T) *Model { return viewerOf(t, "text/markdown", "# Title\n\nSome *text*.\n") }},
		{"long markdown", func(t *testing.T) *Model {
			return viewerOf(t, "text/markdown", "# Title\n\n"+strings.Repeat("A paragraph of *text*.\n\n", 60))
		}},
		{"long text", func(t *testing.T) *Model { return viewerOf(t, "text/plain", strings.Repeat("a line\n", 200)) }},
		{"wide code", func(t *testing.T) *Model { return viewerOf(t, "text/markdown", wideCode) }},
		{"wide code scrolled", func(t *testing.T) *Model {
			m := viewerOf(t, "text/markdown", wideCode)
			press(m, "right")
			return m
		}},
		{"long wide code", func(t *testing.T) *Model {
			return viewerOf(t, "text/markdown", wideCode+strings.Repeat("A paragraph.\n\n", 60))
		}},
	},
	screenElicit: {
		{"text field", func(t *testing.T) *Model { m, _ := asking(t, 100, 30); return m }},
		{"typed", func(t *testing.T) *Model { m, _ := asking(t, 100, 30); typeText(m, "main"); press(m, "tab"); return m }},
		{"json", func(t *testing.T) *Model { m, _ := asking(t, 100, 30); press(m, "ctrl+e"); return m }},
		{"secret field", func(t *testing.T) *Model {
			m, _ := askingWith(t, 100, 30, viewer.Env{}, runner.Elicitation{Message: "?",
				Schema: json.RawMessage(`{"type":"object","properties":{"token":{"type":"string","writeOnly":true},"note":{"type":"string"}}}`)})
			typeText(m, "tok-1234")
			return m
		}},
		{"building", func(t *testing.T) *Model {
			m, _, _, _ := askingGated(t, runner.Elicitation{Message: "?", Schema: deploySchema})
			return m
		}},
	},
	screenActivity: {
		{"jobs and runs", func(t *testing.T) *Model { return activityAt(t, nil, 100, 30) }},
		{"empty", func(t *testing.T) *Model { m, _ := newTest(t, nil, 80, 24); withModules(t, m); press(m, "A"); return m }},
		{"cancel offered", func(t *testing.T) *Model {
			m := historyModel(t, nil, 100, 30, seedHistory)
			withCancel(t, m)
			_, cmd := m.Update(uitest.Key("A"))
			runCmd(m, cmd)
			return m
		}},
	},
	screenProbe: {
		{"probe", func(t *testing.T) *Model {
			m, _ := newTest(t, nil, 80, 24)
			withModules(t, m)
			m.act(actionOpen{kind: screenProbe})
			return m
		}},
	},
}

// wideCode is markdown with a code line wider than the viewer.
var wideCode = "# T\n\n```sh\n./configure " + strings.Repeat("--option-with-a-long-name ", 8) + "\n```\n\n"

// submittedResult submits fake.report's form, approves and shows fixture
// rel as its result, the way a person gets there (so re-run has an input).
func submittedResult(t *testing.T, rel string, w, h int) *Model {
	m, _ := newTest(t, nil, w, h)
	openForm(t, m, 1)
	typeText(m, "Quarterly")
	press(m, "ctrl+s")
	p := uitest.Plan(t, m.flow.module)
	m.Update(planMsg{seq: m.flow.planSeq, plan: p})
	m.com.Now = func() time.Time { return uitest.Epoch.Add(time.Second) }
	press(m, "a")
	if m.screen() != screenRun {
		t.Fatalf("screen %v after approving, want run", m.screen())
	}
	m.Update(runDoneMsg{id: m.run().id, result: uitest.Result(t, p, rel)})
	if m.screen() != screenResult {
		t.Fatalf("screen %v, want result", m.screen())
	}
	return m
}

// runInFlight shows a run screen whose run has not ended (cancelling: and
// whose cancel was asked).
func runInFlight(t *testing.T, cancelling bool) *Model {
	m := submittedResult(t, "invoke/success-with-artifact.json", 80, 24)
	r := m.run()
	r.done, r.result, r.cancelling = false, nil, cancelling
	m.pop()
	m.open(screenRun, r.id)
	return m
}

// viewerOf opens an artifact of media type mt holding body, loaded.
func viewerOf(t *testing.T, mt, body string) *Model {
	staged := filepath.Join(t.TempDir(), "blob")
	if err := os.WriteFile(staged, []byte(body), 0o444); err != nil {
		t.Fatal(err)
	}
	m := submittedResult(t, "invoke/success-with-artifact.json", 100, 30)
	h := newHarness(t, m)
	a := &m.result().res.Artifacts[0]
	a.Staged, a.Digest, a.Size, a.MediaType = staged, modproto.Digest([]byte(body)), int64(len(body)), mt
	a.Presentation, a.Artifact.Presentation = "", ""
	h.key("enter")
	h.until("the artifact", func() bool { return m.screen() == screenViewer && !m.viewer().Loading() })
	if mt == "text/markdown" {
		// The chunks render in Cmds after the load: the keys follow them.
		h.until("the rendering", func() bool { return !strings.Contains(m.View().Content, "rendering") })
	}
	return m
}

// keyPress returns the press for a binding's key name.
func keyPress(name string) tea.KeyPressMsg {
	if k := uitest.Key(name); k.String() == name && (k.Mod != 0 || name == "+" || !strings.Contains(name, "+")) {
		// (uitest.Key types a chord it does not know, alt+n, as text.)
		return k
	}
	mod, rest, _ := strings.Cut(name, "+")
	var k tea.KeyPressMsg
	switch rest {
	case "up":
		k = tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		k = tea.KeyPressMsg{Code: tea.KeyDown}
	case "enter":
		k = tea.KeyPressMsg{Code: tea.KeyEnter}
	case "space":
		k = tea.KeyPressMsg{Code: tea.KeySpace}
	default:
		k = tea.KeyPressMsg{Code: []rune(rest)[0]}
	}
	switch mod {
	case "alt":
		k.Mod = tea.ModAlt
	case "ctrl":
		k.Mod = tea.ModCtrl
	case "shift":
		k.Mod = tea.ModShift
	}
	return k
}

// shown is the help the state draws: the bar, or the full help when open.
func shown(m *Model) []key.Binding {
	m.View() // the help follows what the last frame showed (scroll marks)
	if m.fullHelp {
		var b []key.Binding
		for _, g := range m.FullHelp() {
			b = append(b, g...)
		}
		return b
	}
	return m.ShortHelp()
}

// acts reports whether pressing b changes the frame or returns a command,
// from the state reach gives, or after first pressing one other binding
// the state shows (an "up" on the first row acts once "down" moved).
func acts(t *testing.T, reach func(*testing.T) *Model, b key.Binding, others []key.Binding) bool {
	try := func(first *key.Binding) bool {
		m := reach(t)
		if first != nil {
			m.Update(keyPress(first.Keys()[0]))
			if m.screen() != reach(t).screen() {
				return false // the first key left the screen
			}
		}
		before := m.View().Content
		_, cmd := m.Update(keyPress(b.Keys()[0]))
		return cmd != nil || m.View().Content != before
	}
	if try(nil) {
		return true
	}
	for i := range others {
		if others[i].Help() != b.Help() && try(&others[i]) {
			return true
		}
	}
	return false
}

// TestEveryHelpKeyActs walks the router's registry: for each screen, in
// each of its states, with the help bar and with the full help open, every
// binding shown must do something, and no key may be shown twice.
func TestEveryHelpKeyActs(t *testing.T) {
	for _, kind := range registeredKinds() {
		states, ok := helpStates[kind]
		if !ok {
			t.Errorf("screen %q is registered but has no help states: add them to helpStates", kind)
			continue
		}
		for _, st := range states {
			for _, full := range []bool{false, true} {
				reach := st.reach
				name := string(kind) + "/" + st.name
				if full {
					name += "/full help"
					reach = func(t *testing.T) *Model {
						m := st.reach(t)
						press(m, "f1")
						return m
					}
				}
				t.Run(name, func(t *testing.T) {
					m := reach(t)
					if m.screen() != kind {
						t.Fatalf("state reaches %v, want %v", m.screen(), kind)
					}
					bs := shown(m)
					seen := map[string]string{}
					for _, b := range bs {
						for _, k := range b.Keys() {
							if prev, dup := seen[k]; dup {
								t.Errorf("key %q shown twice: %q and %q", k, prev, b.Help().Desc)
							}
							seen[k] = b.Help().Desc
						}
					}
					for _, b := range bs {
						if !acts(t, reach, b, bs) {
							t.Errorf("help shows %q %q, which does nothing here", b.Help().Key, b.Help().Desc)
						}
					}
					if !slices.ContainsFunc(bs, func(b key.Binding) bool { return b.Help().Desc == "more keys" || b.Help().Desc == "close help" }) && len(bs) > 0 && m.moreKeys(m.ShortHelp()) {
						t.Errorf("help bar offers no way to the full help")
					}
				})
			}
		}
	}
}
