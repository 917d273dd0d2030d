package ui

import (
	"context"
	"fmt"
	"mime"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/render"
	"modbay/skills"
	"modbay/ui/common"
	"modbay/ui/dialog"
	"modbay/ui/list"
)

// screenSkillResources lists a skill folder's resources; enter previews
// one through the artifact viewers.
const screenSkillResources screenKind = "skill resources"

func init() { register(screenSkillResources, openSkillResourcesScreen) }

// skillResScreen is the resources list of one skill.
type skillResScreen struct {
	com  *common.Common
	keys SkillsKeyMap
	r    skills.Record
	list *list.Model
	note string
	// renderedDir is where resource copies are written
	// (Options.RenderedDir).
	renderedDir string
	// run runs a script (nil: scripts are off); ctx is the cockpit's.
	run func(ctx context.Context, dir, loc string) (skills.ScriptResult, error)
	ctx context.Context
	// asking is the script waiting for approval ("" for none), asked when
	// the question appeared; running is the script in flight.
	asking  string
	asked   time.Time
	running string
	// result is the last script run's outcome.
	result *skills.ScriptResult
}

// scriptDoneMsg is a script run's outcome.
type scriptDoneMsg struct {
	to  Screen
	res skills.ScriptResult
	err error
}

// openSkillResourcesScreen lists the resources of arg (a usable
// skills.Record with resources); nil otherwise.
func openSkillResourcesScreen(m *Model, arg any) (Screen, tea.Cmd) {
	r, ok := arg.(skills.Record)
	if !ok || !r.Usable() || !r.Resources.HasResources {
		return nil, nil
	}
	s := &skillResScreen{com: m.com, keys: m.keys.Skills, r: r, run: m.opts.RunSkillScript, ctx: m.ctx, renderedDir: m.opts.RenderedDir,
		list: list.New(m.com, m.keys.List, "filter by path", "No resource matches the filter.")}
	items := make([]list.Item, len(r.Resources.Locations))
	for i, l := range r.Resources.Locations {
		items[i] = &resItem{s: s, loc: l}
	}
	s.list.SetItems(items, nil)
	return s, nil
}

// resItem is one resource location.
type resItem struct {
	s   *skillResScreen
	loc string
}

// FilterValue matches the path.
func (it *resItem) FilterValue() string { return it.loc }

// Row draws the path, its media type dimmed.
func (it *resItem) Row(sel bool, w int) string {
	st := it.s.com.Styles
	n := render.SanitizeLine(it.loc)
	if sel {
		n = st.Selected.Render(n)
	}
	return common.Trunc(st.Cursor(sel)+n+"  "+st.ID.Render(mediaTypeOf(it.loc)), w)
}

// Detail says what enter does with the resource.
func (it *resItem) Detail(w int) string {
	b := detailBuilder{com: it.s.com, w: w}
	b.line(it.s.com.Styles.Title.Render(render.SanitizeLine(path.Base(it.loc))))
	b.kv("Path", it.loc)
	b.kv("Type", mediaTypeOf(it.loc))
	b.line("")
	b.line(it.s.com.Styles.Muted.Render("enter previews it (read inside the skill's folder only)"))
	return b.String()
}

// mediaTypeOf guesses a resource's media type from its extension
// (Markdown and plain text named for the viewers), else
// application/octet-stream.
func mediaTypeOf(loc string) string {
	switch ext := strings.ToLower(path.Ext(loc)); ext {
	case ".md", ".markdown":
		return "text/markdown"
	case ".txt", ".sh", ".py", "":
		return "text/plain"
	default:
		if t := mime.TypeByExtension(ext); t != "" {
			return t
		}
	}
	return "application/octet-stream"
}

// Kind implements Screen.
func (s *skillResScreen) Kind() screenKind { return screenSkillResources }

// SetSize implements Screen.
func (s *skillResScreen) SetSize(w, h int) { s.list.SetSize(w, h) }

// Typing implements Screen.
func (s *skillResScreen) Typing() bool { return s.list.Typing() }

// Crumb implements Screen.
func (s *skillResScreen) Crumb(bool) string {
	return render.SanitizeLine(s.r.Key.Name) + " › resources"
}

// isScript reports whether loc is a script modbay runs (.sh, .py).
func isScript(loc string) bool {
	e := path.Ext(loc)
	return e == ".sh" || e == ".py"
}

