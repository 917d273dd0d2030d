package formview

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"

	"modbay/ui/form"
)

// editorDoneMsg carries the text edited in $EDITOR back.
type editorDoneMsg struct {
	text string
	err  error
}

// editorReadyMsg says the input was written to path for the editor.
type editorReadyMsg struct {
	path string
	err  error
}

// ---- $EDITOR -------------------------------------------------------------

// openEditor writes the input to a temporary file (in a command: no I/O
// in Update) and then opens it in $EDITOR.
func (m *Model) openEditor(v json.RawMessage) tea.Cmd {
	text := form.Indent(v)
	return func() tea.Msg {
		f, err := os.CreateTemp("", "modbay-input-*.json")
		if err != nil {
			return editorReadyMsg{err: err}
		}
		defer f.Close()
		if _, err := f.WriteString(text + "\n"); err != nil {
			return editorReadyMsg{err: err}
		}
		return editorReadyMsg{path: f.Name()}
	}
}

// editorCommand is $VISUAL, else $EDITOR, else vi.
func editorCommand() string {
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if e := strings.TrimSpace(os.Getenv(v)); e != "" {
			return e
		}
	}
	return "vi"
}

// runEditor suspends the program and runs the editor on the file.
func (m *Model) runEditor(msg editorReadyMsg) tea.Cmd {
	if msg.err != nil {
		m.SetNote("Cannot open the editor: " + msg.err.Error())
		return nil
	}
	parts := strings.Fields(editorCommand())
	c := exec.Command(parts[0], append(parts[1:], msg.path)...)
	path := msg.path
	return tea.ExecProcess(c, func(err error) tea.Msg {
		defer os.Remove(path)
		if err != nil {
			return editorDoneMsg{err: err}
		}
		b, err := os.ReadFile(path)
		return editorDoneMsg{text: string(b), err: err}
	})
}

// editorDone takes the edited text: valid JSON goes into the form;
// anything else opens JSON mode with it, so nothing is lost.
func (m *Model) editorDone(msg editorDoneMsg) {
	if msg.err != nil {
		m.SetNote("The editor failed: " + msg.err.Error())
		return
	}
	m.jsonMode = true
	m.jsonArea.SetValue(strings.TrimRight(msg.text, "\n"))
	if err := m.leaveJSON(); err != nil {
		m.SetNote("The edited input is kept in JSON mode: " + err.Error())
		m.checkJSON()
		m.jsonArea.Focus()
		return
	}
	m.SetNote("Loaded the input from the editor.")
}
