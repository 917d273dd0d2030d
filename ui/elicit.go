package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"sync"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/render"
	"modbay/runner"
	"modbay/ui/common"
	"modbay/ui/form"
	"modbay/ui/formview"
	"modbay/ui/viewer"
)

// screenElicit is a module's question to the person in the middle of a
// run (an MCP server's elicitation/create): a form built from the schema
// the server asked for, answered accept, decline or cancel.
const screenElicit screenKind = "elicit"

func init() { register(screenElicit, openElicitScreen) }

// maxElicitMessageLines bounds the server's message above the form; past
// it the message is cut with "…" (a question to a person is short).
const maxElicitMessageLines = 6

// noContentSchema is the form of a question that asks for no content,
// only a decision: an object with no fields.
var noContentSchema = json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)

// ElicitKeyMap is the question screen's bindings; the form's own keys
// (formview.KeyMap) edit the answer.
type ElicitKeyMap struct {
	// Accept sends the answer, refused while it breaks the schema.
	Accept key.Binding
	// Decline tells the server the person will not answer.
	Decline key.Binding
	// Dismiss answers cancel: the question is dismissed without a decision.
	Dismiss key.Binding
	// CancelRun cancels the run itself (the question is answered cancel).
	CancelRun key.Binding
	// OpenURL opens a URL elicitation's URL in the browser (a local
	// display only; over SSH the URL is shown to open elsewhere).
	OpenURL key.Binding
}

// defaultElicitKeys returns the question screen's bindings. ctrl+d, which
// a text field otherwise reads as "delete forward" (delete still does),
// declines; esc, the form's "back", dismisses.
func defaultElicitKeys() ElicitKeyMap {
	return ElicitKeyMap{
		Accept:    key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "accept (send answer)")),
		Decline:   key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "decline")),
		Dismiss:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel (dismiss)")),
		CancelRun: key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "cancel run")),
		OpenURL:   key.NewBinding(key.WithKeys("ctrl+o"), key.WithHelp("ctrl+o", "open URL in browser")),
	}
}

// elicitQuestion is one question in flight: asked from a run's goroutine
// (the Elicitor blocks on answer), answered once from the UI.
type elicitQuestion struct {
	// runID is the asking run's request id.
	runID string
	// from is who asks: the module's name and id, module text.
	from string
	// e is the request as the host passed it (bounded, JSON checked).
	e runner.Elicitation
	// answer receives the person's answer (buffered: one).
	answer chan runner.ElicitAnswer
	once   sync.Once
}

// reply answers the question; only the first answer counts.
func (q *elicitQuestion) reply(a runner.ElicitAnswer) {
	q.once.Do(func() { q.answer <- a })
}

// Messages of a question's life.
type (
	// elicitMsg opens the question screen.
	elicitMsg struct{ q *elicitQuestion }
	// elicitGoneMsg closes it: the run ended or was cancelled first.
	elicitGoneMsg struct{ q *elicitQuestion }
)

// elicitor is the runner.Elicitor of run runID of module mod: it shows
// the question (elicitMsg) and blocks until the person answers or the run
// ends (ctx: cancel, and the screen is closed). Without a program to
// show it on, it declines.
func (m *Model) elicitor(runID string, mod *runner.Module) runner.Elicitor {
	from := ""
	if mod != nil {
		from = mod.ID
		if d := mod.Descriptor; d != nil && d.Name != "" && d.Name != mod.ID {
			from = d.Name + " (" + mod.ID + ")"
		}
	}
	return func(ctx context.Context, e runner.Elicitation) (runner.ElicitAnswer, error) {
		send := m.send.Load()
		if send == nil {
			return runner.ElicitAnswer{Action: runner.ElicitDecline}, nil
		}
		q := &elicitQuestion{runID: runID, from: from, e: e, answer: make(chan runner.ElicitAnswer, 1)}
		(*send)(elicitMsg{q: q})
		select {
		case a := <-q.answer:
			return a, nil
		case <-ctx.Done():
			(*send)(elicitGoneMsg{q: q})
			return runner.ElicitAnswer{Action: runner.ElicitCancel}, ctx.Err()
		}
	}
}

// elicitGone closes q's screen wherever it is on the stack.
func (m *Model) elicitGone(q *elicitQuestion) {
	i := slices.IndexFunc(m.stack, func(s Screen) bool {
		es, ok := s.(*elicitScreen)
		return ok && es.q == q
	})
	if i > 0 {
		m.stack[i].(*elicitScreen).build.stop()
		m.stack = slices.Delete(m.stack, i, i+1)
		m.layout()
	}
}

