package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modbay/modproto"
	"modbay/ui/inputs"
)

// TestViewerRemembersMarkdownPerModule: m in a run's text artifact is
// kept for the run's module in the home's inputs, and the module's next
// text artifact opens rendered as markdown.
func TestViewerRemembersMarkdownPerModule(t *testing.T) {
	body := "[FILE] a.txt\n__init__\n"
	staged := filepath.Join(t.TempDir(), "blob")
	if err := os.WriteFile(staged, []byte(body), 0o444); err != nil {
		t.Fatal(err)
	}
	m := submittedResult(t, "invoke/success-with-artifact.json", 100, 30)
	m.flow.inputs = inputs.Store{Dir: t.TempDir()}
	h := newHarness(t, m)
	a := &m.result().res.Artifacts[0]
	a.Staged, a.Digest, a.Size, a.MediaType = staged, modproto.Digest([]byte(body)), int64(len(body)), "text/plain"
	a.Presentation, a.Artifact.Presentation = "", ""
	module := m.result().res.Module
	open := func() {
		h.key("enter")
		h.until("the artifact", func() bool { return m.screen() == screenViewer && !m.viewer().Loading() })
	}
	open()
	if !strings.Contains(m.View().Content, "__init__") {
		t.Fatalf("the text is not shown as sent:\n%s", m.View().Content)
	}
	h.key("m")
	h.until("the choice kept", func() bool { on, _ := m.flow.inputs.Markdown(module); return on })
	h.key("esc")
	open()
	h.until("the markdown", func() bool {
		v := m.View().Content
		return strings.Contains(v, "\x1b[1minit") && !strings.Contains(v, "__init__")
	})
}
