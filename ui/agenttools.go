package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/internal/words"
	"modbay/render"
	"modbay/ui/common"
	"modbay/ui/dialog"
)

// The agent tools screen (T on the module list): each tool modbay mcp
// serve exposes, as the agent reads it — name, title, description,
// annotations — and its pin; a changed tool, withheld from agents, shows
// what changed and is accepted with a (docs/gateway.md "Tool pinning").

const screenAgentTools screenKind = "agent tools"

func init() { register(screenAgentTools, openAgentToolsScreen) }

// openAgentToolsKey opens the screen from the module list.
var openAgentToolsKey = key.NewBinding(key.WithKeys("T"), key.WithHelp("T", "agent tools"))

// AgentTool is one tool as modbay mcp serve would serve it now.
type AgentTool struct {
	// Name, Title and Description are as tools/list sends them.
	Name, Title, Description string
	// Hints are the annotations that are set ("readOnlyHint"…).
	Hints []string
	// InputSchema and OutputSchema are the schemas as tools/list sends
	// them, indented JSON ("" for none).
	InputSchema, OutputSchema string
	// Changed is set when its definition differs from its pin: it is
	// withheld until accepted; Diff says what changed.
	Changed bool
	Diff    []string
	// Accept pins the definition shown (nil when not Changed).
	Accept func() error
}

// AgentCatalogue is what the screen lists: the tools, and a sentence
// saying whose catalogue it is (a live serve process's, or what serve
// would serve for the home).
type AgentCatalogue struct {
	Tools []AgentTool
	From  string
	// Stale, when set, reports (doing I/O, off Update) whether From no
	// longer holds: the serve process it names ended or rebuilt its
	// list, or one started. The screen asks on each refresh tick and
	// lists again when it does.
	Stale func() bool
}

// AgentToolsKeyMap is the screen's bindings.
type AgentToolsKeyMap struct {
	Up, Down, Accept, Schemas, Refresh, Back key.Binding
}

type agentToolsScreen struct {
	com      *common.Common
	keys     AgentToolsKeyMap
	list     func(context.Context) (AgentCatalogue, error)
	sessions func() []string
	live     []string
	stale    func() bool
	tools    []AgentTool
	from     string
	err      string
	note     string
	loaded   bool
	cursor   int
	seq      int
	w, h     int
	// schemas shows the selected tool's schemas.
	schemas bool
	// scroll is how far the view is scrolled into the selected tool's
	// block; below says the block goes on below the screen (down
	// scrolls it before it moves on).
	scroll int
	below  bool
	// loading is set while a listing is on its way.
	loading bool
	ctx     context.Context
}

// agentToolsMsg is a listing's answer, routed by seq.
type agentToolsMsg struct {
	seq  int
	cat  AgentCatalogue
	live []string
	err  error
}

// agentSessionsTick re-reads the live sessions while the screen is on top.
type agentSessionsTick struct{ seq int }

// agentSessionsMsg is a re-read's answer; stale when the listing's
// source no longer holds (AgentCatalogue.Stale).
type agentSessionsMsg struct {
	seq   int
	live  []string
	stale bool
}

// sessionsEvery is how often the screen re-reads the live sessions.
const sessionsEvery = 2 * time.Second

// agentPinAcceptedMsg is an acceptance's answer.
type agentPinAcceptedMsg struct {
	name string
	err  error
}

func openAgentToolsScreen(m *Model, _ any) (Screen, tea.Cmd) {
	if m.opts.AgentTools == nil {
		return nil, nil
	}
	s := &agentToolsScreen{com: m.com, list: m.opts.AgentTools, sessions: m.opts.AgentSessions, keys: AgentToolsKeyMap{
		Up:      key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:    key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Accept:  key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "accept changed tool")),
		Schemas: key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "schemas")),
		Refresh: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "refresh")),
		Back:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
	}}
	s.ctx = m.ctx
	if s.ctx == nil {
		s.ctx = context.Background()
	}
	return s, s.load(s.ctx)
}

// load lists the tools off Update.
func (s *agentToolsScreen) load(ctx context.Context) tea.Cmd {
	s.seq++
	s.loading = true
	seq, list, sessions := s.seq, s.list, s.sessions
	return func() tea.Msg {
		c, err := list(ctx)
		var live []string
		if sessions != nil {
			live = sessions()
		}
		return agentToolsMsg{seq: seq, cat: c, live: live, err: err}
	}
}

