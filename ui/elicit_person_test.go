package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"modbay/runner"
	"modbay/ui/internal/uitest"
	"modbay/ui/viewer"
)

// askingWith shows question e of fake's run on a fresh root of size w × h
// whose viewers run in env.
func askingWith(t *testing.T, w, h int, env viewer.Env, e runner.Elicitation) (*Model, *elicitQuestion) {
	t.Helper()
	m, _ := newTest(t, nil, w, h)
	m.viewerEnv = env
	withModules(t, m)
	p := uitest.Plan(t, m.modules.Selected())
	r := newRunView(m.com, p, func() {})
	m.keepRun(r)
	m.open(screenRun, r.id)
	e.RequestID = r.id
	q := &elicitQuestion{runID: r.id, from: "Fake (fake)", e: e, answer: make(chan runner.ElicitAnswer, 1)}
	m.Update(elicitMsg{q: q})
	if m.screen() != screenElicit {
		t.Fatalf("screen %v after the question, want elicit", m.screen())
	}
	return m, q
}

// samplingQuestion is a sampling request with escapes in its system
// prompt and a message.
func samplingQuestion() runner.Elicitation {
	return runner.Elicitation{Message: "The server asks for a model's reply.", Schema: runner.SamplingReplySchema,
		Sampling: &runner.SamplingRequest{SystemPrompt: "Be brief.\x1b[2J", MaxTokens: 50, ModelHints: []string{"claude-sonnet"},
			Priorities: map[string]float64{"speed": 0.5},
			Messages:   []runner.SamplingMessage{{Role: "user", Text: "What is \x1b[31m2+2\x1b[0m?"}}}}
}

// TestGoldenSampling: a sampling request shows who asks, that no model is
// called, the preferences, the system prompt and the messages, escapes
// made visible, above the reply's field.
func TestGoldenSampling(t *testing.T) {
	for _, s := range []struct{ w, h int }{{100, 24}, {40, 12}} {
		t.Run(fmt.Sprintf("%dx%d", s.w, s.h), func(t *testing.T) {
			m, _ := askingWith(t, s.w, s.h, viewer.Env{}, samplingQuestion())
			out := frame(t, m)
			if strings.Contains(out, "\x1b[31m") || strings.Contains(out, "\x1b[2J") {
				t.Errorf("the server's escapes reach the terminal:\n%q", out)
			}
			golden.RequireEqual(t, []byte(out))
		})
	}
}

// TestSamplingReply: the reply typed is sent on ctrl+s as the answer;
// ctrl+d declines; an empty reply is refused.
func TestSamplingReply(t *testing.T) {
	m, q := askingWith(t, 100, 24, viewer.Env{}, samplingQuestion())
	press(m, "ctrl+s")
	if len(q.answer) != 0 {
		t.Fatal("an empty reply was sent")
	}
	typeText(m, "four")
	press(m, "ctrl+s")
	if a := <-q.answer; a.Action != runner.ElicitAccept || string(a.Content) != `{"reply":"four"}` {
		t.Fatalf("answer %+v (%s)", a, a.Content)
	}
	m, q = askingWith(t, 100, 24, viewer.Env{}, samplingQuestion())
	press(m, "ctrl+d")
	if a := <-q.answer; a.Action != runner.ElicitDecline {
		t.Fatalf("answer %+v", a)
	}
}

// TestGoldenURLElicit: a URL elicitation shows the URL sanitized with its
// host; over SSH (no local display) it says to open it elsewhere and
// ctrl+o is neither offered nor acts.
func TestGoldenURLElicit(t *testing.T) {
	dir := t.TempDir()
	got := filepath.Join(dir, "opened")
	e := runner.Elicitation{Message: "Sign in to continue", URL: "https://auth.example.org/login?next=\u202egpj.exe"}
	m, q := askingWith(t, 80, 16, viewer.Env{Opener: writeOpener(t, dir, got)}, e)
	out := frame(t, m)
	if strings.Contains(out, "\u202e") {
		t.Errorf("the bidi override reaches the terminal:\n%q", out)
	}
	if strings.Contains(out, "ctrl+o") || !strings.Contains(out, "No local display here") {
		t.Errorf("over SSH the screen offers ctrl+o or does not say to open elsewhere:\n%s", out)
	}
	golden.RequireEqual(t, []byte(out))
	if _, cmd := m.Update(keyPress("ctrl+o")); cmd != nil {
		m.Update(cmd())
	}
	if _, err := os.Stat(got); err == nil {
		t.Error("ctrl+o opened the URL without a local display")
	}
	press(m, "ctrl+s")
	if a := <-q.answer; a.Action != runner.ElicitAccept || len(a.Content) > 2 {
		t.Fatalf("answer %+v (%s)", a, a.Content)
	}
}

// TestURLElicitOpens: on a local display ctrl+o starts the opener on the
// URL (and only then), and the screen says it did.
func TestURLElicitOpens(t *testing.T) {
	dir := t.TempDir()
	got := filepath.Join(dir, "opened")
	e := runner.Elicitation{Message: "Sign in", URL: "https://auth.example.org/login"}
	m, _ := askingWith(t, 80, 16, viewer.Env{LocalDisplay: true, Opener: writeOpener(t, dir, got)}, e)
	if _, err := os.Stat(got); err == nil {
		t.Fatal("the URL was opened before a key press")
	}
	if !strings.Contains(frame(t, m), "ctrl+o opens it in your browser") {
		t.Fatalf("ctrl+o is not offered on a local display:\n%s", frame(t, m))
	}
	_, cmd := m.Update(keyPress("ctrl+o"))
	if cmd == nil {
		t.Fatal("ctrl+o did nothing")
	}
	m.Update(cmd())
	for range 100 {
		if b, err := os.ReadFile(got); err == nil && string(b) == e.URL {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if b, _ := os.ReadFile(got); string(b) != e.URL {
		t.Errorf("the opener got %q, want %q", b, e.URL)
	}
	if !strings.Contains(frame(t, m), "Opened in the browser") {
		t.Errorf("the screen does not say it opened:\n%s", frame(t, m))
	}
}

// writeOpener writes an opener into dir that writes its argument to got.
func writeOpener(t *testing.T, dir, got string) string {
	t.Helper()
	opener := filepath.Join(dir, "opener")
	if err := os.WriteFile(opener, []byte("#!/bin/sh\nprintf '%s' \"$1\" > '"+got+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return opener
}