// elicitScreen asks the person a module's question: who asks, the
// message, and the form of the answer.
type elicitScreen struct {
	w, h int
	com  *common.Common
	keys ElicitKeyMap
	q    *elicitQuestion
	// form is the answer's form, nil while build (the requested
	// schema's, off the event loop) runs: the question can be declined or
	// dismissed meanwhile, not accepted.
	form  *formview.Model
	build formBuild
	// run is the asking run (nil once forgotten): ctrl+c cancels it.
	run *runView
	// env says whether a URL can be opened here (a local display and an
	// opener); note is the last open's outcome.
	env  viewer.Env
	note string
}

// urlOpenedMsg is the opener's start for a URL elicitation.
type urlOpenedMsg struct{ err error }

// openElicitScreen shows question arg (*elicitQuestion) with a form built
// from its schema by the form engine, off the event loop as a
// capability's form is (startFormBuild); a schema the engine cannot read,
// or too costly for a form, falls back to JSON editing, and the host
// still checks the answer.
func openElicitScreen(m *Model, arg any) (Screen, tea.Cmd) {
	q, ok := arg.(*elicitQuestion)
	if !ok || q == nil {
		return nil, nil
	}
	sch := q.e.Schema
	if len(sch) == 0 {
		sch = noContentSchema
	}
	s := &elicitScreen{com: m.com, keys: m.keys.Elicit, q: q, run: m.runs[q.runID], env: m.viewerEnv}
	b, done, later := m.startFormBuild(&s.build, sch)
	if done {
		return s, s.formBuilt(m, b)
	}
	return s, later
}

// awaitsForm implements formWaiter.
func (s *elicitScreen) awaitsForm(id uint64) bool { return s.build.awaits(id) }

// formBuilt implements formWaiter: the build becomes the answer's form
// (strict: an answer breaking the schema is never sent), or JSON editing
// with a note when it failed.
func (s *elicitScreen) formBuilt(m *Model, b formBuiltMsg) tea.Cmd {
	s.build.stop()
	f, err := b.f, b.err
	if err != nil {
		f, _ = form.Build(nil)
	}
	fv := formview.New(m.com, f, m.validate)
	fv.SetStrict(true)
	if err != nil {
		fv.SetNote(costlyNote("The requested schema", "answer in JSON", err))
	}
	s.form = fv
	if s.w > 0 {
		s.SetSize(s.w, s.h)
	}
	return nil
}

// Kind implements Screen.
func (s *elicitScreen) Kind() screenKind { return screenElicit }

// SetSize implements Screen: the form gets what the header leaves.
func (s *elicitScreen) SetSize(w, h int) {
	s.w, s.h = w, h
	if s.form != nil {
		s.form.SetSize(w, max(h-common.Lines(s.header()), 1))
	}
}

// Typing implements Screen.
func (s *elicitScreen) Typing() bool { return s.form != nil && s.form.Typing() }

// questionIsText marks the answer's form as a place where "?" is text.
func (s *elicitScreen) questionIsText() {}

// Crumb implements Screen.
func (s *elicitScreen) Crumb(bool) string { return "question" }

// cancellable reports whether ctrl+c cancels the asking run.
func (s *elicitScreen) cancellable() bool {
	return s.run != nil && !s.run.done && !s.run.cancelling
}

// formKeys are the form's bindings the question screen shows: all but
// its submit and back (accept and dismiss here) and the presets (an
// answer has none).
func (s *elicitScreen) formKeys(bs []key.Binding) []key.Binding {
	fk := formview.DefaultKeyMap()
	drop := []key.Binding{fk.Submit, fk.Back, fk.Recall, fk.Save}
	return slices.DeleteFunc(slices.Clone(bs), func(b key.Binding) bool {
		return slices.ContainsFunc(drop, func(d key.Binding) bool { return slices.Equal(d.Keys(), b.Keys()) })
	})
}

// answers are the bindings that answer the question, shown first (accept
// once the answer's form is there).
func (s *elicitScreen) answers() []key.Binding {
	b := []key.Binding{s.keys.Decline, s.keys.Dismiss}
	if s.form != nil {
		b = slices.Insert(b, 0, s.keys.Accept)
	}
	if s.canOpen() {
		b = append(b, s.keys.OpenURL)
	}
	if s.cancellable() {
		b = append(b, s.keys.CancelRun)
	}
	return b
}

