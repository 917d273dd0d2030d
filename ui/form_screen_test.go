package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"modbay/schema"
	"modbay/ui/form"
	"modbay/ui/internal/uitest"
)

// fieldText is the text of the form's field i.
func fieldText(m *Model, i int) string { return m.form().Form().Fields()[i].Text }

func TestFormTextFieldTakesEveryPrintableKey(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	openForm(t, m, 0)
	typeText(m, "http://x/?a=1&q=jk")
	if got := fieldText(m, 0); got != "http://x/?a=1&q=jk" {
		t.Fatalf("field text %q", got)
	}
	if m.fullHelp || m.screen() != screenForm {
		t.Fatalf("typing opened the help (%v) or left the form (screen %v)", m.fullHelp, m.screen())
	}
	// Help in a form is on a key that never types, and the help bar says so.
	if h := m.helpView(); !strings.Contains(h, "ctrl+g") || strings.Contains(h, "? more keys") {
		t.Fatalf("form help bar %q", h)
	}
	press(m, "ctrl+g")
	if !m.fullHelp || fieldText(m, 0) != "http://x/?a=1&q=jk" {
		t.Fatalf("ctrl+g: help %v, text %q", m.fullHelp, fieldText(m, 0))
	}
	// "?" still types while help that ctrl+g opened is showing.
	press(m, "?")
	if !m.fullHelp || fieldText(m, 0) != "http://x/?a=1&q=jk?" {
		t.Fatalf("? with help open: help %v, text %q", m.fullHelp, fieldText(m, 0))
	}
	// esc closes the help first, and only the help.
	press(m, "esc")
	if m.fullHelp || m.screen() != screenForm || fieldText(m, 0) != "http://x/?a=1&q=jk?" {
		t.Fatalf("esc: help %v, screen %v, text %q", m.fullHelp, m.screen(), fieldText(m, 0))
	}
	press(m, "f1")
	if !m.fullHelp {
		t.Fatal("F1 did not open the help")
	}
	press(m, "f1")
	if m.fullHelp {
		t.Fatal("F1 did not close the help")
	}
}

func TestQuestionMarkClosesTheHelpItOpened(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	withModules(t, m)
	press(m, "?")
	if !m.fullHelp {
		t.Fatal("? on the list did not open the help")
	}
	press(m, "?")
	if m.fullHelp {
		t.Fatal("? did not close the help")
	}
	// Opened by "?" on the list, then the focus goes to a form field:
	// "?" still closes it.
	press(m, "?", "enter", "enter")
	if !m.fullHelp || m.screen() != screenForm {
		t.Fatalf("help %v screen %v", m.fullHelp, m.screen())
	}
	press(m, "?")
	if m.fullHelp || fieldText(m, 0) != "" {
		t.Fatalf("? did not close the help it opened: help %v, text %q", m.fullHelp, fieldText(m, 0))
	}
	// esc with the help open on the list does not clear the filter.
	press(m, "esc", "esc", "/")
	typeText(m, "ec")
	press(m, "enter", "?", "esc")
	if m.fullHelp || m.modules.list.FilterValue() != "ec" {
		t.Fatalf("esc: help %v, filter %q", m.fullHelp, m.modules.list.FilterValue())
	}
}

func TestFormDraftSurvivesLeavingAndComingBack(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	openForm(t, m, 0)
	typeText(m, "hello")
	press(m, "tab", "backspace")
	typeText(m, "7")
	press(m, "esc")
	if m.screen() != screenCaps {
		t.Fatalf("esc: screen %v", m.screen())
	}
	// Another capability's form is its own.
	press(m, "down", "enter")
	typeText(m, "Q1")
	press(m, "esc", "up", "enter")
	if got := string(m.form().Value()); got != `{"name":"hello","repeat":7}` {
		t.Fatalf("reopened form value %s", got)
	}
	if m.form().Focused() != 1 {
		t.Fatalf("reopened form focus %d, want 1 (where it was left)", m.form().Focused())
	}
	// Even after going back to the module list and rediscovering.
	press(m, "esc", "esc")
	m.Update(modulesMsg{gen: m.gen, modules: m.modules.modules})
	press(m, "enter", "down", "enter")
	if got := fieldText(m, 0); got != "Q1" {
		t.Fatalf("report draft %q", got)
	}
}

