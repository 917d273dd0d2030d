package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"modbay/internal/words"
	"modbay/render"
	"modbay/runner"
	"modbay/ui/clipboard"
	"modbay/ui/common"
)

// ExchangeKeyMap is the raw exchange screen's bindings.
type ExchangeKeyMap struct {
	Up, Down         key.Binding
	PageUp, PageDown key.Binding
	Top, Bottom      key.Binding
	// CopyInvoke copies the `modbay invoke` line; CopyCall the line that
	// makes the module call without modbay.
	CopyInvoke, CopyCall key.Binding
	Back                 key.Binding
}

// defaultExchangeKeys are the raw exchange's bindings, the scrolling ones
// shared with the result.
func defaultExchangeKeys(r ResultKeyMap) ExchangeKeyMap {
	return ExchangeKeyMap{
		Up: r.Up, Down: r.Down, PageUp: r.PageUp, PageDown: r.PageDown, Top: r.Top, Bottom: r.Bottom,
		CopyInvoke: key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "copy invoke line")),
		CopyCall:   key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "copy module call")),
		Back:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to result")),
	}
}

// exchangeArg is what the raw exchange screen shows: the run's calls as
// recorded (runner.Exchange) and its copy lines (runner.CopyLines, the
// strings `modbay invoke --trace` prints). A stored run record that kept
// its exchange opens the screen with the same arg.
type exchangeArg struct {
	requestID string
	calls     []runner.ExchangeCall
	copy      runner.CopyLines
	// makeCopy, when non-nil, builds copy in a command as the screen
	// opens: it saves the request file the module-call line reads, so
	// only the runs a person looks at leave one behind.
	makeCopy func() runner.CopyLines
}

// exchangeScreen shows a run's raw exchange: per call the
// argv, environment, working directory, the request file as written,
// stdout as received (its first 64 KiB), stderr, how the process ended
// and the phases' timings, every module byte sanitized; then the two copy
// lines, copied through ui/clipboard.
type exchangeScreen struct {
	com    *common.Common
	keys   ExchangeKeyMap
	arg    exchangeArg
	clip   clipboard.Clipboard
	vp     viewport.Model
	width  int
	height int
	// note is the last copy's outcome ("" for none).
	note string
}

// whatInvoke is how a copy's note names the modbay invoke line.
const whatInvoke = "the modbay invoke line"

// exchangeCopiedMsg is a finished copy of the exchange screen's line
// what (routed to the screen with the focus; dropped once it is gone).
type exchangeCopiedMsg struct {
	requestID, what string
	res             clipboard.Result
}

// exchangeCopyMsg carries the copy lines built for the exchange of run
// requestID (exchangeArg.makeCopy).
type exchangeCopyMsg struct {
	requestID string
	copy      runner.CopyLines
}

// openExchangeScreen shows arg (exchangeArg), building its copy lines in
// a command when they are not built yet.
func openExchangeScreen(m *Model, arg any) (Screen, tea.Cmd) {
	a, ok := arg.(exchangeArg)
	if !ok || !recorded(a.calls) {
		return nil, nil
	}
	s := &exchangeScreen{com: m.com, keys: m.keys.Exchange, arg: a, clip: m.viewerEnv.Clipboard, vp: viewport.New()}
	s.vp.KeyMap = viewport.KeyMap{}
	s.SetSize(m.com.Width, m.com.Height)
	var cmd tea.Cmd
	if mk, id := a.makeCopy, a.requestID; mk != nil {
		cmd = func() tea.Msg { return exchangeCopyMsg{requestID: id, copy: mk()} }
	}
	return s, cmd
}

// Kind implements Screen.
func (s *exchangeScreen) Kind() screenKind { return screenExchange }

// Typing implements Screen.
func (s *exchangeScreen) Typing() bool { return false }

// Crumb implements Screen.
func (s *exchangeScreen) Crumb(bool) string { return "raw exchange" }

// SetSize implements Screen.
func (s *exchangeScreen) SetSize(w, h int) {
	s.width, s.height = w, h
	s.vp.SetWidth(w)
	s.rebuild()
}

// rebuild lays the content out for the width, keeping the scroll.
func (s *exchangeScreen) rebuild() {
	off := s.vp.YOffset()
	s.vp.SetContent(s.content())
	h := s.height
	if s.note != "" {
		h -= common.Lines(common.Note(render.SanitizeLine(s.note), s.width))
	}
	s.vp.SetHeight(max(h, 1))
	s.vp.SetYOffset(off)
}

