package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"modbay/contain"
	"modbay/internal/words"
	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
	"modbay/ui/common"
	"modbay/ui/viewer"
)

// stderrCollapsed is how many of the last stderr lines the result view
// shows until the person expands it.
const stderrCollapsed = 5

// resultView shows one run's outcome in a scrollable viewport.
type resultView struct {
	com        *common.Common
	keys       ResultKeyMap
	plan       *runner.Plan
	res        *runner.Result
	liveStderr string
	vp         viewport.Model
	selected   int
	artLines   []int
	stderrOpen bool
	// stderrLine is the content line of the stderr heading (-1: none).
	stderrLine int
	width      int
	height     int
	// exchange is the run's raw exchange (x), nil when not recorded.
	exchange *exchangeArg
	// linkNote says why the last followed link was not read.
	linkNote string
	// env is where the cockpit runs (the pager and editor for O and E);
	// copyNote says how the last copy opened in one went.
	env      viewer.Env
	copyNote string
	// typedNote says what became of the keys typed during the run
	// (replayTyped); "" when none were.
	typedNote string
	// rendered keeps the JSON blocks already rendered for one width and
	// colors: the content is rebuilt on every selection move and stderr
	// toggle, and a result may be up to a MiB of JSON.
	rendered struct {
		as     render.Options
		blocks map[string]string
	}
}

// openResultScreen shows the result of the finished run with request id arg
// (string).
// maxResultWarnings bounds the envelope warnings the result screen
// draws (200,000 of them, under max_output_bytes, took 2–3 s to open).
const maxResultWarnings = 200

func openResultScreen(m *Model, arg any) (Screen, tea.Cmd) {
	id, _ := arg.(string)
	r, ok := m.runs[id]
	if !ok || r.result == nil {
		return nil, nil
	}
	keys := m.keys.Result
	// esc goes back to what is beneath (a run screen is replaced by its
	// result): the help says where, as it is.
	beneath := m.top()
	if beneath.Kind() == screenRun && len(m.stack) > 1 {
		beneath = m.stack[len(m.stack)-2]
	}
	switch beneath.Kind() {
	case screenForm:
	case screenHistory:
		keys.Back.SetHelp("esc", "back to history")
	default:
		keys.Back.SetHelp("esc", "back")
	}
	rv := newResultView(m.com, keys, r.plan, r.result, r.stderrTail())
	rv.exchange = r.exchange
	rv.env = m.viewerEnv
	return rv, nil
}

// result returns the top-most result screen, or nil.
func (m *Model) result() *resultView {
	r, _ := find[*resultView](m)
	return r
}

// Actions of the result screen.
type (
	// actionRerun plans the last input again, from its form.
	actionRerun struct{}
)

func (actionRerun) isAction() {}

// Kind implements Screen.
func (r *resultView) Kind() screenKind { return screenResult }

// Typing implements Screen.
func (r *resultView) Typing() bool { return false }

// Crumb implements Screen.
func (r *resultView) Crumb(bool) string { return "result" }

func newResultView(com *common.Common, keys ResultKeyMap, p *runner.Plan, res *runner.Result, liveStderr string) *resultView {
	r := &resultView{com: com, keys: keys, plan: p, res: res, liveStderr: liveStderr, vp: viewport.New()}
	r.vp.KeyMap = viewport.KeyMap{}
	r.SetSize(com.Width, com.Height)
	return r
}

// SetSize sets the view area and rebuilds the content for the width.
func (r *resultView) SetSize(w, h int) {
	r.width, r.height = w, h
	r.vp.SetWidth(w)
	r.rebuild()
}

// SelectedArtifact returns the artifact under the cursor.
func (r *resultView) SelectedArtifact() (runner.VerifiedArtifact, bool) {
	if r.selected < 0 || r.selected >= len(r.res.Artifacts) {
		return runner.VerifiedArtifact{}, false
	}
	return r.res.Artifacts[r.selected], true
}