func TestApprovalAtSmallSizeScrollsAndKeepsTheChoices(t *testing.T) {
	m, _ := newTest(t, nil, 60, 15)
	openForm(t, m, 1)
	typeText(m, "Quarterly")
	press(m, "ctrl+s")
	m.Update(planMsg{seq: m.flow.planSeq, plan: uitest.Plan(t, m.flow.module)})
	out := frame(t, m)
	if !strings.Contains(out, "more lines (j/↓ scrolls)") || !strings.Contains(out, "allow once") {
		t.Fatalf("60×15 approval hides what is below, or the choices:\n%s", out)
	}
	if strings.Contains(out, "Not supplied") {
		t.Fatalf("expected the end of the body below the fold at 60×15:\n%s", out)
	}
	if h := m.helpView(); !strings.Contains(h, "scroll") {
		t.Fatalf("help bar %q lacks the scroll keys", h)
	}
	seen := ""
	for range 12 {
		press(m, "j")
		out := frame(t, m)
		if !strings.Contains(out, "allow once") || len(m.dialogs) != 1 {
			t.Fatalf("scrolling lost the choices or closed the dialog:\n%s", out)
		}
		seen += out
	}
	for _, want := range []string{"Est. cost", "Roots", "Not supplied"} {
		if !strings.Contains(seen, want) {
			t.Errorf("scrolling never showed %q", want)
		}
	}
}

// TestFormFullHelpNamesTheLetterJump: ctrl+g in a form lists every key
// the README gives it, a letter jumping to a choice included.
func TestFormFullHelpNamesTheLetterJump(t *testing.T) {
	m, _ := newTest(t, nil, 160, 40)
	openForm(t, m, 0)
	press(m, "ctrl+g")
	if out := frame(t, m); !strings.Contains(out, "a letter") || !strings.Contains(out, "jumps to a choice") {
		t.Fatalf("the form's full help does not say a letter jumps to a choice:\n%s", out)
	}
}

// msgOf runs cmd (batches each on its own goroutine, as the program
// does) and returns the first T it yields.
func msgOf[T any](t *testing.T, cmd tea.Cmd) T {
	t.Helper()
	got := make(chan T, 1)
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		go func() {
			switch msg := c().(type) {
			case tea.BatchMsg:
				for _, c := range msg {
					run(c)
				}
			case T:
				select {
				case got <- msg:
				default:
				}
			}
		}()
	}
	run(cmd)
	select {
	case m := <-got:
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("the command never yielded its message")
	}
	var zero T
	return zero
}

// TestFormBuildsOffTheLoop: a form whose build outlasts formWait shows
// "Building the form…" with esc its only key; esc stops the build and
// leaves, and the stale build is dropped; a build that finishes becomes
// the form.
func TestFormBuildsOffTheLoop(t *testing.T) {
	m, _ := newTest(t, nil, 80, 24)
	m.formWait = 0
	gate := make(chan struct{})
	m.buildForm = func(ctx context.Context, raw json.RawMessage) (*form.Form, error) {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %v", schema.ErrCancelled, ctx.Err())
		}
		return form.BuildContext(ctx, raw)
	}
	withModules(t, m)
	press(m, "enter")
	_, cmd := m.Update(uitest.Key("enter"))
	if m.screen() != screenForm || m.form() != nil {
		t.Fatalf("screen %v, form %v: want a form screen still building", m.screen(), m.form())
	}
	golden.RequireEqual(t, []byte(frame(t, m)))
	typeText(m, "x")
	press(m, "enter")
	if m.screen() != screenForm || m.form() != nil {
		t.Fatal("keys acted on a form that is not there yet")
	}
	press(m, "esc")
	if m.screen() != screenCaps {
		t.Fatalf("esc left to %v, want the capabilities", m.screen())
	}
	stale := msgOf[formBuiltMsg](t, cmd)
	if !errors.Is(stale.err, schema.ErrCancelled) {
		t.Fatalf("esc did not stop the build: %v", stale.err)
	}
	m.Update(stale)
	if m.screen() != screenCaps || m.form() != nil {
		t.Fatal("a stale build came back as a form")
	}

	_, cmd = m.Update(uitest.Key("enter"))
	close(gate)
	m.Update(msgOf[formBuiltMsg](t, cmd))
	if m.form() == nil || len(m.form().Form().Fields()) == 0 {
		t.Fatal("the finished build is not the form")
	}
	if !strings.Contains(frame(t, m), "name") {
		t.Fatalf("form frame:\n%s", frame(t, m))
	}
}

// gateBuilds makes m's form builds wait for release (called at the
// latest when the test ends) or their cancel, the event loop waiting for
// none of them: a schema whose build never ends, as a hostile one's may.
func gateBuilds(t *testing.T, m *Model) (release func()) {
	t.Helper()
	m.formWait = 0
	gate := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release)
	m.buildForm = func(ctx context.Context, raw json.RawMessage) (*form.Form, error) {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %v", schema.ErrCancelled, ctx.Err())
		}
		return form.BuildContext(ctx, raw)
	}
	return release
}

// hostileSchema is one of the schema package's hostile request schemas
// (schema/testdata/hostile), each past a bound of its own.
func hostileSchema(t *testing.T, name string) json.RawMessage {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "schema", "testdata", "hostile", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
