package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"modbay/history"
	"modbay/internal/words"
	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
	"modbay/ui/common"
)

// Stderr kept by the run view.
const (
	// stderrTailLines is how many of the last stderr lines the run view
	// keeps and shows.
	stderrTailLines = 200
	// stderrPartialMax bounds an unterminated stderr line, so a module
	// that never prints a newline cannot grow it without limit (bytes).
	stderrPartialMax = 4096
	// logTailLines is how many of the last log messages the run view
	// keeps.
	logTailLines = 100
)

// runView is one run of the session, in flight or done: what its screen
// shows and what its result screen is built from. The root keeps it by
// request id (Model.runs).
type runView struct {
	com     *common.Common
	id      string
	plan    *runner.Plan
	cancel  context.CancelFunc
	started time.Time
	lines   []string
	partial string
	job     *runner.JobStatus
	// progress is the last progress the module reported (MCP
	// notifications/progress); nil before any.
	progress *runner.Progress
	// logs are the last logTailLines log messages (MCP
	// notifications/message) as "level text", raw.
	logs []string
	pid  int
	// staging is the artifacts the host is checking and staging once the
	// module has answered; 0 before.
	staging    int
	cancelling bool
	done       bool
	// result is the run's outcome once done.
	result *runner.Result
	// exchange is its raw exchange once done (nil: not recorded).
	exchange *exchangeArg
	// follow is set for a run of another process this cockpit follows
	// (follow.go): it cannot be cancelled from here.
	follow *following
}

func newRunView(com *common.Common, p *runner.Plan, cancel context.CancelFunc) *runView {
	id := p.Request.RequestID
	if id == "" {
		id = modproto.NewRequestID()
	}
	return &runView{com: com, id: id, plan: p, cancel: cancel, started: com.Now()}
}

// event applies a live event.
func (r *runView) event(ev runner.Event) {
	if ev.PID != 0 {
		r.pid = ev.PID
	}
	if ev.Job != nil {
		r.job, r.staging = ev.Job, 0 // a poll: what it staged is done
	}
	if len(ev.Stderr) > 0 {
		r.addStderr(string(ev.Stderr))
	}
	if ev.Progress != nil {
		r.progress = ev.Progress
	}
	if ev.Staging != nil {
		r.staging = *ev.Staging
	}
	if l := ev.Log; l != nil {
		r.logs = append(r.logs, l.Level+" "+l.Text)
		if len(r.logs) > logTailLines {
			r.logs = r.logs[len(r.logs)-logTailLines:]
		}
	}
}

// addStderr appends a raw chunk, splitting it into lines.
func (r *runView) addStderr(chunk string) {
	parts := strings.Split(r.partial+chunk, "\n")
	r.partial = parts[len(parts)-1]
	for _, l := range parts[:len(parts)-1] {
		// A CRLF line end is a line end (as render.Sanitize reads it), so
		// the kept lines can be sanitized one window at a time.
		r.lines = append(r.lines, strings.TrimSuffix(l, "\r"))
	}
	if len(r.partial) > stderrPartialMax {
		// After the complete lines before it: the overlong line is the
		// chunk's last text.
		r.lines = append(r.lines, r.partial)
		r.partial = ""
	}
	if len(r.lines) > stderrTailLines {
		r.lines = r.lines[len(r.lines)-stderrTailLines:]
	}
}

// stderrTail returns the kept stderr (raw), for the result view when the
// result itself has none.
func (r *runView) stderrTail() string {
	s := strings.Join(r.lines, "\n")
	if r.partial != "" {
		if s != "" {
			s += "\n"
		}
		s += r.partial
	}
	return s
}

// RunKeyMap is the run screen's bindings.
type RunKeyMap struct {
	// Cancel cancels the run in flight (ctrl+c: the run screen takes it
	// from the root, which otherwise quits on it).
	Cancel key.Binding
	// Background leaves the run screen of a long-running job: the job
	// goes on polling in the background (the header counts it) and the
	// history reopens it.
	Background key.Binding
	// CancelJob cancels the job itself through its capability's
	// cancel_capability, after asking (docs/protocol.md §16).
	CancelJob key.Binding
}

// runScreen shows a run in flight.
type runScreen struct {
	com  *common.Common
	keys RunKeyMap
	run  *runView
	// sp is the root's spinner.
	sp   *spinner.Model
	w, h int
	// cancelVia is the capability that cancels the run's job ("": none,
	// X is not offered); note says what became of a cancel.
	cancelVia string
	note      string
	// typed are the keys pressed here that the run screen does not use,
	// oldest first (at most maxTyped): the result replays the ones it
	// can take (replayTyped).
	typed []typedKey
}

// typedKey is a key pressed on the run screen, and when.
type typedKey struct {
	key tea.KeyPressMsg
	at  time.Time
}

// maxTyped bounds the keys a run screen keeps for its result; typedWindow
// is how long before the result a key may have been typed to be replayed.
const (
	maxTyped    = 16
	typedWindow = time.Second
)

