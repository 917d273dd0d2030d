package viewer

import (
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"modbay/render"
	"modbay/ui/clipboard"
)

// copyMsg asks the viewer to copy text (a body's y): the viewer owns the
// clipboard and its note.
type copyMsg struct {
	tag
	// text is copied; what describes it in the note ("the JSON path .a").
	text, what string
}

// copiedMsg is a finished copy.
type copiedMsg struct {
	tag
	what string
	res  clipboard.Result
}

// copy puts text on the clipboard the session's way (Env.Clipboard) and
// says so when the copy has finished. Text from a module (a file name in a
// path, a JSON key) is sanitized first, so a newline, ESC or bidi control
// never reaches the clipboard raw (render.SanitizeLine: each shows as a
// visible stand-in, never dropped).
func (m *Model) copy(text, what string) tea.Cmd {
	text, what = render.SanitizeLine(text), render.SanitizeLine(what)
	m.note = "Copying " + what + "…"
	return m.env.Clipboard.Copy(text, func(r clipboard.Result) tea.Msg {
		return copiedMsg{what: what, res: r}
	})
}

// defaultArtifactName is a saved copy's name when the artifact's path
// gives none.
const defaultArtifactName = "artifact"

// saveName is the file name a saved copy of an artifact gets: the last
// element of the path the module reported (else its id), sanitized as one
// line (a newline, ESC, C1 or bidi control shows as a visible stand-in,
// render.SanitizeLine), with any separator left by that made harmless and
// never ".", ".." or empty.
func saveName(path, id string) string {
	base := filepath.Base(path)
	if base == string(filepath.Separator) {
		base = "" // a path of separators names no file
	}
	for _, cand := range []string{base, id} {
		name := strings.TrimSpace(render.SanitizeLine(cand))
		name = strings.NewReplacer("/", "_", `\`, "_").Replace(name)
		if name != "" && strings.Trim(name, ".") != "" {
			return name
		}
	}
	return defaultArtifactName
}
