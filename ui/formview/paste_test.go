package formview

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"modbay/ui/internal/uitest"
)

// pasteSchema has a one-line field, a multi-line one, a date and a number.
const pasteSchema = `{"type":"object","properties":{
  "title":{"type":"string"},
  "body":{"type":"string","description":"Issue body (markdown)"},
  "day":{"type":"string","format":"date"},
  "n":{"type":"number"}}}`

func paste(m *Model, s string) { m.Update(tea.PasteMsg{Content: s}) }

// A bracketed paste keeps tabs and line breaks in a
// multi-line field ("\r\n" and "\r" are line breaks) and leaves the focus
// where it is; the tab stays through later keys.
func TestPasteKeepsTabsAndNewlinesInAMultiLineField(t *testing.T) {
	m := newSchemaForm(t, pasteSchema, 80, 30)
	keys(m, "tab")
	body := m.FocusedNode()
	paste(m, "a\tb\r\nc\rd")
	if m.FocusedNode() != body || body.Text != "a\tb\nc\nd" {
		t.Fatalf("focus %q, text %q", m.FocusedNode().Pointer(), body.Text)
	}
	feed(m, uitest.Type("!")...)
	keys(m, "left", "enter")
	if got := string(m.Value()); got != `{"body":"a\tb\nc\nd\n!"}` {
		t.Fatalf("value %s", got)
	}
	if !strings.Contains(m.View(), "a␉b") {
		t.Fatalf("the tab is not shown:\n%s", m.View())
	}
}

// A value holding a tab or a carriage return is not rewritten when a key
// merely moves the cursor in its field (the editors cannot hold either).
func TestLoadedTabsSurviveKeys(t *testing.T) {
	m := newSchemaForm(t, pasteSchema, 80, 30)
	keys(m, "ctrl+e")
	m.jsonArea.SetValue(`{"title":"a\tb","body":"x\r\ny"}`)
	keys(m, "ctrl+e")
	keys(m, "left", "right", "tab", "left", "right")
	if got := string(m.Value()); got != `{"title":"a\tb","body":"x\r\ny"}` {
		t.Fatalf("value %s", got)
	}
}

// A paste of several lines into a one-line text field makes it multi-line
// and says so; a field that holds one line (a date, a number) takes a
// paste whose only break ends it, without that break, and refuses any
// other: lines are never joined silently.
func TestPasteOfLinesIntoAOneLineField(t *testing.T) {
	m := newSchemaForm(t, pasteSchema, 80, 30)
	title := m.FocusedNode()
	feed(m, uitest.Type("<>")...)
	keys(m, "left")
	paste(m, "one\ntwo")
	if m.FocusedNode() != title || title.Text != "<one\ntwo>" || !title.IsMultiline() {
		t.Fatalf("focus %q, text %q", m.FocusedNode().Pointer(), title.Text)
	}
	if !strings.Contains(m.Note(), "Pasted 2 lines") {
		t.Fatalf("note %q", m.Note())
	}
	feed(m, uitest.Type("!")...)
	if title.Text != "<one\ntwo!>" {
		t.Fatalf("the cursor is not after the paste: %q", title.Text)
	}
	keys(m, "tab", "tab")
	day := m.FocusedNode()
	paste(m, "2024-02-03\n")
	if day.Text != "2024-02-03" || !strings.Contains(m.Note(), "line break at its end was left out") {
		t.Fatalf("date: %q, note %q", day.Text, m.Note())
	}
	keys(m, "tab")
	n := m.FocusedNode()
	paste(m, "1\n2")
	if n.Text != "" || m.FocusedNode() != n || !strings.Contains(m.Note(), "Nothing was pasted: the text has 2 lines and a number holds one line") {
		t.Fatalf("number: %q, note %q", n.Text, m.Note())
	}
	paste(m, "1\t2")
	if n.Text != "1\t2" {
		t.Fatalf("a tab pasted in a one-line field: %q", n.Text)
	}
}

// Enter moves on from a one-line field and breaks the line in a multi-line
// one; a paste in JSON mode goes in as it is.
func TestEnterAndPasteInJSONMode(t *testing.T) {
	m := newSchemaForm(t, pasteSchema, 80, 30)
	keys(m, "enter")
	if m.FocusedNode().Pointer() != "/body" {
		t.Fatalf("enter from a one-line field: %q", m.FocusedNode().Pointer())
	}
	keys(m, "enter")
	if m.FocusedNode().Pointer() != "/body" || m.FocusedNode().Text != "\n" {
		t.Fatalf("enter in a multi-line field: %q %q", m.FocusedNode().Pointer(), m.FocusedNode().Text)
	}
	keys(m, "ctrl+e")
	m.jsonArea.SetValue("")
	paste(m, "{\"title\":\r\n\"x\"}")
	if got := string(m.Value()); got != `{"title":"x"}` {
		t.Fatalf("JSON mode paste: %s (%q)", got, m.jsonArea.Value())
	}
}

// Backspace, delete and the arrows act on one grapheme cluster: an emoji
// family, a flag, a letter with a combining accent, in one-line and
// multi-line fields and in JSON mode.
func TestBackspaceDeletesAGraphemeCluster(t *testing.T) {
	const family, flag, accent = "👨‍👩‍👧‍👦", "🇫🇷", "e\u0301"
	m := newSchemaForm(t, pasteSchema, 80, 30)
	title := m.FocusedNode()
	paste(m, "a"+family+flag+accent)
	for i, want := range []string{"a" + family + flag, "a" + family, "a", ""} {
		keys(m, "backspace")
		if title.Text != want {
			t.Fatalf("backspace %d: %q, want %q", i+1, title.Text, want)
		}
	}
	paste(m, family+flag)
	keys(m, "left")
	feed(m, uitest.Type("x")...)
	keys(m, "left", "left", "delete")
	if title.Text != "x"+flag {
		t.Fatalf("left and delete: %q", title.Text)
	}

	keys(m, "tab")
	body := m.FocusedNode()
	paste(m, "1\n"+accent+family)
	keys(m, "backspace")
	if body.Text != "1\n"+accent {
		t.Fatalf("backspace in a multi-line field: %q", body.Text)
	}
	keys(m, "left")
	feed(m, uitest.Type(">")...)
	if body.Text != "1\n>"+accent {
		t.Fatalf("left in a multi-line field: %q", body.Text)
	}

	keys(m, "ctrl+e")
	m.jsonArea.SetValue(`{"title":"` + flag + `"}`)
	keys(m, "left", "left", "backspace")
	if got := string(m.Value()); got != `{"title":""}` {
		t.Fatalf("backspace in JSON mode: %s", got)
	}
}