// openRunScreen shows the run with request id arg (string).
func openRunScreen(m *Model, arg any) (Screen, tea.Cmd) {
	id, _ := arg.(string)
	r, ok := m.runs[id]
	if !ok {
		return nil, nil
	}
	s := &runScreen{com: m.com, keys: m.keys.Run, run: r, sp: &m.spinner}
	if r.plan != nil && r.plan.Module != nil && m.history != nil {
		s.cancelVia = m.cancelVia(r.plan.Module.ID, r.plan.Capability.ID)
	}
	return s, nil
}

// Kind implements Screen.
func (s *runScreen) Kind() screenKind { return screenRun }

// SetSize implements Screen.
func (s *runScreen) SetSize(w, h int) { s.w, s.h = w, h }

// Typing implements Screen.
func (s *runScreen) Typing() bool { return false }

// Crumb implements Screen.
func (s *runScreen) Crumb(bool) string { return "run" }

// cancellable reports whether Cancel does something: the run is in flight
// and not yet being cancelled.
func (s *runScreen) cancellable() bool {
	return !s.run.done && !s.run.cancelling && s.run.follow == nil
}

// Update implements Screen: ctrl+c cancels the run; the runner kills its
// process tree and the run ends as "cancelled". Once a job handle has
// arrived it stops the polling only: the job itself goes on in the module
// (the result's detail says so).
func (s *runScreen) Update(msg tea.Msg) (Action, tea.Cmd) {
	if kp, ok := msg.(tea.KeyPressMsg); ok && key.Matches(kp, s.keys.Cancel) && s.cancellable() {
		s.run.cancelling = true
		s.run.cancel()
	}
	if kp, ok := msg.(tea.KeyPressMsg); ok && key.Matches(kp, s.keys.Background) && s.backgroundable() {
		return actionPop{}, nil
	}
	if kp, ok := msg.(tea.KeyPressMsg); ok && key.Matches(kp, s.keys.CancelJob) && s.jobCancellable() {
		return actionCancelJob{id: s.run.id}, nil
	}
	if kp, ok := msg.(tea.KeyPressMsg); ok && !key.Matches(kp, s.keys.Cancel, s.keys.Background, s.keys.CancelJob) {
		if len(s.typed) == maxTyped {
			s.typed = s.typed[1:]
		}
		s.typed = append(s.typed, typedKey{key: kp, at: s.com.Now()})
	}
	return nil, nil
}

// jobCancellable reports whether CancelJob does something: a job handle
// has arrived, its capability declares a cancel_capability, and the run
// is in flight.
func (s *runScreen) jobCancellable() bool {
	return s.run.job != nil && s.cancelVia != "" && !s.run.done
}

// backgroundable reports whether Background does something: the run is
// in flight and not being cancelled (it goes on in this process, A lists
// it, the bell rings when it ends).
func (s *runScreen) backgroundable() bool {
	if s.run.follow != nil {
		return !s.run.done // back: the run goes on in its own process
	}
	return s.cancellable()
}

// ShortHelp implements help.KeyMap.
func (s *runScreen) ShortHelp() []key.Binding {
	var b []key.Binding
	if s.cancellable() {
		k := s.keys.Cancel
		if s.run.job != nil {
			k.SetHelp(k.Help().Key, "stop polling")
		}
		b = append(b, k)
	}
	if s.backgroundable() {
		k := s.keys.Background
		if s.run.follow != nil {
			k.SetHelp(k.Help().Key, "back (it goes on)")
		}
		b = append(b, k)
	}
	if s.jobCancellable() {
		b = append(b, s.keys.CancelJob)
	}
	return b
}

// EssentialHelp is what the help bar keeps at any width: the cancel.
func (s *runScreen) EssentialHelp() []key.Binding {
	if s.run.follow != nil {
		return nil // ShortHelp's back stays first
	}
	return []key.Binding{s.keys.Cancel}
}

// FullHelp implements help.KeyMap.
func (s *runScreen) FullHelp() [][]key.Binding {
	if b := s.ShortHelp(); b != nil {
		return [][]key.Binding{b}
	}
	return nil
}

// View implements Screen.
func (s *runScreen) View() string {
	if s.note == "" {
		return s.run.View(*s.sp, s.w, s.h)
	}
	note := s.com.Styles.Warning.Render(common.FitWidth(common.Wrap(render.SanitizeLine(s.note), max(s.w, 1)), s.w))
	return note + "\n" + s.run.View(*s.sp, s.w, max(s.h-common.Lines(note), 1))
}