// ShortHelp implements help.KeyMap.
func (s *elicitScreen) ShortHelp() []key.Binding {
	if s.form == nil {
		return s.answers()
	}
	return append(s.answers(), s.formKeys(s.form.ShortHelp())...)
}

// EssentialHelp is what the help bar keeps at any width: accept and
// cancel (at 40 cells no third binding fits beside the way to the full
// help; the header names ctrl+d at every width).
func (s *elicitScreen) EssentialHelp() []key.Binding {
	if s.form == nil {
		return []key.Binding{s.keys.Dismiss}
	}
	return []key.Binding{s.keys.Accept, s.keys.Dismiss}
}

// FullHelp implements help.KeyMap.
func (s *elicitScreen) FullHelp() [][]key.Binding {
	groups := [][]key.Binding{s.answers()}
	if s.form == nil {
		return groups
	}
	for _, g := range s.form.FullHelp() {
		if g = s.formKeys(g); len(g) > 0 {
			groups = append(groups, g)
		}
	}
	return groups
}

// Update implements Screen: the answer keys answer and close the screen
// (stopping the form's build, if it runs); every other key edits the
// answer, once its form is there.
func (s *elicitScreen) Update(msg tea.Msg) (Action, tea.Cmd) {
	if om, ok := msg.(urlOpenedMsg); ok {
		s.note = "Opened in the browser; accept once done there."
		if om.err != nil {
			s.note = "Could not open it: " + render.SanitizeLine(om.err.Error())
		}
		return nil, nil
	}
	if kp, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(kp, s.keys.OpenURL) && s.canOpen():
			return nil, s.openURL()
		case key.Matches(kp, s.keys.Decline):
			s.build.stop()
			s.q.reply(runner.ElicitAnswer{Action: runner.ElicitDecline})
			return actionPop{}, nil
		case key.Matches(kp, s.keys.Dismiss):
			s.build.stop()
			s.q.reply(runner.ElicitAnswer{Action: runner.ElicitCancel})
			return actionPop{}, nil
		case key.Matches(kp, s.keys.CancelRun) && s.cancellable():
			s.build.stop()
			s.q.reply(runner.ElicitAnswer{Action: runner.ElicitCancel})
			s.run.cancelling = true
			s.run.cancel()
			return actionPop{}, nil
		case key.Matches(kp, formview.DefaultKeyMap().Recall, formview.DefaultKeyMap().Save):
			return nil, nil // an answer has no presets
		}
	}
	if s.form == nil {
		return nil, nil
	}
	act, cmd := s.form.Update(msg)
	if a, ok := act.(formview.ActionSubmit); ok && !a.Unchecked {
		s.q.reply(runner.ElicitAnswer{Action: runner.ElicitAccept, Content: a.Input})
		return actionPop{}, cmd
	}
	return nil, cmd
}

// View implements Screen: who asks and what, then the answer's form (or
// that it is being built).
func (s *elicitScreen) View() string {
	if s.form == nil {
		return s.header() + "\n\n" + s.com.Styles.Muted.Render(common.Wrap("Building the answer's form… (esc dismisses)", max(s.w, 1)))
	}
	return s.header() + "\n" + s.form.View()
}

// canOpen reports whether ctrl+o opens the question's URL: a URL
// elicitation, a local display (not over SSH) and an opener.
func (s *elicitScreen) canOpen() bool {
	return s.q.e.URL != "" && s.env.LocalDisplay && s.env.Opener != ""
}

// openURL starts the opener on the URL as the server sent it (the host
// took only http and https), in a Cmd.
func (s *elicitScreen) openURL() tea.Cmd {
	opener, u := s.env.Opener, s.q.e.URL
	s.note = "Opening…"
	return func() tea.Msg {
		cmd := exec.Command(opener, u)
		if err := cmd.Start(); err != nil {
			return urlOpenedMsg{err: err}
		}
		go func() { _ = cmd.Wait() }()
		return urlOpenedMsg{}
	}
}

// maxSamplingLines bounds a sampling request's lines above the reply
// (system prompt, preferences, messages); past it the oldest are cut.
const maxSamplingLines = 14