// tick re-reads the sessions, and asks whether the listing went stale,
// after sessionsEvery.
func (s *agentToolsScreen) tick() tea.Cmd {
	if s.sessions == nil && s.stale == nil {
		return nil
	}
	seq := s.seq
	return tea.Tick(sessionsEvery, func(time.Time) tea.Msg { return agentSessionsTick{seq: seq} })
}

func (s *agentToolsScreen) Kind() screenKind  { return screenAgentTools }
func (s *agentToolsScreen) Typing() bool      { return false }
func (s *agentToolsScreen) Crumb(bool) string { return "agent tools" }
func (s *agentToolsScreen) SetSize(w, h int)  { s.w, s.h = w, h }
func (s *agentToolsScreen) selected() *AgentTool {
	if s.cursor < 0 || s.cursor >= len(s.tools) {
		return nil
	}
	return &s.tools[s.cursor]
}

// Update implements Screen.
func (s *agentToolsScreen) Update(msg tea.Msg) (Action, tea.Cmd) {
	switch msg := msg.(type) {
	case agentToolsMsg:
		if msg.seq == s.seq {
			s.loaded, s.loading, s.tools, s.from, s.live, s.err = true, false, msg.cat.Tools, msg.cat.From, msg.live, ""
			s.stale = msg.cat.Stale
			if msg.err != nil {
				s.err = msg.err.Error()
			}
			s.cursor = min(s.cursor, max(len(s.tools)-1, 0))
			return nil, s.tick()
		}
	case agentSessionsTick:
		if msg.seq == s.seq {
			seq, sessions, stale := s.seq, s.sessions, s.stale
			return nil, func() tea.Msg {
				var live []string
				if sessions != nil {
					live = sessions()
				}
				return agentSessionsMsg{seq: seq, live: live, stale: stale != nil && stale()}
			}
		}
	case agentSessionsMsg:
		if msg.seq == s.seq {
			s.live = msg.live
			if msg.stale && !s.loading {
				return nil, s.load(s.ctx)
			}
			return nil, s.tick()
		}
	case agentPinAcceptedMsg:
		if msg.err != nil {
			s.note = "Not accepted: " + msg.err.Error()
			return nil, nil
		}
		s.note = "Accepted " + msg.name + ": serve processes of this home serve it again."
		return nil, s.load(s.ctx)
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, s.keys.Back):
			return actionPop{}, nil
		case key.Matches(msg, s.keys.Up) && s.scroll > 0:
			s.scroll = max(s.scroll-s.step(), 0)
		case key.Matches(msg, s.keys.Up):
			s.cursor, s.scroll = max(s.cursor-1, 0), 0
		case key.Matches(msg, s.keys.Down) && s.below:
			s.scroll += s.step()
		case key.Matches(msg, s.keys.Down):
			s.cursor, s.scroll = min(s.cursor+1, max(len(s.tools)-1, 0)), 0
		case key.Matches(msg, s.keys.Schemas):
			s.schemas = !s.schemas
		case key.Matches(msg, s.keys.Refresh) && !s.loading:
			s.note = ""
			return nil, s.load(s.ctx)
		case key.Matches(msg, s.keys.Accept) && s.canAccept():
			t := s.selected()
			name, accept := t.Name, t.Accept
			return actionAcceptTool{name: name, diff: t.Diff, room: s.h, accept: func() tea.Msg {
				return agentPinAcceptedMsg{name: name, err: accept()}
			}}, nil
		}
	}
	return nil, nil
}

// actionAcceptTool asks before pinning a changed tool's definition: the
// confirmation shows what is accepted (diff, cut to room lines of
// screen), and y runs accept.
type actionAcceptTool struct {
	name   string
	diff   []string
	room   int
	accept tea.Cmd
}

func (actionAcceptTool) isAction() {}

// confirmAcceptTool opens a's confirmation.
func (m *Model) confirmAcceptTool(a actionAcceptTool) tea.Cmd {
	lines := []string{"Serve processes of this home then serve " + a.name + " to agents as defined now, and pin this definition. What changed since it was pinned:", ""}
	var diff []string
	for _, d := range a.diff {
		mark, text := splitDiff(render.SanitizeLine(d))
		diff = append(diff, wrapMarked(mark, text, dialog.InnerWidth(m.com, m.com.Width))...)
	}
	keep := max(a.room-14, 4)
	for i, d := range diff {
		if i == keep && len(diff) > keep+1 {
			lines = append(lines, fmt.Sprintf("… %d more lines (n, then ↓ on the agent tools screen shows them)", len(diff)-keep))
			break
		}
		lines = append(lines, d)
	}
	lines = append(lines, "", "n keeps it withheld from agents.")
	m.confirmYes = func() tea.Cmd { return a.accept }
	m.dialogs = append(m.dialogs, dialog.NewConfirm(m.com, "Accept the changed tool "+a.name+"?", "accept it", lines...))
	return nil
}

