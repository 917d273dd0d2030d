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

// AgentToolsKeyMap is the screen's bindings.
type AgentToolsKeyMap struct {
	Up, Down, Accept, Schemas, Back key.Binding
}

type agentToolsScreen struct {
	com      *common.Common
	keys     AgentToolsKeyMap
	list     func(context.Context) ([]AgentTool, error)
	sessions func() []string
	live     []string
	tools    []AgentTool
	err      string
	note     string
	loaded   bool
	cursor   int
	seq      int
	w, h     int
	// schemas shows the selected tool's schemas.
	schemas bool
}

// agentToolsMsg is a listing's answer, routed by seq.
type agentToolsMsg struct {
	seq   int
	tools []AgentTool
	live  []string
	err   error
}

// agentSessionsTick re-reads the live sessions while the screen is on top.
type agentSessionsTick struct{ seq int }

// agentSessionsMsg is a re-read's answer.
type agentSessionsMsg struct {
	seq  int
	live []string
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
		Back:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
	}}
	return s, s.load(m.ctx)
}

// load lists the tools off Update.
func (s *agentToolsScreen) load(ctx context.Context) tea.Cmd {
	s.seq++
	seq, list, sessions := s.seq, s.list, s.sessions
	return func() tea.Msg {
		t, err := list(ctx)
		var live []string
		if sessions != nil {
			live = sessions()
		}
		return agentToolsMsg{seq: seq, tools: t, live: live, err: err}
	}
}

// tick re-reads the sessions after sessionsEvery.
func (s *agentToolsScreen) tick() tea.Cmd {
	if s.sessions == nil {
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
			s.loaded, s.tools, s.live, s.err = true, msg.tools, msg.live, ""
			if msg.err != nil {
				s.err = msg.err.Error()
			}
			s.cursor = min(s.cursor, max(len(s.tools)-1, 0))
			return nil, s.tick()
		}
	case agentSessionsTick:
		if msg.seq == s.seq {
			seq, sessions := s.seq, s.sessions
			return nil, func() tea.Msg { return agentSessionsMsg{seq: seq, live: sessions()} }
		}
	case agentSessionsMsg:
		if msg.seq == s.seq {
			s.live = msg.live
			return nil, s.tick()
		}
	case agentPinAcceptedMsg:
		if msg.err != nil {
			s.note = "Not accepted: " + msg.err.Error()
			return nil, nil
		}
		s.note = "Accepted " + msg.name + ": serve processes of this home serve it again."
		return nil, s.load(context.Background())
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, s.keys.Back):
			return actionPop{}, nil
		case key.Matches(msg, s.keys.Up):
			s.cursor = max(s.cursor-1, 0)
		case key.Matches(msg, s.keys.Down):
			s.cursor = min(s.cursor+1, max(len(s.tools)-1, 0))
		case key.Matches(msg, s.keys.Schemas):
			s.schemas = !s.schemas
		case key.Matches(msg, s.keys.Accept):
			if t := s.selected(); t != nil && t.Changed && t.Accept != nil {
				name, accept := t.Name, t.Accept
				s.note = "Accepting " + name + "…"
				return nil, func() tea.Msg { return agentPinAcceptedMsg{name: name, err: accept()} }
			}
		}
	}
	return nil, nil
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

// FullHelp implements help.KeyMap.
func (s *agentToolsScreen) FullHelp() [][]key.Binding { return [][]key.Binding{s.ShortHelp()} }

// View implements Screen: one block per tool, the selected one marked;
// the view follows the cursor.
func (s *agentToolsScreen) View() string {
	st := s.com.Styles
	w := max(s.w, 20)
	var lines []string
	add := func(l string) { lines = append(lines, common.Trunc(l, w)) }
	switch {
	case !s.loaded:
		add(st.Muted.Render("Listing the tools modbay mcp serve would serve…"))
	case s.err != "":
		add(st.Error.Render("Cannot list them: " + render.SanitizeLine(s.err)))
	case len(s.tools) == 0:
		add(st.Muted.Render("No tool would be served: modbay list shows which modules are ready."))
	default:
		if s.sessions != nil {
			if len(s.live) == 0 {
				add(st.Muted.Render("No agent is connected (modbay mcp serve)."))
			} else {
				add(st.Title.Render(fmt.Sprintf("%d live agent %s:", len(s.live), words.Plural(len(s.live), "session", "sessions"))))
			}
			for _, l := range s.live {
				add("  " + render.SanitizeLine(l))
			}
			add("")
		}
		add(st.Muted.Render(fmt.Sprintf("What modbay mcp serve tells an agent about each of its %d tools (plus the modbay_job_* tools):", len(s.tools))))
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
		for _, l := range strings.Split(common.Wrap(render.SanitizeLine(t.Description), max(w-4, 10)), "\n") {
			add("    " + l)
		}
		if len(t.Hints) > 0 {
			add("    " + st.Muted.Render("annotations: "+render.SanitizeLine(strings.Join(t.Hints, ", "))))
		}
		for _, d := range t.Diff {
			add("    " + render.SanitizeLine(d))
		}
		if s.schemas && i == s.cursor {
			s.schemaLines(t, add)
		}
		if i == s.cursor {
			selEnd = len(lines)
		}
	}
	if s.note != "" {
		add("")
		add(st.Muted.Render(render.SanitizeLine(s.note)))
	}
	// The view scrolls only as far as the selected tool's block needs.
	h := max(s.h, 1)
	start := min(max(selEnd-h, 0), selStart)
	lines = lines[start:]
	if len(lines) > h {
		lines = lines[:h]
	}
	return strings.Join(lines, "\n")
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
