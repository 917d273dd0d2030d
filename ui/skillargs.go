package ui

import (
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/modproto"
	"modbay/render"
	"modbay/skills"
	"modbay/ui/common"
	"modbay/ui/form"
	"modbay/ui/formview"
)

// screenSkillArgs is a skill's arguments as a form (built by the form
// engine from the declared arguments) above the body rendered with them,
// updated on every key.
const screenSkillArgs screenKind = "skill arguments"

func init() { register(screenSkillArgs, openSkillArgsScreen) }

// skillArgsScreen hosts the arguments form and the live rendering.
type skillArgsScreen struct {
	com  *common.Common
	r    skills.Record
	form *formview.Model
	// renderedDir is where the rendering is written (Options.RenderedDir).
	renderedDir string
	// values are the form's current values; res the body rendered with
	// them.
	values map[string]string
	res    skills.RenderResult
	w, h   int
	note   string
}

// argumentsSchema is the JSON Schema of a skill's arguments: an object
// with one optional string property per argument, its description and
// default carried over.
func argumentsSchema(args []skills.Argument) json.RawMessage {
	props := map[string]any{}
	order := make([]string, 0, len(args))
	for _, a := range args {
		p := map[string]any{"type": "string", "title": a.Name}
		if a.Description != "" {
			p["description"] = a.Description
		}
		if a.Default != "" {
			p["default"] = a.Default
		}
		props[a.Name] = p
		order = append(order, a.Name)
	}
	// Properties in declaration order: the form shows fields in the
	// order the schema's JSON lists them.
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i, name := range order {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := modproto.EncodeJSON(name)
		v, _ := modproto.EncodeJSON(props[name])
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteString(`}}`)
	return json.RawMessage(b.String())
}

// openSkillArgsScreen builds the form of arg (a usable skills.Record with
// arguments); nil otherwise.
func openSkillArgsScreen(m *Model, arg any) (Screen, tea.Cmd) {
	r, ok := arg.(skills.Record)
	if !ok || !r.Usable() || len(r.Arguments) == 0 {
		return nil, nil
	}
	f, err := form.Build(argumentsSchema(r.Arguments))
	if err != nil {
		return nil, nil
	}
	s := &skillArgsScreen{com: m.com, r: r, form: formview.New(m.com, f, m.validate), renderedDir: m.opts.RenderedDir}
	s.rerender()
	return s, nil
}

// rerender reads the form's values and renders the body with them.
func (s *skillArgsScreen) rerender() {
	s.values = map[string]string{}
	var v map[string]any
	if err := json.Unmarshal(s.form.Value(), &v); err == nil {
		for k, x := range v {
			if str, ok := x.(string); ok {
				s.values[k] = str
			} else if x != nil {
				s.values[k] = fmt.Sprint(x)
			}
		}
	}
	s.res = skills.Render(s.r.Body, s.r.Arguments, s.values)
}

// Kind implements Screen.
func (s *skillArgsScreen) Kind() screenKind { return screenSkillArgs }

// formHeight is the form's share of the screen: half, at least 3 lines.
func (s *skillArgsScreen) formHeight() int { return max(s.h/2, 3) }

// SetSize implements Screen.
func (s *skillArgsScreen) SetSize(w, h int) {
	s.w, s.h = w, h
	s.form.SetSize(w, s.formHeight())
}

// Typing implements Screen: the form's fields take text.
func (s *skillArgsScreen) Typing() bool { return s.form.Typing() }

// questionIsText marks the screen as one where "?" may be typed.
func (s *skillArgsScreen) questionIsText() {}

// Crumb implements Screen.
func (s *skillArgsScreen) Crumb(bool) string {
	return render.SanitizeLine(s.r.Key.Name) + " › arguments"
}

// ShortHelp implements help.KeyMap: the form's.
func (s *skillArgsScreen) ShortHelp() []key.Binding { return s.form.ShortHelp() }

// EssentialHelp keeps submit (here: show it rendered).
func (s *skillArgsScreen) EssentialHelp() []key.Binding {
	return []key.Binding{formview.DefaultKeyMap().Submit}
}

// FullHelp implements help.KeyMap.
func (s *skillArgsScreen) FullHelp() [][]key.Binding { return s.form.FullHelp() }

// Update implements Screen: keys edit the form and the rendering follows;
// submit shows the rendering in the markdown viewer.
func (s *skillArgsScreen) Update(msg tea.Msg) (Action, tea.Cmd) {
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
	act, cmd := s.form.Update(msg)
	s.rerender()
	switch act.(type) {
	case formview.ActionBack:
		return actionPop{}, cmd
	case formview.ActionSubmit:
		text, name, dir := s.res.Text, s.r.Key.Name, s.renderedDir
		meta := render.Meta{Title: "Skill " + name + " with arguments", MediaType: "text/markdown", Digest: s.r.Digest}
		return nil, tea.Batch(cmd, func() tea.Msg { return writeRendered(dir, s, name+"-args", text, meta) })
	case formview.ActionSavePreset:
		s.note = "Presets are not kept for skill arguments."
	}
	return nil, cmd
}

// View implements Screen: the form, then the body as rendered with the
// values so far, its unknown placeholders last.
func (s *skillArgsScreen) View() string {
	st := s.com.Styles
	w := max(s.w, 1)
	out := []string{s.form.View()}
	rest := s.h - strings.Count(out[0], "\n") - 1
	head := "Rendered with these values (ctrl+s shows it formatted)"
	if s.note != "" {
		head = "✗ " + s.note
	}
	lines := []string{st.Subtitle.Render(common.Trunc(head, w))}
	if u := s.res.UnknownPlaceholders; len(u) > 0 {
		lines = append(lines, st.Warning.Render(common.Trunc("unknown placeholders: "+render.SanitizeLine(strings.Join(u, " ")), w)))
	}
	body := strings.Split(common.Wrap(render.SanitizeText(strings.Trim(s.res.Text, "\n")), w), "\n")
	lines = append(lines, body...)
	if rest <= 0 {
		return out[0]
	}
	if len(lines) > rest {
		lines = lines[:rest]
	}
	return strings.Join(append(out, lines...), "\n")
}