// selectedScript is the selected resource when it is a script.
func (s *skillResScreen) selectedScript() (string, bool) {
	if it, ok := s.list.Selected().(*resItem); ok && isScript(it.loc) {
		return it.loc, true
	}
	return "", false
}

// approve answers the open question: y runs the script (keys in the
// first dialog.GracePeriod are ignored, so a key meant for something else
// never runs it), n or esc cancels.
func (s *skillResScreen) approve(kp tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(kp, s.keys.Deny), key.Matches(kp, s.keys.Back):
		s.asking = ""
		s.note = "Not run."
	case key.Matches(kp, s.keys.Approve) && s.com.Now().Sub(s.asked) >= dialog.GracePeriod:
		loc, dir, run, ctx, to := s.asking, s.r.Key.Location, s.run, s.ctx, Screen(s)
		s.asking, s.running = "", loc
		return func() tea.Msg {
			res, err := run(ctx, dir, loc)
			return scriptDoneMsg{to: to, res: res, err: err}
		}
	}
	return nil
}

// Update implements Screen.
func (s *skillResScreen) Update(msg tea.Msg) (Action, tea.Cmd) {
	if d, ok := msg.(scriptDoneMsg); ok && d.to == Screen(s) {
		s.running = ""
		if d.err != nil {
			s.note = d.err.Error()
			return nil, nil
		}
		s.result = &d.res
		return nil, nil
	}
	if kp, ok := msg.(tea.KeyPressMsg); ok && s.asking != "" {
		return nil, s.approve(kp)
	}
	if o, ok := msg.(skillOpenMsg); ok {
		if o.to != Screen(s) {
			return nil, nil
		}
		if o.err != nil {
			s.note = o.err.Error()
			return nil, nil
		}
		return actionOpen{kind: screenViewer, arg: o.file}, nil
	}
	act, cmd, handled := s.list.Update(msg)
	if a, ok := act.(list.ActionOpen); ok {
		s.note = ""
		return nil, s.preview(a.Item.(*resItem).loc)
	}
	kp, isKey := msg.(tea.KeyPressMsg)
	if handled || !isKey {
		return nil, cmd
	}
	switch {
	case key.Matches(kp, s.keys.Back):
		return actionPop{}, nil
	case key.Matches(kp, s.keys.Quit):
		return actionQuit{}, nil
	case key.Matches(kp, s.keys.Run) && s.running == "":
		loc, ok := s.selectedScript()
		switch {
		case !ok:
		case s.run == nil:
			s.note = "Running skill scripts is off: set skills: {scripts: true} in config.yaml."
		default:
			s.note, s.asking, s.asked = "", loc, s.com.Now()
		}
	}
	return nil, nil
}

// preview reads the resource confined to the skill's folder
// (skills.ReadResource: beneath the folder's handle, capped) and gives the
// viewers a copy of the bytes read, never the path itself, so a file
// swapped for a symlink after listing cannot lead the viewer outside.
func (s *skillResScreen) preview(loc string) tea.Cmd {
	dir, name, to, out := s.r.Key.Location, s.r.Key.Name, Screen(s), s.renderedDir
	return func() tea.Msg {
		if out == "" {
			return skillOpenMsg{to: to, err: errNoRenderedDir}
		}
		data, err := skills.ReadResourceBytes(dir, loc)
		if err != nil {
			return skillOpenMsg{to: to, err: err}
		}
		d := filepath.Join(out, "resources", safeFileName(name)+skills.HashSuffix(dir)[1:])
		if err := os.MkdirAll(d, 0o700); err != nil {
			return skillOpenMsg{to: to, err: err}
		}
		p := filepath.Join(d, safeFileName(strings.ReplaceAll(loc, "/", "_"))+path.Ext(loc))
		if err := os.WriteFile(p, data, 0o600); err != nil {
			return skillOpenMsg{to: to, err: err}
		}
		meta := render.Meta{Title: fmt.Sprintf("%s: %s", name, loc), MediaType: mediaTypeOf(loc), Path: p, Bytes: int64(len(data))}
		return skillOpenMsg{to: to, file: fileViewerArg{meta: meta, path: p, crumb: "resource"}}
	}
}