// Update implements Screen: scrolling, the two copies, back.
func (s *exchangeScreen) Update(msg tea.Msg) (Action, tea.Cmd) {
	switch msg := msg.(type) {
	case exchangeCopyMsg:
		if msg.requestID == s.arg.requestID {
			s.arg.copy, s.arg.makeCopy = msg.copy, nil
			s.rebuild()
		}
		return nil, nil
	case exchangeCopiedMsg:
		if msg.requestID == s.arg.requestID {
			s.note = msg.res.Note(msg.what)
			if msg.what == whatInvoke && s.arg.copy.NeedsYes && msg.res.Err == nil {
				s.note += "; " + runner.RepeatNeedsYes
			}
			s.rebuild()
		}
		return nil, nil
	case tea.KeyPressMsg:
		k := s.keys
		switch {
		case key.Matches(msg, k.Back):
			return actionPop{}, nil
		case key.Matches(msg, k.Up):
			s.vp.ScrollUp(1)
		case key.Matches(msg, k.Down):
			s.vp.ScrollDown(1)
		case key.Matches(msg, k.PageUp):
			s.vp.PageUp()
		case key.Matches(msg, k.PageDown):
			s.vp.PageDown()
		case key.Matches(msg, k.Top):
			s.vp.GotoTop()
		case key.Matches(msg, k.Bottom):
			s.vp.GotoBottom()
		case key.Matches(msg, k.CopyInvoke) && s.arg.copy.Invoke != "":
			return nil, s.copy(s.arg.copy.Invoke, whatInvoke)
		case key.Matches(msg, k.CopyCall) && s.arg.copy.ModuleCall != "":
			return nil, s.copy(s.arg.copy.ModuleCall, "the module call without modbay")
		}
	}
	return nil, nil
}

// copy hands text to the clipboard the session's way; the note says
// "Copying…" until the clipboard reports, then what it did (never
// "copied" for what was only sent). The lines are sanitized as one line
// first: a module's id is in them.
func (s *exchangeScreen) copy(text, what string) tea.Cmd {
	s.note = "Copying " + what + "…"
	s.rebuild()
	id := s.arg.requestID
	return s.clip.Copy(render.SanitizeLine(text), func(r clipboard.Result) tea.Msg {
		return exchangeCopiedMsg{requestID: id, what: what, res: r}
	})
}

// scrolls reports whether the content is taller than the view.
func (s *exchangeScreen) scrolls() bool { return s.vp.TotalLineCount() > s.vp.Height() }

// ShortHelp implements help.KeyMap.
func (s *exchangeScreen) ShortHelp() []key.Binding {
	var b []key.Binding
	if s.scrolls() {
		b = append(b, s.keys.Down, s.keys.PageDown)
	}
	if s.arg.copy.Invoke != "" {
		b = append(b, s.keys.CopyInvoke)
	}
	if s.arg.copy.ModuleCall != "" {
		b = append(b, s.keys.CopyCall)
	}
	return append(b, s.keys.Back)
}

// EssentialHelp keeps the copies at any width.
func (s *exchangeScreen) EssentialHelp() []key.Binding {
	var b []key.Binding
	if s.arg.copy.Invoke != "" {
		b = append(b, s.keys.CopyInvoke)
	}
	if s.arg.copy.ModuleCall != "" {
		b = append(b, s.keys.CopyCall)
	}
	return b
}

// FullHelp implements help.KeyMap.
func (s *exchangeScreen) FullHelp() [][]key.Binding {
	k := s.keys
	var g [][]key.Binding
	if s.scrolls() {
		g = append(g, []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom})
	}
	var acts []key.Binding
	if s.arg.copy.Invoke != "" {
		acts = append(acts, k.CopyInvoke)
	}
	if s.arg.copy.ModuleCall != "" {
		acts = append(acts, k.CopyCall)
	}
	return append(g, append(acts, k.Back))
}

// HelpNotes shows the copy's note whole under the full help (on screen
// it wraps to at most common.MaxNoteLines).
func (s *exchangeScreen) HelpNotes() []string {
	if s.note != "" && common.NoteCut(render.SanitizeLine(s.note), s.width) {
		return []string{render.SanitizeLine(s.note)}
	}
	return nil
}

// View implements Screen: the content and, after a copy, its note.
func (s *exchangeScreen) View() string {
	v := s.vp.View()
	if s.note != "" {
		v += "\n" + s.com.Styles.Muted.Render(common.Note(render.SanitizeLine(s.note), s.width))
	}
	return v
}

// content is the exchange as lines no wider than the screen.
func (s *exchangeScreen) content() string {
	st := s.com.Styles
	w := max(s.width, 20)
	b := detailBuilder{com: s.com, w: w}
	cp := s.arg.copy
	// The copy lines lead: they are what the screen is opened for.
	if cp.Invoke == "" {
		b.line(st.Muted.Render("Saving the request file for the copy lines…"))
	} else {
		s.copyLines(&b, w)
	}
	s.calls(&b)
	return b.String()
}

// copyLines writes the two copy lines and the module call's note.
func (s *exchangeScreen) copyLines(b *detailBuilder, w int) {
	st := s.com.Styles
	cp := s.arg.copy
	b.line(st.Subtitle.Render("Repeat with modbay") + st.Muted.Render(" (c)"))
	b.block(common.WrapWords(render.SanitizeLine(cp.Invoke), w-2), 2)
	if cp.NeedsYes {
		b.wrapped(st.Muted, "("+runner.RepeatNeedsYes+")")
	}
	switch {
	case cp.ModuleCall != "":
		b.line(st.Subtitle.Render("The module call without modbay") + st.Muted.Render(" (m)"))
		b.block(common.WrapWords(render.SanitizeLine(cp.ModuleCall), w-2), 2)
		b.wrapped(st.Warning, "! "+render.SanitizeLine(cp.Note))
	case cp.SaveError != "":
		b.wrapped(st.Warning, "! the request file could not be saved: "+render.SanitizeLine(cp.SaveError))
	}
}

