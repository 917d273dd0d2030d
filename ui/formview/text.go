package formview

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/rivo/uniseg"

	"modbay/ui/form"
)

// ---- text editing: tabs, carriage returns, paste, grapheme clusters ------

// The bubbles editors cannot hold a tab or a carriage return: they turn a
// tab into spaces and "\r" into a line break (a single-line input turns
// both into a space), so a value holding them would change the moment a key
// touched its field. The form's editors show each as a visible stand-in
// (tabMark, crMark) and the node holds the real character: what is typed
// or pasted is what is sent. A stand-in typed
// literally reads as the character it stands for.
const (
	tabMark = '␉' // U+2409 SYMBOL FOR HORIZONTAL TABULATION
	crMark  = '␍' // U+240D SYMBOL FOR CARRIAGE RETURN
)

var (
	toEditorText   = strings.NewReplacer("\t", string(tabMark), "\r", string(crMark))
	fromEditorText = strings.NewReplacer(string(tabMark), "\t", string(crMark), "\r")
)

// editorText is a node's text as its editor shows it.
func editorText(s string) string { return toEditorText.Replace(s) }

// nodeText is an editor's text as the node holds it.
func nodeText(s string) string { return fromEditorText.Replace(s) }

// pastedText is bracketed-paste content as text: a terminal sends a pasted
// line break as "\r" or "\r\n"; each is one "\n".
func pastedText(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// lineCount is the number of lines in s ("a\nb" has 2).
func lineCount(s string) int { return strings.Count(s, "\n") + 1 }

// clusterBounds returns the rune offsets of the grapheme cluster
// boundaries of line (UAX #29: an emoji family, a flag, a letter with its
// combining accents are one cluster), from 0 to its rune count.
func clusterBounds(line string) []int {
	out := []int{0}
	g := uniseg.NewGraphemes(line)
	n := 0
	for g.Next() {
		n += len(g.Runes())
		out = append(out, n)
	}
	return out
}

// clusterStep returns how many runes one grapheme cluster spans from rune
// offset pos in line, backward (dir < 0) or forward: the distance to the
// nearest cluster boundary that way, so a cursor inside a cluster goes to
// its edge. 1 at the ends (the editor then does what it does there: join
// lines, or nothing).
func clusterStep(line []rune, pos, dir int) int {
	b := clusterBounds(string(line))
	if dir < 0 {
		for i := len(b) - 1; i >= 0; i-- {
			if b[i] < pos {
				return pos - b[i]
			}
		}
		return 1
	}
	for _, x := range b {
		if x > pos {
			return x - pos
		}
	}
	return 1
}

// clusterKeys are the editor keys that act on one character, which the
// form makes act on one grapheme cluster: each maps to the direction it
// goes.
type clusterKeys struct {
	back, forward, delBack, delForward key.Binding
}

// repeatFor returns how many times the editor must get kp so that it acts
// on one grapheme cluster: the runes of the cluster before (backspace,
// left) or after (delete, right) the cursor at rune offset pos of line; 1
// for any other key.
func (c clusterKeys) repeatFor(kp tea.KeyPressMsg, line []rune, pos int) int {
	switch {
	case key.Matches(kp, c.back, c.delBack):
		return clusterStep(line, pos, -1)
	case key.Matches(kp, c.forward, c.delForward):
		return clusterStep(line, pos, 1)
	}
	return 1
}

// updateInput gives msg to a single-line editor; a key that acts on one
// character acts on one grapheme cluster.
func updateInput(in *textinput.Model, msg tea.Msg) tea.Cmd {
	times := 1
	if kp, ok := msg.(tea.KeyPressMsg); ok {
		km := in.KeyMap
		c := clusterKeys{km.CharacterBackward, km.CharacterForward, km.DeleteCharacterBackward, km.DeleteCharacterForward}
		times = c.repeatFor(kp, []rune(in.Value()), in.Position())
	}
	var cmds []tea.Cmd
	for range times {
		var cmd tea.Cmd
		*in, cmd = in.Update(msg)
		cmds = append(cmds, cmd)
	}
	return tea.Batch(cmds...)
}

// updateArea gives msg to a multi-line editor; a key that acts on one
// character acts on one grapheme cluster (unless text is selected: then
// the key acts on the selection, once).
func updateArea(a *textarea.Model, msg tea.Msg) tea.Cmd {
	times := 1
	if kp, ok := msg.(tea.KeyPressMsg); ok && !a.HasSelection() {
		km := a.KeyMap
		c := clusterKeys{km.CharacterBackward, km.CharacterForward, km.DeleteCharacterBackward, km.DeleteCharacterForward}
		var line []rune
		if lines := strings.Split(a.Value(), "\n"); a.Line() < len(lines) {
			line = []rune(lines[a.Line()])
		}
		times = c.repeatFor(kp, line, a.Column())
	}
	var cmds []tea.Cmd
	for range times {
		var cmd tea.Cmd
		*a, cmd = a.Update(msg)
		cmds = append(cmds, cmd)
	}
	return tea.Batch(cmds...)
}

// paste puts bracketed-paste content at the cursor, in the focused field,
// never moving the focus. Line breaks ("\r\n", "\r") become "\n"; tabs are
// kept. In JSON mode and in a multi-line field the text goes in as it is.
// In a single-line string field text of several lines turns the field
// multi-line (as ctrl+j does) and the note says so; a field that holds
// one line only (a number, a formatted string, a key) takes a paste whose
// only line break ends it without that break, said in the note, and
// refuses any other with a note: lines are never joined silently.
func (m *Model) paste(content string) tea.Cmd {
	text := pastedText(content)
	if m.jsonMode {
		m.escArmed, m.armed = false, false
		m.clearProblemNote()
		return m.updateEditor(tea.PasteMsg{Content: text})
	}
	n := m.FocusedNode()
	if n == nil || !n.IsText() || n.ReadOnly || n.Null {
		m.setTransientNote("Nothing was pasted: this field takes no text (a text field or JSON mode, ctrl+e, does).")
		return nil
	}
	if usesArea(n) {
		return m.updateEditor(tea.PasteMsg{Content: editorText(text)})
	}
	if !strings.Contains(text, "\n") {
		return m.updateEditor(tea.PasteMsg{Content: editorText(text)})
	}
	lines := lineCount(text)
	if n.Kind == form.KindString && !n.Raw && takesNewlines(n) {
		cmd := m.pasteLines(n, editorText(text))
		m.setTransientNote(fmt.Sprintf("Pasted %d lines: this field now holds several lines (enter adds one, tab moves on).", lines))
		return cmd
	}
	if one := strings.TrimRight(text, "\n"); !strings.Contains(one, "\n") {
		cmd := m.updateEditor(tea.PasteMsg{Content: editorText(one)})
		m.setTransientNote("Pasted one line; the line break at its end was left out: " + oneLineWhat(n) + " holds one line.")
		return cmd
	}
	m.setTransientNote(fmt.Sprintf("Nothing was pasted: the text has %d lines and %s holds one line. Paste one line here, or the whole input in JSON mode (ctrl+e).", lines, oneLineWhat(n)))
	return nil
}

// pasteLines inserts text of several lines (editor text) at the cursor of
// one-line string field n, which from then on is edited over several
// lines, with the cursor after the pasted text.
func (m *Model) pasteLines(n *form.Node, text string) tea.Cmd {
	in := m.input(n)
	r := []rune(in.Value())
	pos := min(max(in.Position(), 0), len(r))
	before, after := string(r[:pos]), string(r[pos:])
	n.Text = nodeText(before + text + after)
	delete(m.inputs, n)
	a := m.area(n)
	a.SetValue(before + text)
	last := text[strings.LastIndex(text, "\n")+1:]
	a.InsertString(after)
	a.SetCursorColumn(len([]rune(last)))
	return tea.Batch(a.Focus(), m.edited(n))
}

// oneLineWhat names what a single-line field holds, for a note: "a
// number", "a date", "a key".
func oneLineWhat(n *form.Node) string {
	switch {
	case n.Kind == form.KindEntry:
		return "a key"
	case n.Kind == form.KindNumber || n.Kind == form.KindInteger:
		return "a number"
	case n.Schema != nil && n.Schema.Format != "":
		return "a " + n.Schema.Format
	}
	return "this field"
}