// Update implements Screen: scrolling, artifact selection, the stderr
// toggle; opening an artifact, a re-run and back are the root's.
func (r *resultView) Update(msg tea.Msg) (Action, tea.Cmd) {
	if oc, ok := msg.(viewer.OpenedCopyMsg); ok {
		r.copyNote = oc.Note()
		r.rebuild()
		return nil, nil
	}
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	n := len(r.res.Artifacts)
	switch {
	case key.Matches(kp, r.keys.Back):
		return actionPop{}, nil
	case key.Matches(kp, r.keys.Rerun):
		return actionRerun{}, nil
	case key.Matches(kp, r.keys.FollowJob) && unpolled(r.res):
		return actionFollowJob{id: r.res.RequestID}, nil
	case key.Matches(kp, r.keys.SendTo):
		if a, ok := r.SelectedArtifact(); ok {
			return actionOpen{kind: screenSendTo, arg: sendArg{reqID: r.res.RequestID, producer: r.res.Module, art: a}}, nil
		}
	case key.Matches(kp, r.keys.Follow) && r.followable():
		a, _ := r.SelectedArtifact()
		r.linkNote = ""
		return actionFollowLink{module: r.plan.Module, art: a}, nil
	case key.Matches(kp, r.keys.Exchange) && r.exchange != nil:
		return actionOpen{kind: screenExchange, arg: *r.exchange}, nil
	case key.Matches(kp, r.keys.Open):
		if a, ok := r.SelectedArtifact(); ok {
			return actionOpen{kind: screenViewer, arg: viewerArg{reqID: r.res.RequestID, module: r.res.Module, art: a, siblings: r.res.Artifacts}}, nil
		}
	case key.Matches(kp, r.keys.Pager) && n > 0:
		return nil, r.openCopy(viewer.ToolPager)
	case key.Matches(kp, r.keys.Editor) && n > 0:
		return nil, r.openCopy(viewer.ToolEditor)
	case key.Matches(kp, r.keys.Up):
		if n > 0 && r.selected > 0 {
			r.selected--
			r.rebuild()
			r.showSelected()
		} else {
			r.vp.ScrollUp(1)
		}
	case key.Matches(kp, r.keys.Down):
		if n > 0 && r.selected < n-1 {
			r.selected++
			r.rebuild()
			r.showSelected()
		} else {
			r.vp.ScrollDown(1)
		}
	case key.Matches(kp, r.keys.PageUp):
		r.vp.PageUp()
	case key.Matches(kp, r.keys.PageDown):
		r.vp.PageDown()
	case key.Matches(kp, r.keys.Top):
		r.vp.GotoTop()
	case key.Matches(kp, r.keys.Bottom):
		r.vp.GotoBottom()
	case key.Matches(kp, r.keys.Stderr) && r.stderrFolds():
		r.stderrOpen = !r.stderrOpen
		r.rebuild()
		if r.stderrOpen && r.stderrLine >= 0 {
			// Show what was expanded: the stderr from its heading.
			r.vp.SetYOffset(r.stderrLine)
		}
	}
	return nil, nil
}

// openCopy opens a sanitized copy of the selected artifact in the pager
// or editor, or says why it cannot.
func (r *resultView) openCopy(t viewer.Tool) tea.Cmd {
	a, ok := r.SelectedArtifact()
	if !ok {
		return nil
	}
	if why := r.env.CannotOpen(t); why != "" {
		r.copyNote = why
		r.rebuild()
		return nil
	}
	r.copyNote = ""
	r.rebuild()
	return viewer.OpenArtifactCopy(r.env, t, a)
}

// external is the pager and editor keys that act (with an artifact).
func (r *resultView) external() []key.Binding {
	if len(r.res.Artifacts) == 0 {
		return nil
	}
	var b []key.Binding
	if r.env.CanOpen(viewer.ToolPager) {
		b = append(b, r.keys.Pager)
	}
	if r.env.CanOpen(viewer.ToolEditor) {
		b = append(b, r.keys.Editor)
	}
	return b
}

// showSelected scrolls the selected artifact row into view.
func (r *resultView) showSelected() {
	if r.selected < len(r.artLines) {
		r.vp.EnsureVisible(r.artLines[r.selected], 0, 0)
	}
}

// ShortHelp implements help.KeyMap: the bindings that apply (up and down
// while there is something to move through).
func (r *resultView) ShortHelp() []key.Binding {
	var b []key.Binding
	if r.scrolls() || len(r.res.Artifacts) > 1 {
		b = append(b, r.keys.Up, r.keys.Down)
	}
	if len(r.res.Artifacts) > 0 {
		b = append(b, r.keys.Open)
	}
	b = append(b, r.external()...)
	if r.followable() {
		b = append(b, r.keys.Follow)
	}
	if r.stderrFolds() {
		b = append(b, r.keys.Stderr)
	}
	if r.exchange != nil {
		b = append(b, r.keys.Exchange)
	}
	if unpolled(r.res) {
		b = append(b, r.keys.FollowJob)
	}
	return append(b, r.keys.Rerun, r.keys.Back)
}