// header says who asks, the server's message (sanitized, wrapped, cut at
// maxElicitMessageLines), that the run waits and how to decline; a
// sampling request's messages and preferences, or a URL elicitation's
// URL with its host and how to open it.
func (s *elicitScreen) header() string {
	st := s.com.Styles
	w := max(s.w, 1)
	switch {
	case s.q.e.Sampling != nil:
		return s.samplingHeader(w)
	case s.q.e.URL != "":
		return s.urlHeader(w)
	}
	head := st.Label.Render(common.FitWidth("? "+render.SanitizeLine(s.q.from)+" asks, mid-run"+s.during(), w))
	head += "\n" + s.messageLines(w)
	wait := "The run waits; " + s.keys.Decline.Help().Key + " declines."
	return head + "\n" + st.Muted.Render(common.FitWidth(wait, w))
}

// during is " of <capability>" when the asking run is known.
func (s *elicitScreen) during() string {
	if s.run == nil {
		return ""
	}
	return " of " + render.SanitizeLine(common.TitleOr(s.run.plan.Capability.Title, s.run.plan.Capability.ID))
}

// messageLines is the server's message, sanitized, wrapped and cut at
// maxElicitMessageLines.
func (s *elicitScreen) messageLines(w int) string {
	msg := render.Sanitize(s.q.e.Message)
	if msg == "" {
		msg = "(no message)"
	}
	return common.FitHeight(common.Wrap(msg, w), maxElicitMessageLines)
}

// urlHeader is a URL elicitation's header: who asks, the message, the URL
// (sanitized, wrapped whole so it can be read and copied) with its host
// apart, and how to open it: ctrl+o on a local display, else elsewhere.
func (s *elicitScreen) urlHeader(w int) string {
	st := s.com.Styles
	head := st.Label.Render(common.FitWidth("? "+render.SanitizeLine(s.q.from)+" asks you to open a URL, mid-run"+s.during(), w))
	head += "\n" + s.messageLines(w)
	host := ""
	if u, err := url.Parse(s.q.e.URL); err == nil {
		host = u.Host
	}
	head += "\n" + common.FitWidth("Host: "+render.SanitizeLine(host), w)
	head += "\n" + common.FitHeight(common.Wrap(render.SanitizeLine(s.q.e.URL), w), maxElicitMessageLines)
	how := "No local display here: open it where you have a browser, then ctrl+s accepts."
	if s.canOpen() {
		how = s.keys.OpenURL.Help().Key + " opens it in your browser; ctrl+s accepts once done."
	}
	if s.note != "" {
		how = s.note
	}
	return head + "\n" + st.Muted.Render(common.FitHeight(common.Wrap(how+" "+s.keys.Decline.Help().Key+" declines.", w), 2))
}

// samplingHeader is a sampling request's header: who asks, that no model
// is called, the model preferences, the system prompt and the messages
// (sanitized, the newest kept within maxSamplingLines).
func (s *elicitScreen) samplingHeader(w int) string {
	st, sr := s.com.Styles, s.q.e.Sampling
	head := st.Label.Render(common.FitWidth("? "+render.SanitizeLine(s.q.from)+" asks for a model's reply, mid-run"+s.during(), w))
	var prefs []string
	if len(sr.ModelHints) > 0 {
		hints := make([]string, len(sr.ModelHints))
		for i, h := range sr.ModelHints {
			hints[i] = render.SanitizeLine(h)
		}
		prefs = append(prefs, "models: "+strings.Join(hints, ", "))
	}
	for _, k := range []string{"cost", "speed", "intelligence"} {
		if v := sr.Priorities[k]; v > 0 {
			prefs = append(prefs, fmt.Sprintf("%s %.2f", k, v))
		}
	}
	if sr.MaxTokens > 0 {
		prefs = append(prefs, fmt.Sprintf("at most %d tokens", sr.MaxTokens))
	}
	if len(prefs) > 0 {
		head += "\n" + st.Muted.Render(common.FitWidth("Preferences: "+strings.Join(prefs, " · "), w))
	}
	var lines []string
	if sr.SystemPrompt != "" {
		lines = append(lines, strings.Split(common.Wrap("System: "+render.Sanitize(sr.SystemPrompt), w), "\n")...)
	}
	for _, m := range sr.Messages {
		lines = append(lines, strings.Split(common.Wrap(render.SanitizeLine(m.Role)+": "+render.Sanitize(m.Text), w), "\n")...)
	}
	if over := len(lines) - maxSamplingLines; over > 0 {
		lines = append([]string{st.Muted.Render(fmt.Sprintf("… %d earlier lines", over))}, lines[over+1:]...)
	}
	head += "\n" + strings.Join(lines, "\n")
	wait := "No model is called: write the reply; ctrl+s sends it as the model's. " + s.keys.Decline.Help().Key + " declines."
	return head + "\n" + st.Muted.Render(common.FitWidth(wait, w))
}