// ShortHelp implements help.KeyMap.
func (s *skillResScreen) ShortHelp() []key.Binding {
	if s.asking != "" {
		return []key.Binding{s.keys.Approve, s.keys.Deny}
	}
	b := s.list.ShortHelp()
	if s.list.Typing() {
		return b
	}
	if s.list.FilterValue() == "" {
		b = append(b, s.keys.Back)
	}
	if _, ok := s.selectedScript(); ok && s.running == "" {
		b = append(b, s.keys.Run)
	}
	return append(b, s.keys.Quit)
}

// EssentialHelp keeps open, or the approval's answers.
func (s *skillResScreen) EssentialHelp() []key.Binding {
	if s.asking != "" {
		return []key.Binding{s.keys.Approve, s.keys.Deny}
	}
	return s.list.EssentialHelp()
}

// FullHelp implements help.KeyMap.
func (s *skillResScreen) FullHelp() [][]key.Binding {
	if s.asking != "" {
		return [][]key.Binding{{s.keys.Approve, s.keys.Deny}}
	}
	g := s.list.FullHelp()
	if s.list.Typing() {
		return g
	}
	var own []key.Binding
	if s.list.FilterValue() == "" {
		own = append(own, s.keys.Back)
	}
	if _, ok := s.selectedScript(); ok && s.running == "" {
		own = append(own, s.keys.Run)
	}
	return append(g, append(own, s.keys.Quit))
}

// scriptLines is the approval question, the run in flight or the last
// run's outcome, for the top of the screen.
func (s *skillResScreen) scriptLines(w int) []string {
	st := s.com.Styles
	fit := func(style interface{ Render(...string) string }, text string) []string {
		return strings.Split(style.Render(common.FitWidth(common.Wrap(text, max(w, 1)), w)), "\n")
	}
	switch {
	case s.asking != "":
		q := fmt.Sprintf("Run %s? As far as the sandbox setting allows: the skill's folder read-only, a scratch folder read-write, no network; %d s deadline, output capped at %d KiB per stream. The outcome says what was enforced.",
			render.SanitizeLine(s.asking), int(skills.DefaultScriptTimeout.Seconds()), skills.MaxScriptOutput>>10)
		return fit(st.Warning, q)
	case s.running != "":
		return fit(st.Muted, "running "+render.SanitizeLine(s.running)+"…")
	case s.result != nil:
		r := s.result
		head := fmt.Sprintf("%s exited %d in %d ms", render.SanitizeLine(r.Location), r.ExitCode, r.DurationMS)
		switch {
		case r.TimedOut:
			head += " (deadline)"
		case r.ExitCode == skills.ExitCannotStart:
			head += " (could not start)"
		}
		if len(r.Enforcement.Gaps) > 0 {
			head += " · not enforced: " + strings.Join(r.Enforcement.Gaps, "; ")
		} else if r.Enforcement.Contained {
			head += " · contained"
		}
		out := fit(st.Subtitle, head)
		for _, n := range r.Notes {
			out = append(out, fit(st.Warning, "! "+render.SanitizeLine(n))...)
		}
		for _, l := range tailOf(r.Stdout, scriptTailLines) {
			out = append(out, common.Trunc(render.SanitizeLine(l), w))
		}
		for _, l := range tailOf(r.Stderr, scriptTailLines) {
			out = append(out, st.Warning.Render(common.Trunc(render.SanitizeLine(l), w)))
		}
		return out
	}
	return nil
}

// scriptTailLines is how many of each stream's last lines are shown.
const scriptTailLines = 3

// tailOf is the last n non-empty-trailing lines of s.
func tailOf(s string, n int) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	l := strings.Split(s, "\n")
	return l[max(len(l)-n, 0):]
}

// View implements Screen: a note, the filter, the list and the detail;
// the count when the list was cut at the index's limit.
func (s *skillResScreen) View() string {
	st := s.com.Styles
	w := s.list.Width()
	var top []string
	if s.note != "" {
		top = append(top, st.Error.Render(common.Trunc("✗ "+render.SanitizeLine(s.note), w)))
	}
	top = append(top, s.scriptLines(w)...)
	if ri := s.r.Resources; ri.MoreLocations {
		top = append(top, st.Warning.Render(common.Trunc(fmt.Sprintf("%d of %d resources listed (the index lists at most %d)", len(ri.Locations), ri.TotalCount, skills.MaxResourceLocations), w)))
	}
	if f := s.list.FilterView(); f != "" {
		top = append(top, f)
	}
	return strings.Join(append(top, s.list.PaneView(s.list.Height()-len(top))), "\n")
}