// EssentialHelp is what the help bar keeps at any width: opening an
// artifact and, when there is a pager, O (over SSH the way to read it
// outside the cockpit); esc and the help key are always kept.
func (r *resultView) EssentialHelp() []key.Binding {
	b := []key.Binding{r.keys.Open}
	if unpolled(r.res) {
		b = append(b, r.keys.FollowJob) // the way back to the job
	}
	if len(r.res.Artifacts) > 0 && r.env.CanOpen(viewer.ToolPager) {
		b = append(b, r.keys.Pager)
	}
	return b
}

// FullHelp implements help.KeyMap.
func (r *resultView) FullHelp() [][]key.Binding {
	k := r.keys
	var groups [][]key.Binding
	switch {
	case r.scrolls():
		groups = append(groups, []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom})
	case len(r.res.Artifacts) > 1:
		groups = append(groups, []key.Binding{k.Up, k.Down})
	}
	var acts []key.Binding
	if len(r.res.Artifacts) > 0 {
		// O and E are listed where they cannot act too: pressed, they
		// say what to set.
		acts = append(acts, k.Open, k.Pager, k.Editor, k.SendTo)
	}
	if r.followable() {
		acts = append(acts, k.Follow)
	}
	if r.stderrFolds() {
		acts = append(acts, k.Stderr)
	}
	if r.exchange != nil {
		acts = append(acts, k.Exchange)
	}
	if unpolled(r.res) {
		acts = append(acts, k.FollowJob)
	}
	return append(groups, append(acts, k.Rerun, k.Back))
}

// scrolls reports whether the content is taller than the view.
func (r *resultView) scrolls() bool { return r.vp.TotalLineCount() > r.height }

// View draws the viewport and, when the content does not fit, a last line
// saying where the view is and how much is below.
func (r *resultView) View() string {
	if !r.scrolls() {
		return r.vp.View()
	}
	st := r.com.Styles
	top := r.vp.YOffset()
	total := r.vp.TotalLineCount()
	below := max(total-top-r.vp.Height(), 0)
	pos := fmt.Sprintf("lines %d–%d of %d", top+1, min(top+r.vp.Height(), total), total)
	var line string
	if below > 0 {
		line = st.Warning.Render(fmt.Sprintf("↓ %d more %s", below, words.Plural(below, "line", "lines"))) +
			st.Muted.Render(" · "+pos+" · pgdn/end")
	} else {
		line = st.Muted.Render("end · " + pos + " · pgup/home")
	}
	return r.vp.View() + "\n" + common.Trunc(line, r.width)
}

// stderrFolds reports whether expanding the stderr shows more than the
// collapsed view (more lines than it keeps, or lines it cuts), so its key
// does something.
func (r *resultView) stderrFolds() bool {
	se := r.stderr()
	if se == "" {
		return false
	}
	lines := strings.Split(strings.TrimRight(cleanBlock(se), "\n"), "\n")
	return len(lines) > stderrCollapsed || longestLine(lines) > max(r.width, 20)
}

// stderr returns the run's stderr: the result's, else what the run view
// collected.
func (r *resultView) stderr() string {
	if r.res.Stderr != "" {
		return r.res.Stderr
	}
	return r.liveStderr
}

// rebuild renders the content for the current width and selection.
func (r *resultView) rebuild() {
	off := r.vp.YOffset()
	r.vp.SetContent(r.content())
	// The last line is the scroll position when the content does not fit.
	h := r.height
	if r.vp.TotalLineCount() > h {
		h--
	}
	r.vp.SetHeight(max(h, 1))
	r.vp.SetYOffset(off)
}