// View draws the run in w × h cells.
func (r *runView) View(sp spinner.Model, w, h int) string {
	st := r.com.Styles
	c := r.plan.Capability
	mod := ""
	if r.plan.Module != nil {
		mod = moduleName(r.plan.Module)
	}
	var lines []string
	state := "running"
	if f := r.follow; f != nil {
		state = "running in " + followedBy(f.source)
	}
	switch {
	case r.cancelling && r.job != nil:
		state = "stopping polling…"
	case r.cancelling:
		state = "cancelling…"
	case r.staging > 0 && r.follow == nil:
		state = fmt.Sprintf("answered; checking %d %s", r.staging, words.Plural(r.staging, "artifact", "artifacts"))
	}
	lines = append(lines, sp.View()+" "+st.Title.Render(state)+" "+render.SanitizeLine(mod)+st.Muted.Render(" › ")+render.SanitizeLine(common.TitleOr(c.Title, c.ID)))
	elapsed := r.com.Now().Sub(r.started)
	deadline := time.Duration(r.plan.Request.DeadlineMS) * time.Millisecond
	if deadline <= 0 {
		deadline = modproto.DefaultDeadlineMS * time.Millisecond
	}
	lines = append(lines, fmt.Sprintf("%s %.1fs / %ds", st.Label.Render("elapsed"), elapsed.Seconds(), int(deadline.Seconds())))
	lines = append(lines, st.Label.Render("request ")+st.ID.Render(r.id))
	if r.pid != 0 {
		lines = append(lines, st.Label.Render("pid     ")+fmt.Sprint(r.pid))
	}
	if p := r.progress; p != nil {
		line := st.Label.Render("progress")
		if p.Percent != nil {
			line += fmt.Sprintf(" %.0f%% %s", *p.Percent, bar(*p.Percent, 20))
		}
		if p.Message != "" {
			line += " " + render.SanitizeLine(p.Message)
		}
		lines = append(lines, line)
	}
	if j := r.job; j != nil {
		lines = append(lines, "", st.Subtitle.Render("Job")+" "+st.ID.Render(render.SanitizeLine(j.ID)))
		line := render.SanitizeLine(j.State)
		if j.Percent != nil {
			line += fmt.Sprintf(" %.0f%%", *j.Percent)
			line += " " + bar(*j.Percent, 20)
		}
		lines = append(lines, line)
		if j.Detail != "" {
			lines = append(lines, st.Muted.Render(render.SanitizeLine(j.Detail)))
		}
		lines = append(lines, st.Muted.Render(fmt.Sprintf("%d %s", j.Polls, words.Plural(j.Polls, "poll", "polls"))))
	}
	switch j := r.job; {
	case r.follow != nil:
		lines = append(lines, "", st.Muted.Render("Followed from the history as "+followedBy(r.follow.source)+" runs it: this cockpit cannot stop it · esc goes back, the run goes on"))
		if r.follow.cut {
			lines = append(lines, st.Warning.Render("The run wrote more live events than the history keeps: later ones are not shown; its result will be."))
		}
	case j != nil && r.cancelling:
		lines = append(lines, "", st.Warning.Render("Polling stops; job "+render.SanitizeLine(j.ID)+" continues in the module."))
	case j != nil:
		lines = append(lines, "", st.Muted.Render("ctrl+c stops polling (the job continues in the module) · esc keeps it polling in the background"))
	case r.cancelling:
		lines = append(lines, "", st.Warning.Render("Cancelling: the module's process tree is being stopped."))
	default:
		lines = append(lines, "", st.Muted.Render("ctrl+c cancels the run · esc keeps it running in the background"))
	}
	// What the run says of itself wraps (a long note or job detail is
	// read whole); the stderr tail below is cut to the width, and shown
	// whole in the result.
	lines = strings.Split(common.FitWidth(common.Wrap(strings.Join(lines, "\n"), max(w, 1)), w), "\n")
	if n := len(r.logs); n > 0 && h-len(lines)-2 > 0 {
		// The newest messages, at most half the room left, so stderr
		// still shows below.
		show := min(n, max((h-len(lines)-2)/2, 1))
		lines = append(lines, "", st.Subtitle.Render("log"))
		for _, l := range r.logs[n-show:] {
			lines = append(lines, common.Trunc(render.SanitizeLine(l), w))
		}
	}
	room := h - len(lines) - 2
	tail := r.stderrTail()
	if tail != "" && room > 0 {
		// Only the lines that fit are sanitized: this view is drawn on
		// every tick, and the run may have kept stderrTailLines long ones.
		lines = append(lines, "", st.Subtitle.Render("stderr"))
		for _, l := range strings.Split(cleanBlock(lastLines(tail, room)), "\n") {
			lines = append(lines, common.Trunc(l, w))
		}
	}
	return strings.Join(lines, "\n")
}

// followedBy names who runs a followed run of source.
func followedBy(source string) string {
	switch source {
	case history.SourceMCPServe:
		return "modbay mcp serve (an agent's call)"
	case "":
		return "another modbay process"
	}
	return "modbay " + render.SanitizeLine(source) + " (another process)"
}

// bar draws a percent as a w-cell bar.
func bar(pct float64, w int) string {
	n := int(pct / 100 * float64(w))
	n = max(0, min(n, w))
	return "[" + strings.Repeat("█", n) + strings.Repeat("·", w-n) + "]"
}