// calls writes each call of the exchange.
func (s *exchangeScreen) calls(b *detailBuilder) {
	st := s.com.Styles
	w := b.w
	for i, c := range s.arg.calls {
		b.heading(fmt.Sprintf("Call %d/%d  %s", i+1, len(s.arg.calls), render.SanitizeLine(c.RequestID)))
		if sessionCall(c) {
			s.messages(b, c)
			continue
		}
		b.kv("argv", runner.ShellJoin(c.Argv))
		b.kv("dir", c.Dir)
		b.kv("env", strings.Join(c.Env, " "))
		if c.Exit != nil {
			b.kv("exit", c.Exit.Words())
		}
		var ts []string
		for _, t := range c.Timings() {
			ts = append(ts, strings.ReplaceAll(t.Phase, "_", " ")+" "+t.Duration.Round(10_000).String())
		}
		b.kv("timings", common.OrDash(strings.Join(ts, ", ")))
		b.kvStyled("request", st.Muted.Render(render.HumanBytes(int64(len(c.Request)))+", as written"))
		b.block(common.Wrap(cleanBlock(strings.TrimRight(string(c.Request), "\n")), w-2), 2)
		head := render.HumanBytes(int64(c.StdoutBytes)) + ", as received"
		if len(c.Stdout) < c.StdoutBytes {
			head = fmt.Sprintf("first %s of %s, as received", render.HumanBytes(int64(len(c.Stdout))), render.HumanBytes(int64(c.StdoutBytes)))
		}
		b.kvStyled("stdout", st.Muted.Render(head))
		if len(c.Stdout) > 0 {
			b.block(common.Wrap(cleanBlock(strings.TrimRight(string(c.Stdout), "\n")), w-2), 2)
		}
		if se := strings.TrimRight(string(c.Stderr), "\n"); se != "" {
			b.kvStyled("stderr", st.Muted.Render(render.HumanBytes(int64(len(c.Stderr)))))
			b.block(common.Wrap(cleanBlock(se), w-2), 2)
		} else {
			b.kvStyled("stderr", st.Muted.Render("empty"))
		}
	}
}

// sessionCall reports whether c was a call over a session (an MCP
// server's JSON-RPC), not a process call: it has messages and no argv or
// exit.
func sessionCall(c runner.ExchangeCall) bool {
	return len(c.Messages) > 0 && len(c.Argv) == 0 && c.Exit == nil
}

// recorded reports whether calls hold anything the exchange screen can
// show: a process call's argv, request or exit, or a session's messages.
// The result offers x only then, never for a blank screen.
func recorded(calls []runner.ExchangeCall) bool {
	for _, c := range calls {
		if len(c.Argv) > 0 || len(c.Request) > 0 || c.Exit != nil || len(c.Messages) > 0 {
			return true
		}
	}
	return false
}

// messages writes a session call's JSON-RPC messages, each with its
// direction, time from the first and size, the bytes sanitized.
func (s *exchangeScreen) messages(b *detailBuilder, c runner.ExchangeCall) {
	st := s.com.Styles
	n := len(c.Messages) + c.MessagesDropped
	b.kvStyled("session", st.Muted.Render(fmt.Sprintf("JSON-RPC, %d %s (no process call: argv, env and exit do not apply)", n, words.Plural(n, "message", "messages"))))
	t0 := c.Messages[0].At
	for _, msg := range c.Messages {
		dir := "→ sent"
		if msg.Direction == runner.FrameReceived {
			dir = "← received"
		}
		head := fmt.Sprintf("%s +%s, %s", dir, msg.At.Sub(t0).Round(10_000), render.HumanBytes(int64(msg.Bytes)))
		if len(msg.Data) < msg.Bytes {
			head += fmt.Sprintf(" (first %s shown)", render.HumanBytes(int64(len(msg.Data))))
		}
		b.line(st.Label.Render(head))
		b.block(common.Wrap(cleanBlock(strings.TrimRight(string(msg.Data), "\n")), b.w-2), 2)
	}
	if c.MessagesDropped > 0 {
		b.wrapped(st.Warning, fmt.Sprintf("! %d later %s not kept", c.MessagesDropped, words.Plural(c.MessagesDropped, "message", "messages")))
	}
	if se := strings.TrimRight(string(c.Stderr), "\n"); se != "" {
		b.kvStyled("stderr", st.Muted.Render(render.HumanBytes(int64(len(c.Stderr)))))
		b.block(common.Wrap(cleanBlock(se), b.w-2), 2)
	}
}