// content is the whole result as text lines no wider than r.width.
func (r *resultView) content() string {
	st := r.com.Styles
	res := r.res
	env := res.Envelope
	w := max(r.width, 20)
	b := detailBuilder{com: r.com, w: w}
	// Status line.
	var badge string
	switch w := jobEndWord(res); {
	case stoppedFollowing(res):
		// Stop following (docs/protocol.md §16): not an error of the job.
		badge = st.Badge(st.BadgeWarn, "stopped following; the job goes on")
	case w != "":
		badge = st.Badge(st.BadgeError, w)
	case res.OK():
		badge = st.Badge(st.BadgeOK, "ok")
	default:
		badge = st.Badge(st.BadgeError, "error")
		if c := res.Code(); c != "" {
			badge += " " + st.Error.Render(render.SanitizeLine(c))
		}
	}
	// The capability the person ran: for a long-running one, the result
	// is the last poll's (its Capability the poll capability), but this is
	// the run of the original.
	capID := res.Capability
	if r.plan != nil && r.plan.Capability.ID != "" {
		capID = r.plan.Capability.ID
	}
	meta := []string{st.ID.Render(render.SanitizeLine(capID))}
	if res.Duration > 0 {
		meta = append(meta, callDuration(res.Duration))
	}
	// An exit code belongs to a process call; a call over a session (an
	// MCP server's tools/call) has none, and "exit -1" on a success would
	// only say that no process exited.
	switch {
	case r.processCall() && res.Signal != "":
		meta = append(meta, "killed by "+res.Signal)
	case r.processCall() && res.ExitCode >= 0 && (res.Host == nil || res.ExitCode != 0):
		meta = append(meta, fmt.Sprintf("exit %d", res.ExitCode))
	}
	if env != nil {
		meta = append(meta, "cost "+shownCost(res, "/execution/actual_cost", env.Execution.ActualCost))
	}
	// A weaker containment is said at the top, never only far below
	// (never silently weaker).
	if e := res.Enforcement; e.Processes != "" && !e.Complete() {
		if !e.Contained {
			meta = append(meta, st.Warning.Render("not contained"))
		} else {
			n := len(e.Gaps)
			meta = append(meta, st.Warning.Render(fmt.Sprintf("containment: %d %s", n, words.Plural(n, "gap", "gaps"))))
		}
	}
	if r.plan != nil && r.plan.Unchecked {
		// The person chose "send anyway": the input did not fit the
		// request schema, and a repeat of it through invoke is refused.
		meta = append(meta, st.Warning.Render("sent anyway, with the problems the form found (not checked when sent)"))
	}
	// The status badge leads; the rest wraps under it rather than being
	// cut (the cost is a verdict too).
	for _, l := range strings.Split(common.Wrap(badge+"  "+strings.Join(meta, st.Muted.Render(" · ")), w), "\n") {
		b.line(l)
	}
	if r.typedNote != "" {
		b.wrapped(st.Muted, r.typedNote)
	}
	if j := res.Job; j != nil {
		job := []string{"job " + st.ID.Render(render.SanitizeLine(j.ID)), common.OrDash(render.SanitizeLine(j.State))}
		if j.Percent != nil {
			job = append(job, fmt.Sprintf("%.0f%%", *j.Percent))
		}
		job = append(job, fmt.Sprintf("%d %s", j.Polls, words.Plural(j.Polls, "poll", "polls")))
		if res.Capability != "" && res.Capability != capID {
			job = append(job, "polled with "+st.ID.Render(render.SanitizeLine(res.Capability)))
		}
		b.line(strings.Join(job, st.Muted.Render(" · ")))
	}
	b.kv("Request", res.RequestID)

	if res.Host != nil {
		b.heading("Host verdict")
		b.kv("Code", res.Host.Code)
		detail, violations := res.Verdict()
		if detail != "" {
			b.kv("Detail", detail)
		}
		for _, v := range violations {
			b.wrapped(st.Error, "✗ "+render.SanitizeLine(v.Error()))
		}
	}
	if env != nil && env.Error != nil {
		e := env.Error
		b.heading("Error")
		b.kv("Code", e.Code)
		b.kv("Message", e.Message)
		b.kv("Retryable", yesNo(e.Retryable))
		if len(e.Details) > 0 {
			b.kvStyled("Details", "")
			b.block(r.json("details", w-2, func() []byte {
				raw, _ := modproto.EncodeJSON(e.Details)
				return raw
			}), 2)
		}
	}
	if res.LikelyCause != "" {
		b.kv("Cause", res.LikelyCause)
	}
	if env != nil && len(env.Warnings) > 0 {
		b.heading(fmt.Sprintf("Warnings (%d)", len(env.Warnings)))
		for i, x := range env.Warnings {
			if i == maxResultWarnings {
				more := fmt.Sprintf("… and %d more, not shown here", len(env.Warnings)-i)
				if r.exchange != nil {
					more += " (x: the raw exchange has them all)"
				}
				b.wrapped(st.Muted, more)
				break
			}
			b.wrapped(st.Warning, "! "+render.SanitizeLine(x))
		}
	}
	if len(res.EffectWarnings) > 0 {
		b.heading("Declared versus actual: warnings")
		for _, x := range res.EffectWarnings {
			b.wrapped(st.Warning, "! "+render.SanitizeLine(x.Error()))
		}
	}
	r.artLines = r.artLines[:0]
	if len(res.Artifacts) > 0 || (env != nil && len(env.Execution.Artifacts) > 0) {
		head := fmt.Sprintf("Artifacts (%d)", len(res.Artifacts))
		if len(res.Refused) > 0 {
			head = fmt.Sprintf("Artifacts (%d verified, %d refused)", len(res.Artifacts), len(res.Refused))
		}
		b.heading(head)
		// The refusals first, beside the verdict that counts them; a rule
		// that refused many in a row is one entry (runner.GroupRefused).
		for _, g := range runner.GroupRefused(res.Refused) {
			b.line(st.Cursor(false) + g.Names(render.SanitizeLine))
			b.wrapped(st.Warning, "    ✗ refused: "+render.SanitizeLine(g.Reason))
		}
		for i, a := range res.Artifacts {
			r.artLines = append(r.artLines, len(b.lines))
			sel := i == r.selected
			title := render.SanitizeLine(common.TitleOr(a.Title, a.ID))
			if sel {
				title = st.Selected.Render(title)
			}
			b.line(st.Cursor(sel) + title + " " + st.ID.Render(render.SanitizeLine(a.Kind)))
			size := a.Size
			if size == 0 {
				size = a.Bytes
			}
			pres := a.Presentation
			if pres == "" {
				pres = render.Resolve(a.Artifact.Presentation, a.MediaType)
			}
			// The verdict leads the line, then how it opens and its size,
			// so a narrow view cuts the digest and the media type first.
			b.line("    " + st.Success.Render("✓ verified, staged") + st.Muted.Render(" · "+strings.Join([]string{
				pres, render.HumanBytes(size), render.SanitizeLine(a.MediaType), render.ShortDigest(a.Digest),
			}, " · ")))
			if sel && r.copyNote != "" {
				b.wrapped(st.Warning, "    "+r.copyNote)
			}
			if sel && r.plan != nil && isLink(r.plan.Module, a) {
				b.line("    " + st.Muted.Render(r.keys.Follow.Help().Key+" reads the resource it links to"))
				if r.linkNote != "" {
					b.wrapped(st.Warning, "    "+render.SanitizeLine(r.linkNote))
				}
			}
		}
		if env != nil && res.Host != nil && len(res.Refused) == 0 && len(env.Execution.Artifacts) > len(res.Artifacts) {
			n := len(env.Execution.Artifacts) - len(res.Artifacts)
			b.wrapped(st.Warning, fmt.Sprintf("%d reported %s not verified and %s not shown.", n,
				words.Plural(n, "artifact was", "artifacts were"), words.Plural(n, "is", "are")))
		}
	}
	if env != nil && env.OK && len(env.Result) > 0 {
		if len(res.Beside) > 0 {
			// An MCP reply with structuredContent: that is the result; its
			// content entries and _meta follow, as sent.
			b.heading("Result (structuredContent)")
			b.block(r.json("result", w-2, func() []byte { return env.Result }), 2)
			b.heading("Content and _meta")
			b.block(r.json("beside", w-2, func() []byte { return res.Beside }), 2)
		} else {
			b.heading("Result")
			b.block(r.json("result", w-2, func() []byte { return env.Result }), 2)
		}
	}
	if env != nil {
		r.effects(&b, env.Execution, res)
	}
	r.containment(&b)
	if j := res.Job; j != nil {
		b.heading("Job")
		b.kv("ID", j.ID)
		b.kv("State", j.State)
		if j.Percent != nil {
			b.kv("Percent", fmt.Sprintf("%.0f%%", *j.Percent))
		}
		if j.Detail != "" {
			b.kv("Detail", j.Detail)
		}
		b.kv("Polls", fmt.Sprint(j.Polls))
	}
	r.stderrLine = -1
	if se := r.stderr(); se != "" {
		lines := strings.Split(strings.TrimRight(cleanBlock(se), "\n"), "\n")
		label := fmt.Sprintf("Stderr (%d %s", len(lines), words.Plural(len(lines), "line", "lines"))
		if res.StderrTruncated {
			label += ", truncated"
		}
		label += ")"
		r.stderrLine = len(b.lines) + 1 // after the heading's blank line
		b.heading(label)
		if !r.stderrOpen {
			// Collapsed: the last lines, each cut to the width.
			shown := lines
			if len(lines) > stderrCollapsed {
				shown = lines[len(lines)-stderrCollapsed:]
				n := len(lines) - stderrCollapsed
				b.line(st.Muted.Render(fmt.Sprintf("… %d earlier %s (e expands)", n, words.Plural(n, "line", "lines"))))
			} else if longestLine(lines) > w {
				b.line(st.Muted.Render("(e wraps the long lines)"))
			}
			for _, l := range shown {
				b.line(l)
			}
		} else {
			// Expanded: every line, wrapped to the width, nothing cut.
			for _, l := range lines {
				for wl := range strings.SplitSeq(common.Wrap(l, w), "\n") {
					b.line(wl)
				}
			}
		}
	}
	return b.String()
}

