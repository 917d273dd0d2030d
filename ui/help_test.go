package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"modbay/modproto"
	"modbay/ui/common"
)

// tailLines returns the last n lines of a frame.
func tailLines(out string, n int) string {
	l := strings.Split(out, "\n")
	return ansi.Strip(strings.Join(l[max(len(l)-n, 0):], "\n"))
}

func TestFullHelpInAFormShowsEveryBinding(t *testing.T) {
	for _, w := range []int{80, 100, 120} {
		m, _ := newTest(t, nil, w, 24)
		openForm(t, m, 1)
		press(m, "ctrl+g")
		out := frame(t, m)
		help := tailLines(out, m.helpHeight())
		flat := strings.Join(strings.Fields(help), " ")
		if strings.Contains(help, "…") {
			t.Errorf("%d cols: the full help is cut:\n%s", w, help)
		}
		for _, g := range m.FullHelp() {
			for _, b := range g {
				if h := b.Help(); !strings.Contains(flat, h.Key+" "+h.Desc) {
					t.Errorf("%d cols: %q %q missing from the full help:\n%s", w, h.Key, h.Desc, help)
				}
			}
		}
	}
}

func TestViewerHelpBarKeepsMoreKeysAndEsc(t *testing.T) {
	dir := t.TempDir()
	body := []byte(`{"title":"Q1","rows":[1,2,3]}`)
	staged := filepath.Join(dir, "blob")
	if err := os.WriteFile(staged, body, 0o444); err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{60, 80, 100} {
		m, _ := newTest(t, nil, w, 24)
		h := newHarness(t, m)
		resultFor(t, m, "invoke/success-with-artifact.json")
		a := &m.result().res.Artifacts[0]
		a.Staged, a.Digest, a.Size = staged, modproto.Digest(body), int64(len(body))
		h.key("enter")
		h.until("render", func() bool { return m.screen() == screenViewer && !m.viewer().Loading() })
		bar := tailLines(frame(t, m), 1)
		if !strings.Contains(bar, "? more keys") || !strings.Contains(bar, "esc back") || strings.Contains(bar, "…") {
			t.Errorf("%d cols: help bar %q", w, bar)
		}
	}
}

// Only the root fits the help bar: a form's bar keeps its essentials and
// the way to the full help at every width the goldens use, never cut.
func TestFormHelpBarFitsWithTheEssentials(t *testing.T) {
	for _, w := range []int{80, 100, 120} {
		for i := range 2 {
			m, _ := newTest(t, nil, w, 24)
			openForm(t, m, i)
			for range 3 {
				bar := tailLines(frame(t, m), 1)
				for _, want := range []string{"tab", "ctrl+s", "ctrl+e", "esc", "ctrl+g"} {
					if !strings.Contains(bar, want) {
						t.Errorf("%d cols, form %d: help bar lacks %s: %q", w, i, want, bar)
					}
				}
				if strings.Contains(bar, "…") || common.Width(bar) > w {
					t.Errorf("%d cols, form %d: help bar cut: %q", w, i, bar)
				}
				press(m, "tab")
			}
		}
	}
}

// TestViewerNoteNotTwiceInHelp: a viewer's note shown whole on screen
// (E without an editor) is not repeated under the full help; a note the
// screen cuts is.
func TestViewerNoteNotTwiceInHelp(t *testing.T) {
	dir := t.TempDir()
	body := []byte(`{"title":"Q1","rows":[1,2,3]}`)
	staged := filepath.Join(dir, "blob")
	if err := os.WriteFile(staged, body, 0o444); err != nil {
		t.Fatal(err)
	}
	m, _ := newTest(t, nil, 100, 30)
	m.viewerEnv.TmpDir = t.TempDir() // a home, but no pager nor editor
	h := newHarness(t, m)
	resultFor(t, m, "invoke/success-with-artifact.json")
	a := &m.result().res.Artifacts[0]
	a.Staged, a.Digest, a.Size = staged, modproto.Digest(body), int64(len(body))
	h.key("enter")
	h.until("render", func() bool { return m.screen() == screenViewer && !m.viewer().Loading() })
	h.key("E")
	h.key("?")
	if out := ansi.Strip(frame(t, m)); strings.Count(out, "No editor") != 1 {
		t.Fatalf("the note is shown %d times:\n%s", strings.Count(out, "No editor"), out)
	}
}
