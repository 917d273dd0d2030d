package ui

import (
	"path/filepath"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/render"
	"modbay/runner"
	"modbay/ui/viewer"
)

// viewerArg is what opens an artifact viewer: a verified artifact of run
// reqID and its siblings (a slide deck's images).
type viewerArg struct {
	reqID string
	// module is the run's module id: the viewer remembers its markdown
	// choice (key m) per module, an MCP server's by its id.
	module   string
	art      runner.VerifiedArtifact
	siblings []runner.VerifiedArtifact
}

// viewerScreen hosts an artifact viewer (ui/viewer) as a screen.
type viewerScreen struct {
	v    *viewer.Model
	keys viewer.KeyMap
	// crumb is the header's word for what is shown ("" is "artifact").
	crumb string
}

// Close stops the viewer's renders: the screen left the stack.
func (s *viewerScreen) Close() { s.v.Close() }

// openViewerScreen shows the artifact of arg (viewerArg) and starts loading it.
func openViewerScreen(m *Model, arg any) (Screen, tea.Cmd) {
	if f, ok := arg.(fileViewerArg); ok {
		v := viewer.NewFile(m.com, m.keys.Viewer, m.viewerEnv, f.meta, f.path, savedCopiesDir(m.workspace))
		v.SetSize(m.com.Width, m.bodyHeight())
		return &viewerScreen{v: v, keys: m.keys.Viewer, crumb: f.crumb}, v.Load()
	}
	a, ok := arg.(viewerArg)
	if !ok {
		return nil, nil
	}
	v := viewer.New(m.com, m.keys.Viewer, m.viewerEnv, a.reqID, a.art, a.siblings, savedCopiesDir(m.workspace))
	if m.flow.inputs.Dir != "" && a.module != "" {
		v.Remember(a.module, m.flow.inputs)
	}
	v.SetSize(m.com.Width, m.bodyHeight())
	return &viewerScreen{v: v, keys: m.keys.Viewer}, v.Load()
}

// SavedCopiesDir is the workspace folder the save prompt starts in. Saved
// copies are kept apart from the person's own files there, and the built-in
// examples skip it as they skip their own output folders (examples'
// savedCopiesDir), so a copy saved from one run is not read as input by the
// next; a person may still type any other directory.
const SavedCopiesDir = "saved"

// savedCopiesDir is <workspace>/saved, or "" without a workspace.
func savedCopiesDir(workspace string) string {
	if workspace == "" {
		return ""
	}
	return filepath.Join(workspace, SavedCopiesDir)
}

// viewer returns the top-most viewer, or nil.
func (m *Model) viewer() *viewer.Model {
	if v, ok := find[*viewerScreen](m); ok {
		return v.v
	}
	return nil
}

// Actions of the viewer screen.
type (
	// actionAskSaveDir asks for the directory to save the artifact into,
	// starting at dir; relative answers start in base.
	actionAskSaveDir struct{ dir, base string }
	// actionRediscover runs discovery again (module list).
	actionRediscover struct{}
)

func (actionAskSaveDir) isAction() {}
func (actionRediscover) isAction() {}

// Kind implements Screen.
func (s *viewerScreen) Kind() screenKind { return screenViewer }

// SetSize implements Screen.
func (s *viewerScreen) SetSize(w, h int) { s.v.SetSize(w, h) }

// Typing implements Screen: a search or filter prompt in the viewer.
func (s *viewerScreen) Typing() bool { return s.v.Typing() }

// Crumb implements Screen.
func (s *viewerScreen) Crumb(bool) string {
	if s.crumb != "" {
		return s.crumb
	}
	return "artifact"
}

// Reflow re-renders for a new width or new colors.
func (s *viewerScreen) Reflow() tea.Cmd { return s.v.Reflow() }

// ShortHelp implements help.KeyMap.
func (s *viewerScreen) ShortHelp() []key.Binding { return s.v.ShortHelp() }

// EssentialHelp is what the help bar keeps at any width: saving a copy
// (esc and the help key are always kept).
func (s *viewerScreen) EssentialHelp() []key.Binding {
	return []key.Binding{s.keys.Artifact.Save}
}

// FullHelp implements help.KeyMap.
func (s *viewerScreen) FullHelp() [][]key.Binding { return s.v.FullHelp() }

// HelpNotes shows the status note whole under the full help when the
// screen cuts it (at common.MaxNoteLines); a note shown whole is not
// repeated.
func (s *viewerScreen) HelpNotes() []string {
	if n := s.v.Note(); n != "" && s.v.NoteCut() {
		return []string{render.SanitizeLine(n)}
	}
	return nil
}

// View implements Screen.
func (s *viewerScreen) View() string { return s.v.View() }

// Update implements Screen.
func (s *viewerScreen) Update(msg tea.Msg) (Action, tea.Cmd) {
	act, cmd := s.v.Update(msg)
	switch a := act.(type) {
	case viewer.ActionBack:
		return actionPop{}, cmd
	case viewer.ActionAskSaveDir:
		return actionAskSaveDir{dir: a.Dir, base: a.Base}, cmd
	}
	return nil, cmd
}

// saveHint tells the save prompt's reader how the answer is read (see
// viewer.ResolveSaveDir).
func saveHint(base string) string {
	if base == "" {
		return "~ is your home directory; give an absolute path or ~/…"
	}
	return "~ is your home directory; a relative path starts in " + base
}