// longestLine is the width of the widest of lines.
func longestLine(lines []string) int {
	n := 0
	for _, l := range lines {
		n = max(n, common.Width(l))
	}
	return n
}

// processCall reports whether the run was a process call (docs/protocol.md §3),
// which has an exit code: false for a module whose driver speaks over a
// session (an MCP server: no Exe, a driver of its own).
func (r *resultView) processCall() bool {
	m := r.plan.Module
	return m == nil || m.Exe != "" || m.Driver == nil
}

// callDuration is how long a call took, for the result's header: tenths
// of a second from a tenth up, whole milliseconds below (a fast call, as
// an MCP tool's often is, is never "0.0s").
func callDuration(d time.Duration) string {
	switch {
	case d >= 100*time.Millisecond:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Millisecond:
		return "<1 ms"
	default:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
}

// notReported is the actual column of an effect the module did not
// report itself.
const notReported = "not reported"

// effects writes the declared-versus-actual table and the costs. For a
// module whose effects are hints (an MCP server's tool annotations) the
// execution block is the host's, not the server's: the actual column
// says "not reported" rather than a "no" no one stated.
func (r *resultView) effects(b *detailBuilder, x modproto.Execution, res *runner.Result) {
	st := r.com.Styles
	d := r.plan.Capability.Effects
	hints := r.plan.Module != nil && r.plan.Module.EffectsAreHints
	b.heading("Effects")
	const c1, c2 = 16, 10
	head := "declared"
	if hints {
		head = "annotated"
	}
	b.line(st.Label.Render(fmt.Sprintf("%-*s%-*s%s", c1, "", c2, head, "actual")))
	row := func(name, decl, act string, differs bool) {
		if hints {
			act, differs = st.Muted.Render(notReported), false
		}
		line := fmt.Sprintf("%-*s%-*s%s", c1, name, c2, decl, act)
		if differs {
			line += " " + st.Warning.Render("≠")
		}
		b.line(line)
	}
	row("local", yesNo(d.Local), yesNo(x.Local), false)
	row("network", yesNo(d.Network), yesNo(x.Network), x.Network && !d.Network)
	row("external writes", yesNo(d.ExternalWrites), yesNo(x.ExternalWrites), x.ExternalWrites && !d.ExternalWrites)
	row("provider", common.OrDash(render.SanitizeLine(d.Provider)), common.OrDash(render.SanitizeLine(x.Provider)), providerDiffers(d.Provider, x.Provider))
	row("cost", costKnown(d.CostKnown), "", false)
	if hints {
		b.wrapped(st.Muted, "An MCP server reports no execution: the effects are its tool's annotations (with MCP's defaults), the server's hints, not what it did.")
	}
	b.heading("Cost")
	b.kv("Estimated", shownCost(res, "/execution/estimated_cost", x.EstimatedCost))
	b.kv("Actual", shownCost(res, "/execution/actual_cost", x.ActualCost))
}

// shownCost is a cost as render.Cost says it, or the mask the host put
// in its place for the secret it held (runner.Result.Masked).
func shownCost(res *runner.Result, pointer string, v *float64) string {
	if l, ok := res.MaskedAt(pointer); ok {
		return l
	}
	return render.Cost(v)
}

// containmentLabelWidth is the layer column of the Containment section:
// the longest layer name ("capabilities", "unix sockets") and a space.
const containmentLabelWidth = 14

// containment writes what containment applied to the module process,
// layer by layer, as applied: each layer not enforced
// in warning style with why, and a refusal by sandbox: require said so.
// Nothing when no process was started (no enforcement was recorded).
func (r *resultView) containment(b *detailBuilder) {
	st := r.com.Styles
	e := r.res.Enforcement
	if e.Processes == "" {
		return
	}
	state := st.Success.Render("complete")
	switch {
	case !e.Contained:
		state = st.Warning.Render("none")
	case !e.Complete():
		n := len(e.Gaps)
		state = st.Warning.Render(fmt.Sprintf("%d %s", n, words.Plural(n, "gap", "gaps")))
	}
	b.lines = append(b.lines, "", st.Subtitle.Render("Containment")+st.Muted.Render(" · ")+state)
	if refusedUncontained(r.res) {
		b.wrapped(st.Warning, "! Refused: the config says sandbox: require and this module cannot be fully contained here; nothing ran. `modbay doctor` says why.")
	}
	// A layer named in a gap shows the gap's text, which says why.
	gapOf := map[string]string{}
	for _, g := range e.Gaps {
		if name, why, ok := strings.Cut(g, ": "); ok {
			gapOf[name] = why
		}
	}
	if why, ok := gapOf["containment"]; ok {
		b.wrapped(st.Warning, "! not contained ("+render.SanitizeLine(why)+"): the module ran as a plain process in its own process group")
	}
	vw := max(b.w-containmentLabelWidth, 8)
	for l := range strings.SplitSeq(e.String(), "\n") {
		name, value, _ := strings.Cut(l, ": ")
		why, gap := gapOf[name]
		if gap {
			value = why
		}
		gap = gap || strings.HasPrefix(value, "not enforced") || strings.HasPrefix(value, "kept")
		lab, val := st.Label, st.Text
		if gap {
			// Marked in words too, for a terminal without colors.
			lab, val, value = st.Warning, st.Warning, "! "+value
		}
		for i, wl := range strings.Split(common.Wrap(render.SanitizeLine(value), vw), "\n") {
			head := strings.Repeat(" ", containmentLabelWidth)
			if i == 0 {
				head = lab.Render(fmt.Sprintf("%-*s", containmentLabelWidth, name))
			}
			b.line(head + val.Render(wl))
		}
	}
}

// refusedUncontained reports whether res is sandbox: require's refusal of
// the module's process at its first instruction: a spawn failure whose
// host-written detail carries contain.ErrNotContained.
func refusedUncontained(res *runner.Result) bool {
	h := res.Host
	return h != nil && h.Code == modproto.CodeHostSpawnFailed && strings.Contains(h.Detail, contain.ErrNotContained.Error())
}

// json renders the JSON value of block (from raw) for w cells, once per
// width and colors; invalid JSON falls back to text.
func (r *resultView) json(block string, w int, raw func() []byte) string {
	o := render.Options{Width: w, Dark: r.com.Dark, NoColor: r.com.NoColor}
	if r.rendered.blocks == nil || r.rendered.as != o {
		r.rendered.as, r.rendered.blocks = o, map[string]string{}
	}
	if out, ok := r.rendered.blocks[block]; ok {
		return out
	}
	src := raw()
	out, err := render.JSON(src, o)
	if err != nil && out == "" {
		out = render.Text(src, render.Options{Width: w, NoColor: true})
	}
	out = strings.TrimRight(out, "\n")
	r.rendered.blocks[block] = out
	return out
}

// providerDiffers applies docs/protocol.md §7: a reported "" or "local", or a
// declared "" or "varies", is not a difference.
func providerDiffers(declared, reported string) bool {
	if reported == "" || reported == "local" || declared == "" || declared == "varies" {
		return false
	}
	return declared != reported
}

func costKnown(known bool) string {
	if known {
		return "known"
	}
	return "unknown"
}

// cleanBlock sanitizes multi-line module text and expands tabs, so each
// line's width is what it looks.
func cleanBlock(s string) string {
	return strings.ReplaceAll(render.Sanitize(s), "\t", "    ")
}

// followable reports whether the selected artifact is a resource link
// the run's server can read (Follow).
func (r *resultView) followable() bool {
	a, ok := r.SelectedArtifact()
	return ok && r.plan != nil && isLink(r.plan.Module, a)
}