// canAccept reports whether a acts on the selected tool.
func (s *agentToolsScreen) canAccept() bool {
	t := s.selected()
	return t != nil && t.Changed && t.Accept != nil
}

// ShortHelp implements help.KeyMap.
func (s *agentToolsScreen) ShortHelp() []key.Binding {
	b := []key.Binding{s.keys.Up, s.keys.Down, s.schemaKey()}
	if s.canAccept() {
		b = append(b, s.keys.Accept)
	}
	if !s.loading {
		b = append(b, s.keys.Refresh)
	}
	return append(b, s.keys.Back)
}

// schemaKey is the schemas toggle, its help saying what it does now.
func (s *agentToolsScreen) schemaKey() key.Binding {
	k := s.keys.Schemas
	if s.schemas {
		k.SetHelp("s", "hide schemas")
	} else {
		k.SetHelp("s", "show schemas")
	}
	return k
}

// FullHelp implements help.KeyMap: moving in one column, acting in
// another.
func (s *agentToolsScreen) FullHelp() [][]key.Binding {
	var move, act []key.Binding
	for _, b := range s.ShortHelp() {
		switch b.Help().Key {
		case s.keys.Up.Help().Key, s.keys.Down.Help().Key:
			move = append(move, b)
		default:
			act = append(act, b)
		}
	}
	return [][]key.Binding{move, act}
}

// View implements Screen: whose catalogue it is, the live sessions, one
// block per tool, the selected one marked with its diff when changed;
// the view follows the cursor and scrolls (pgdn) through a long block.
func (s *agentToolsScreen) View() string {
	st := s.com.Styles
	w := max(s.w, 20)
	var lines []string
	add := func(l string) { lines = append(lines, common.Trunc(l, w)) }
	wrap := func(text string, indent int, style func(...string) string) {
		for _, l := range strings.Split(common.WrapWords(text, max(w-indent, 10)), "\n") {
			add(strings.Repeat(" ", indent) + style(l))
		}
	}
	switch {
	case !s.loaded:
		add(st.Muted.Render("Listing the tools modbay mcp serve serves…"))
	case s.err != "":
		add(st.Error.Render("Cannot list them: " + render.SanitizeLine(s.err)))
	default:
		if s.from != "" {
			wrap(render.SanitizeLine(s.from), 0, st.Muted.Render)
		}
		if s.sessions != nil {
			if len(s.live) > 0 {
				add(st.Title.Render(fmt.Sprintf("%d live agent %s:", len(s.live), words.Plural(len(s.live), "session", "sessions"))))
			}
			for _, l := range s.live {
				add("  " + render.SanitizeLine(l))
			}
		}
		if len(s.tools) == 0 {
			add("")
			add(st.Muted.Render("No tool would be served: modbay list shows which modules are ready."))
		} else {
			add(st.Muted.Render(fmt.Sprintf("What each of its %d tools tells an agent (plus the modbay_job_* tools):", len(s.tools))))
		}
	}
	selStart, selEnd := 0, 0
	for i, t := range s.tools {
		if i == s.cursor {
			selStart = len(lines)
		}
		mark := "  "
		if i == s.cursor {
			mark = st.Selected.Render("›") + " "
		}
		state := st.Muted.Render("served")
		if t.Changed {
			state = st.Warning.Render("CHANGED since pinned: withheld from agents")
		}
		add("")
		add(mark + st.Title.Render(render.SanitizeLine(t.Name)) + st.Muted.Render(" ("+render.SanitizeLine(t.Title)+") ") + state)
		wrap(render.SanitizeLine(t.Description), 4, st.Text.Render)
		if len(t.Hints) > 0 {
			add("    " + st.Muted.Render("annotations: "+render.SanitizeLine(strings.Join(t.Hints, ", "))))
		}
		if t.Changed && i != s.cursor {
			add("    " + st.Muted.Render("changed: "+strings.Join(diffFieldNames(t.Diff), ", ")+" (select it to see what changed)"))
		}
		if t.Changed && i == s.cursor {
			add("    " + st.Subtitle.Render("What changed (- pinned, + served now):"))
			s.diffLines(t.Diff, w, add)
		}
		if s.schemas && i == s.cursor {
			s.schemaLines(t, add)
		}
		if i == s.cursor {
			selEnd = len(lines)
		}
	}
	if s.loading && s.loaded {
		add("")
		add(st.Muted.Render("Refreshing…"))
	}
	if s.note != "" {
		add("")
		add(st.Muted.Render(render.SanitizeLine(s.note)))
	}
	// The view scrolls only as far as the selected tool's block needs,
	// then as far into it as down asked, never past its end.
	h := max(s.h, 1)
	start := min(max(selEnd-h, 0), selStart)
	start = min(start+s.scroll, max(selEnd-h, start))
	s.scroll = start - min(max(selEnd-h, 0), selStart)
	s.below = start+h < selEnd
	lines = lines[start:]
	if len(lines) > h {
		lines = lines[:h]
	}
	return strings.Join(lines, "\n")
}

