package viewer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"modbay/modproto"
	"modbay/render"
	"modbay/ui/common"
)

// openFile opens path with NewFile in a w×h viewer, running its Cmds.
func openFile(t *testing.T, meta render.Meta, path string, w, h int) *fixture {
	t.Helper()
	com := common.New(true)
	com.Width, com.Height = w, h
	f := &fixture{t: t, m: NewFile(com, DefaultKeyMap(), Env{}, meta, path, t.TempDir())}
	f.run(f.m.Load())
	if f.m.Loading() {
		t.Fatal("still loading after its Cmds ran")
	}
	return f
}

// TestNewFileOpensFilesOutsideARun: a SKILL.md and a history record
// open from render metadata and a path in the same viewers as
// artifacts, without a run, a request id or a verified artifact; the
// header does not claim "verified" for them, and a saved copy keeps the
// file's name.
func TestNewFileOpensFilesOutsideARun(t *testing.T) {
	dir := t.TempDir()
	skill := filepath.Join(dir, "SKILL.md")
	os.WriteFile(skill, []byte("---\nname: demo\n---\n\n# Demo skill\n\nUse it *well*.\n"), 0o644)
	record := filepath.Join(dir, "run-42.json")
	os.WriteFile(record, []byte(`{"request_id":"run-42","ok":true,"artifacts":[{"id":"a1"}]}`), 0o644)

	f := openFile(t, render.Meta{MediaType: "text/markdown"}, skill, 60, 14)
	frame := ansi.Strip(f.frame())
	if f.m.Presentation() != modproto.PresentationMarkdown || !strings.Contains(frame, "Demo skill") || !strings.Contains(frame, "SKILL.md") {
		t.Errorf("SKILL.md not in the markdown viewer:\n%s", frame)
	}
	if strings.Contains(frame, "verified") || f.m.RequestID() != "" {
		t.Errorf("a file outside a run is shown as a verified artifact:\n%s", frame)
	}
	save := t.TempDir()
	f.run(f.m.Save(save))
	if _, err := os.Stat(filepath.Join(save, "SKILL.md")); err != nil {
		t.Errorf("saved copy: %v (note %q)", err, f.m.Note())
	}

	f = openFile(t, render.Meta{Title: "History: run-42", MediaType: "application/json", Verified: false}, record, 60, 14)
	frame = ansi.Strip(f.frame())
	if f.m.Presentation() != modproto.PresentationJSON || !strings.Contains(frame, `"request_id": "run-42"`) || !strings.Contains(frame, "History: run-42") {
		t.Errorf("history record not in the JSON tree:\n%s", frame)
	}
}