// step is how far up or down scrolls a long block: half the screen.
func (s *agentToolsScreen) step() int { return max(s.h/2, 1) }

// diffLines adds a definition's diff (gateway's Diff: "field:" lines,
// then "- ", "+ " and "  " lines), each wrapped to the width under its
// mark, removed lines in the error style, added ones in the success style.
func (s *agentToolsScreen) diffLines(diff []string, w int, add func(string)) {
	st := s.com.Styles
	for _, d := range diff {
		d = render.SanitizeLine(d)
		mark, text := splitDiff(d)
		style := st.Text.Render
		switch mark {
		case "":
			add("    " + st.Label.Render(common.Trunc(d, max(w-4, 10))))
			continue
		case "- ":
			style = st.Error.Render
		case "+ ":
			style = st.Success.Render
		default:
			style = st.Muted.Render
		}
		for _, l := range wrapMarked(mark, text, max(w-6, 12)) {
			add("      " + style(l))
		}
	}
}

// splitDiff is a diff line's mark ("- ", "+ ", "  "; "" for a field's
// name) and text.
func splitDiff(d string) (mark, text string) {
	if len(d) >= 2 && (d[:2] == "- " || d[:2] == "+ " || d[:2] == "  ") {
		return d[:2], d[2:]
	}
	return "", d
}

// wrapMarked wraps text to w cells with mark before each line.
func wrapMarked(mark, text string, w int) []string {
	var out []string
	for _, l := range strings.Split(common.Wrap(text, max(w-len(mark), 10)), "\n") {
		out = append(out, mark+l)
	}
	return out
}

// diffFieldNames are the fields a diff names ("description", …).
func diffFieldNames(diff []string) []string {
	var out []string
	for _, d := range diff {
		if f, ok := strings.CutSuffix(d, ":"); ok && !strings.HasPrefix(d, " ") && !strings.HasPrefix(d, "-") && !strings.HasPrefix(d, "+") {
			out = append(out, render.SanitizeLine(f))
		} else if i := strings.Index(d, ": ("); i > 0 && !strings.HasPrefix(d, " ") && !strings.HasPrefix(d, "-") && !strings.HasPrefix(d, "+") {
			out = append(out, render.SanitizeLine(d[:i]))
		}
	}
	if len(out) == 0 {
		return []string{"its definition"}
	}
	return out
}

// schemaLines adds the selected tool's schemas as the client receives
// them, each cut to what a screen shows with how many lines were left out.
func (s *agentToolsScreen) schemaLines(t AgentTool, add func(string)) {
	st := s.com.Styles
	keep := max((s.h-12)/2, 4) // both schemas fit with the tool's own lines
	for _, sc := range []struct{ name, text string }{{"inputSchema", t.InputSchema}, {"outputSchema", t.OutputSchema}} {
		if sc.text == "" {
			add("    " + st.Muted.Render(sc.name+": none"))
			continue
		}
		add("    " + st.Muted.Render(sc.name+":"))
		ls := strings.Split(render.Sanitize(sc.text), "\n")
		for j, l := range ls {
			if j == keep && len(ls) > keep+1 {
				add("      " + st.Muted.Render(fmt.Sprintf("… %d more lines (modbay mcp tools --schemas prints them all)", len(ls)-keep)))
				break
			}
			add("      " + l)
		}
	}
}

// EssentialHelp keeps accept in a narrow help bar.
func (s *agentToolsScreen) EssentialHelp() []key.Binding {
	if s.canAccept() {
		return []key.Binding{s.keys.Accept}
	}
	return nil
}
